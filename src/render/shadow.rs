//! The shadow pass (`shaders/shadow.wgsl`): the key light's maps, drawn first in a frame.
//! An opaque depth map (skin, face, hand: the surfaces pass's own geometry), a depth map of
//! the nearest hair, and the deep opacity map (hair density accumulated in four slabs
//! behind that first hair), with the orthographic light frame that covers the creature.
//! The later passes read the maps through [`ShadowPass::inputs`].

use super::descriptors::{
    RenderPipelineSpec, VERTEX_FRAGMENT, bind_group, bind_group_layout, light_depth,
    pipeline_layout, render_pipeline, sampler_entry, texture_entry, triangles,
};
use super::frame::{FrameBinding, View};
use super::light_view::{DEEP_OPACITY_FORMAT, FIRST_HAIR_FORMAT, SHADOW_DEPTH_FORMAT};
use super::ribbons::RibbonsPass;
use super::shadow_raster::ShadowRaster;
use super::surfaces::SurfacesPass;
use super::timing::{Pass, Span, Timestamps};
use crate::shaders::ShaderModule;

/// Stages that read the shadow maps: the camera's render passes and the compute
/// rasteriser's shading.
const READERS: wgpu::ShaderStages = VERTEX_FRAGMENT.union(wgpu::ShaderStages::COMPUTE);

/// The shadow maps' textures and samplers.
#[derive(Debug)]
pub struct ShadowMaps {
    /// Texels along each side.
    pub size: u32,
    /// Opaque depth (skin, face, hand).
    pub skin_depth: wgpu::TextureView,
    /// Depth test of the nearest hair.
    pub hair_depth: wgpu::TextureView,
    /// The nearest hair's depth as a readable float.
    pub first_hair: wgpu::TextureView,
    /// The deep opacity map.
    pub deep_opacity: wgpu::TextureView,
    /// Comparison sampler for the opaque map (filtered: 2×2 PCF).
    pub compare: wgpu::Sampler,
    /// Bilinear sampler for the deep opacity map.
    pub linear: wgpu::Sampler,
    /// Bytes of GPU memory the maps take.
    pub bytes: u64,
}

impl ShadowMaps {
    /// Maps of `size × size` texels.
    pub fn new(device: &wgpu::Device, size: u32) -> Self {
        let texture = |label, format| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: wgpu::Extent3d {
                        width: size,
                        height: size,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                        | wgpu::TextureUsages::TEXTURE_BINDING,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        };
        let compare = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow compare"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let linear = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("deep opacity"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let texels = u64::from(size) * u64::from(size);
        ShadowMaps {
            size,
            skin_depth: texture("shadow: opaque depth", SHADOW_DEPTH_FORMAT),
            hair_depth: texture("shadow: first hair depth test", SHADOW_DEPTH_FORMAT),
            first_hair: texture("shadow: first hair depth", FIRST_HAIR_FORMAT),
            deep_opacity: texture("shadow: deep opacity", DEEP_OPACITY_FORMAT),
            compare,
            linear,
            bytes: texels * (4 + 4 + 4 + 8),
        }
    }
}

/// The hair the shadow maps are drawn from: the ribbons pass, the strands' group over the
/// latest positions, and how many strands.
#[derive(Clone, Copy, Debug)]
pub struct ShadowHair<'a> {
    /// Draws the ribbons.
    pub ribbons: &'a RibbonsPass,
    /// Group 1 over the latest positions.
    pub group: &'a wgpu::BindGroup,
    /// Strands bound.
    pub count: u32,
    /// Draws the first hair's depth and the deep opacity by compute instead of ribbons.
    pub compute: Option<&'a ShadowRaster>,
}

/// The shadow pass: the maps, the two hair pipelines, and the groups that read the maps.
#[derive(Debug)]
pub struct ShadowPass {
    /// The maps.
    pub maps: ShadowMaps,
    /// Group 2 of the camera's passes: the three maps and two samplers.
    pub inputs_layout: wgpu::BindGroupLayout,
    /// The maps as the camera's passes read them.
    pub inputs: wgpu::BindGroup,
    first_hair_layout: wgpu::BindGroupLayout,
    first_hair: wgpu::BindGroup,
    hair_depth: wgpu::RenderPipeline,
    deep_opacity: wgpu::RenderPipeline,
}

impl ShadowPass {
    /// Maps of `size` texels a side and the pipelines that draw the hair into them, reading
    /// the frame (group 0) and the strands (`strands`, group 1).
    pub fn new(
        device: &wgpu::Device,
        size: u32,
        frame: &wgpu::BindGroupLayout,
        strands: &wgpu::BindGroupLayout,
    ) -> Self {
        let maps = ShadowMaps::new(device, size);
        // The hair reads its shadows per strand point (in the hair's shading pass), the
        // surfaces per fragment.
        let inputs_layout = bind_group_layout(
            device,
            "render: shadow maps",
            &[
                texture_entry(0, READERS, wgpu::TextureSampleType::Depth, false),
                texture_entry(
                    1,
                    READERS,
                    wgpu::TextureSampleType::Float { filterable: false },
                    false,
                ),
                texture_entry(
                    2,
                    READERS,
                    wgpu::TextureSampleType::Float { filterable: true },
                    false,
                ),
                sampler_entry(3, READERS, wgpu::SamplerBindingType::Comparison),
                sampler_entry(4, READERS, wgpu::SamplerBindingType::Filtering),
            ],
        );
        let first_hair_layout = bind_group_layout(
            device,
            "render: first hair",
            &[texture_entry(
                0,
                wgpu::ShaderStages::FRAGMENT,
                wgpu::TextureSampleType::Float { filterable: false },
                false,
            )],
        );
        let (inputs, first_hair) = bind_maps(device, &maps, &inputs_layout, &first_hair_layout);
        let module = ShaderModule::Shadow.create(device);
        let depth_layout = pipeline_layout(device, "ribbon depth", &[Some(frame), Some(strands)]);
        let opacity_layout = pipeline_layout(
            device,
            "ribbon deep opacity",
            &[Some(frame), Some(strands), Some(&first_hair_layout)],
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
        ShadowPass {
            maps,
            inputs_layout,
            inputs,
            first_hair_layout,
            first_hair,
            hair_depth,
            deep_opacity,
        }
    }

    /// Makes the maps again at `size` texels a side (the groups that read them too), so a
    /// small picture clears and keeps only the texels it uses.
    pub fn resize(&mut self, device: &wgpu::Device, size: u32) {
        self.maps = ShadowMaps::new(device, size);
        (self.inputs, self.first_hair) = bind_maps(
            device,
            &self.maps,
            &self.inputs_layout,
            &self.first_hair_layout,
        );
    }

    /// Records the three maps, each over the whole of it: the surfaces' opaque depth, then
    /// (with `hair`) the first hair's depth and the deep opacity behind it; without hair
    /// those two are cleared. The maps are made at the size the picture needs
    /// ([`ShadowPass::resize`]).
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        queue: &wgpu::Queue,
        frame: &FrameBinding,
        surfaces: &SurfacesPass,
        hair: Option<ShadowHair>,
        timestamps: Option<&Timestamps>,
    ) {
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow: opaque depth"),
                color_attachments: &[],
                depth_stencil_attachment: Some(cleared_depth(&self.maps.skin_depth)),
                timestamp_writes: timestamps.map(|t| t.render(Pass::Shadow, Span::Begin)),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            surfaces.record_light_depth(&mut pass, frame);
        }
        if let Some((hair, compute)) = hair.and_then(|h| h.compute.map(|c| (h, c))) {
            compute.record_compute(
                encoder,
                queue,
                frame,
                hair.group,
                hair.count,
                self.maps.size,
            );
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow: hair maps by compute"),
                color_attachments: &[
                    cleared_color(&self.maps.first_hair, wgpu::Color::WHITE),
                    cleared_color(&self.maps.deep_opacity, wgpu::Color::TRANSPARENT),
                ],
                depth_stencil_attachment: None,
                timestamp_writes: timestamps.map(|t| t.render(Pass::Shadow, Span::End)),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            compute.write_maps(&mut pass);
            return;
        }
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow: first hair depth"),
                color_attachments: &[cleared_color(&self.maps.first_hair, wgpu::Color::WHITE)],
                depth_stencil_attachment: Some(cleared_depth(&self.maps.hair_depth)),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if let Some(hair) = hair {
                pass.set_pipeline(&self.hair_depth);
                frame.bind(&mut pass, View::Light);
                hair.ribbons.draw(&mut pass, hair.group, hair.count);
            }
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow: deep opacity"),
            color_attachments: &[cleared_color(
                &self.maps.deep_opacity,
                wgpu::Color::TRANSPARENT,
            )],
            depth_stencil_attachment: None,
            timestamp_writes: timestamps.map(|t| t.render(Pass::Shadow, Span::End)),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if let Some(hair) = hair {
            pass.set_pipeline(&self.deep_opacity);
            frame.bind(&mut pass, View::Light);
            pass.set_bind_group(2, &self.first_hair, &[]);
            hair.ribbons.draw(&mut pass, hair.group, hair.count);
        }
    }
}

/// The groups that read `maps`: the camera's passes' (all three maps and the samplers) and
/// the deep opacity pass's (the first hair's depth).
fn bind_maps(
    device: &wgpu::Device,
    maps: &ShadowMaps,
    inputs_layout: &wgpu::BindGroupLayout,
    first_hair_layout: &wgpu::BindGroupLayout,
) -> (wgpu::BindGroup, wgpu::BindGroup) {
    let inputs = bind_group(
        device,
        "render: shadow maps",
        inputs_layout,
        &[
            wgpu::BindingResource::TextureView(&maps.skin_depth),
            wgpu::BindingResource::TextureView(&maps.first_hair),
            wgpu::BindingResource::TextureView(&maps.deep_opacity),
            wgpu::BindingResource::Sampler(&maps.compare),
            wgpu::BindingResource::Sampler(&maps.linear),
        ],
    );
    let first_hair = bind_group(
        device,
        "render: first hair",
        first_hair_layout,
        &[wgpu::BindingResource::TextureView(&maps.first_hair)],
    );
    (inputs, first_hair)
}

/// A depth attachment cleared to the far plane (1) and kept.
fn cleared_depth(view: &wgpu::TextureView) -> wgpu::RenderPassDepthStencilAttachment<'_> {
    wgpu::RenderPassDepthStencilAttachment {
        view,
        depth_ops: Some(wgpu::Operations {
            load: wgpu::LoadOp::Clear(1.0),
            store: wgpu::StoreOp::Store,
        }),
        stencil_ops: None,
    }
}

/// A single-sampled colour attachment cleared to `clear` and kept.
fn cleared_color(
    view: &wgpu::TextureView,
    clear: wgpu::Color,
) -> Option<wgpu::RenderPassColorAttachment<'_>> {
    Some(wgpu::RenderPassColorAttachment {
        view,
        depth_slice: None,
        resolve_target: None,
        ops: wgpu::Operations {
            load: wgpu::LoadOp::Clear(clear),
            store: wgpu::StoreOp::Store,
        },
    })
}
