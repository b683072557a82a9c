//! The ribbon pass's GPU data: one packed [`RibbonStrand`] per strand (what shading needs
//! from the root that the solver's buffers do not carry), the small index buffer shared by
//! every batch of 64 strands, and the bind groups over the solver's two position buffers.

use super::mesh::VertexSpace;
use crate::creature::{Creature, Part, Space};
use crate::groom::StrandRoot;
use bytemuck::{Pod, Zeroable};
use glam::{Vec2, Vec3};

/// Strands drawn per instance (WGSL `STRANDS_PER_BATCH`).
pub const STRANDS_PER_BATCH: u32 = 64;
/// Vertices per strand: two per point (WGSL `VERTICES_PER_STRAND`).
pub const VERTICES_PER_STRAND: u32 = 12;
/// Indices per strand: two triangles for each of five segments.
pub const INDICES_PER_STRAND: u32 = 30;

/// What the ribbon shader needs of one strand's root, packed into 16 bytes. WGSL reads it
/// as `vec4<u32>` (`strands` in `shaders/ribbon_geometry.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct RibbonStrand {
    /// Pattern channels as unorm bytes, cream in the low byte.
    pub pattern: u32,
    /// The per-strand random value in [0, 1).
    pub random: f32,
    /// The root's part-space normal, octahedral, two snorm16 (x low).
    pub normal: u32,
    /// Space in the low 8 bits; tail parameter as unorm16 in the high 16.
    pub space_t: u32,
}

/// A unit vector as two octahedral coordinates in [−1, 1].
pub fn octahedral_encode(n: Vec3) -> Vec2 {
    let n = n / (n.x.abs() + n.y.abs() + n.z.abs()).max(1e-12);
    if n.z >= 0.0 {
        Vec2::new(n.x, n.y)
    } else {
        let sign = Vec2::new(
            if n.x >= 0.0 { 1.0 } else { -1.0 },
            if n.y >= 0.0 { 1.0 } else { -1.0 },
        );
        (Vec2::ONE - Vec2::new(n.y.abs(), n.x.abs())) * sign
    }
}

/// Two values in [−1, 1] as WGSL's `pack2x16snorm` packs them.
pub fn pack_snorm16x2(v: Vec2) -> u32 {
    let q = |x: f32| ((x.clamp(-1.0, 1.0) * 32767.0).round() as i16) as u16 as u32;
    q(v.x) | (q(v.y) << 16)
}

impl RibbonStrand {
    /// Packs a root. Tail roots follow the tail bones by their tail parameter `tail_t`.
    pub fn new(root: &StrandRoot, tail_t: f32) -> Self {
        let (space, t) = match (root.part, root.space()) {
            (Part::Tail, _) => (VertexSpace::Tail, tail_t),
            (_, Space::Head) => (VertexSpace::Head, 0.0),
            _ => (VertexSpace::Body, 0.0),
        };
        let t16 = (t.clamp(0.0, 1.0) * 65535.0).round() as u32;
        RibbonStrand {
            pattern: root.pattern.pack(),
            random: root.random,
            normal: pack_snorm16x2(octahedral_encode(root.normal)),
            space_t: space as u32 | (t16 << 16),
        }
    }

    /// Packs every root of a groom grown on `creature`.
    pub fn from_roots(creature: &Creature, roots: &[StrandRoot]) -> Vec<Self> {
        roots
            .iter()
            .map(|r| {
                let t = if r.part == Part::Tail {
                    creature.tail.nearest_parameter(r.position)
                } else {
                    0.0
                };
                RibbonStrand::new(r, t)
            })
            .collect()
    }
}

/// The index buffer for one batch of [`STRANDS_PER_BATCH`] strands: 30 indices per strand
/// into that strand's 12 vertices (point `i`, side `s` is vertex `2i + s`).
pub fn batch_indices() -> Vec<u16> {
    (0..STRANDS_PER_BATCH)
        .flat_map(|strand| {
            let base = (strand * VERTICES_PER_STRAND) as u16;
            (0..5u16).flat_map(move |seg| {
                let v = base + 2 * seg;
                [v, v + 1, v + 2, v + 2, v + 1, v + 3]
            })
        })
        .collect()
}
