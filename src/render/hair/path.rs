//! [`HairPath`]: what a way of drawing the hair does in a frame, so the renderer orders
//! the frame without knowing which path draws. A frame asks a path for three things, in
//! this order: its share of the key light's maps ([`HairPath::record_light`]), the work
//! its camera picture needs once the surfaces are drawn and the points shaded
//! ([`HairPath::prepare_camera`]), and that picture drawn over the surfaces' colour and
//! depth in the camera's last render pass ([`HairPath::record_camera`]). What it holds is
//! counted by [`HairPath::memory_bytes`].

use crate::render::RenderError;
use crate::render::frame::FrameBinding;
use crate::render::shadow::ShadowPass;
use crate::render::target::FrameTargets;
use crate::render::timing::{Pass, Span, Timestamps};

use super::strands::StrandBinding;
use glam::Vec4;

/// What every path reads in a frame: the device, the frame's uniforms (group 0), and the
/// shadow pass (its maps to draw into, and `inputs`, group 2, to read them).
#[derive(Clone, Copy, Debug)]
pub struct HairFrame<'a> {
    /// The renderer's device.
    pub device: &'a wgpu::Device,
    /// Its queue; writes land at the frame's submission.
    pub queue: &'a wgpu::Queue,
    /// The frame's uniforms, written for this frame.
    pub frame: &'a FrameBinding,
    /// The key light's maps.
    pub shadow: &'a ShadowPass,
    /// Timestamps around the frame's passes, when timing is on.
    pub timestamps: Option<&'a Timestamps>,
}

/// The strands a frame draws: the bound strands, which of the solver's two position
/// buffers holds the latest positions, and how many of the drawn order to draw.
#[derive(Clone, Copy, Debug)]
pub struct HairDraw<'a> {
    /// The strands bound (positions, records, cull flags, shaded colours).
    pub strands: &'a StrandBinding,
    /// The position buffer with the latest positions: 0 or 1.
    pub positions: usize,
    /// Strands drawn: the prefix of the drawn order the frame's level of detail keeps,
    /// at most `strands.count`.
    pub count: u32,
    /// The same positions as the buffer holds, where they are already in host memory (a
    /// CPU-stepped coat): a path that draws on the host reads them here instead of reading
    /// the buffer back.
    pub host_positions: Option<&'a [Vec4]>,
}

impl<'a> HairDraw<'a> {
    /// The strands of a frame: those bound (none, `None`), over position buffer
    /// `positions_index` (its low bit), the first `drawn` of the drawn order.
    pub fn of(
        strands: Option<&'a StrandBinding>,
        positions_index: usize,
        drawn: u32,
    ) -> Option<Self> {
        strands.map(|strands| HairDraw {
            strands,
            positions: positions_index & 1,
            count: drawn.min(strands.count),
            host_positions: None,
        })
    }

    /// The same strands, with `positions` (when `Some`) the host's copy of what the
    /// latest position buffer holds.
    pub fn with_host_positions(self, positions: Option<&'a [Vec4]>) -> Self {
        HairDraw {
            host_positions: positions,
            ..self
        }
    }

    /// Group 1 of the passes that draw or shade strands, over the latest positions.
    pub fn group(&self) -> &'a wgpu::BindGroup {
        &self.strands.groups[self.positions & 1]
    }

    /// Group 1 of the camera's ribbons (with the shaded colours), over the latest positions.
    pub fn camera_group(&self) -> &'a wgpu::BindGroup {
        &self.strands.camera_groups[self.positions & 1]
    }
}

/// How the camera's hair looks this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HairLook {
    /// Lit: the points' colours from the shading pass, run before the path's camera work.
    Shaded,
    /// The `contact` view's colouring, per vertex (only the ribbons draw it).
    Contact,
}

/// The camera's side of a frame, as a path sees it.
#[derive(Clone, Copy, Debug)]
pub struct CameraHair<'a> {
    /// The camera's targets: after the surfaces pass they hold the surfaces' colour and
    /// depth (multisampled as the layout says), which the hair is drawn over.
    pub targets: &'a FrameTargets,
    /// Shaded or `contact`.
    pub look: HairLook,
    /// Whether the strands' cull flags mark what this camera cannot see at this frame's
    /// positions and pose (the cull pass ran this frame): a path may then leave those
    /// strands out.
    pub culled: bool,
}

/// A way of drawing the hair: the hardware ribbons (the reference) or a rasteriser of its
/// own. The renderer's [`super::HairPaths`] picks one per frame.
pub trait HairPath {
    /// Records the hair's share of the key light's maps into `encoder`, after the
    /// surfaces' opaque depth: the first hair's depth and the deep opacity behind it, each
    /// cleared first (only cleared without `hair`). Its last pass ends the timed
    /// `Pass::Shadow` span.
    fn record_light(
        &mut self,
        gpu: &HairFrame,
        encoder: &mut wgpu::CommandEncoder,
        hair: Option<HairDraw>,
    );

    /// Leaves the key light's hair maps as an earlier frame drew them (a frame that
    /// refreshes them in turns with the shading: [`crate::render::refresh`]), ending the
    /// timed `Pass::Shadow` span as [`HairPath::record_light`] would.
    fn keep_light(&mut self, gpu: &HairFrame, encoder: &mut wgpu::CommandEncoder) {
        let maps = &gpu.shadow.maps;
        let load = |view| {
            Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })
        };
        let _pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow: hair maps kept"),
            color_attachments: &[load(&maps.first_hair), load(&maps.deep_opacity)],
            depth_stencil_attachment: None,
            timestamp_writes: gpu.timestamps.map(|t| t.render(Pass::Shadow, Span::End)),
            occlusion_query_set: None,
            multiview_mask: None,
        });
    }

    /// Records what the camera's picture needs before the camera's last render pass: the
    /// surfaces, the cull pass and (for [`HairLook::Shaded`]) the shading pass are already
    /// in `encoder`, none of them submitted. A path that draws on the host may submit
    /// `encoder` as far as it goes (putting a new one in its place) to read the targets'
    /// depth and the shaded points back, and upload what it drew; the frame's uniforms
    /// stay as written. Errors are the GPU's or the read back's.
    fn prepare_camera(
        &mut self,
        gpu: &HairFrame,
        encoder: &mut wgpu::CommandEncoder,
        hair: HairDraw,
        camera: &CameraHair,
    ) -> Result<(), RenderError>;

    /// Draws the camera's hair into `pass`, the camera's last render pass (its attachments
    /// loaded with the surfaces' colour and depth; the overlay follows).
    fn record_camera(
        &self,
        gpu: &HairFrame,
        pass: &mut wgpu::RenderPass,
        hair: HairDraw,
        camera: &CameraHair,
    );

    /// Bytes of GPU memory the path holds now (the strands' binding not counted: every
    /// path shares it).
    fn memory_bytes(&self) -> u64;

    /// Frees what the path made for the frames it drew (its pipelines stay), after a run of
    /// frames drawn by another path; its next frame makes them again.
    fn release_buffers(&mut self) {}
}
