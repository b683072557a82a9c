//! Fur beside a bare part is short, so the part shows through the coat: within half its
//! length of a triangle a material mask keeps bare (an eye, a nose), a strand's length falls
//! linearly to a fifth of it at the part's edge, as the built-in creature's fur shortens
//! around its eyes. Distances are exact, to the bare triangles at rest.

use super::mask::BodyMasks;
use crate::body::{BodyMesh, TriangleTree};
use glam::Vec3;

/// How near a bare part a strand starts to shorten, as a share of its own length.
const REACH: f32 = 0.5;
/// A strand's length at a bare part's edge, as a share of its own length.
const SHORTEST: f32 = 0.2;

/// The bare triangles of a body, for distances to them.
pub struct NearBare {
    tree: TriangleTree,
}

impl NearBare {
    /// The triangles of `mesh` whose material `masks` keeps bare; `None` where there are
    /// none.
    pub fn new(mesh: &BodyMesh, masks: &BodyMasks) -> Option<Self> {
        let corner = |i: u32| mesh.positions.get(i as usize).copied();
        let triangles: Vec<[Vec3; 3]> = mesh
            .triangles
            .iter()
            .zip(&mesh.triangle_materials)
            .filter(|(_, m)| masks.material_is_bare(**m))
            .filter_map(|(t, _)| Some([corner(t[0])?, corner(t[1])?, corner(t[2])?]))
            .filter(|t| t.iter().all(|p| p.is_finite()))
            .collect();
        (!triangles.is_empty()).then(|| NearBare {
            tree: TriangleTree::new(triangles),
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
}
