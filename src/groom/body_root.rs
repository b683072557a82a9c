//! One root on a body and the skin under it: where a root sits (triangle and
//! barycentrics), what the solver and the renderer need of it, and the skin's position,
//! normal and base colour at a point of a triangle, which every way of grooming a body reads.

use crate::body::BodyMesh;
use glam::{Vec2, Vec3, Vec4};

/// Points per strand (root first).
pub const STRAND_POINTS: usize = crate::shaders::POINTS as usize;
/// Segments per strand.
pub const STRAND_SEGMENTS: usize = STRAND_POINTS - 1;

/// One root on a body: its triangle and place in it, and what the solver and the renderer
/// need, in the body's bind pose (metres).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyRoot {
    /// The triangle it grows from (an index into [`BodyMesh::triangles`]).
    pub triangle: u32,
    /// Its barycentric coordinates in that triangle (each in [0, 1], summing to 1).
    pub barycentric: Vec3,
    /// Rest position.
    pub position: Vec3,
    /// Outward unit normal at rest (the vertex normals blended).
    pub normal: Vec3,
    /// Unit groom flow in the tangent plane at rest.
    pub flow: Vec3,
    /// Rest length of the whole strand, metres.
    pub length: f32,
    /// Angle from the normal at which the strand leaves the skin, radians.
    pub lift_root: f32,
    /// Angle from the normal toward which the tip lies, radians.
    pub lift_tip: f32,
    /// Per-strand random value in [0, 1).
    pub random: f32,
    /// Linear RGB base colour.
    pub color: Vec3,
    /// Each segment's rest angle from the normal toward the flow, radians, for a strand
    /// whose shape came from a file; `None`: the lift angles (and the solver's kink) shape it.
    pub rest_angles: Option<[f32; STRAND_SEGMENTS]>,
}

/// A point of a body's skin at rest: where it is, its outward normal and its base colour.
pub(super) struct SkinPoint {
    /// Position, metres.
    pub position: Vec3,
    /// Unit outward normal.
    pub normal: Vec3,
    /// Linear base colour (texture × vertex colour), each channel in [0, 1].
    pub color: Vec3,
}

/// The skin at `barycentric` in `triangle`, or `None` where the triangle gives no usable
/// normal (zero area, non-finite numbers, an index out of range).
pub(super) fn surface_at(mesh: &BodyMesh, triangle: u32, barycentric: Vec3) -> Option<SkinPoint> {
    let t = mesh.triangles.get(triangle as usize)?;
    let idx = t.map(|i| i as usize);
    let get3 = |a: &[Vec3]| -> Option<[Vec3; 3]> {
        Some([*a.get(idx[0])?, *a.get(idx[1])?, *a.get(idx[2])?])
    };
    let p = get3(&mesh.positions)?;
    let blend3 = |v: [Vec3; 3]| v[0] * barycentric.x + v[1] * barycentric.y + v[2] * barycentric.z;
    let position = blend3(p);
    let face = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero();
    let smooth = get3(&mesh.normals)
        .map(|n| blend3(n).normalize_or_zero())
        .unwrap_or(Vec3::ZERO);
    // The vertex normals blended, unless they point into the surface.
    let normal = if smooth.dot(face) > 0.2 { smooth } else { face };
    if normal == Vec3::ZERO || !position.is_finite() {
        return None;
    }
    let uv = {
        let get = |i: usize| mesh.uvs.get(i).copied().unwrap_or(Vec2::ZERO);
        get(idx[0]) * barycentric.x + get(idx[1]) * barycentric.y + get(idx[2]) * barycentric.z
    };
    let vertex_color = {
        let get = |i: usize| mesh.colors.get(i).copied().unwrap_or(Vec4::ONE);
        get(idx[0]) * barycentric.x + get(idx[1]) * barycentric.y + get(idx[2]) * barycentric.z
    };
    let texture = mesh
        .base_color_texture
        .as_ref()
        .map(|t| t.sample(uv))
        .unwrap_or(Vec4::ONE);
    let color = (texture * vertex_color).truncate();
    let color = if color.is_finite() {
        color.clamp(Vec3::ZERO, Vec3::ONE)
    } else {
        Vec3::splat(0.5)
    };
    Some(SkinPoint {
        position,
        normal,
        color,
    })
}

/// The area of triangle `t` of `mesh` (f64, so a million small triangles add exactly
/// enough); 0 for a triangle naming a vertex the mesh lacks or whose area is not finite.
pub(super) fn triangle_area(mesh: &BodyMesh, t: &[u32; 3]) -> f64 {
    let vertex = |i: u32| mesh.positions.get(i as usize).copied();
    match (vertex(t[0]), vertex(t[1]), vertex(t[2])) {
        (Some(a), Some(b), Some(c)) => {
            let area = 0.5 * f64::from((b - a).cross(c - a).length());
            if area.is_finite() { area } else { 0.0 }
        }
        _ => 0.0,
    }
}
