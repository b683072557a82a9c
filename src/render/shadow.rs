//! The key light's maps, drawn first in a frame: an opaque depth map (skin, face, hand: the
//! surfaces pass's own geometry, drawn here), a depth map of the nearest hair, and the
//! deep opacity map (hair density accumulated in four slabs behind that first hair), the
//! two hair maps drawn by the frame's hair path (`hair::HairPath::record_light`). The
//! later passes read the maps through [`ShadowPass::inputs`].

use super::descriptors::{
    VERTEX_FRAGMENT, bind_group, bind_group_layout, sampler_entry, texture_entry,
};
use super::frame::FrameBinding;
use super::light_view::{DEEP_OPACITY_FORMAT, FIRST_HAIR_FORMAT, SHADOW_DEPTH_FORMAT};
use super::surfaces::SurfacesPass;
use super::timing::{Pass, Span, Timestamps};

/// Stages that read the shadow maps: the camera's render passes and the strands' shading
/// pass.
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
                    // COPY_DST: a hair path drawing on the host writes its maps.
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                        | wgpu::TextureUsages::TEXTURE_BINDING
                        | wgpu::TextureUsages::COPY_DST,
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

/// The shadow pass: the maps, the opaque depth drawn into them, and the groups that read
/// the maps.
#[derive(Debug)]
pub struct ShadowPass {
    /// The maps.
    pub maps: ShadowMaps,
    /// Group 2 of the camera's passes: the three maps and two samplers.
    pub inputs_layout: wgpu::BindGroupLayout,
    /// The maps as the camera's passes read them.
    pub inputs: wgpu::BindGroup,
    /// Group 2 of the ribbons' deep opacity pass: the first hair's depth.
    pub first_hair_layout: wgpu::BindGroupLayout,
    /// The first hair's depth as the deep opacity pass reads it.
    pub first_hair: wgpu::BindGroup,
}

impl ShadowPass {
    /// Maps of `size` texels a side and the groups that read them.
    pub fn new(device: &wgpu::Device, size: u32) -> Self {
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
        ShadowPass {
            maps,
            inputs_layout,
            inputs,
            first_hair_layout,
            first_hair,
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

    /// Records the surfaces' opaque depth map over the whole of it, the first of the
    /// frame's shadow passes (the hair path draws the other two maps after it, see
    /// `hair::HairPath::record_light`). The maps are made at the size the picture needs
    /// ([`ShadowPass::resize`]).
    pub fn record_opaque(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameBinding,
        surfaces: &SurfacesPass,
        timestamps: Option<&Timestamps>,
    ) {
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
pub fn cleared_depth(view: &wgpu::TextureView) -> wgpu::RenderPassDepthStencilAttachment<'_> {
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
pub fn cleared_color(
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
