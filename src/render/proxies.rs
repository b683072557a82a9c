//! Wireframes of the analytic proxies (head, body, paws, tail) that pointer and finger rays
//! are tested against, and a marker for the last ray hit: the `contact` debug overlay.

use super::mesh::{VertexSpace, sphere_direction};
use crate::creature::{Creature, Part};
use bytemuck::{Pod, Zeroable};
use glam::{Vec2, Vec3};

/// One line vertex. WGSL twin: `LineVertex` in `shaders/lines.wgsl`.
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
    /// The vertex attributes, matching `shaders/lines.wgsl`.
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
