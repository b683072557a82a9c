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
    /// Whether every number is finite, the radius positive, and the whole capsule within
    /// [`MAX_DRAWN_REACH`] of the origin on each axis (its ends pushed out by the radius):
    /// ends at ±3e38 are each finite, but the vertices made from them would not be, and a
    /// capsule of radius 1e37, its vertices finite, was clipped into garbage triangles.
    pub fn is_valid(&self) -> bool {
        // Twice the radius: the coarse detail places its vertices a few percent out.
        let reach = self.a.abs().max(self.b.abs()) + Vec3::splat(2.0 * self.radius);
        self.a.is_finite()
            && self.b.is_finite()
            && self.radius.is_finite()
            && self.radius > 0.0
            && reach.max_element() <= MAX_DRAWN_REACH
    }
}

/// How finely a capsule is tessellated: segments around it and rings on each of its
/// half-spheres.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapsuleDetail {
    /// Segments around.
    pub around: u32,
    /// Rings on each half-sphere.
    pub cap_rings: u32,
}

impl CapsuleDetail {
    /// The full tessellation: 16 around, 6 rings a cap (416 triangles a capsule).
    pub const FINE: CapsuleDetail = CapsuleDetail {
        around: 16,
        cap_rings: 6,
    };
    /// A quarter of the triangles: 8 around, 3 rings a cap (112 triangles a capsule).
    pub const COARSE: CapsuleDetail = CapsuleDetail {
        around: 8,
        cap_rings: 3,
    };

    /// The detail for a capsule whose radius covers `radius_px` pixels on screen: coarse
    /// below [`COARSE_BELOW_PX`], where its triangles fall at most 9.5% of the radius
    /// inside the surface (under 0.4 pixels; fine: 2.45%); fine otherwise. On a CPU rasteriser a triangle costs about half a microsecond however
    /// small, and the hand's 10,816 fine triangles, drawn for the camera and the key
    /// light, took about 4 ms of a 60 ms frame at the demo's smallest render scale.
    pub fn for_radius_pixels(radius_px: f32) -> CapsuleDetail {
        if radius_px < COARSE_BELOW_PX {
            CapsuleDetail::COARSE
        } else {
            CapsuleDetail::FINE
        }
    }

    /// How much larger than the capsule its vertices are placed, so its outline is as wide
    /// on average as the fine one's: a regular n-gon inscribed in a circle is (π/n) /
    /// sin(π/n) times narrower on average, 2.6% for an octagon, 0.6% for a 16-gon (the
    /// fine detail keeps its radius). Without it the coarse hand's outline lost 4% of its
    /// pixels.
    pub fn radius_scale(self) -> f32 {
        let narrower = |n: u32| {
            let half = std::f32::consts::PI / n.max(3) as f32;
            half / half.sin()
        };
        narrower(self.around) / narrower(CapsuleDetail::FINE.around)
    }

    /// Vertices one capsule takes at this detail.
    pub const fn vertices(self) -> usize {
        (self.around * (2 * self.cap_rings + 2)) as usize
    }
}

/// How far from the origin, in metres on any axis, a drawn capsule may reach: far beyond
/// any scene of the creature (about half a metre long), near enough that projecting and
/// clipping its triangles in f32 keeps its shape.
pub const MAX_DRAWN_REACH: f32 = 1.0e6;

/// Capsules thinner than this many pixels in radius are drawn [`CapsuleDetail::COARSE`].
pub const COARSE_BELOW_PX: f32 = 4.0;

/// Vertices one drawn capsule takes at most (the hand's vertex buffer is sized by it).
pub const VERTICES_PER_CAPSULE: usize = CapsuleDetail::FINE.vertices();

/// Triangles for `capsules`, world space, wound outward, each tessellated at the detail
/// `detail` gives it. Invalid capsules are skipped.
pub fn capsule_mesh(
    capsules: &[DrawCapsule],
    detail: impl Fn(&DrawCapsule) -> CapsuleDetail,
) -> Mesh {
    let mut mesh = Mesh::default();
    for c in capsules.iter().filter(|c| c.is_valid()) {
        let detail = detail(c);
        let CapsuleDetail { around, cap_rings } = detail;
        let radius = c.radius * detail.radius_scale();
        let axis = c.b - c.a;
        let dir = axis.normalize_or(Vec3::Y);
        let (e1, e2) = dir.any_orthonormal_pair();
        // Rows run from the `a` pole to the `b` pole: a half-sphere on each end and the
        // cylinder between them.
        let rows = 2 * cap_rings + 1;
        mesh.add_grid(around, rows, true, |u, v| {
            let row = (v * rows as f32).round() as u32;
            let (center, along) = if row <= cap_rings {
                (c.a, row as f32 / cap_rings as f32 * 0.5)
            } else {
                (
                    c.b,
                    0.5 + (row - cap_rings - 1) as f32 / cap_rings as f32 * 0.5,
                )
            };
            let d = sphere_direction(u, along);
            let n = e1 * d.x + e2 * d.z + dir * d.y;
            SurfaceVertex::new(center + n * radius, n, VertexSpace::World, c.material)
        });
    }
    mesh.orient_outward();
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capsule(radius: f32) -> DrawCapsule {
        DrawCapsule {
            a: Vec3::new(0.0, 0.0, 0.0),
            b: Vec3::new(0.0, 0.05, 0.0),
            radius,
            material: Material::Hand,
        }
    }

    #[test]
    fn capsules_past_the_drawn_reach_are_skipped() {
        let at = |a: f32, b: f32, radius: f32| DrawCapsule {
            a: Vec3::splat(a),
            b: Vec3::splat(b),
            radius,
            material: Material::Hand,
        };
        // Every number finite, but the axis (6e38) or an end plus the radius is not, or the
        // capsule reaches past what is drawn (radius 1e37 drew garbage triangles).
        for bad in [
            at(-3e38, 3e38, 0.01),
            at(3e38, 3e38, 1e38),
            at(0.0, 0.0, 3.3e38),
            at(0.0, 0.1, 1e37),
            at(1e30, 1e30, 0.01),
            at(0.0, 0.1, 0.6 * MAX_DRAWN_REACH),
        ] {
            assert!(!bad.is_valid(), "{bad:?}");
            assert!(
                capsule_mesh(&[bad], |_| CapsuleDetail::FINE)
                    .vertices
                    .is_empty()
            );
        }
        // Far from the origin but within reach: drawn, every vertex finite.
        let far = at(0.5e6, 0.5e6 - 1e4, 1e3);
        assert!(far.is_valid());
        for detail in [CapsuleDetail::FINE, CapsuleDetail::COARSE] {
            let mesh = capsule_mesh(&[far], |_| detail);
            assert_eq!(mesh.vertices.len(), detail.vertices());
            for v in &mesh.vertices {
                assert!(Vec3::from(v.position).is_finite() && Vec3::from(v.normal).is_finite());
            }
        }
    }

    #[test]
    fn thin_capsules_on_screen_get_a_quarter_of_the_triangles() {
        assert_eq!(CapsuleDetail::for_radius_pixels(3.9), CapsuleDetail::COARSE);
        assert_eq!(CapsuleDetail::for_radius_pixels(4.0), CapsuleDetail::FINE);
        assert_eq!(
            CapsuleDetail::for_radius_pixels(f32::NAN),
            CapsuleDetail::FINE
        );
        let c = [capsule(0.01)];
        let fine = capsule_mesh(&c, |_| CapsuleDetail::FINE);
        let coarse = capsule_mesh(&c, |_| CapsuleDetail::COARSE);
        assert_eq!(fine.vertices.len(), CapsuleDetail::FINE.vertices());
        assert_eq!(coarse.vertices.len(), CapsuleDetail::COARSE.vertices());
        // Both poles' rows of triangles collapse to fans (416 and 112 triangles).
        assert_eq!(
            (fine.indices.len() / 3, coarse.indices.len() / 3),
            (416, 112)
        );
    }

    #[test]
    fn a_coarse_capsule_stays_on_the_fine_ones_surface() {
        // Every vertex of either lies on the capsule widened by its detail's radius scale
        // (the fine one exactly on it), and its triangles' centres fall inside that by
        // the polygons' sag, around and along at once: under 3% of the radius fine, 10%
        // coarse (a 16-gon's sides sag 1.9%, an octagon's 7.6%).
        assert_eq!(CapsuleDetail::FINE.radius_scale(), 1.0);
        let coarse_scale = CapsuleDetail::COARSE.radius_scale();
        assert!((coarse_scale - 1.0197).abs() < 1e-3, "{coarse_scale}");
        let r = 0.01;
        let c = capsule(r);
        let to_axis = |p: Vec3| {
            let t = (p.y / 0.05).clamp(0.0, 1.0);
            (p - Vec3::new(0.0, 0.05 * t, 0.0)).length()
        };
        for detail in [CapsuleDetail::FINE, CapsuleDetail::COARSE] {
            let r = r * detail.radius_scale();
            let mesh = capsule_mesh(&[c], |_| detail);
            for v in &mesh.vertices {
                assert!((to_axis(Vec3::from(v.position)) - r).abs() < 1e-6);
            }
            let sag = mesh
                .indices
                .chunks_exact(3)
                .map(|t| {
                    let centre = t
                        .iter()
                        .map(|&i| Vec3::from(mesh.vertices[i as usize].position))
                        .sum::<Vec3>()
                        / 3.0;
                    r - to_axis(centre)
                })
                .fold(0.0f32, f32::max);
            let bound = if detail == CapsuleDetail::FINE {
                0.03
            } else {
                0.1
            };
            eprintln!(
                "{detail:?}: centres sag {:.2}% of the radius",
                100.0 * sag / r
            );
            assert!(sag > 0.0 && sag < bound * r, "{detail:?}: sag {sag}");
        }
    }
}
