//! The creature drawn into a caller's own targets (`SimulatedFur::draw_into`): the caller's
//! cleared colour survives where there is no creature, a quad the caller drew nearer than
//! the creature hides it, the creature hides a quad behind it, the model transform moves
//! and scales it by what it says, and targets or transforms Pelt cannot draw with are
//! refused before anything is drawn.

mod render_common;

use glam::{Mat4, Vec3, Vec4};
use pelt::gpu::GpuContext;
use pelt::render::capture::read_texture;
use pelt::render::{Camera, CameraPreset, EmbedTarget, OFFSCREEN_FORMAT, Placement, TargetLayout};
use pelt::{SimulatedFur, SimulatedFurOptions};
use wgpu::util::DeviceExt;

const WIDTH: u32 = 200;
const HEIGHT: u32 = 120;
const COLOR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// The caller's clear colour, and its two quads' colours (primaries: exact in 8-bit sRGB,
/// and never the creature's).
const CLEAR: [u8; 4] = [0, 255, 0, 255];
const NEAR_QUAD: [u8; 4] = [0, 0, 255, 255];
const FAR_QUAD: [u8; 4] = [255, 0, 0, 255];

/// A quad of the caller's in clip space: `x0..x1` across the whole height, at the depth a
/// point `distance` metres ahead of the camera has, in one colour.
struct Quad {
    x0: f32,
    x1: f32,
    distance: f32,
    color: [u8; 4],
}

const QUAD_SHADER: &str = "
struct Out { @builtin(position) clip: vec4<f32>, @location(0) color: vec4<f32> }
@vertex fn vs(@location(0) clip: vec4<f32>, @location(1) color: vec4<f32>) -> Out {
    return Out(clip, color);
}
@fragment fn fs(v: Out) -> @location(0) vec4<f32> { return v.color; }
";

/// A program with a scene of its own: colour and depth targets (with MSAA, and the
/// single-sampled colour it resolves them into), a pipeline for its quads, and the creature.
struct Caller {
    gpu: GpuContext,
    fur: SimulatedFur,
    camera: Camera,
    color: wgpu::Texture,
    depth: wgpu::Texture,
    resolved: Option<wgpu::Texture>,
    quads: wgpu::RenderPipeline,
}

impl Caller {
    fn new() -> Self {
        Caller::with_samples(1)
    }

    fn with_samples(samples: u32) -> Self {
        let gpu = render_common::gpu();
        let layout = TargetLayout::new(&gpu.adapter, OFFSCREEN_FORMAT, false);
        let fur = SimulatedFur::new(&gpu, &SimulatedFurOptions::new(4096, 5, layout)).unwrap();
        let texture = |format, usage, sample_count| {
            gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("caller target"),
                size: wgpu::Extent3d {
                    width: WIDTH,
                    height: HEIGHT,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let readable = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
        let attachment = wgpu::TextureUsages::RENDER_ATTACHMENT;
        let color = texture(
            COLOR,
            if samples > 1 { attachment } else { readable },
            samples,
        );
        let depth = texture(DEPTH, attachment, samples);
        let resolved = (samples > 1).then(|| texture(COLOR, readable, 1));
        let module = gpu
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("caller quads"),
                source: wgpu::ShaderSource::Wgsl(QUAD_SHADER.into()),
            });
        let attributes = wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4];
        let quads = gpu
            .device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("caller quads"),
                layout: None,
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs"),
                    compilation_options: Default::default(),
                    buffers: &[Some(wgpu::VertexBufferLayout {
                        array_stride: 32,
                        step_mode: wgpu::VertexStepMode::Vertex,
                        attributes: &attributes,
                    })],
                },
                primitive: Default::default(),
                // Pelt's reversed depth: cleared to 0, nearer is greater.
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: samples,
                    ..Default::default()
                },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs"),
                    compilation_options: Default::default(),
                    targets: &[Some(COLOR.into())],
                }),
                multiview_mask: None,
                cache: None,
            });
        Caller {
            gpu,
            fur,
            camera: Camera::preset(CameraPreset::Front),
            color,
            depth,
            resolved,
            quads,
        }
    }

    fn views(&self) -> (wgpu::TextureView, wgpu::TextureView) {
        (
            self.color.create_view(&Default::default()),
            self.depth.create_view(&Default::default()),
        )
    }

    /// Clears, draws `quads`, then asks Pelt for the creature placed by `model` (unless
    /// `model` is `None`); returns the colour, one RGBA per pixel, row by row.
    fn frame(&mut self, quads: &[Quad], model: Option<Mat4>) -> Vec<[u8; 4]> {
        let (color, depth) = self.views();
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        self.draw_scene(&mut encoder, &color, &depth, quads);
        if let Some(model) = model {
            let target = EmbedTarget {
                color: &color,
                color_format: COLOR,
                depth: &depth,
                depth_format: DEPTH,
            };
            self.fur
                .draw_into(&mut encoder, &target, &self.camera, &Placement::new(model))
                .unwrap();
        }
        if let Some(resolved) = &self.resolved {
            // The caller resolves its own multisampled colour.
            let view = resolved.create_view(&Default::default());
            encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("caller resolve"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &color,
                    depth_slice: None,
                    resolve_target: Some(&view),
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Discard,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
        }
        self.gpu.queue.submit(Some(encoder.finish()));
        self.read()
    }

    fn read(&self) -> Vec<[u8; 4]> {
        let texture = self.resolved.as_ref().unwrap_or(&self.color);
        let bytes = read_texture(&self.gpu.device, &self.gpu.queue, texture, 4).unwrap();
        bytes
            .chunks_exact(4)
            .map(|p| [p[0], p[1], p[2], p[3]])
            .collect()
    }

    /// The caller's own scene: a clear, then its quads into colour and depth.
    fn draw_scene(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        color: &wgpu::TextureView,
        depth: &wgpu::TextureView,
        quads: &[Quad],
    ) {
        let view_proj = self.camera.view_proj(WIDTH as f32 / HEIGHT as f32);
        let mut vertices: Vec<f32> = Vec::new();
        for q in quads {
            let ahead = self.camera.eye + self.camera.forward() * q.distance;
            let z = view_proj.project_point3(ahead).z;
            let rgba = q.color.map(|c| f32::from(c) / 255.0);
            for (x, y) in [(0, 0), (1, 0), (1, 1), (0, 0), (1, 1), (0, 1)] {
                let x = if x == 0 { q.x0 } else { q.x1 };
                let y = if y == 0 { -1.0 } else { 1.0 };
                vertices.extend([x, y, z, 1.0]);
                vertices.extend(rgba);
            }
        }
        let buffer = (!vertices.is_empty()).then(|| {
            self.gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("caller quads"),
                    contents: bytemuck::cast_slice(&vertices),
                    usage: wgpu::BufferUsages::VERTEX,
                })
        });
        let clear = wgpu::Color {
            r: 0.0,
            g: 1.0,
            b: 0.0,
            a: 1.0,
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("caller scene"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: color,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(clear),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(0.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if let Some(buffer) = &buffer {
            pass.set_pipeline(&self.quads);
            pass.set_vertex_buffer(0, buffer.slice(..));
            pass.draw(0..(vertices.len() / 8) as u32, 0..1);
        }
    }
}

/// Pixels (x, y) the creature covers: those that are not the caller's clear colour.
fn creature_pixels(picture: &[[u8; 4]]) -> Vec<(u32, u32)> {
    pixels_unlike(picture, CLEAR)
}

/// Pixels (x, y) that are not `background`.
fn pixels_unlike(picture: &[[u8; 4]], background: [u8; 4]) -> Vec<(u32, u32)> {
    (0..HEIGHT)
        .flat_map(|y| (0..WIDTH).map(move |x| (x, y)))
        .filter(|&(x, y)| picture[(y * WIDTH + x) as usize] != background)
        .collect()
}

fn centroid(pixels: &[(u32, u32)]) -> (f64, f64) {
    let n = pixels.len().max(1) as f64;
    let sx: f64 = pixels.iter().map(|p| f64::from(p.0) + 0.5).sum();
    let sy: f64 = pixels.iter().map(|p| f64::from(p.1) + 0.5).sum();
    (sx / n, sy / n)
}

#[test]
fn the_callers_colour_and_nearer_quad_survive_and_the_creature_hides_what_is_behind_it() {
    callers_scene_survives(1);
}

#[test]
fn with_msaa_the_callers_colour_and_nearer_quad_survive_and_the_creature_hides_the_rest() {
    callers_scene_survives(4);
}

/// The caller's clear colour, a quad nearer than the creature and one behind it, in
/// targets of `samples` samples.
fn callers_scene_survives(samples: u32) {
    let mut caller = Caller::with_samples(samples);
    let pixels = (WIDTH * HEIGHT) as usize;
    let alone = caller.frame(&[], Some(Mat4::IDENTITY));
    let creature = creature_pixels(&alone);
    let shown = creature.len() as f64 / pixels as f64;
    // The creature is drawn, and everywhere else the caller's clear colour is kept.
    assert!(shown > 0.08 && shown < 0.7, "creature covers {shown:.3}");
    let kept = alone.iter().filter(|&&p| p == CLEAR).count();
    assert_eq!(kept + creature.len(), pixels);
    for (x, y) in [
        (0, 0),
        (WIDTH - 1, 0),
        (0, HEIGHT - 1),
        (WIDTH - 1, HEIGHT - 1),
    ] {
        assert_eq!(alone[(y * WIDTH + x) as usize], CLEAR, "corner ({x}, {y})");
    }

    // The left half: a quad 1 m ahead, nearer than any of the creature (about 2.7 m
    // away). The right half: a quad 20 m ahead, behind it.
    let quads = [
        Quad {
            x0: -1.0,
            x1: 0.0,
            distance: 1.0,
            color: NEAR_QUAD,
        },
        Quad {
            x0: 0.0,
            x1: 1.0,
            distance: 20.0,
            color: FAR_QUAD,
        },
    ];
    let scene = caller.frame(&quads, Some(Mat4::IDENTITY));
    let middle = WIDTH / 2;
    let (mut hidden, mut in_front, mut same) = (0, 0, 0);
    for (x, y) in (0..HEIGHT).flat_map(|y| (0..WIDTH).map(move |x| (x, y))) {
        let i = (y * WIDTH + x) as usize;
        let drawn = alone[i] != CLEAR;
        if x + 1 < middle {
            assert_eq!(scene[i], NEAR_QUAD, "({x}, {y}): the nearer quad must stay");
            hidden += usize::from(drawn);
        } else if x > middle {
            if drawn {
                assert_ne!(scene[i], FAR_QUAD, "({x}, {y}): the creature is in front");
                in_front += 1;
                same += usize::from(scene[i] == alone[i]);
            } else {
                assert_eq!(scene[i], FAR_QUAD, "({x}, {y}): the far quad shows");
            }
        }
    }
    eprintln!(
        "{samples} samples: creature {shown:.3} of the picture; {hidden} pixels hidden, {in_front} in front, {same} unchanged"
    );
    // The nearer quad really covered some of the creature, and the far one is covered by
    // the creature's own pixels, drawn as they are without the quads.
    assert!(
        hidden > pixels / 50,
        "{hidden} creature pixels under the near quad"
    );
    assert!(
        in_front > pixels / 50,
        "{in_front} creature pixels over the far quad"
    );
    // With MSAA a pixel the fur covers only in part lets some of what is behind it
    // through, so only the pixels it covers wholly are the same as without the quads.
    let unchanged = if samples == 1 { 0.98 } else { 0.6 };
    assert!(
        same as f64 >= unchanged * in_front as f64,
        "{same} of {in_front} pixels in front match the picture without quads"
    );
}

#[test]
fn the_model_transform_moves_and_scales_the_creature_on_screen() {
    let mut caller = Caller::new();
    let camera = caller.camera;
    let aspect = WIDTH as f32 / HEIGHT as f32;
    let to_pixel = |p: Vec3| {
        let ndc = camera.view_proj(aspect).project_point3(p);
        (
            f64::from((ndc.x + 1.0) * 0.5 * WIDTH as f32),
            f64::from((1.0 - ndc.y) * 0.5 * HEIGHT as f32),
        )
    };
    let at_home = creature_pixels(&caller.frame(&[], Some(Mat4::IDENTITY)));
    let home = centroid(&at_home);

    // 0.25 m to the camera's right and 0.1 m up.
    let right = camera.forward().cross(Vec3::Y).normalize();
    let offset = right * 0.25 + Vec3::Y * 0.1;
    let centre = pelt::render::camera::CREATURE_CENTER;
    let expected = {
        let (a, b) = (to_pixel(centre), to_pixel(centre + offset));
        (b.0 - a.0, b.1 - a.1)
    };
    let moved = creature_pixels(&caller.frame(&[], Some(Mat4::from_translation(offset))));
    let shift = {
        let c = centroid(&moved);
        (c.0 - home.0, c.1 - home.1)
    };
    eprintln!("centroid moved {shift:?} px, the centre's projection {expected:?}");
    assert!(
        expected.0 > 10.0,
        "the offset moves the creature {expected:?} px"
    );
    // Parts nearer and farther than the centre move a little more and less.
    for (got, want) in [(shift.0, expected.0), (shift.1, expected.1)] {
        assert!(
            (got - want).abs() <= 0.12 * want.abs() + 1.0,
            "centroid moved {shift:?} px, expected {expected:?}"
        );
    }

    // Half the size about its centre: a quarter of the pixels, the centre where it was,
    // and depths that are the placed creature's: all of it (within about 0.4 m of its
    // centre, 2.7 m away) in front of the caller's wall 3.6 m away.
    let half = Mat4::from_translation(centre)
        * Mat4::from_scale(Vec3::splat(0.5))
        * Mat4::from_translation(-centre);
    let wall = Quad {
        x0: -1.0,
        x1: 1.0,
        distance: 3.6,
        color: FAR_QUAD,
    };
    let small = pixels_unlike(&caller.frame(&[wall], Some(half)), FAR_QUAD);
    let ratio = small.len() as f64 / at_home.len() as f64;
    eprintln!("half size: {ratio:.3} of the pixels");
    assert!(
        (0.18..0.34).contains(&ratio),
        "half size covers {ratio:.3} of the pixels"
    );
    let c = centroid(&small);
    let (home_centre, small_centre) = (to_pixel(centre), c);
    // The centroid moves toward the projected centre by about half its offset from it.
    for (s, h, p) in [
        (small_centre.0, home.0, home_centre.0),
        (small_centre.1, home.1, home_centre.1),
    ] {
        let want = p + 0.5 * (h - p);
        assert!(
            (s - want).abs() <= 2.0,
            "half-size centroid {c:?}, home {home:?}"
        );
    }
}

#[test]
fn targets_and_transforms_pelt_cannot_draw_with_are_refused_and_nothing_is_drawn() {
    let mut caller = Caller::new();
    let (color, depth) = caller.views();
    let good = EmbedTarget {
        color: &color,
        color_format: COLOR,
        depth: &depth,
        depth_format: DEPTH,
    };
    let refuse = |caller: &mut Caller, target: &EmbedTarget, model: Mat4, wanted: &str| {
        let mut encoder = caller
            .gpu
            .device
            .create_command_encoder(&Default::default());
        caller.draw_scene(&mut encoder, target.color, target.depth, &[]);
        let camera = caller.camera;
        let e = caller
            .fur
            .draw_into(&mut encoder, target, &camera, &Placement::new(model))
            .expect_err(wanted)
            .to_string();
        assert!(e.contains(wanted), "{e:?} should say {wanted:?}");
        caller.gpu.queue.submit(Some(encoder.finish()));
        let picture = caller.read();
        assert!(
            picture.iter().all(|&p| p == CLEAR),
            "{wanted}: something was drawn"
        );
    };
    // Linear 8-bit colour would store tone-mapped light unencoded: too dark.
    let unencoded = EmbedTarget {
        color_format: wgpu::TextureFormat::Rgba8Unorm,
        ..good
    };
    refuse(&mut caller, &unencoded, Mat4::IDENTITY, "sRGB");
    let wrong_depth = EmbedTarget {
        depth_format: wgpu::TextureFormat::Depth24Plus,
        ..good
    };
    refuse(&mut caller, &wrong_depth, Mat4::IDENTITY, "Depth24Plus");
    let msaa_depth = caller.gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("caller depth, 4 samples"),
        size: caller.depth.size(),
        mip_level_count: 1,
        sample_count: 4,
        dimension: wgpu::TextureDimension::D2,
        format: DEPTH,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let msaa_depth = msaa_depth.create_view(&Default::default());
    let mismatched = EmbedTarget {
        depth: &msaa_depth,
        ..good
    };
    let mut encoder = caller
        .gpu
        .device
        .create_command_encoder(&Default::default());
    let camera = caller.camera;
    let e = caller
        .fur
        .draw_into(
            &mut encoder,
            &mismatched,
            &camera,
            &Placement::new(Mat4::IDENTITY),
        )
        .expect_err("one sample count")
        .to_string();
    assert!(e.contains("different sample counts (1 and 4)"), "{e}");
    let uneven = Mat4::from_scale(Vec3::new(1.0, 2.0, 1.0));
    refuse(&mut caller, &good, uneven, "one scale");
    let mirror = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
    refuse(&mut caller, &good, mirror, "mirrors");
    let projective =
        Mat4::from_cols(Vec4::X, Vec4::Y, Vec4::Z, Vec4::new(0.0, 0.0, 0.5, 1.0)).transpose();
    refuse(&mut caller, &good, projective, "projective");
    refuse(
        &mut caller,
        &good,
        Mat4::from_translation(Vec3::NAN),
        "finite",
    );
}
