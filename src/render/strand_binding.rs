//! Binding a coat's strands to the renderer: the solver's position buffers and one packed
//! record per strand ([`FurRenderer::set_strands`]), or a simulation's coat, whose
//! CPU-stepped positions the renderer copies into a buffer of its own each frame.

use super::RenderError;
use super::hair::RibbonStrand;
use super::renderer::FurRenderer;
use super::settings::Raster;
use crate::sim::FurSim;

impl FurRenderer {
    /// Binds strands to draw: the solver's two position buffers (six `vec4` per strand,
    /// used in turn; pass the same buffer twice if there is one) and one packed record per
    /// strand. The ribbons read the positions straight from these buffers every frame.
    pub fn set_strands(
        &mut self,
        positions: [&wgpu::Buffer; 2],
        strands: &[RibbonStrand],
    ) -> Result<(), RenderError> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let binding = self
            .hair_strands
            .bind(&self.device, &self.cull, positions, strands);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(RenderError::Gpu(e.to_string()));
        }
        self.strands = Some(binding?);
        self.culled_last_frame = false;
        // New buffers: nothing shaded or drawn into the light's maps from them yet.
        self.turns.forget();
        self.host_positions = None;
        self.host_latest.clear();
        Ok(())
    }

    /// Binds the strands of `sim`: a GPU-stepped coat's own position buffers, which every
    /// frame reads as they are; or, for a CPU-stepped one, a buffer of the renderer's that
    /// [`FurRenderer::upload_strands_from_sim`] fills with its latest positions (once now).
    pub fn set_strands_from_sim(&mut self, sim: &FurSim) -> Result<(), RenderError> {
        let strands = match sim.body_groom() {
            Some(groom) => groom
                .roots
                .iter()
                .map(RibbonStrand::from_body_root)
                .collect(),
            None => RibbonStrand::from_roots(&sim.groom().roots),
        };
        if let Some(gpu) = sim.gpu() {
            let [a, b] = gpu.position_buffers();
            return self.set_strands([a, b], &strands);
        }
        let positions = sim.host_positions().ok_or_else(|| {
            RenderError::Strands("the simulation has neither GPU nor host positions".into())
        })?;
        let bytes = std::mem::size_of_val(positions) as u64;
        let limits = self.device.limits();
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if bytes > limit {
            return Err(RenderError::Strands(format!(
                "{} strands' positions take {bytes} bytes, more than this device binds in one buffer ({limit}); draw fewer strands",
                positions.len() / crate::sim::POINTS_PER_STRAND
            )));
        }
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render: host-stepped positions"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        self.set_strands([&buffer, &buffer], &strands)?;
        self.host_positions = Some(buffer);
        self.upload_strands_from_sim(sim)
    }

    /// Copies a CPU-stepped coat's latest positions into the buffer the frames read (bound
    /// by [`FurRenderer::set_strands_from_sim`]); the copy lands at the next submission,
    /// before that frame's passes; while the native path is chosen the renderer keeps a
    /// copy on the host too, which that path draws from. Does nothing for a GPU-stepped
    /// coat. Errors if `sim` is not the coat that was bound (another strand count).
    pub fn upload_strands_from_sim(&mut self, sim: &FurSim) -> Result<(), RenderError> {
        let (Some(buffer), Some(positions)) = (&self.host_positions, sim.host_positions()) else {
            return Ok(());
        };
        let bytes: &[u8] = bytemuck::cast_slice(positions);
        if bytes.len() as u64 != buffer.size() {
            return Err(RenderError::Strands(format!(
                "the bound coat's positions take {} bytes; this simulation's take {}",
                buffer.size(),
                bytes.len()
            )));
        }
        self.queue.write_buffer(buffer, 0, bytes);
        // The native path draws on the host: it keeps what the buffer now holds, so the
        // frame need not read it back. Cleared otherwise, so a copy is never stale.
        self.host_latest.clear();
        if self.hair.chosen() == Raster::Native {
            self.host_latest.extend_from_slice(positions);
        }
        Ok(())
    }
}
