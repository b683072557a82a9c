//! The hardware ribbons, the reference way of drawing the hair (`shaders/ribbons.wgsl`,
//! `shaders/shadow.wgsl`): tapered camera-facing ribbons pulled straight from the solver's
//! position buffers, a quad a segment built in the vertex shader, drawn in batches of
//! [`STRANDS_PER_BATCH`] strands over one small index buffer. For the camera, into the
//! multisampled targets with a sample mask of their own (the points shaded by the strands'
//! shading pass, or the `contact` colouring); for the light, the first hair's depth and
//! the deep opacity behind it, drawn from the same ribbons at their true width.

use super::path::{CameraHair, HairDraw, HairFrame, HairLook, HairPath};
use super::strands::HairStrands;
use crate::render::RenderError;
use crate::render::descriptors::{
    RenderPipelineSpec, camera_depth_in, camera_multisample, camera_targets, light_depth,
    pipeline_layout, render_pipeline, triangles,
};
use crate::render::frame::{FrameBinding, View};
use crate::render::light_view::{DEEP_OPACITY_FORMAT, FIRST_HAIR_FORMAT};
use crate::render::shadow::{ShadowPass, cleared_color, cleared_depth};
use crate::render::target::{DEPTH_FORMAT, TargetLayout};
use crate::render::timing::{Pass, Span};
use crate::shaders::ShaderModule;
use crate::sim::POINTS_PER_STRAND;

/// Strands drawn per instance (WGSL `STRANDS_PER_BATCH`, from the prelude).
pub const STRANDS_PER_BATCH: u32 = crate::shaders::STRANDS_PER_BATCH;
/// Vertices per strand: two per point (WGSL `VERTICES_PER_STRAND`, from the prelude).
pub const VERTICES_PER_STRAND: u32 = crate::shaders::VERTICES_PER_STRAND;
/// Indices per strand: two triangles for each segment.
pub const INDICES_PER_STRAND: u32 = 6 * (POINTS_PER_STRAND as u32 - 1);
/// The index buffer for one batch of [`STRANDS_PER_BATCH`] strands: 30 indices per strand
/// into that strand's 12 vertices (point `i`, side `s` is vertex `2i + s`).
pub fn batch_indices() -> Vec<u16> {
    (0..STRANDS_PER_BATCH)
        .flat_map(|strand| {
            let base = (strand * VERTICES_PER_STRAND) as u16;
            (0..POINTS_PER_STRAND as u16 - 1).flat_map(move |seg| {
                let v = base + 2 * seg;
                [v, v + 1, v + 2, v + 2, v + 1, v + 3]
            })
        })
        .collect()
}

/// The ribbons: the batch index buffer, the camera's two pipelines (shaded and `contact`)
/// and the light's two (first hair depth and deep opacity).
#[derive(Debug)]
pub struct RibbonsPass {
    batch_indices: wgpu::Buffer,
    /// The camera's ribbons' module and pipeline layout, kept to build their pipelines for
    /// other targets ([`RibbonsPass::final_pipeline_for`]).
    module: wgpu::ShaderModule,
    layout: wgpu::PipelineLayout,
    shaded: wgpu::RenderPipeline,
    contact: wgpu::RenderPipeline,
    first_hair_depth: wgpu::RenderPipeline,
    deep_opacity: wgpu::RenderPipeline,
}

impl RibbonsPass {
    /// Compiles the ribbons' pipelines: the camera's for `target`, reading the frame
    /// (group 0), the strands and their shaded colours (`strands.camera_layout`) and the
    /// shadow maps (group 2); the light's reading the frame and the strands
    /// (`strands.layout`), the deep opacity pass the first hair's depth too (group 2).
    pub fn new(
        device: &wgpu::Device,
        strands: &HairStrands,
        frame: &wgpu::BindGroupLayout,
        shadow: &ShadowPass,
        target: &TargetLayout,
    ) -> Self {
        use wgpu::util::DeviceExt;
        let batch_indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("ribbons: batch indices"),
            contents: bytemuck::cast_slice(&batch_indices()),
            usage: wgpu::BufferUsages::INDEX,
        });
        let module = ShaderModule::Ribbons.create(device);
        let layout = pipeline_layout(
            device,
            "ribbons",
            &[
                Some(frame),
                Some(&strands.camera_layout),
                Some(&shadow.inputs_layout),
            ],
        );
        let (first_hair_depth, deep_opacity) = light_pipelines(device, strands, frame, shadow);
        RibbonsPass {
            shaded: camera_pipeline(device, &layout, &module, target, DEPTH_FORMAT, false),
            contact: camera_pipeline(device, &layout, &module, target, DEPTH_FORMAT, true),
            module,
            layout,
            batch_indices,
            first_hair_depth,
            deep_opacity,
        }
    }

    /// The shaded ribbons' pipeline for other targets: colour format and samples of
    /// `target` (its ID target ignored: none is drawn), depth in `depth_format`.
    pub fn final_pipeline_for(
        &self,
        device: &wgpu::Device,
        target: &TargetLayout,
        depth_format: wgpu::TextureFormat,
    ) -> wgpu::RenderPipeline {
        let target = TargetLayout {
            ids: false,
            ..*target
        };
        camera_pipeline(
            device,
            &self.layout,
            &self.module,
            &target,
            depth_format,
            false,
        )
    }

    /// Bytes of GPU memory the pass holds (strands not included).
    pub fn bytes(&self) -> u64 {
        self.batch_indices.size()
    }

    /// Draws the first `count` strands of the drawn order (the frame's drawn count) bound
    /// by `group` (group 1) with the pipeline and groups 0 and 2 already set: for the
    /// camera and for the shadow maps alike.
    pub fn draw(&self, pass: &mut wgpu::RenderPass, group: &wgpu::BindGroup, count: u32) {
        pass.set_bind_group(1, group, &[]);
        pass.set_index_buffer(self.batch_indices.slice(..), wgpu::IndexFormat::Uint16);
        pass.draw_indexed(
            0..STRANDS_PER_BATCH * INDICES_PER_STRAND,
            0,
            0..count.div_ceil(STRANDS_PER_BATCH),
        );
    }

    /// Records the camera's ribbons into `pass`: shaded (the points shaded by
    /// [`HairStrands::shade`] this frame), or in the `contact` colouring. `group` is the
    /// camera's group 1 over the latest positions (`StrandBinding::camera_groups`).
    pub fn record(
        &self,
        pass: &mut wgpu::RenderPass,
        frame: &FrameBinding,
        shadow_inputs: &wgpu::BindGroup,
        group: &wgpu::BindGroup,
        count: u32,
        contact: bool,
    ) {
        let pipeline = if contact { &self.contact } else { &self.shaded };
        self.record_with(pass, pipeline, frame, shadow_inputs, group, count);
    }

    /// [`RibbonsPass::record`] with `pipeline`, one of this pass's or one from
    /// [`RibbonsPass::final_pipeline_for`].
    pub fn record_with(
        &self,
        pass: &mut wgpu::RenderPass,
        pipeline: &wgpu::RenderPipeline,
        frame: &FrameBinding,
        shadow_inputs: &wgpu::BindGroup,
        group: &wgpu::BindGroup,
        count: u32,
    ) {
        pass.set_pipeline(pipeline);
        frame.bind(pass, View::Camera);
        pass.set_bind_group(2, shadow_inputs, &[]);
        self.draw(pass, group, count);
    }
}

impl HairPath for RibbonsPass {
    fn record_light(
        &mut self,
        gpu: &HairFrame,
        encoder: &mut wgpu::CommandEncoder,
        hair: Option<HairDraw>,
    ) {
        let maps = &gpu.shadow.maps;
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow: first hair depth"),
                color_attachments: &[cleared_color(&maps.first_hair, wgpu::Color::WHITE)],
                depth_stencil_attachment: Some(cleared_depth(&maps.hair_depth)),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if let Some(hair) = hair {
                pass.set_pipeline(&self.first_hair_depth);
                gpu.frame.bind(&mut pass, View::Light);
                self.draw(&mut pass, hair.group(), hair.count);
            }
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow: deep opacity"),
            color_attachments: &[cleared_color(&maps.deep_opacity, wgpu::Color::TRANSPARENT)],
            depth_stencil_attachment: None,
            timestamp_writes: gpu.timestamps.map(|t| t.render(Pass::Shadow, Span::End)),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if let Some(hair) = hair {
            pass.set_pipeline(&self.deep_opacity);
            gpu.frame.bind(&mut pass, View::Light);
            pass.set_bind_group(2, &gpu.shadow.first_hair, &[]);
            self.draw(&mut pass, hair.group(), hair.count);
        }
    }

    /// Nothing: the ribbons are drawn in the camera's last pass.
    fn prepare_camera(
        &mut self,
        _gpu: &HairFrame,
        _encoder: &mut wgpu::CommandEncoder,
        _hair: HairDraw,
        _camera: &CameraHair,
    ) -> Result<(), RenderError> {
        Ok(())
    }

    fn record_camera(
        &self,
        gpu: &HairFrame,
        pass: &mut wgpu::RenderPass,
        hair: HairDraw,
        camera: &CameraHair,
    ) {
        self.record(
            pass,
            gpu.frame,
            &gpu.shadow.inputs,
            hair.camera_group(),
            hair.count,
            camera.look == HairLook::Contact,
        );
    }

    fn memory_bytes(&self) -> u64 {
        self.bytes()
    }
}

/// The light's ribbon pipelines: the first hair's depth (nearest wins, its depth written
/// as a readable float) and the deep opacity (opacity added into the slab behind the first
/// hair that holds the fragment).
fn light_pipelines(
    device: &wgpu::Device,
    strands: &HairStrands,
    frame: &wgpu::BindGroupLayout,
    shadow: &ShadowPass,
) -> (wgpu::RenderPipeline, wgpu::RenderPipeline) {
    let module = ShaderModule::Shadow.create(device);
    let depth_layout = pipeline_layout(
        device,
        "ribbon depth",
        &[Some(frame), Some(&strands.layout)],
    );
    let opacity_layout = pipeline_layout(
        device,
        "ribbon deep opacity",
        &[
            Some(frame),
            Some(&strands.layout),
            Some(&shadow.first_hair_layout),
        ],
    );
    let hair_depth = render_pipeline(
        device,
        RenderPipelineSpec {
            label: "ribbons: first hair depth",
            layout: &depth_layout,
            module: &module,
            vertex: "vs_shadow",
            buffers: &[],
            primitive: triangles(),
            depth: Some(light_depth()),
            multisample: Default::default(),
            fragment: Some(("fs_hair_depth", &[Some(FIRST_HAIR_FORMAT.into())])),
        },
    );
    let add = wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    };
    let deep_opacity = render_pipeline(
        device,
        RenderPipelineSpec {
            label: "ribbons: deep opacity",
            layout: &opacity_layout,
            module: &module,
            vertex: "vs_shadow",
            buffers: &[],
            primitive: triangles(),
            depth: None,
            multisample: Default::default(),
            fragment: Some((
                "fs_deep_opacity",
                &[Some(wgpu::ColorTargetState {
                    format: DEEP_OPACITY_FORMAT,
                    blend: Some(wgpu::BlendState {
                        color: add,
                        alpha: add,
                    }),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            )),
        },
    );
    (hair_depth, deep_opacity)
}

/// A camera ribbon pipeline for `target` with depth in `depth_format`: shaded, or in the
/// `contact` colouring. With MSAA the ribbons write their own sample mask; with one sample
/// they discard by coverage.
fn camera_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    target: &TargetLayout,
    depth_format: wgpu::TextureFormat,
    contact: bool,
) -> wgpu::RenderPipeline {
    let msaa = target.samples > 1;
    let (label, vertex, fragment) = match (contact, msaa) {
        (false, true) => ("ribbons: final", "vs_ribbon", "fs_final"),
        (false, false) => ("ribbons: final", "vs_ribbon", "fs_final_single"),
        (true, true) => ("ribbons: contact", "vs_ribbon_contact", "fs_contact"),
        (true, false) => ("ribbons: contact", "vs_ribbon_contact", "fs_contact_single"),
    };
    render_pipeline(
        device,
        RenderPipelineSpec {
            label,
            layout,
            module,
            vertex,
            buffers: &[],
            primitive: triangles(),
            depth: Some(camera_depth_in(depth_format, true)),
            multisample: camera_multisample(target.samples),
            fragment: Some((fragment, &camera_targets(target, None))),
        },
    )
}
