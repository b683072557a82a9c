//! The WGSL strand rasteriser as a hair path ([`crate::render::Raster::Strands`]): the
//! camera's hair by compute with one sample a pixel, analytic coverage and the nearest
//! layers of each pixel in depth order ([`StrandRaster`]), composited over the surfaces in
//! the camera's last pass. The light's maps of its frames are still drawn by the ribbons
//! (`HairPaths::light_path` sends them there); the `contact` colouring too.
//!
//! It reads the surfaces' depth as a texture between the surfaces' pass and the camera's
//! last pass, so the frame's depth target has `TEXTURE_BINDING` (`target::FrameTargets`).

use super::path::{CameraHair, HairDraw, HairFrame, HairPath};
use crate::render::RenderError;
use crate::render::shadow::{cleared_color, cleared_depth};
use crate::render::strand_raster::{DEFAULT_CAPACITY, StrandRaster, StrandRasterInputs, TILE};
use crate::render::target::TargetLayout;
use crate::render::timing::{Pass, Span};

/// The strand rasteriser's path: its layouts, and the rasteriser itself once a frame has
/// needed it (compiling its pipelines stalls a frame, so a renderer that never draws by
/// it never pays for them).
#[derive(Debug)]
pub struct StrandsGpuPath {
    /// Group 0 of its pipelines (the frame's uniforms).
    frame_layout: wgpu::BindGroupLayout,
    /// Group 1 of its pipelines (the strands: `HairStrands::layout`).
    strands_layout: wgpu::BindGroupLayout,
    /// The camera's targets it composites into.
    target: TargetLayout,
    /// The rasteriser, built the first time a frame draws hair with it.
    raster: Option<StrandRaster>,
}

impl StrandsGpuPath {
    /// The path for camera targets of `target`, its passes reading the frame (`frame`,
    /// group 0) and the strands (`strands`, group 1); nothing is compiled yet.
    pub fn new(
        frame: &wgpu::BindGroupLayout,
        strands: &wgpu::BindGroupLayout,
        target: TargetLayout,
    ) -> Self {
        StrandsGpuPath {
            frame_layout: frame.clone(),
            strands_layout: strands.clone(),
            target,
            raster: None,
        }
    }

    /// The rasteriser, once a frame has drawn by it (its overflow, its output and its
    /// capacity are read through it).
    pub fn raster(&self) -> Option<&StrandRaster> {
        self.raster.as_ref()
    }
}

/// Entries a tile's list holds for a target of `size` on a device whose largest storage
/// binding is `limit` bytes: [`DEFAULT_CAPACITY`], or fewer where the lists would not fit
/// one binding. The tiles past a smaller capacity are drawn by the rasteriser's slow path:
/// slower, the same picture; so a large frame on a device with small bindings is drawn,
/// not refused.
pub fn capacity_for(size: (u32, u32), limit: u64) -> u32 {
    let tiles = u64::from(size.0.div_ceil(TILE)) * u64::from(size.1.div_ceil(TILE));
    let fits = limit / (4 * tiles.max(1));
    fits.clamp(1, u64::from(DEFAULT_CAPACITY)) as u32
}

impl HairPath for StrandsGpuPath {
    /// Only clears the maps: `HairPaths` gives the light's maps of this path's frames to
    /// the ribbons, which draw the hair into them; a frame recorded here casts no hair
    /// shadow rather than a wrong one.
    fn record_light(
        &mut self,
        gpu: &HairFrame,
        encoder: &mut wgpu::CommandEncoder,
        _hair: Option<HairDraw>,
    ) {
        let maps = &gpu.shadow.maps;
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow: hair maps cleared"),
            color_attachments: &[
                cleared_color(&maps.first_hair, wgpu::Color::WHITE),
                cleared_color(&maps.deep_opacity, wgpu::Color::TRANSPARENT),
            ],
            depth_stencil_attachment: Some(cleared_depth(&maps.hair_depth)),
            timestamp_writes: gpu.timestamps.map(|t| t.render(Pass::Shadow, Span::End)),
            occlusion_query_set: None,
            multiview_mask: None,
        });
    }

    /// Bins and draws the strands into the rasteriser's own buffers, reading the surfaces'
    /// depth and the points' colours from the shading pass (so [`CameraHair::look`] is
    /// `Shaded`: `HairPaths` gives `contact` to the ribbons).
    fn prepare_camera(
        &mut self,
        gpu: &HairFrame,
        encoder: &mut wgpu::CommandEncoder,
        hair: HairDraw,
        camera: &CameraHair,
    ) -> Result<(), RenderError> {
        let raster = self.raster.get_or_insert_with(|| {
            StrandRaster::new(
                gpu.device,
                &self.frame_layout,
                &self.strands_layout,
                &self.target,
            )
        });
        let limits = gpu.device.limits();
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        raster.set_capacity(capacity_for(camera.targets.size, limit));
        raster.record(
            gpu.device,
            gpu.queue,
            encoder,
            &StrandRasterInputs {
                frame: gpu.frame,
                strands_group: hair.group(),
                drawn: hair.count,
                shaded_points: hair.strands.shaded_points(),
                surface_depth: &camera.targets.depth,
                size: camera.targets.size,
            },
        )
    }

    fn record_camera(
        &self,
        _gpu: &HairFrame,
        pass: &mut wgpu::RenderPass,
        _hair: HairDraw,
        _camera: &CameraHair,
    ) {
        if let Some(raster) = &self.raster {
            raster.composite(pass);
        }
    }

    fn memory_bytes(&self) -> u64 {
        self.raster.as_ref().map_or(0, StrandRaster::memory_bytes)
    }

    fn release_buffers(&mut self) {
        // The pipelines stay: building them again would stall the next frame.
        if let Some(raster) = &mut self.raster {
            raster.release_buffers();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tile_lists_shrink_only_to_fit_one_binding() {
        // 1080p: 240 × 135 tiles of 4-byte entries.
        let full = 4 * 240 * 135 * u64::from(DEFAULT_CAPACITY);
        assert_eq!(capacity_for((1920, 1080), full), DEFAULT_CAPACITY);
        assert_eq!(capacity_for((1920, 1080), u64::MAX), DEFAULT_CAPACITY);
        assert_eq!(capacity_for((1920, 1080), full / 2), DEFAULT_CAPACITY / 2);
        assert_eq!(capacity_for((1920, 1080), full - 1), DEFAULT_CAPACITY - 1);
        // Never none: one entry a tile, the rest by the slow path.
        assert_eq!(capacity_for((8192, 8192), 1), 1);
    }
}
