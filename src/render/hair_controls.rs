//! The renderer's switches of its hair paths: which path draws ([`FurRenderer::set_raster`]),
//! which drew the last frame, why the compute path would refuse a frame, and the compute
//! path's switches that its tests use. The choice itself is made by `hair::HairPaths`.

use super::RenderError;
use super::hair::compute_raster::RasterWalks;
use super::renderer::FurRenderer;
use super::settings::Raster;
use super::strand_raster::Overflow;

impl FurRenderer {
    /// Chooses how the camera's hair is drawn from the next frame on (`Auto` picks by the
    /// adapter, as [`Raster::for_adapter`] does).
    pub fn set_raster(&mut self, raster: Raster) {
        self.hair.set_chosen(raster, &self.device.adapter_info());
        self.settings.raster = self.hair.chosen();
    }

    /// How the camera's hair is drawn: [`Raster::Hardware`], [`Raster::Native`], [`Raster::Strands`] or
    /// [`Raster::Compute`].
    pub fn raster(&self) -> Raster {
        self.hair.chosen()
    }

    /// How the last frame's hair was drawn: [`Raster::Hardware`], [`Raster::Native`], [`Raster::Strands`] or
    /// [`Raster::Compute`]
    /// (the setting, or the ribbons where the frame was too large for the compute
    /// rasteriser; see [`FurRenderer::raster`]).
    pub fn last_raster(&self) -> Raster {
        self.hair.last()
    }

    /// Why the compute rasteriser cannot draw a frame of `size` with the strands uploaded,
    /// on this device, or `None` when it can: its largest buffers (8 bytes per MSAA sample
    /// of the target, 16 per shadow texel) must each fit one storage binding of this device,
    /// and it draws at most [`crate::shaders::MAX_COMPUTE_RASTER_STRANDS`] strands.
    pub fn compute_raster_refusal(&self, size: (u32, u32)) -> Option<String> {
        self.hair.compute.refusal(
            &self.device,
            size,
            self.shadow.maps.size,
            self.strands.as_ref().map_or(0, |s| s.count),
        )
    }

    /// Entries of the compute rasteriser's queue of long segments (those beyond are drawn
    /// by their own thread and counted, see [`FurRenderer::raster_overflow`]). For tests
    /// of that fallback; the picture does not change.
    pub fn set_raster_queue_capacity(&mut self, capacity: u32) {
        self.hair.compute.set_queue_capacity(capacity);
    }

    /// Whether the compute rasteriser keeps samples by 64-bit atomics where the device has
    /// them (on by default; off forces its 32-bit two-walk path, for tests: the picture
    /// does not change).
    pub fn set_raster_wide_atomics(&mut self, on: bool) {
        self.hair.compute.set_wide_atomics(on);
    }

    /// Whether the compute rasteriser skips the samples that already hold hair nearer than
    /// the segment it walks (on by default; off walks every sample, for tests: the picture
    /// does not change).
    pub fn set_raster_early_depth(&mut self, on: bool) {
        self.hair.compute.set_early_depth(on);
    }

    /// How many long segments the last compute-rasterised frame drew without the queue
    /// (both walks counted), or `None` when no frame was drawn by compute since its buffers
    /// were made (waits for the GPU).
    pub fn raster_overflow(&self) -> Result<Option<u32>, RenderError> {
        let Some(buffer) = self.hair.compute.overflow_buffer() else {
            return Ok(None);
        };
        let bytes =
            crate::gpu::read_buffer(&self.device, &self.queue, buffer).map_err(RenderError::Gpu)?;
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
        Ok(words.get(1).copied())
    }

    /// The walks the compute rasteriser dispatched for the last frame it drew (`None`
    /// before its first): which of its paths drew, for tests that compare two paths.
    pub fn last_raster_walks(&self) -> Option<RasterWalks> {
        self.hair.compute.last_walks()
    }

    /// How many times the last frame waited for the GPU to read back what the native path
    /// draws from (see [`crate::render::hair::NativePath::waits`]): 1 for a CPU-stepped
    /// coat, whose positions the renderer keeps on the host while the native path is
    /// chosen; 0 for a frame drawn by another path.
    pub fn native_waits(&self) -> u32 {
        self.hair.native.waits()
    }

    /// The work of the last frame the strand rasteriser drew past its tiles' capacity
    /// (drawn by its slow path), or `None` before its first frame or after its buffers were
    /// freed (waits for the GPU).
    pub fn strand_raster_overflow(&self) -> Result<Option<Overflow>, RenderError> {
        match self.hair.strands.raster() {
            Some(raster) => raster.overflow(&self.device, &self.queue),
            None => Ok(None),
        }
    }
}
