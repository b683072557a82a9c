//! [`HairPaths`]: the hair paths a renderer has and which one draws each frame. Every
//! choice between them is made here: the setting resolved per adapter
//! ([`Raster::for_adapter`]), the `contact` colouring and frames without hair left to the
//! ribbons, the light's maps of the WGSL strand rasteriser's frames drawn by the ribbons,
//! and a path's buffers freed after a run of frames that did not use them.

use super::native::NativePath;
use super::path::{HairDraw, HairFrame, HairLook, HairPath};
use super::ribbons::RibbonsPass;
use super::strands_gpu::StrandsGpuPath;
use crate::render::settings::Raster;
use crate::render::target::TargetLayout;

/// Frames drawn in a row by other paths after which the renderer frees a strand
/// rasteriser's buffers (its next frame makes them again).
pub const RELEASE_IDLE_BUFFERS_AFTER_FRAMES: u32 = 120;

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

    /// The camera targets' layout for frames drawn in real time (the window, `--record`,
    /// the frame bench) by this path, which must be resolved first ([`Raster::for_adapter`]:
    /// `Auto` keeps `layout` as it is): one sample a pixel where the native path draws the
    /// hair (its picture is drawn at one sample and composited over sample 0 of the
    /// surfaces, whose other samples would be drawn for nothing), `layout` as it is for the
    /// others.
    pub fn real_time_layout(self, layout: TargetLayout) -> TargetLayout {
        match self {
            Raster::Native => TargetLayout {
                samples: 1,
                ..layout
            },
            _ => layout,
        }
    }
}

/// The renderer's hair paths and the choice between them.
#[derive(Debug)]
pub struct HairPaths {
    /// The hardware ribbons: the reference, and the path of the `contact` colouring and of
    /// frames drawn into a caller's targets.
    pub ribbons: RibbonsPass,
    /// The strand rasteriser on the host's cores.
    pub native: NativePath,
    /// The strand rasteriser in WGSL.
    pub strands: StrandsGpuPath,
    /// The path asked for, resolved for the adapter (never [`Raster::Auto`]).
    chosen: Raster,
    /// The path that drew the last frame.
    last: Raster,
    /// Frames drawn in a row without the native path (its buffers are released at
    /// [`RELEASE_IDLE_BUFFERS_AFTER_FRAMES`]).
    frames_without_native: u32,
    /// Frames drawn in a row without the WGSL strand rasteriser (the same).
    frames_without_strands: u32,
}

impl HairPaths {
    /// The paths, drawing by `chosen` (already resolved for the adapter).
    pub fn new(
        ribbons: RibbonsPass,
        native: NativePath,
        strands: StrandsGpuPath,
        chosen: Raster,
    ) -> Self {
        HairPaths {
            ribbons,
            native,
            strands,
            chosen,
            last: chosen,
            frames_without_native: 0,
            frames_without_strands: 0,
        }
    }

    /// The path asked for: [`Raster::Hardware`], [`Raster::Native`] or [`Raster::Strands`]
    /// (never [`Raster::Auto`]).
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

    /// Picks the path of the next frame, the one asked for, and counts the frames drawn
    /// without each strand rasteriser (see [`HairPaths::note_frame`]).
    pub fn choose(&mut self) -> Raster {
        let raster = self.chosen;
        self.note_frame(raster);
        raster
    }

    /// Records that a frame is drawn by `raster` and, at
    /// [`RELEASE_IDLE_BUFFERS_AFTER_FRAMES`] frames in a row without a strand rasteriser,
    /// frees its buffers (which the ribbons do not use); a later frame of it makes them
    /// again. Not at the first such frame: the demo's budget tries the paths in turn while
    /// it measures them, and would make the buffers again at each switch. A frame set to
    /// draw by a path counts as using it even where it draws no hair by it (`contact`, or
    /// no strands bound): memory kept a little longer, never freed while in use.
    pub fn note_frame(&mut self, raster: Raster) {
        self.last = raster;
        let idle = |frames: &mut u32, used: bool| {
            *frames = if used { 0 } else { frames.saturating_add(1) };
            *frames >= RELEASE_IDLE_BUFFERS_AFTER_FRAMES
        };
        if idle(&mut self.frames_without_strands, raster == Raster::Strands) {
            self.strands.release_buffers();
        }
        if idle(&mut self.frames_without_native, raster == Raster::Native) {
            self.native.release_buffers();
        }
    }

    /// The path that draws the hair's share of the light's maps in a frame drawn by
    /// `raster`, with hair to draw (`has_hair`) or not (the ribbons' passes then only
    /// clear the maps). The WGSL strand rasteriser draws no maps yet: its frames' are the
    /// ribbons'.
    pub fn light_path(&mut self, raster: Raster, has_hair: bool) -> &mut dyn HairPath {
        // Positions the native path read for an earlier frame's maps are not this one's.
        self.native.begin_frame();
        match raster {
            Raster::Native if has_hair => &mut self.native,
            _ => &mut self.ribbons,
        }
    }

    /// Records the hair's share of the light's maps in a frame drawn by `raster`
    /// ([`HairPaths::light_path`]): drawn from `hair` when `refresh` (or cleared without
    /// hair), else kept as an earlier frame drew them ([`crate::render::refresh`]).
    pub fn record_light(
        &mut self,
        raster: Raster,
        gpu: &HairFrame,
        encoder: &mut wgpu::CommandEncoder,
        hair: Option<HairDraw>,
        refresh: bool,
    ) {
        let path = self.light_path(raster, hair.is_some());
        if refresh {
            path.record_light(gpu, encoder, hair);
        } else {
            path.keep_light(gpu, encoder);
        }
    }

    /// The path that draws the camera's hair in `look` in a frame drawn by `raster`: the
    /// `contact` colouring is the ribbons' own, per vertex.
    pub fn camera_path(&mut self, raster: Raster, look: HairLook) -> &mut dyn HairPath {
        match (raster, look) {
            (Raster::Native, HairLook::Shaded) => &mut self.native,
            (Raster::Strands, HairLook::Shaded) => &mut self.strands,
            _ => &mut self.ribbons,
        }
    }

    /// Bytes of GPU memory every path holds now.
    pub fn memory_bytes(&self) -> u64 {
        self.ribbons.memory_bytes() + self.native.memory_bytes() + self.strands.memory_bytes()
    }
}
