//! Fur beside a bare part is short, so the part shows through the coat: within half its
//! length of a triangle a material mask keeps bare (an eye, a nose), a strand's length falls
//! linearly to a fifth of it at the part's edge, as the built-in creature's fur shortens
//! around its eyes. Distances are exact, to the bare triangles at rest. A bare triangle
//! hidden inside the furred skin (teeth and tongue in a closed muzzle, the back of an
//! eyeball) shortens nothing: nothing of it shows through the coat.

use super::mask::BodyMasks;
use crate::body::{BodyMesh, TriangleTree};
use glam::Vec3;
use rayon::prelude::*;

/// How near a bare part a strand starts to shorten, as a share of its own length.
const REACH: f32 = 0.5;
/// A strand's length at a bare part's edge, as a share of its own length.
const SHORTEST: f32 = 0.2;
/// How deep inside the furred skin (metres, at rest) a bare triangle's centre must lie to
/// count as hidden: an eyeball's triangles at the rim of its socket lie about on the skin
/// and still show.
const HIDDEN_DEPTH: f32 = 0.001;

/// The bare triangles of a body, for distances to them.
pub struct NearBare {
    tree: TriangleTree,
}

impl NearBare {
    /// The triangles of `mesh` whose material `masks` keeps bare, but those hidden inside
    /// the furred skin (their centre more than [`HIDDEN_DEPTH`] from it and inside it by
    /// the generalized winding number); `None` where none is left.
    pub fn new(mesh: &BodyMesh, masks: &BodyMasks) -> Option<Self> {
        let corner = |i: u32| mesh.positions.get(i as usize).copied();
        let (bare, furred): (Vec<_>, Vec<_>) = mesh
            .triangles
            .iter()
            .zip(&mesh.triangle_materials)
            .filter_map(|(t, m)| {
                let corners = [corner(t[0])?, corner(t[1])?, corner(t[2])?];
                let finite = corners.iter().all(|p| p.is_finite());
                finite.then_some((masks.material_is_bare(*m), corners))
            })
            .partition(|(is_bare, _)| *is_bare);
        if bare.is_empty() {
            return None;
        }
        let skin = TriangleTree::new(furred.into_iter().map(|(_, t)| t).collect());
        let hidden = |t: &[Vec3; 3]| {
            let centre = (t[0] + t[1] + t[2]) / 3.0;
            skin.nearest(centre)
                .is_some_and(|n| n.distance > HIDDEN_DEPTH)
                && skin.contains(centre)
        };
        // Each bare triangle asks the skin's tree alone: spread over the threads.
        let shown: Vec<[Vec3; 3]> = bare
            .into_par_iter()
            .map(|(_, t)| t)
            .filter(|t| !hidden(t))
            .collect();
        (!shown.is_empty()).then(|| NearBare {
            tree: TriangleTree::new(shown),
        })
    }

    /// The length of a strand of `length` rooted at `root`, shortened near a bare part.
    pub fn shortened(&self, root: Vec3, length: f32) -> f32 {
        let reach = REACH * length;
        match self.tree.nearest(root) {
            Some(n) if n.distance < reach => {
                length * (SHORTEST + (1.0 - SHORTEST) * n.distance / reach)
            }
            _ => length,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_meshes::cuboid;
    use super::*;
    use crate::groom::Mask;
    use glam::Vec2;

    #[test]
    fn fur_shortens_toward_a_bare_triangle_and_not_beyond_its_reach() {
        // A bare triangle ("Eye") at x ≥ 1; the coat's triangle elsewhere.
        let mesh = BodyMesh {
            positions: vec![
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::new(2.0, 0.0, 0.0),
                Vec3::new(1.0, 1.0, 0.0),
                Vec3::new(-3.0, 0.0, 0.0),
                Vec3::new(-2.0, 0.0, 0.0),
                Vec3::new(-3.0, 1.0, 0.0),
            ],
            uvs: vec![Vec2::ZERO; 6],
            triangles: vec![[0, 1, 2], [3, 4, 5]],
            triangle_materials: vec![0, 1],
            material_names: vec!["Eye".into(), "Skin".into()],
            ..BodyMesh::default()
        };
        let masks = [Mask::MaterialContaining("eye".into())];
        let near = NearBare::new(&mesh, &BodyMasks::new(&masks, &mesh)).unwrap();
        let at = |x: f32| near.shortened(Vec3::new(x, 0.0, 0.0), 0.1);
        assert!((at(1.0) - 0.02).abs() < 1e-6, "{}", at(1.0));
        assert!((at(0.975) - 0.06).abs() < 1e-6, "{}", at(0.975));
        assert_eq!(at(0.9), 0.1);
        assert_eq!(at(-2.5), 0.1);
        assert!(NearBare::new(&mesh, &BodyMasks::new(&[], &mesh)).is_none());
    }

    /// A closed furred cube, 1 m on a side about the origin, its triangles facing out.
    fn furred_cube(mesh: &mut BodyMesh) {
        let first = mesh.positions.len() as u32;
        cuboid(
            Vec3::splat(-0.5),
            Vec3::splat(0.5),
            first,
            &mut mesh.positions,
            &mut mesh.triangles,
        );
        mesh.triangle_materials.resize(mesh.triangles.len(), 1);
        mesh.uvs.resize(mesh.positions.len(), Vec2::ZERO);
    }

    #[test]
    fn a_bare_part_hidden_inside_the_skin_shortens_nothing() {
        // "Teeth" 0.1 m under the cube's top face, and an "Eye" 0.1 m beside its +x face.
        let mut mesh = BodyMesh {
            positions: vec![
                Vec3::new(-0.1, 0.4, -0.1),
                Vec3::new(0.1, 0.4, -0.1),
                Vec3::new(0.0, 0.4, 0.1),
                Vec3::new(0.6, -0.1, -0.1),
                Vec3::new(0.6, 0.1, -0.1),
                Vec3::new(0.6, 0.0, 0.1),
            ],
            triangles: vec![[0, 1, 2], [3, 4, 5]],
            triangle_materials: vec![0, 0],
            material_names: vec!["Teeth_Eye".into(), "Fur".into()],
            ..BodyMesh::default()
        };
        furred_cube(&mut mesh);
        let masks = [Mask::MaterialContaining("eye".into())];
        let near = NearBare::new(&mesh, &BodyMasks::new(&masks, &mesh)).unwrap();
        // A 0.4 m strand reaches 0.2 m: over the teeth it keeps its length, beside the eye
        // it is shortened as before.
        let over_teeth = near.shortened(Vec3::new(0.0, 0.5, 0.0), 0.4);
        assert_eq!(over_teeth, 0.4);
        let beside_eye = near.shortened(Vec3::new(0.5, 0.0, 0.0), 0.4);
        let want = 0.4 * (SHORTEST + (1.0 - SHORTEST) * 0.1 / 0.2);
        assert!((beside_eye - want).abs() < 1e-5, "{beside_eye}, not {want}");
        // Only the hidden part bare: nothing left to shorten by.
        mesh.positions[3..6].copy_from_slice(&[
            Vec3::new(0.3, -0.1, -0.1),
            Vec3::new(0.3, 0.1, -0.1),
            Vec3::new(0.3, 0.0, 0.1),
        ]);
        assert!(NearBare::new(&mesh, &BodyMasks::new(&masks, &mesh)).is_none());
    }
}
