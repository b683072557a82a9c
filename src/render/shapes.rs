//! World-space capsules the skin pass draws each frame: the hand (palm, fingers, nails,
//! forearm, sleeve), or any capsules a caller wants to see, such as a scripted stroke's.

use super::mesh::{Material, Mesh, SurfaceVertex, VertexSpace, sphere_direction};
use glam::Vec3;

/// A capsule to draw: the segment `a`–`b` thickened by `radius`, in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawCapsule {
    /// First end of the axis.
    pub a: Vec3,
    /// Second end of the axis.
    pub b: Vec3,
    /// Radius, metres.
    pub radius: f32,
    /// How it is shaded.
    pub material: Material,
}

impl DrawCapsule {
    /// Whether every number is finite and the radius positive.
    pub fn is_valid(&self) -> bool {
        self.a.is_finite() && self.b.is_finite() && self.radius.is_finite() && self.radius > 0.0
    }
}

/// Segments around a drawn capsule and rings on each of its half-spheres.
const AROUND: u32 = 16;
const CAP_RINGS: u32 = 6;

/// Vertices one drawn capsule takes (the hand's vertex buffer is sized by it).
pub const VERTICES_PER_CAPSULE: usize = (AROUND * (2 * CAP_RINGS + 2)) as usize;

/// Triangles for `capsules`, world space, wound outward. Invalid capsules are skipped.
pub fn capsule_mesh(capsules: &[DrawCapsule]) -> Mesh {
    let mut mesh = Mesh::default();
    for c in capsules.iter().filter(|c| c.is_valid()) {
        let axis = c.b - c.a;
        let dir = axis.normalize_or(Vec3::Y);
        let (e1, e2) = dir.any_orthonormal_pair();
        // Rows run from the `a` pole to the `b` pole: a half-sphere on each end and the
        // cylinder between them.
        let rows = 2 * CAP_RINGS + 1;
        mesh.add_grid(AROUND, rows, true, |u, v| {
            let row = (v * rows as f32).round() as u32;
            let (center, along) = if row <= CAP_RINGS {
                (c.a, row as f32 / CAP_RINGS as f32 * 0.5)
            } else {
                (
                    c.b,
                    0.5 + (row - CAP_RINGS - 1) as f32 / CAP_RINGS as f32 * 0.5,
                )
            };
            let d = sphere_direction(u, along);
            let n = e1 * d.x + e2 * d.z + dir * d.y;
            SurfaceVertex::new(center + n * c.radius, n, VertexSpace::World, c.material)
        });
    }
    mesh.orient_outward();
    mesh
}
