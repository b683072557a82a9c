//! Dynamic resolution for the demo: the scene drawn offscreen at a share of the window's
//! size ([`ScaledTarget`]) and upscaled into the window by a Catmull-Rom bicubic filter
//! ([`Upscaler`], `upscale.wgsl`) before the panel is drawn on top at full size.

use pelt::render::{FrameTargets, TargetLayout};

/// The upscaling pipeline and its sampler.
pub struct Upscaler {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
}

/// The scene's offscreen targets at the render scale, and the group the upscaler reads
/// them through.
pub struct ScaledTarget {
    /// Multisampled colour, depth (and IDs) at the scaled size.
    pub targets: FrameTargets,
    /// The resolved scene the upscaler samples.
    pub view: wgpu::TextureView,
    group: wgpu::BindGroup,
}

/// The drawn size for a window of `size` at `scale` (each side at least one pixel).
pub fn scaled_size(size: (u32, u32), scale: f32) -> (u32, u32) {
    let side = |v: u32| ((v as f32 * scale).round() as u32).clamp(1, v.max(1));
    (side(size.0), side(size.1))
}

impl Upscaler {
    /// The pipeline for output views of `format`.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("demo: upscale"),
            source: wgpu::ShaderSource::Wgsl(include_str!("upscale.wgsl").into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("demo: upscale"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("demo: upscale"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("demo: upscale"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_upscale"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_upscale"),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("demo: upscale"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        Upscaler {
            pipeline,
            layout,
            sampler,
        }
    }

    /// Offscreen targets of `size` for frames of `layout`, readable by this upscaler.
    pub fn target(
        &self,
        device: &wgpu::Device,
        layout: &TargetLayout,
        size: (u32, u32),
    ) -> ScaledTarget {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("demo: scaled scene"),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: layout.color_format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("demo: upscale"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
            ],
        });
        ScaledTarget {
            targets: FrameTargets::new(device, layout, size.0, size.1),
            view,
            group,
        }
    }

    /// Draws `scaled` over `output` but for its first `hidden_left` columns, which
    /// something opaque drawn later hides (the panel); those are only cleared.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scaled: &ScaledTarget,
        output: &wgpu::TextureView,
        hidden_left: u32,
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("demo: upscale"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: output,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        let size = output.texture().size();
        if hidden_left >= size.width {
            return;
        }
        pass.set_scissor_rect(hidden_left, 0, size.width - hidden_left, size.height);
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &scaled.group, &[]);
        pass.draw(0..3, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_sizes_round_and_stay_positive() {
        assert_eq!(scaled_size((1280, 720), 0.5), (640, 360));
        assert_eq!(scaled_size((1280, 720), 1.0), (1280, 720));
        assert_eq!(scaled_size((3, 1), 0.1), (1, 1));
    }

    #[test]
    fn the_shader_parses_and_validates() {
        let source = include_str!("upscale.wgsl");
        let module = naga::front::wgsl::parse_str(source)
            .unwrap_or_else(|e| panic!("upscale.wgsl: {}", e.emit_to_string(source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("upscale.wgsl does not validate: {e:?}"));
    }
}
