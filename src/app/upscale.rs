//! Dynamic resolution for the demo: the scene drawn offscreen at a share of the window's
//! size ([`ScaledTarget`]) and upscaled into the window by a Catmull-Rom bicubic filter
//! ([`Upscaler`], `upscale.wgsl`) before the panel is drawn on top at full size. A scene
//! under half the window's size is upscaled in two steps: bicubic to half the window, then
//! one bilinear tap to the window (exactly 2×). The bicubic's five taps a pixel are the
//! costly part on a CPU adapter and one tap next to nothing, so the bicubic is paid on a
//! quarter of the pixels, at the price of a slightly softer picture than one bicubic step
//! (both measured in docs/architecture.md (Measured)).

use pelt::render::{FrameTargets, TargetLayout};
use pelt::shaders::ShaderModule;

/// The upscaling pipelines (bicubic, bilinear) and their sampler.
pub struct Upscaler {
    bicubic: wgpu::RenderPipeline,
    bilinear: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    format: wgpu::TextureFormat,
}

/// The first step's picture of a two-step upscale, and the group the second reads it by.
struct Halfway {
    view: wgpu::TextureView,
    group: wgpu::BindGroup,
    width: u32,
}

/// The scene's offscreen targets at the render scale, and the group the upscaler reads
/// them through.
pub struct ScaledTarget {
    /// Multisampled colour, depth (and IDs) at the scaled size.
    pub targets: FrameTargets,
    /// The resolved scene the upscaler samples.
    pub view: wgpu::TextureView,
    group: wgpu::BindGroup,
    /// Below half the window's size: the scene at half the window's size, made by the
    /// bicubic pass.
    halfway: Option<Halfway>,
}

/// The size the bicubic pass draws a scene of `scene` at in a window of `window`: half
/// the window (rounded up), where the scene is under half the window on both sides, so the
/// bilinear pass after it magnifies exactly 2× (each pixel a fixed 3:1 mix of texels, a
/// uniform softening rather than one that beats with the ratio); or `None`: straight into
/// the window.
pub fn halfway_size(scene: (u32, u32), window: (u32, u32)) -> Option<(u32, u32)> {
    let under_half = scene.0.saturating_mul(2) < window.0 && scene.1.saturating_mul(2) < window.1;
    under_half.then_some((window.0.div_ceil(2), window.1.div_ceil(2)))
}

/// The drawn size for a window of `size` at `scale` (each side at least one pixel).
pub fn scaled_size(size: (u32, u32), scale: f32) -> (u32, u32) {
    let side = |v: u32| ((v as f32 * scale).round() as u32).clamp(1, v.max(1));
    (side(size.0), side(size.1))
}

impl Upscaler {
    /// The pipeline for output views of `format`.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let module = ShaderModule::Upscale.create(device);
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
        let pipeline = |entry: &str| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(entry),
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
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    targets: &[Some(format.into())],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("demo: upscale"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        Upscaler {
            bicubic: pipeline("fs_upscale"),
            bilinear: pipeline("fs_bilinear"),
            layout,
            sampler,
            format,
        }
    }

    /// A texture of `size` in `format` that one pass draws and the next samples, and the
    /// group that samples it.
    fn sampled_texture(
        &self,
        device: &wgpu::Device,
        size: (u32, u32),
        format: wgpu::TextureFormat,
        label: &str,
    ) -> (wgpu::TextureView, wgpu::BindGroup) {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
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
        (view, group)
    }

    /// Offscreen targets of `size` for frames of `layout`, readable by this upscaler, for a
    /// window of `window` pixels.
    pub fn target(
        &self,
        device: &wgpu::Device,
        layout: &TargetLayout,
        size: (u32, u32),
        window: (u32, u32),
    ) -> ScaledTarget {
        let (view, group) =
            self.sampled_texture(device, size, layout.color_format, "demo: scaled scene");
        let halfway = halfway_size(size, window).map(|halfway| {
            let (view, group) =
                self.sampled_texture(device, halfway, self.format, "demo: upscale halfway");
            Halfway {
                view,
                group,
                width: halfway.0,
            }
        });
        ScaledTarget {
            targets: FrameTargets::new(device, layout, size.0, size.1),
            view,
            group,
            halfway,
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
        let width = output.texture().width();
        match &scaled.halfway {
            Some(halfway) => {
                // The halfway picture's hidden columns, less two for the bilinear tap's
                // reach (it reads up to one texel left of a pixel's centre).
                let hidden = u64::from(hidden_left) * u64::from(halfway.width) / u64::from(width);
                let hidden = (hidden as u32).saturating_sub(2);
                draw(encoder, &halfway.view, &self.bicubic, &scaled.group, hidden);
                draw(encoder, output, &self.bilinear, &halfway.group, hidden_left);
            }
            None => draw(encoder, output, &self.bicubic, &scaled.group, hidden_left),
        }
    }
}

/// One upscaling pass: `pipeline` reading `group` over `target`, cleared, but for its
/// first `hidden_left` columns, which are only cleared.
fn draw(
    encoder: &mut wgpu::CommandEncoder,
    target: &wgpu::TextureView,
    pipeline: &wgpu::RenderPipeline,
    group: &wgpu::BindGroup,
    hidden_left: u32,
) {
    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("demo: upscale"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: target,
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
    let size = target.texture().size();
    if hidden_left >= size.width {
        return;
    }
    pass.set_scissor_rect(hidden_left, 0, size.width - hidden_left, size.height);
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, group, &[]);
    pass.draw(0..3, 0..1);
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
    fn only_scenes_under_half_the_window_are_upscaled_in_two_steps() {
        assert_eq!(halfway_size((320, 180), (1280, 720)), Some((640, 360)));
        assert_eq!(halfway_size((538, 302), (1280, 720)), Some((640, 360)));
        assert_eq!(halfway_size((128, 72), (1281, 721)), Some((641, 361)));
        // Half the window or more: straight into it.
        assert_eq!(halfway_size((640, 360), (1280, 720)), None);
        assert_eq!(halfway_size((1000, 100), (1280, 720)), None);
        assert_eq!(halfway_size((u32::MAX, 1), (1280, 720)), None);
    }
}
