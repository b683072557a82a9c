//! The overlay pass (`shaders/overlay.wgsl`), drawn in the `contact` view only: wireframes
//! of the analytic proxies (head, body, paws, tail) that pointer and finger rays are tested
//! against, and a marker for the last ray hit, over everything, without depth.

use super::descriptors::{
    RenderPipelineSpec, camera_depth, camera_multisample, camera_targets, pipeline_layout,
    render_pipeline,
};
use super::frame::{FrameBinding, View};
use super::mesh::{VertexSpace, sphere_direction};
use super::target::TargetLayout;
use crate::creature::{Creature, Part, RayHit};
use crate::shaders::ShaderModule;
use bytemuck::{Pod, Zeroable};
use glam::{Vec2, Vec3};

/// One line vertex. WGSL twin: `LineVertex` in `shaders/overlay.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct LineVertex {
    /// Position in its space.
    pub position: [f32; 3],
    /// Tail parameter for tail-space vertices.
    pub tail_t: f32,
    /// The space (low 8 bits).
    pub space: u32,
    /// Colour with alpha, unorm bytes.
    pub color: [u8; 4],
}

impl LineVertex {
    /// The vertex attributes, matching `shaders/overlay.wgsl`.
    pub const ATTRIBUTES: [wgpu::VertexAttribute; 4] = wgpu::vertex_attr_array![
        0 => Float32x3,
        1 => Float32,
        2 => Uint32,
        3 => Unorm8x4,
    ];
}

/// The proxies' colour: a translucent cyan.
pub const PROXY_COLOR: [u8; 4] = [70, 220, 255, 150];
/// The ray hit marker's colour.
pub const HIT_COLOR: [u8; 4] = [255, 230, 40, 255];

fn polyline(
    out: &mut Vec<LineVertex>,
    points: impl Iterator<Item = (Vec3, f32)>,
    space: VertexSpace,
) {
    let points: Vec<_> = points.collect();
    for pair in points.windows(2) {
        for &(p, t) in pair {
            out.push(LineVertex {
                position: p.to_array(),
                tail_t: t,
                space: space as u32,
                color: PROXY_COLOR,
            });
        }
    }
}

/// Line-list vertices outlining every proxy: meridians and parallels of the head, body and
/// paws, lines along the tail and rings around it.
pub fn proxy_lines(creature: &Creature) -> Vec<LineVertex> {
    let mut out = Vec::new();
    for part in Part::ALL {
        let space = match part {
            Part::Head => VertexSpace::Head,
            Part::Tail => VertexSpace::Tail,
            _ => VertexSpace::Body,
        };
        if part == Part::Tail {
            for k in 0..8 {
                let psi = k as f32 / 8.0 * std::f32::consts::TAU;
                polyline(
                    &mut out,
                    (0..=48).map(|i| {
                        let t = i as f32 / 48.0;
                        (creature.tail.surface(Vec2::new(t, psi)).position, t)
                    }),
                    space,
                );
            }
            for k in 0..=10 {
                let t = k as f32 / 10.0;
                polyline(
                    &mut out,
                    (0..=24).map(|i| {
                        let psi = i as f32 / 24.0 * std::f32::consts::TAU;
                        (creature.tail.surface(Vec2::new(t, psi)).position, t)
                    }),
                    space,
                );
            }
            continue;
        }
        let (meridians, parallels) = if part == Part::Head {
            (16, 11)
        } else {
            (12, 7)
        };
        for k in 0..meridians {
            let u = k as f32 / meridians as f32;
            polyline(
                &mut out,
                (0..=40).map(|i| {
                    (
                        creature
                            .surface(part, sphere_direction(u, i as f32 / 40.0))
                            .position,
                        0.0,
                    )
                }),
                space,
            );
        }
        for k in 1..=parallels {
            let v = k as f32 / (parallels + 1) as f32;
            polyline(
                &mut out,
                (0..=48).map(|i| {
                    (
                        creature
                            .surface(part, sphere_direction(i as f32 / 48.0, v))
                            .position,
                        0.0,
                    )
                }),
                space,
            );
        }
    }
    out
}

/// A marker at a ray hit, world space: a small cross and a stroke along the normal.
pub fn hit_marker(point: Vec3, normal: Vec3) -> Vec<LineVertex> {
    let n = normal.normalize_or(Vec3::Y);
    let (a, b) = n.any_orthonormal_pair();
    let size = 0.03;
    let segments = [
        (point - a * size, point + a * size),
        (point - b * size, point + b * size),
        (point, point + n * 0.1),
    ];
    segments
        .iter()
        .flat_map(|&(p, q)| [p, q])
        .map(|p| LineVertex {
            position: p.to_array(),
            tail_t: 0.0,
            space: VertexSpace::World as u32,
            color: HIT_COLOR,
        })
        .collect()
}

/// Vertices of the ray hit marker (three segments).
const MARKER_VERTICES: u32 = 6;

/// The overlay pass: the proxies' lines (built once), the marker's buffer and the
/// pipeline.
#[derive(Debug)]
pub struct OverlayPass {
    proxies: wgpu::Buffer,
    proxy_count: u32,
    marker: wgpu::Buffer,
    marker_count: u32,
    pipeline: wgpu::RenderPipeline,
}

impl OverlayPass {
    /// The proxies of `creature` and the pipeline for `target`, reading the frame (group 0).
    pub fn new(
        device: &wgpu::Device,
        creature: &Creature,
        frame: &wgpu::BindGroupLayout,
        target: &TargetLayout,
    ) -> Self {
        use wgpu::util::DeviceExt;
        let lines = proxy_lines(creature);
        let proxies = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("overlay: proxies"),
            contents: bytemuck::cast_slice(&lines),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let marker = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("overlay: ray hit"),
            size: u64::from(MARKER_VERTICES) * std::mem::size_of::<LineVertex>() as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let module = ShaderModule::Overlay.create(device);
        let vertex = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<LineVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &LineVertex::ATTRIBUTES,
        })];
        let pipeline = render_pipeline(
            device,
            RenderPipelineSpec {
                label: "overlay",
                layout: &pipeline_layout(device, "frame only", &[Some(frame)]),
                module: &module,
                vertex: "vs_lines",
                buffers: &vertex,
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::LineList,
                    ..Default::default()
                },
                depth: Some(camera_depth(false)),
                multisample: camera_multisample(target.samples),
                fragment: Some((
                    "fs_lines",
                    &camera_targets(target, Some(wgpu::BlendState::ALPHA_BLENDING)),
                )),
            },
        );
        OverlayPass {
            proxies,
            proxy_count: lines.len() as u32,
            marker,
            marker_count: 0,
            pipeline,
        }
    }

    /// Places the marker at `hit` (none without one); lands at the next submission.
    pub fn set_ray_hit(&mut self, queue: &wgpu::Queue, hit: Option<RayHit>) {
        let marker = hit
            .map(|h| hit_marker(h.point, h.normal))
            .unwrap_or_default();
        if !marker.is_empty() {
            queue.write_buffer(&self.marker, 0, bytemuck::cast_slice(&marker));
        }
        self.marker_count = marker.len() as u32;
    }

    /// Bytes of GPU memory the pass holds.
    pub fn bytes(&self) -> u64 {
        self.proxies.size() + self.marker.size()
    }

    /// Records the wireframes and the marker into `pass` (the ribbons' camera pass).
    pub fn record(&self, pass: &mut wgpu::RenderPass, frame: &FrameBinding) {
        pass.set_pipeline(&self.pipeline);
        frame.bind(pass, View::Camera);
        pass.set_vertex_buffer(0, self.proxies.slice(..));
        pass.draw(0..self.proxy_count, 0..1);
        if self.marker_count > 0 {
            pass.set_vertex_buffer(0, self.marker.slice(..));
            pass.draw(0..self.marker_count, 0..1);
        }
    }
}
