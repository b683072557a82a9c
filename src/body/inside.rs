//! The goal's measure of fur sinking into a body: how many strand points lie more than a
//! depth inside the skinned mesh. It skins the mesh itself and measures exact triangle
//! distances with a winding-number inside test, never the distance grid the solvers use, so
//! the measure does not trust what it judges.

use super::mesh::{BodyMesh, SkinPose};
use super::triangle_tree::TriangleTree;
use glam::Vec3;
use rayon::prelude::*;

/// The triangles of `mesh` skinned by `pose` (linear blend skinning, as the solvers pose
/// roots); a triangle naming a missing vertex is left out.
pub fn posed_triangles(mesh: &BodyMesh, pose: &SkinPose) -> Vec<[Vec3; 3]> {
    let posed: Vec<Vec3> = (0..mesh.positions.len())
        .map(|v| pose.skin_vertex(mesh, v).0)
        .collect();
    mesh.triangles
        .iter()
        .filter_map(|t| {
            Some([
                *posed.get(t[0] as usize)?,
                *posed.get(t[1] as usize)?,
                *posed.get(t[2] as usize)?,
            ])
        })
        .collect()
}

/// How many of `points` lie more than `depth` metres inside `mesh` in `pose`: farther than
/// `depth` from every posed triangle (exact) and inside by the generalized winding number
/// (above one half, sensible for a mesh with holes). A point that is not finite counts as
/// inside: a solver that lost a point has not kept it out of the body.
pub fn count_inside(mesh: &BodyMesh, pose: &SkinPose, points: &[Vec3], depth: f32) -> usize {
    let tree = TriangleTree::new(posed_triangles(mesh, pose));
    points
        .par_iter()
        .filter(|p| {
            if !p.is_finite() {
                return true;
            }
            // The distance first: most points sit near the skin, and the distance rules them
            // out before the costlier winding number.
            let far = tree.nearest(**p).is_some_and(|n| n.distance > depth);
            far && tree.contains(**p)
        })
        .count()
}

/// The fraction (0 to 1) of `points` more than `depth` metres inside `mesh` in `pose`
/// ([`count_inside`] over the number of points; 0 for no points). The goal "nothing inside
/// the body" asks for at most 0.001 at a depth of 0.001 m.
pub fn fraction_inside(mesh: &BodyMesh, pose: &SkinPose, points: &[Vec3], depth: f32) -> f64 {
    if points.is_empty() {
        return 0.0;
    }
    count_inside(mesh, pose, points, depth) as f64 / points.len() as f64
}
