//! [`HairPaths`]: the hair paths a renderer has and which one draws each frame. Every
//! choice between them is made here: the setting resolved per adapter
//! ([`Raster::for_adapter`]), a frame too large for the compute path drawn by the ribbons
//! (said once in the log), the `contact` colouring and frames without hair left to the
//! ribbons, the light's maps of a strand rasteriser's frame drawn by the ribbons, and a
//! path's buffers freed after a run of frames that did not use them.

use super::compute::ComputePath;
use super::native::NativePath;
use super::path::{HairLook, HairPath};
use super::ribbons::RibbonsPass;
use super::strands_gpu::StrandsGpuPath;
use crate::render::settings::Raster;

/// Frames drawn in a row by the hardware ribbons after which the renderer frees the compute
/// rasteriser's buffers (a compute frame after that makes them again).
pub const RELEASE_COMPUTE_AFTER_FRAMES: u32 = 120;

impl Raster {
    /// The path `self` means on an adapter described by `info`: `Auto` becomes the one
    /// measured faster on that kind of adapter (the measurements are in
    /// `docs/architecture.md`), the others stay. Deterministic, so the same arguments give
    /// the same picture.
    pub fn for_adapter(self, info: &wgpu::AdapterInfo) -> Raster {
        match self {
            Raster::Auto => match info.device_type {
                // On a CPU adapter (lavapipe, llvmpipe, SwiftShader, WARP) the GPU's cores
                // are the host's and its rasteriser is the slowest part of a frame: the
                // native rasteriser draws the hair there. Elsewhere the ribbons, until a GPU
                // is measured.
                wgpu::DeviceType::Cpu => Raster::Native,
                _ => Raster::Hardware,
            },
            chosen => chosen,
        }
    }
}

/// The renderer's hair paths and the choice between them.
#[derive(Debug)]
pub struct HairPaths {
    /// The hardware ribbons: the reference, and the path of the `contact` colouring and of
    /// frames drawn into a caller's targets.
    pub ribbons: RibbonsPass,
    /// The compute rasteriser.
    pub compute: ComputePath,
    /// The strand rasteriser on the host's cores.
    pub native: NativePath,
    /// The strand rasteriser in WGSL.
    pub strands: StrandsGpuPath,
    /// The path asked for, resolved for the adapter (never [`Raster::Auto`]).
    chosen: Raster,
    /// The path that drew the last frame.
    last: Raster,
    /// Whether the log has said that a frame was too large for the compute path.
    warned_compute_too_large: bool,
    /// Frames drawn in a row without the compute path (its buffers are released at
    /// [`RELEASE_COMPUTE_AFTER_FRAMES`]).
    frames_without_compute: u32,
    /// Frames drawn in a row without the strand rasteriser (its buffers are released at
    /// [`RELEASE_COMPUTE_AFTER_FRAMES`] too).
    frames_without_strands: u32,
}

impl HairPaths {
    /// The paths, drawing by `chosen` (already resolved for the adapter).
    pub fn new(
        ribbons: RibbonsPass,
        compute: ComputePath,
        native: NativePath,
        strands: StrandsGpuPath,
        chosen: Raster,
    ) -> Self {
        HairPaths {
            ribbons,
            compute,
            native,
            strands,
            chosen,
            last: chosen,
            warned_compute_too_large: false,
            frames_without_compute: 0,
            frames_without_strands: 0,
        }
    }

    /// The path asked for: [`Raster::Hardware`], [`Raster::Native`], [`Raster::Strands`] or
    /// [`Raster::Compute`] (never [`Raster::Auto`]).
    pub fn chosen(&self) -> Raster {
        self.chosen
    }

    /// Asks for `raster` from the next frame on (`Auto` picks by the adapter `info`).
    pub fn set_chosen(&mut self, raster: Raster, info: &wgpu::AdapterInfo) {
        self.chosen = raster.for_adapter(info);
    }

    /// The path that drew the last frame.
    pub fn last(&self) -> Raster {
        self.last
    }

    /// Picks the path of the next frame: the one asked for, except that a frame the compute
    /// path cannot draw (`refusal` says why; asked only when the compute path is chosen) is
    /// drawn by the ribbons instead, and the log says so once. Counts the frames drawn
    /// without the compute path (see [`HairPaths::note_frame`]).
    pub fn choose(&mut self, refusal: impl FnOnce(&ComputePath) -> Option<String>) -> Raster {
        let raster = match self.chosen {
            Raster::Compute => match refusal(&self.compute) {
                None => Raster::Compute,
                Some(reason) => {
                    if !self.warned_compute_too_large {
                        self.warned_compute_too_large = true;
                        log::warn!("{reason}: the hair is drawn by the hardware ribbons instead");
                    }
                    Raster::Hardware
                }
            },
            other => other,
        };
        self.note_frame(raster);
        raster
    }

    /// Records that a frame is drawn by `raster` and, at [`RELEASE_COMPUTE_AFTER_FRAMES`]
    /// frames in a row without the compute path, frees its buffers (the largest the
    /// renderer holds, which the ribbons do not use); a later compute frame makes them
    /// again. Not at the first such frame: the demo's budget tries both paths in turn while
    /// it measures them, and would make the buffers again at each switch. A frame set to
    /// draw by compute counts as using them even where it draws no hair by compute
    /// (`contact`, or no strands bound): memory kept a little longer, never freed while in
    /// use.
    pub fn note_frame(&mut self, raster: Raster) {
        self.last = raster;
        self.frames_without_strands = if raster == Raster::Strands {
            0
        } else {
            self.frames_without_strands.saturating_add(1)
        };
        if self.frames_without_strands >= RELEASE_COMPUTE_AFTER_FRAMES {
            self.strands.release_buffers();
        }
        if raster == Raster::Compute {
            self.frames_without_compute = 0;
            return;
        }
        self.frames_without_compute = self.frames_without_compute.saturating_add(1);
        if self.frames_without_compute >= RELEASE_COMPUTE_AFTER_FRAMES {
            self.compute.release_buffers();
        }
    }

    /// The path that draws the hair's share of the light's maps in a frame drawn by
    /// `raster`, with hair to draw (`has_hair`) or not (the ribbons' passes then only
    /// clear the maps). The strand rasteriser draws no maps yet: its frames' are the
    /// ribbons'.
    pub fn light_path(&mut self, raster: Raster, has_hair: bool) -> &mut dyn HairPath {
        // Positions the native path read for an earlier frame's maps are not this one's.
        self.native.begin_frame();
        match raster {
            Raster::Compute if has_hair => &mut self.compute,
            Raster::Native if has_hair => &mut self.native,
            _ => &mut self.ribbons,
        }
    }

    /// The path that draws the camera's hair in `look` in a frame drawn by `raster`: the
    /// `contact` colouring is the ribbons' own, per vertex.
    pub fn camera_path(&mut self, raster: Raster, look: HairLook) -> &mut dyn HairPath {
        match (raster, look) {
            (Raster::Compute, HairLook::Shaded) => &mut self.compute,
            (Raster::Native, HairLook::Shaded) => &mut self.native,
            (Raster::Strands, HairLook::Shaded) => &mut self.strands,
            _ => &mut self.ribbons,
        }
    }

    /// Bytes of GPU memory every path holds now.
    pub fn memory_bytes(&self) -> u64 {
        self.ribbons.memory_bytes()
            + self.compute.memory_bytes()
            + self.native.memory_bytes()
            + self.strands.memory_bytes()
    }
}
