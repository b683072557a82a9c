//! Roots bound to a skinned body's triangles. Each such root's space is `SPACE_SKINNED`:
//! its transform is not a pivot's but a frame built each step from its triangle as the
//! body's skin poses it (columns: the first edge's direction, the in-plane perpendicular,
//! the face normal, and the root's point at its barycentrics). Its position, normal and
//! flow are stored in its rest triangle's frame, so the one frame places all three and the
//! solver's skin clearance against the root's normal plane works as for the creature.
//!
//! Per step the body's vertices are skinned once on the host ([`skin_vertices`], linear
//! blend skinning) and every solver reads the same positions: the scalar reference and the
//! SIMD lanes build each frame through [`triangle_frame`] (so their bits agree), the WGSL
//! kernel through its twin `skinned_frame` in `shaders/strand_step.wgsl`.

use super::body_field::FieldSteps;
use super::layout::{GpuRoot, SEGMENTS, gust_spatial_phases};
use super::params::FurParams;
use crate::body::{BodyMesh, SkinPose};
use crate::groom::BodyRoot;
use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec2, Vec3, Vec4, Vec4Swizzles};

/// The space code of a root bound to a body's triangle (WGSL `SPACE_SKINNED`).
pub const SPACE_SKINNED: f32 = crate::shaders::SPACE_SKINNED as f32;

/// Which triangle a root is bound to and where in it. WGSL twin: `RootBinding`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuRootBinding {
    /// The triangle's three vertex indices; the fourth is unused.
    pub vertices: [u32; 4],
    /// The root's barycentric coordinates (xyz); w unused.
    pub barycentric: Vec4,
    /// The body's distance grids this root's points ask, in order ([`super::NO_GRID`] in
    /// unused slots; all unused: no field, the root's skin plane alone).
    pub grids: [u32; super::CANDIDATES],
}

/// A body's vertices posed for each step of a batch: step `j`'s vertex `i` is
/// `positions[j · vertex_count + i]` (xyz, w unused).
#[derive(Clone, Copy, Debug)]
pub struct SkinnedSteps<'a> {
    /// The positions, step by step.
    pub positions: &'a [Vec4],
    /// Vertices per step.
    pub vertex_count: usize,
    /// The body's distance field posed for the same steps (`None`: the skin plane alone).
    pub field: Option<FieldSteps<'a>>,
}

impl<'a> SkinnedSteps<'a> {
    /// The poses from step `first` on (empty past the end).
    pub fn from_step(&self, first: usize) -> SkinnedSteps<'a> {
        let start = (first * self.vertex_count).min(self.positions.len());
        SkinnedSteps {
            positions: &self.positions[start..],
            vertex_count: self.vertex_count,
            field: self.field.map(|f| f.from_step(first)),
        }
    }

    /// Step `j`'s vertex `i` (the origin past the end, so a bad index cannot panic).
    pub fn vertex(&self, j: usize, i: u32) -> Vec3 {
        self.positions
            .get(j * self.vertex_count + i as usize)
            .map(|p| p.xyz())
            .unwrap_or(Vec3::ZERO)
    }
}

/// A root's triangle and the posed vertices it reads, for the step functions.
#[derive(Clone, Copy, Debug)]
pub struct StrandSkin<'a> {
    /// The posed vertices of every step.
    pub steps: SkinnedSteps<'a>,
    /// The root's triangle.
    pub binding: &'a GpuRootBinding,
}

impl StrandSkin<'_> {
    /// The frame the root follows in step `j`.
    pub fn frame(&self, j: usize) -> Mat4 {
        let [a, b, c, _] = self.binding.vertices;
        triangle_frame(
            self.steps.vertex(j, a),
            self.steps.vertex(j, b),
            self.steps.vertex(j, c),
            self.binding.barycentric.xyz(),
        )
    }
}

/// Whether `root` is bound to a body's triangle (its space code is `SPACE_SKINNED`; WGSL
/// compares against 3.5).
pub fn is_skinned(root: &GpuRoot) -> bool {
    root.normal_space.w > 3.5
}

/// The frame of triangle `p0 p1 p2` at barycentrics `bary` (WGSL `skinned_frame`):
/// columns `e1 = (p1 − p0)/|p1 − p0|`, `e2 = n × e1`, `n` the unit face normal, and the
/// point `p0·b0 + p1·b1 + p2·b2`. A degenerate triangle keeps the world axes at that point.
pub fn triangle_frame(p0: Vec3, p1: Vec3, p2: Vec3, bary: Vec3) -> Mat4 {
    let point = p0 * bary.x + p1 * bary.y + p2 * bary.z;
    let edge = p1 - p0;
    let cross = edge.cross(p2 - p0);
    let edge_len = edge.length();
    let cross_len = cross.length();
    if !(edge_len > 1e-12 && cross_len > 1e-12) {
        return Mat4::from_cols(Vec4::X, Vec4::Y, Vec4::Z, point.extend(1.0));
    }
    let e1 = edge / edge_len;
    let n = cross / cross_len;
    let e2 = n.cross(e1);
    Mat4::from_cols(
        e1.extend(0.0),
        e2.extend(0.0),
        n.extend(0.0),
        point.extend(1.0),
    )
}

/// Every vertex of `mesh` posed by `pose` (linear blend skinning), appended to `out`.
pub fn skin_vertices(mesh: &BodyMesh, pose: &SkinPose, out: &mut Vec<Vec4>) {
    out.extend((0..mesh.positions.len()).map(|v| pose.skin_vertex(mesh, v).0.extend(1.0)));
}

fn cos_sin(angle: f64) -> Vec2 {
    Vec2::new(angle.cos() as f32, angle.sin() as f32)
}

/// The solver's root and binding for `root` on `mesh` (see [`GpuRoot::new`] for the rest
/// angles and the gust's phases, here from the rest position): its position, normal and
/// flow expressed in the rest frame of its triangle.
pub fn skinned_root(mesh: &BodyMesh, root: &BodyRoot, kink: f32) -> (GpuRoot, GpuRootBinding) {
    let t = mesh
        .triangles
        .get(root.triangle as usize)
        .copied()
        .unwrap_or([0; 3]);
    let vertex = |i: u32| {
        mesh.positions
            .get(i as usize)
            .copied()
            .unwrap_or(Vec3::ZERO)
    };
    let frame = triangle_frame(vertex(t[0]), vertex(t[1]), vertex(t[2]), root.barycentric);
    let local = |v: Vec3| {
        Vec3::new(
            frame.x_axis.xyz().dot(v),
            frame.y_axis.xyz().dot(v),
            frame.z_axis.xyz().dot(v),
        )
    };
    let (lift0, lift1) = (f64::from(root.lift_root), f64::from(root.lift_tip));
    // A strand shaped by a file keeps its own angles, unkinked.
    let rest: Vec<Vec2> = match root.rest_angles {
        Some(angles) => angles.iter().map(|&a| cos_sin(f64::from(a))).collect(),
        None => (0..SEGMENTS)
            .map(|i| {
                let t = i as f64 / (SEGMENTS - 1) as f64;
                let wave = std::f64::consts::TAU * (3.0 * f64::from(root.random) + 1.7 * t);
                cos_sin(lift0 + (lift1 - lift0) * t + f64::from(kink) * t * wave.sin())
            })
            .collect(),
    };
    let gust = gust_spatial_phases(root.position).map(cos_sin);
    let pair = |a: Vec2, b: Vec2| Vec4::new(a.x, a.y, b.x, b.y);
    // The root's offset from the frame's point is zero: the frame's point is the root.
    let gpu = GpuRoot {
        position_segment: Vec3::ZERO.extend(root.length / SEGMENTS as f32),
        normal_space: local(root.normal)
            .normalize_or(Vec3::Z)
            .extend(SPACE_SKINNED),
        flow_tail: local(root.flow).normalize_or(Vec3::X).extend(0.0),
        rest_01: pair(rest[0], rest[1]),
        rest_23: pair(rest[2], rest[3]),
        rest_4: pair(rest[4], Vec2::ZERO),
        gust_01: pair(gust[0], gust[1]),
        gust_23: pair(gust[2], gust[3]),
    };
    let binding = GpuRootBinding {
        vertices: [t[0], t[1], t[2], 0],
        barycentric: root.barycentric.extend(0.0),
        grids: [super::NO_GRID; super::CANDIDATES],
    };
    (gpu, binding)
}

/// [`skinned_root`] for every root of a body's groom.
pub fn skinned_roots(
    mesh: &BodyMesh,
    roots: &[BodyRoot],
    params: &FurParams,
) -> (Vec<GpuRoot>, Vec<GpuRootBinding>) {
    roots
        .iter()
        .map(|r| skinned_root(mesh, r, params.kink))
        .unzip()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_is_orthonormal_and_sits_at_the_barycentric_point() {
        let (p0, p1, p2) = (
            Vec3::new(0.1, 0.2, 0.3),
            Vec3::new(1.0, 0.4, 0.2),
            Vec3::new(0.2, 1.3, -0.4),
        );
        let bary = Vec3::new(0.2, 0.5, 0.3);
        let m = triangle_frame(p0, p1, p2, bary);
        let (a, b, c) = (m.x_axis.xyz(), m.y_axis.xyz(), m.z_axis.xyz());
        for (u, v) in [(a, b), (b, c), (a, c)] {
            assert!(u.dot(v).abs() < 1e-6);
        }
        for u in [a, b, c] {
            assert!((u.length() - 1.0).abs() < 1e-6);
        }
        assert!(c.dot((p1 - p0).cross(p2 - p0)) > 0.0);
        let point = p0 * 0.2 + p1 * 0.5 + p2 * 0.3;
        assert!((m.w_axis.xyz() - point).length() < 1e-6);
    }

    #[test]
    fn a_collapsed_triangle_keeps_the_world_axes() {
        let m = triangle_frame(Vec3::ONE, Vec3::ONE, Vec3::ONE, Vec3::splat(1.0 / 3.0));
        assert_eq!(m.x_axis, Vec4::X);
        assert!((m.w_axis.xyz() - Vec3::ONE).length() < 1e-6);
    }
}
