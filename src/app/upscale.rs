//! Dynamic resolution for the demo: the scene drawn offscreen at a share of the window's
//! size ([`ScaledTarget`]) and upscaled into the window by a Catmull-Rom bicubic filter
//! ([`Upscaler`], `upscale.wgsl`) before the panel is drawn on top at full size. The taps
//! a window pixel reads are the costly part on a CPU adapter, so the work is moved to the
//! scene's side where it can be:
//!
//! - a scene at exactly half a window of even sides (the budget's 0.5) is sharpened at its
//!   own size by a 3×3 kernel and magnified by one bilinear tap: at exactly 2× that *is*
//!   Catmull-Rom (per axis, a bilinear tap at a quarter texel over the kernel
//!   `[-3, 38, -3] / 32` gives the cubic's four weights), for nine texel loads a scene
//!   pixel (about two a window pixel) more than the one tap; each sharpened texel is held
//!   within the range of the nine it was made from, so thin bright strands over a dark
//!   background do not ring (black pixels beside them);
//! - a scene under half the window is upscaled in two steps: bicubic to half the window,
//!   then one bilinear tap to the window (exactly 2×), the bicubic paid on a quarter of the
//!   pixels, at the price of a slightly softer picture than one bicubic step (both measured
//!   in docs/architecture.md (Measured));
//! - any other scene goes straight into the window by the bicubic's five taps.

use pelt::render::{FrameTargets, TargetLayout};
use pelt::shaders::ShaderModule;

/// Format of the sharpened scene: linear light, which eight bits a channel would band in
/// the darks, for the bilinear tap to mix as it is.
const SHARPENED_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

/// The upscaling pipelines (bicubic and bilinear into the window's format, the sharpening
/// into [`SHARPENED_FORMAT`]) and their sampler.
pub struct Upscaler {
    bicubic: wgpu::RenderPipeline,
    bilinear: wgpu::RenderPipeline,
    sharpen: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    format: wgpu::TextureFormat,
}

/// What the first of two steps draws before one bilinear tap magnifies it 2× into the
/// window.
#[derive(Clone, Copy, Debug, PartialEq)]
enum FirstStep {
    /// Bicubic, from a scene under half the window to half the window.
    Halfway,
    /// The 3×3 sharpening of a scene at half the window, at its own size.
    Sharpen,
}

/// The first step's picture of a two-step upscale, and the group the second reads it by.
struct Halfway {
    step: FirstStep,
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
    /// At or below half the window's size: the first step's picture (the scene at half the
    /// window's size made by the bicubic pass, or the scene sharpened).
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

/// Whether a scene of `scene` is exactly half a window of `window` (both of the window's
/// sides even, as the budget's 0.5 draws a 1280×720 window): one bilinear tap then
/// magnifies it exactly 2×, and a sharpened scene gives the cubic. An odd side would
/// stretch the tap's phase across the window, so such a scene takes the bicubic.
pub fn is_half(scene: (u32, u32), window: (u32, u32)) -> bool {
    u64::from(scene.0) * 2 == u64::from(window.0) && u64::from(scene.1) * 2 == u64::from(window.1)
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
        let pipeline = |entry: &str, format: wgpu::TextureFormat| {
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
            bicubic: pipeline("fs_upscale", format),
            bilinear: pipeline("fs_bilinear", format),
            sharpen: pipeline("fs_sharpen", SHARPENED_FORMAT),
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
            // Copied into by the tests, which draw a known scene.
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_DST,
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
        let halfway = if is_half(size, window) {
            let (view, group) =
                self.sampled_texture(device, size, SHARPENED_FORMAT, "demo: scene sharpened");
            Some(Halfway {
                step: FirstStep::Sharpen,
                view,
                group,
                width: size.0,
            })
        } else {
            halfway_size(size, window).map(|halfway| {
                let (view, group) =
                    self.sampled_texture(device, halfway, self.format, "demo: upscale halfway");
                Halfway {
                    step: FirstStep::Halfway,
                    view,
                    group,
                    width: halfway.0,
                }
            })
        };
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
                // The first picture's hidden columns, less two for the bilinear tap's
                // reach (it reads up to one texel left of a pixel's centre).
                let hidden = u64::from(hidden_left) * u64::from(halfway.width) / u64::from(width);
                let hidden = (hidden as u32).saturating_sub(2);
                let first = match halfway.step {
                    FirstStep::Halfway => &self.bicubic,
                    FirstStep::Sharpen => &self.sharpen,
                };
                draw(encoder, &halfway.view, first, &scaled.group, hidden);
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
    fn half_the_window_is_exactly_half_of_its_even_sides() {
        assert!(is_half((640, 360), (1280, 720)));
        assert!(!is_half((641, 361), (1281, 721)));
        assert!(!is_half((641, 360), (1281, 720)));
        assert!(is_half(scaled_size((1280, 720), 0.5), (1280, 720)));
        assert!(!is_half((640, 360), (1281, 720)));
        assert!(!is_half((639, 360), (1280, 720)));
        assert!(!is_half((320, 180), (1280, 720)));
    }

    fn srgb_to_linear(c: f64) -> f64 {
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    }

    fn linear_to_srgb(c: f64) -> f64 {
        let c = c.clamp(0.0, 1.0);
        if c <= 0.003_130_8 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        }
    }

    /// Catmull-Rom's four weights at phase `f` (0 … 1) past the second texel.
    fn cubic_weights(f: f64) -> [f64; 4] {
        [
            f * (-0.5 + f * (1.0 - 0.5 * f)),
            1.0 + f * f * (-2.5 + 1.5 * f),
            f * (0.5 + f * (2.0 - 1.5 * f)),
            f * f * (-0.5 + 0.5 * f),
        ]
    }

    #[test]
    fn at_exactly_half_the_window_the_sharpening_and_one_tap_are_the_cubic_without_ringing() {
        let gpu = pelt::gpu::GpuContext::new().expect("an adapter (lavapipe where no GPU)");
        let format = wgpu::TextureFormat::Rgba8UnormSrgb;
        let upscaler = Upscaler::new(&gpu.device, format);
        let layout = TargetLayout {
            color_format: format,
            samples: 1,
            ids: false,
        };
        let (scene, window) = ((24u32, 16u32), (48u32, 32u32));
        let scaled = upscaler.target(&gpu.device, &layout, scene, window);
        assert!(scaled.halfway.as_ref().map(|h| h.step) == Some(FirstStep::Sharpen));
        // A scene of noise: every texel's neighbours differ, so any other kernel shows.
        let mut state = 0x2545_f491_u32;
        let texels: Vec<u8> = (0..scene.0 * scene.1 * 4)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                if i % 4 == 3 { 255 } else { (state >> 24) as u8 }
            })
            .collect();
        gpu.queue.write_texture(
            scaled.view.texture().as_image_copy(),
            &texels,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(scene.0 * 4),
                rows_per_image: None,
            },
            scaled.view.texture().size(),
        );
        let output = gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("test: window"),
            size: wgpu::Extent3d {
                width: window.0,
                height: window.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        upscaler.record(
            &mut encoder,
            &scaled,
            &output.create_view(&Default::default()),
            0,
        );
        gpu.queue.submit(Some(encoder.finish()));
        let drawn = pelt::render::capture::read_texture(&gpu.device, &gpu.queue, &output, 4)
            .expect("the window read back");
        // The cubic with all sixteen taps, in linear light, edges clamped: each texel
        // sharpened by the 3×3 kernel and held within its nine texels' range, then one
        // bilinear tap a quarter texel off the centres.
        let texel = |x: i64, y: i64, c: usize| {
            let x = x.clamp(0, i64::from(scene.0) - 1) as u32;
            let y = y.clamp(0, i64::from(scene.1) - 1) as u32;
            srgb_to_linear(f64::from(texels[((y * scene.0 + x) * 4) as usize + c]) / 255.0)
        };
        let k = [-3.0 / 32.0, 38.0 / 32.0, -3.0 / 32.0];
        // Unclamped, a bilinear tap a quarter texel off over the kernel weighs the four
        // texels about it as the cubic does at that phase.
        let through_tap = [
            0.75 * k[0],
            0.75 * k[1] + 0.25 * k[0],
            0.75 * k[2] + 0.25 * k[1],
            0.25 * k[2],
        ];
        for (a, b) in through_tap.iter().zip(cubic_weights(0.25)) {
            assert!((a - b).abs() < 1e-12, "{through_tap:?} against the cubic's");
        }
        let sharpened = |x: i64, y: i64, c: usize| {
            let (x, y) = (
                x.clamp(0, i64::from(scene.0) - 1),
                y.clamp(0, i64::from(scene.1) - 1),
            );
            let (mut sum, mut low, mut high) = (0.0, f64::INFINITY, f64::NEG_INFINITY);
            for j in 0..3 {
                for i in 0..3 {
                    let t = texel(x + i - 1, y + j - 1, c);
                    sum += k[i as usize] * k[j as usize] * t;
                    (low, high) = (low.min(t), high.max(t));
                }
            }
            sum.clamp(low, high)
        };
        // Inside the outermost window pixels: there the sharpened scene's clamped edge and
        // the cubic's clamped texels weigh the edge texels a little differently.
        let (mut worst, mut sum, mut rings) = (0.0f64, 0.0, 0.0f64);
        for y in 1..window.1 - 1 {
            for x in 1..window.0 - 1 {
                let u = (f64::from(x) + 0.5) / 2.0 - 0.5;
                let v = (f64::from(y) + 0.5) / 2.0 - 0.5;
                let (x0, y0) = (u.floor() as i64, v.floor() as i64);
                let (fx, fy) = (u - u.floor(), v - v.floor());
                for c in 0..3 {
                    let linear = (1.0 - fy)
                        * ((1.0 - fx) * sharpened(x0, y0, c) + fx * sharpened(x0 + 1, y0, c))
                        + fy * ((1.0 - fx) * sharpened(x0, y0 + 1, c)
                            + fx * sharpened(x0 + 1, y0 + 1, c));
                    let want = linear_to_srgb(linear) * 255.0;
                    let got = f64::from(drawn[((y * window.0 + x) * 4) as usize + c]);
                    worst = worst.max((got - want).abs());
                    sum += (got - want).abs();
                    // No ring: the pixel within the range of the 4×4 texels about it.
                    let around: Vec<f64> = (-1..3)
                        .flat_map(|j| (-1..3).map(move |i| (i, j)))
                        .map(|(i, j)| linear_to_srgb(texel(x0 + i, y0 + j, c)) * 255.0)
                        .collect();
                    let low = around.iter().copied().fold(f64::INFINITY, f64::min);
                    let high = around.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    rings = rings.max(low - got).max(got - high);
                }
            }
        }
        assert!(
            rings <= 1.0,
            "a pixel {rings:.2} levels outside its texels' range"
        );
        let mean = sum / f64::from((window.0 - 2) * (window.1 - 2) * 3);
        // Half floats between the steps and 8-bit sRGB at both ends: about a level, a few
        // where the sRGB curve is steepest (near black).
        assert!(
            worst <= 4.0 && mean <= 0.5,
            "worst {worst:.2}, mean {mean:.3} levels"
        );
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
