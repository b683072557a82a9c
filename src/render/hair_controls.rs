//! The renderer's switches of its hair paths: which path draws ([`FurRenderer::set_raster`]),
//! which drew the last frame, and what the strand rasterisers report of their last frame.
//! The choice itself is made by `hair::HairPaths`.

use super::RenderError;
use super::renderer::FurRenderer;
use super::settings::Raster;
use super::strand_raster::Overflow;
use crate::raster::BinStats;

impl FurRenderer {
    /// Chooses how the camera's hair is drawn from the next frame on (`Auto` picks by the
    /// adapter, as [`Raster::for_adapter`] does).
    pub fn set_raster(&mut self, raster: Raster) {
        self.hair.set_chosen(raster, &self.device.adapter_info());
        self.settings.raster = self.hair.chosen();
    }

    /// How the camera's hair is drawn: [`Raster::Hardware`], [`Raster::Native`] or
    /// [`Raster::Strands`].
    pub fn raster(&self) -> Raster {
        self.hair.chosen()
    }

    /// How the last frame's hair was drawn: [`Raster::Hardware`], [`Raster::Native`] or
    /// [`Raster::Strands`] (the setting; frames drawn into a caller's targets by the
    /// ribbons).
    pub fn last_raster(&self) -> Raster {
        self.hair.last()
    }

    /// How many times the last frame waited for the GPU to read back what the native path
    /// draws from (see [`crate::render::hair::NativePath::waits`]): 1 for a CPU-stepped
    /// coat, whose positions the renderer keeps on the host while the native path is
    /// chosen; 0 for a frame drawn by another path.
    pub fn native_waits(&self) -> u32 {
        self.hair.native.waits()
    }

    /// The binning of the last camera picture the native path drew (how many segments it
    /// drew, how many tile entries, how many it left unread), or `None` before its first.
    pub fn native_picture_stats(&self) -> Option<BinStats> {
        self.hair.native.last_stats()
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
