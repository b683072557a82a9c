//! The petting creature drawn into a scene of the program's own: it clears its colour to a
//! sky, draws a ground and a post into its own colour and depth targets, then asks Pelt to
//! draw the creature, turned and moved by a model transform and lit by the program's
//! light, into those targets: the post hides the creature where it stands in front.
//! Headless; writes a PNG. Builds without the demo's dependencies:
//! `cargo run --release --no-default-features --example embed -- embed.png`.

use glam::{Mat4, Quat, Vec3};
use pelt::gpu::GpuContext;
use pelt::render::capture::read_texture;
use pelt::render::{
    Camera, EmbedTarget, Image, Lighting, OFFSCREEN_FORMAT, Placement, TargetLayout,
};
use pelt::{SimulatedFur, SimulatedFurOptions};
use std::error::Error;
use wgpu::util::DeviceExt;

const WIDTH: u32 = 960;
const HEIGHT: u32 = 540;
/// Our targets: sRGB colour (Pelt writes tone-mapped linear light) and depth in Pelt's
/// reversed convention (cleared to 0, nearer is greater).
const COLOR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Our own shader: world-space triangles in one colour each.
const SHADER: &str = "
@group(0) @binding(0) var<uniform> view_proj: mat4x4<f32>;
struct Out { @builtin(position) clip: vec4<f32>, @location(0) color: vec3<f32> }
@vertex fn vs(@location(0) p: vec3<f32>, @location(1) color: vec3<f32>) -> Out {
    return Out(view_proj * vec4<f32>(p, 1.0), color);
}
@fragment fn fs(v: Out) -> @location(0) vec4<f32> { return vec4<f32>(v.color, 1.0); }
";

/// A quad from four corners, in one linear colour: six vertices of position and colour.
fn quad(corners: [Vec3; 4], color: Vec3) -> Vec<f32> {
    [0, 1, 2, 0, 2, 3]
        .iter()
        .flat_map(|&i| [corners[i].to_array(), color.to_array()].concat())
        .collect()
}

fn main() -> Result<(), Box<dyn Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "embed.png".into());
    let gpu = GpuContext::new()?;
    let device = &gpu.device;

    // The creature. Its layout is for Pelt's own frames (`render`); `draw_into` builds
    // pipelines for our targets' formats when it first sees them.
    let layout = TargetLayout::new(&gpu.adapter, OFFSCREEN_FORMAT, false);
    let mut fur = SimulatedFur::new(&gpu, &SimulatedFurOptions::new(8192, 1, layout))?;
    for _ in 0..30 {
        fur.update(1.0 / 60.0)?;
    }

    // Our world: the ground at y = 0, the creature standing on it 1.5 m from the origin,
    // turned 35° and scaled to 80%, its paws (0.84 m below its origin in its own space,
    // 0.67 m at this scale) on the ground.
    let model = Mat4::from_scale_rotation_translation(
        Vec3::splat(0.8),
        Quat::from_rotation_y(35f32.to_radians()),
        Vec3::new(0.3, 0.67, -1.5),
    );
    let camera = Camera::look_at(Vec3::new(0.0, 1.1, 1.6), Vec3::new(0.2, 0.45, -1.5), 40.0);
    let lighting = Lighting {
        key_direction: Vec3::new(-0.6, 0.9, 0.4).normalize(),
        ..Lighting::default()
    };

    // Our targets.
    let target = |format, usage| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some("our target"),
            size: wgpu::Extent3d {
                width: WIDTH,
                height: HEIGHT,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage,
            view_formats: &[],
        })
    };
    let color = target(
        COLOR,
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    );
    let depth = target(DEPTH, wgpu::TextureUsages::RENDER_ATTACHMENT);
    let color_view = color.create_view(&Default::default());
    let depth_view = depth.create_view(&Default::default());

    // Our scene: a ground and a post between the camera and the creature.
    let mut vertices = quad(
        [
            Vec3::new(-20.0, 0.0, 4.0),
            Vec3::new(20.0, 0.0, 4.0),
            Vec3::new(20.0, 0.0, -30.0),
            Vec3::new(-20.0, 0.0, -30.0),
        ],
        Vec3::new(0.05, 0.12, 0.04),
    );
    vertices.extend(quad(
        [
            Vec3::new(-0.25, 0.0, -0.6),
            Vec3::new(-0.1, 0.0, -0.6),
            Vec3::new(-0.1, 1.4, -0.6),
            Vec3::new(-0.25, 1.4, -0.6),
        ],
        Vec3::new(0.35, 0.2, 0.1),
    ));
    let view_proj = camera.view_proj(WIDTH as f32 / HEIGHT as f32);
    let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("our camera"),
        contents: bytemuck::cast_slice(&view_proj.to_cols_array()),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let vertex_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("our scene"),
        contents: bytemuck::cast_slice(&vertices),
        usage: wgpu::BufferUsages::VERTEX,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("our scene"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("our scene"),
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: 24,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &attributes,
            })],
        },
        primitive: Default::default(),
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[Some(COLOR.into())],
        }),
        multiview_mask: None,
        cache: None,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("our camera"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: uniform.as_entire_binding(),
        }],
    });

    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("our scene"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &color_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: 0.25,
                        g: 0.45,
                        b: 0.75,
                        a: 1.0,
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth_view,
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
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.set_vertex_buffer(0, vertex_buffer.slice(..));
        pass.draw(0..(vertices.len() / 6) as u32, 0..1);
    }
    // Pelt draws the creature, its coat and the hand into our targets, over our scene.
    let embed = EmbedTarget {
        color: &color_view,
        color_format: COLOR,
        depth: &depth_view,
        depth_format: DEPTH,
    };
    let placement = Placement {
        lighting,
        ..Placement::new(model)
    };
    fur.draw_into(&mut encoder, &embed, &camera, &placement)?;
    gpu.queue.submit(Some(encoder.finish()));

    let rgba = read_texture(device, &gpu.queue, &color, 4)?;
    if let Some(e) = gpu.take_error() {
        return Err(format!("the GPU refused a command: {e}").into());
    }
    let picture = Image {
        width: WIDTH,
        height: HEIGHT,
        rgba,
        ids: None,
    };
    picture.save_png(std::path::Path::new(&out))?;
    println!("wrote {out} ({WIDTH}×{HEIGHT})");
    Ok(())
}
