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
use std::sync::atomic::{AtomicU64, Ordering};

/// How far above its skin a root's rays start, as a share of the body's height: past the
/// rounding of its own triangle's neighbours, well within the shortest fur.
const START_SHARE: f32 = 0.002;

/// The most boxes and triangles a root's two rays may test, on average over the roots:
/// bodies as modelled spend a few dozen; only triangles piled on one spot or spanning the
/// body reach it.
pub const ROOM_TESTS_PER_ROOT: u64 = 4_096;
/// The least the rays may test in all (a small coat on a small body).
const MIN_ROOM_TESTS: u64 = 100_000_000;

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
    /// The rays' boxes and triangles tested are added to `tests`.
    pub fn room(&self, root: &BodyRoot, tests: &mut u64) -> f32 {
        let along =
            |angle: f32| (root.normal * angle.cos() + root.flow * angle.sin()).normalize_or_zero();
        let origin = root.position + root.normal * self.start;
        [along(root.lift_root), along(root.lift_tip)]
            .into_iter()
            .filter(|d| *d != Vec3::ZERO)
            .filter_map(|direction| {
                self.rays
                    .raycast_counting(&Ray { origin, direction }, tests)
            })
            .map(|hit| hit.distance + self.start)
            .fold(f32::INFINITY, f32::min)
    }

    /// `roots` with each length at most the room in front of it, never under `shortest`;
    /// returns false, every length kept, where measuring would test more than
    /// [`ROOM_TESTS_PER_ROOT`] boxes and triangles a root on average (at least 10⁸ in all).
    pub fn shorten(&self, roots: &mut [BodyRoot], shortest: f32) -> bool {
        let bound = (roots.len() as u64)
            .saturating_mul(ROOM_TESTS_PER_ROOT)
            .max(MIN_ROOM_TESTS);
        self.shorten_within(roots, shortest, bound)
    }

    /// [`FreeSpace::shorten`] within `bound` tests in all. The answer is all or nothing, so
    /// the same roots give the same coat however the threads share them: past the bound the
    /// whole sum of the tests is past it too.
    fn shorten_within(&self, roots: &mut [BodyRoot], shortest: f32, bound: u64) -> bool {
        let spent = AtomicU64::new(0);
        let rooms: Vec<f32> = roots
            .par_iter()
            .map(|root| {
                if spent.load(Ordering::Relaxed) > bound {
                    return f32::INFINITY;
                }
                let mut tests = 0;
                let room = self.room(root, &mut tests);
                spent.fetch_add(tests, Ordering::Relaxed);
                room
            })
            .collect();
        if spent.into_inner() > bound {
            return false;
        }
        for (root, room) in roots.iter_mut().zip(rooms) {
            if room < root.length {
                root.length = room.max(shortest).min(root.length);
            }
        }
        true
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

    /// Two octahedra of 0.5 m, the upper one's lowest corner 3 cm over the lower one's
    /// highest.
    fn two_parts() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let (mut positions, mut triangles) = (Vec::new(), Vec::new());
        octahedron(0.5, Vec3::ZERO, 0, &mut positions, &mut triangles);
        let above = Vec3::new(0.0, 1.03, 0.0);
        octahedron(0.5, above, 6, &mut positions, &mut triangles);
        (positions, triangles)
    }

    #[test]
    fn fur_facing_another_part_is_cut_to_the_room_before_it_and_no_shorter_than_the_least() {
        // Two octahedra 3 cm apart, one above the other: under the upper one's lowest
        // corner, a root on the lower one's top looks up at its faces.
        let (positions, triangles) = two_parts();
        let space = FreeSpace::new(&mesh(positions, triangles));
        // The upper faces over (0.01, 0.005): y = 0.53 + 0.015.
        let up = root(Vec3::new(0.01, 0.5, 0.005), Vec3::Y, 0.12);
        assert!(
            (space.room(&up, &mut 0) - 0.045).abs() < 1e-4,
            "{}",
            space.room(&up, &mut 0)
        );
        // Lifted to lie along its flow, it rises away from the upper part's faces.
        let lying = BodyRoot {
            lift_root: 1.45,
            lift_tip: 1.45,
            ..up
        };
        assert_eq!(space.room(&lying, &mut 0), f32::INFINITY);
        // But one of its two directions meeting the part is enough.
        let half_lying = BodyRoot {
            lift_tip: 1.45,
            ..up
        };
        assert_eq!(space.room(&half_lying, &mut 0), space.room(&up, &mut 0));
        let down = root(Vec3::new(0.01, -0.5, 0.005), -Vec3::Y, 0.12);
        assert_eq!(space.room(&down, &mut 0), f32::INFINITY);
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

    #[test]
    fn a_body_too_tangled_to_measure_keeps_every_length() {
        // 20,000 slivers whose boxes hold the gap between the two parts, each missing the
        // rays up by a hair: every ray tests them all.
        let (mut positions, mut triangles) = two_parts();
        for i in 0..20_000u32 {
            let y = 0.3 + 0.1 * (i as f32 / 20_000.0);
            let first = positions.len() as u32;
            positions.extend([
                Vec3::new(-2.0, y, 2.0),
                Vec3::new(2.0, y, 2.0),
                Vec3::new(2.0, y + 0.6, -2.0),
            ]);
            triangles.push([first, first + 1, first + 2]);
        }
        let space = FreeSpace::new(&mesh(positions, triangles));
        let up = root(Vec3::new(-0.01, 0.5, -0.005), Vec3::Y, 0.12);
        let mut roots = vec![up; 64];
        let started = std::time::Instant::now();
        assert!(!space.shorten_within(&mut roots, 0.008, 200_000));
        assert!(roots.iter().all(|r| r.length == 0.12));
        eprintln!("gave up in {:?}", started.elapsed());
        // Without the bound, the room is measured (the slivers missed, to the upper part).
        assert!(space.shorten_within(&mut roots, 0.008, u64::MAX));
        assert!(
            roots.iter().all(|r| (r.length - 0.045).abs() < 1e-4),
            "{}",
            roots[0].length
        );
    }
}
