//! The camera's attachments, shared by its two render passes: the surfaces pass clears
//! them, the ribbons pass (with the overlay) loads them and resolves the MSAA colour into
//! the output.

use super::RenderError;
use super::palette::BACKGROUND;
use super::target::{FrameTargets, TargetLayout};

/// Where the camera's passes draw: the frame targets and the caller's output.
#[derive(Clone, Copy, Debug)]
pub struct CameraTargets<'a> {
    /// The multisampled colour, when the layout has MSAA.
    msaa: Option<&'a wgpu::TextureView>,
    /// The caller's output: drawn into directly without MSAA, resolved into with it.
    output: &'a wgpu::TextureView,
    ids: Option<&'a wgpu::TextureView>,
    depth: &'a wgpu::TextureView,
}

/// Which of the camera's passes is being begun.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraPass {
    /// The first: clears colour, IDs and depth.
    First,
    /// The last: loads them and resolves the colour into the output.
    Last,
}

impl<'a> CameraTargets<'a> {
    /// The camera's attachments among `targets`, resolving into `output`.
    pub fn new(targets: &'a FrameTargets, output: &'a wgpu::TextureView) -> Self {
        CameraTargets {
            msaa: targets.color.as_ref(),
            output,
            ids: targets.ids.as_ref(),
            depth: &targets.depth,
        }
    }

    /// Begins the camera's pass `which` in `encoder`.
    pub fn begin<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        label: &str,
        which: CameraPass,
        timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> wgpu::RenderPass<'e> {
        let clear = which == CameraPass::First;
        let last = which == CameraPass::Last;
        let background = wgpu::Color {
            r: f64::from(BACKGROUND.x),
            g: f64::from(BACKGROUND.y),
            b: f64::from(BACKGROUND.z),
            a: 1.0,
        };
        let load = |clear_to: wgpu::Color| {
            if clear {
                wgpu::LoadOp::Clear(clear_to)
            } else {
                wgpu::LoadOp::Load
            }
        };
        let color = [
            Some(wgpu::RenderPassColorAttachment {
                view: self.msaa.unwrap_or(self.output),
                depth_slice: None,
                resolve_target: if last {
                    self.msaa.map(|_| self.output)
                } else {
                    None
                },
                ops: wgpu::Operations {
                    load: load(background),
                    store: if last && self.msaa.is_some() {
                        wgpu::StoreOp::Discard
                    } else {
                        wgpu::StoreOp::Store
                    },
                },
            }),
            self.ids.map(|view| wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: load(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Store,
                },
            }),
        ];
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(label),
            color_attachments: &color,
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: self.depth,
                depth_ops: Some(wgpu::Operations {
                    load: if clear {
                        wgpu::LoadOp::Clear(0.0)
                    } else {
                        wgpu::LoadOp::Load
                    },
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes,
            occlusion_query_set: None,
            multiview_mask: None,
        })
    }
}

/// Checks that `output` and `targets` are what a renderer built for `layout` draws into.
pub fn check_output(
    layout: &TargetLayout,
    targets: &FrameTargets,
    output: &wgpu::TextureView,
) -> Result<(), RenderError> {
    let texture = output.texture();
    if (texture.width(), texture.height()) != targets.size {
        return Err(RenderError::Scene(format!(
            "the output is {}×{} but the frame targets are {}×{}: make the targets for the output's size",
            texture.width(),
            texture.height(),
            targets.size.0,
            targets.size.1
        )));
    }
    if targets.samples != layout.samples
        || texture.format().add_srgb_suffix() != layout.color_format.add_srgb_suffix()
    {
        return Err(RenderError::Scene(format!(
            "the output ({:?}) or frame targets ({} samples) do not match the renderer's layout ({:?}, {} samples)",
            texture.format(),
            targets.samples,
            layout.color_format,
            layout.samples
        )));
    }
    Ok(())
}
