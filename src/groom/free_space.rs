//! Fur no longer than the room in front of it: a strand of the default groom that would
//! reach another part of its own body (under a chin, between the legs, in the crease of a
//! folded limb) is shortened to the distance to that part, measured at rest along the
//! directions it leaves the skin and ends. Grown longer, it can only lie pressed into the
//! other part, where the field that keeps fur out of the body and the strand's stiffness
//! push it to and fro for ever (the avatar's jumping strands, 11–12 cm long under its chin).

use super::body_root::BodyRoot;
use crate::body::{BodyMesh, BodyRays};
use crate::creature::Ray;
use glam::Vec3;
use rayon::prelude::*;

/// How far above its skin a root's rays start, as a share of the body's height: past the
/// rounding of its own triangle's neighbours, well within the shortest fur.
const START_SHARE: f32 = 0.002;

/// The rays a root's fur is measured along.
pub struct FreeSpace {
    rays: BodyRays,
    start: f32,
}

impl FreeSpace {
    /// The body's triangles at rest.
    pub fn new(mesh: &BodyMesh) -> Self {
        FreeSpace {
            rays: BodyRays::new(mesh),
            start: START_SHARE * mesh.rest_height(),
        }
    }

    /// The room in front of `root`, metres: the nearest part of the body along the
    /// directions its strand leaves the skin and ends (its lift angles from the normal
    /// toward the flow), from just above the skin; infinite where none lies ahead.
    pub fn room(&self, root: &BodyRoot) -> f32 {
        let along =
            |angle: f32| (root.normal * angle.cos() + root.flow * angle.sin()).normalize_or_zero();
        let origin = root.position + root.normal * self.start;
        [along(root.lift_root), along(root.lift_tip)]
            .into_iter()
            .filter(|d| *d != Vec3::ZERO)
            .filter_map(|direction| self.rays.raycast(&Ray { origin, direction }))
            .map(|hit| hit.distance + self.start)
            .fold(f32::INFINITY, f32::min)
    }

    /// `roots` with each length at most the room in front of it, never under `shortest`.
    pub fn shorten(&self, roots: &mut [BodyRoot], shortest: f32) {
        roots.par_iter_mut().for_each(|root| {
            let room = self.room(root);
            if room < root.length {
                root.length = room.max(shortest).min(root.length);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_meshes::{mesh, octahedron};
    use super::*;

    /// A root at `position` whose strand leaves straight along `normal`.
    fn root(position: Vec3, normal: Vec3, length: f32) -> BodyRoot {
        BodyRoot {
            triangle: 0,
            barycentric: Vec3::new(1.0, 0.0, 0.0),
            position,
            normal,
            flow: normal.any_orthonormal_vector(),
            length,
            lift_root: 0.0,
            lift_tip: 0.0,
            random: 0.5,
            color: Vec3::ONE,
            rest_angles: None,
        }
    }

    #[test]
    fn fur_facing_another_part_is_cut_to_the_room_before_it_and_no_shorter_than_the_least() {
        // Two octahedra 3 cm apart, one above the other: under the upper one's lowest
        // corner, a root on the lower one's top looks up at its faces.
        let (mut positions, mut triangles) = (Vec::new(), Vec::new());
        octahedron(0.5, Vec3::ZERO, 0, &mut positions, &mut triangles);
        octahedron(
            0.5,
            Vec3::new(0.0, 1.03, 0.0),
            6,
            &mut positions,
            &mut triangles,
        );
        let space = FreeSpace::new(&mesh(positions, triangles));
        // The upper faces over (0.01, 0.005): y = 0.53 + 0.015.
        let up = root(Vec3::new(0.01, 0.5, 0.005), Vec3::Y, 0.12);
        assert!(
            (space.room(&up) - 0.045).abs() < 1e-4,
            "{}",
            space.room(&up)
        );
        // Lifted to lie along its flow, it rises away from the upper part's faces.
        let lying = BodyRoot {
            lift_root: 1.45,
            lift_tip: 1.45,
            ..up
        };
        assert_eq!(space.room(&lying), f32::INFINITY);
        // But one of its two directions meeting the part is enough.
        let half_lying = BodyRoot {
            lift_tip: 1.45,
            ..up
        };
        assert_eq!(space.room(&half_lying), space.room(&up));
        let down = root(Vec3::new(0.01, -0.5, 0.005), -Vec3::Y, 0.12);
        assert_eq!(space.room(&down), f32::INFINITY);
        // Just under the upper part: 5 mm of room, less than the shortest fur.
        let close = root(Vec3::new(0.01, 0.54, 0.005), Vec3::Y, 0.12);
        let mut roots = [up, down, close, root(up.position, Vec3::Y, 0.02)];
        space.shorten(&mut roots, 0.008);
        let lengths = roots.map(|r| r.length);
        assert!((lengths[0] - 0.045).abs() < 1e-4, "{lengths:?}");
        assert_eq!(lengths[1], 0.12);
        assert_eq!(lengths[2], 0.008);
        assert_eq!(lengths[3], 0.02);
    }
}
