//! Skin that another layer of the same body covers (a body modelled whole under its
//! clothes, pieces of one mesh that overlap, faces left inside it): the default groom grows
//! no fur there, since a strand rooted under another layer can never leave the body, and
//! the field that keeps fur out of the body would push it against its own root's skin for
//! ever.
//!
//! A face is covered where the point just outside its centre (lifted along the face's
//! normal by [`LIFT_SHARE`] of the body's height) is inside the body by the generalized
//! winding number, the rule the body's distance field uses for its inside. So a layer
//! nearer its skin than the lift, or wound inside out, covers nothing. Measuring costs one
//! winding number per face; the work is bounded ([`COVER_TESTS_PER_FACE`]), and a body past
//! the bound is taken to have no covered skin ([`CoveredSkin::measured`] says so).

use crate::body::{BodyMesh, TriangleTree};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// How far above a face's centre the cover is looked for, as a share of the body's height
/// (2 mm on a body fitted to 1 m): farther than the gap a thin layer leaves over the skin
/// under it would miss that skin, nearer would read the face's own rounding.
pub const LIFT_SHARE: f32 = 0.002;

/// The most triangles and far-field clusters the winding numbers may sum per face, on
/// average over the faces: bodies as modelled spend a few hundred a face, so only faces
/// piled on one spot (every query near them measures them all) reach it.
pub const COVER_TESTS_PER_FACE: u64 = 2_048;

/// The most the winding numbers may sum for any body, however many faces it has: what
/// bounds the time a hostile body costs before the groom gives up on its cover.
pub const MAX_COVER_TESTS: u64 = 1_000_000_000;
/// The least any body may spend (a small body's few faces near one another).
const MIN_COVER_TESTS: u64 = 100_000_000;

/// Which faces of a body another layer covers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoveredSkin {
    covered: Vec<bool>,
    /// Whether the faces were measured (false: the work's bound was reached).
    measured: bool,
}

impl CoveredSkin {
    /// The covered faces of `mesh` at rest. A body whose faces would cost more than
    /// [`COVER_TESTS_PER_FACE`] a face to measure (at least 10⁸ in all, at most
    /// [`MAX_COVER_TESTS`]) gets none and is not [`CoveredSkin::measured`]; one with no
    /// height or no usable face gets none.
    pub fn new(mesh: &BodyMesh) -> Self {
        let lift = LIFT_SHARE * mesh.rest_height();
        // Nothing to measure is measured: no face is covered.
        let nothing = CoveredSkin {
            covered: Vec::new(),
            measured: true,
        };
        if !(lift.is_finite() && lift > 0.0) {
            return nothing;
        }
        // A face naming a vertex the mesh lacks, or at a position that is not finite, is
        // neither measured nor part of the body that covers.
        let corners = |t: usize| super::bind::corners(mesh, t);
        let triangles: Vec<[glam::Vec3; 3]> =
            (0..mesh.triangles.len()).filter_map(corners).collect();
        if triangles.is_empty() {
            return nothing;
        }
        let tree = TriangleTree::new(triangles);
        let bound = (mesh.triangles.len() as u64)
            .saturating_mul(COVER_TESTS_PER_FACE)
            .clamp(MIN_COVER_TESTS, MAX_COVER_TESTS);
        let spent = AtomicU64::new(0);
        let covered: Option<Vec<bool>> = (0..mesh.triangles.len())
            .into_par_iter()
            .map(|t| {
                let Some([a, b, c]) = corners(t) else {
                    return Some(false);
                };
                let normal = (b - a).cross(c - a).normalize_or_zero();
                if normal == glam::Vec3::ZERO {
                    return Some(false);
                }
                if spent.load(Ordering::Relaxed) > bound {
                    return None;
                }
                let above = (a + b + c) / 3.0 + normal * lift;
                let mut tests = 0;
                let inside = tree.contains_counting(above, &mut tests);
                let total = spent.fetch_add(tests, Ordering::Relaxed) + tests;
                // Past the bound every face's answer is dropped (the sum of all the tests
                // is past it however the faces are split between threads).
                (total <= bound).then_some(inside)
            })
            .collect();
        CoveredSkin {
            measured: covered.is_some(),
            covered: covered.unwrap_or_default(),
        }
    }

    /// Whether the faces were measured: false where the work's bound was reached (faces
    /// piled on one spot, or far more faces than bodies are modelled with), so fur may
    /// grow under the body's layers.
    pub fn measured(&self) -> bool {
        self.measured
    }

    /// Whether face `triangle` is covered (false for a face past the mesh's, or for every
    /// face of a body whose cover was not measured).
    pub fn is_covered(&self, triangle: usize) -> bool {
        self.covered.get(triangle).copied().unwrap_or(false)
    }

    /// Whether no face is covered.
    pub fn is_empty(&self) -> bool {
        !self.covered.iter().any(|&c| c)
    }

    /// The share of `mesh`'s skin (by area) that is covered, 0 to 1; 0 for a mesh with no
    /// area.
    pub fn area_share(&self, mesh: &BodyMesh) -> f64 {
        let (mut covered, mut total) = (0.0, 0.0);
        for (i, t) in mesh.triangles.iter().enumerate() {
            let area = super::body_root::triangle_area(mesh, t);
            total += area;
            if self.is_covered(i) {
                covered += area;
            }
        }
        if total > 0.0 { covered / total } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_meshes::{mesh, octahedron};
    use super::*;

    #[test]
    fn a_layer_inside_another_is_covered_and_the_outer_is_not() {
        let (mut positions, mut triangles) = (Vec::new(), Vec::new());
        octahedron(0.5, glam::Vec3::ZERO, 0, &mut positions, &mut triangles);
        octahedron(0.4, glam::Vec3::ZERO, 6, &mut positions, &mut triangles);
        let cover = CoveredSkin::new(&mesh(positions, triangles));
        let outer: Vec<bool> = (0..8).map(|t| cover.is_covered(t)).collect();
        let inner: Vec<bool> = (8..16).map(|t| cover.is_covered(t)).collect();
        assert_eq!(
            outer,
            vec![false; 8],
            "the outer layer is the body's outside"
        );
        assert_eq!(inner, vec![true; 8], "the inner layer lies under the outer");
        assert!(cover.measured());
        assert!(!cover.is_covered(16), "a face the mesh lacks");
    }

    #[test]
    fn a_pile_of_identical_faces_is_measured_within_the_bound_and_has_no_cover() {
        let (mut positions, mut triangles) = (Vec::new(), Vec::new());
        octahedron(0.5, glam::Vec3::ZERO, 0, &mut positions, &mut triangles);
        octahedron(0.4, glam::Vec3::ZERO, 6, &mut positions, &mut triangles);
        let inner = triangles[8];
        triangles.extend(std::iter::repeat_n(inner, 60_000));
        let t = std::time::Instant::now();
        let cover = CoveredSkin::new(&mesh(positions, triangles));
        eprintln!("pile measured in {:?}", t.elapsed());
        assert!(
            cover.is_empty(),
            "past the bound no face is taken as covered"
        );
    }

    #[test]
    fn a_single_closed_skin_has_no_cover() {
        let (mut positions, mut triangles) = (Vec::new(), Vec::new());
        octahedron(0.5, glam::Vec3::ZERO, 0, &mut positions, &mut triangles);
        assert!(CoveredSkin::new(&mesh(positions, triangles)).is_empty());
    }
}
