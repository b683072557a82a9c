//! The ID target: what each pixel shows (skin, hair, hand …), written by the camera's passes
//! when the layout asks for it (tests read it), and the ids pass (`shaders/ids.wgsl`) that
//! copies sample 0 of a multisampled ID target into a single-sampled one that can be read
//! back (integer targets cannot be resolved by averaging).

use super::descriptors::{bind_group, bind_group_layout, pipeline_layout, texture_entry};
use super::target::{FrameTargets, ID_FORMAT, TargetLayout};
use crate::shaders::ShaderModule;

/// Nothing drawn.
pub const BACKGROUND: u8 = crate::shaders::ID_BACKGROUND as u8;
/// The creature's skin.
pub const SKIN: u8 = crate::shaders::ID_SKIN as u8;
/// Hair.
pub const HAIR: u8 = crate::shaders::ID_HAIR as u8;
/// The hand.
pub const HAND: u8 = crate::shaders::ID_HAND as u8;
/// Eyes and nose.
pub const FACE: u8 = crate::shaders::ID_FACE as u8;
/// The contact overlay never writes IDs; reserved.
pub const OVERLAY: u8 = crate::shaders::ID_OVERLAY as u8;
/// The floor.
pub const FLOOR: u8 = crate::shaders::ID_FLOOR as u8;

/// The ids pass: only for layouts with IDs and MSAA.
#[derive(Debug)]
pub struct IdsPass {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::RenderPipeline,
}

impl IdsPass {
    /// The pass for `target`, or `None` when it has no multisampled ID target.
    pub fn new(device: &wgpu::Device, target: &TargetLayout) -> Option<Self> {
        if !(target.ids && target.samples > 1) {
            return None;
        }
        let layout = bind_group_layout(
            device,
            "render: ids",
            &[texture_entry(
                0,
                wgpu::ShaderStages::FRAGMENT,
                wgpu::TextureSampleType::Uint,
                true,
            )],
        );
        let module = ShaderModule::Ids.create(device);
        let pipeline = super::descriptors::render_pipeline(
            device,
            super::descriptors::RenderPipelineSpec {
                label: "ids: sample 0",
                layout: &pipeline_layout(device, "ids", &[Some(&layout)]),
                module: &module,
                vertex: "vs_fullscreen",
                buffers: &[],
                primitive: Default::default(),
                depth: None,
                multisample: Default::default(),
                fragment: Some(("fs_resolve", &[Some(ID_FORMAT.into())])),
            },
        );
        Some(IdsPass { layout, pipeline })
    }

    /// Copies sample 0 of `targets.ids` into `targets.ids_resolved` (nothing when the
    /// targets have neither).
    pub fn record(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        targets: &FrameTargets,
    ) {
        let (Some(drawn), Some(resolved)) = (targets.ids.as_ref(), targets.ids_resolved.as_ref())
        else {
            return;
        };
        let group = bind_group(
            device,
            "ids",
            &self.layout,
            &[wgpu::BindingResource::TextureView(drawn)],
        );
        let view = resolved.create_view(&Default::default());
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("ids: sample 0"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.draw(0..3, 0..1);
    }
}
