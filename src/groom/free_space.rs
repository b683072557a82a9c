//! Fur no longer than the room in front of it: a strand of the default groom that would
//! reach another part of its own body (under a chin, between the legs, in the crease of a
//! folded limb) is shortened to the distance to that part, measured at rest along the
//! directions it leaves the skin and ends. Grown longer, it can only lie pressed into the
//! other part, where the field that keeps fur out of the body and the strand's stiffness
//! push it to and fro for ever (the avatar's jumping strands, 11–12 cm long under its chin).
//!
//! The directions are taken from the root's own face, not the blended vertex normal: on a
//! smooth convex body that normal leans up to tens of degrees from the face, and a ray only
//! 18° above the skin (the tip's lift) then dives into the root's own face or its
//! neighbours. A ray that leaves the body through a face's back started inside another
//! part (a root nearer that part than the rays' start): that fur has no room at all.
//!
//! Nor longer than the body beneath it is thick (its depth: how far rays into the body from
//! the root go before they leave it): an animal's fur is short on its thin
//! parts (ears, muzzle, lower legs), and a strand longer than its part is wide stands out
//! as a spike from its outline (a muzzle's whiskers, a hand's tufts). The depth counts the
//! layers a ray crosses, so a part inside the skin (teeth in a muzzle, a body under its
//! clothes) does not end it.

use super::body_root::BodyRoot;
use crate::body::{BodyMesh, BodyRays};
use crate::creature::Ray;
#[cfg(test)]
use glam::Quat;
use glam::Vec3;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// How far above its skin a root's rays start, as a share of the body's height: past the
/// rounding of its own triangle's neighbours, well within the shortest fur.
const START_SHARE: f32 = 0.002;

/// The longest fur as a share of the body's depth beneath its root: fur no longer than its
/// part is thick (a leg's fur no longer than the leg is wide) reads as a leg; at 1.5 the
/// lower legs were bushy again, and the walking Fox's fur no less often inside.
pub const THICKNESS_SHARE: f32 = 1.0;
/// How far the four side rays of [`FreeSpace::depth_within`] lean from straight in,
/// radians: at the end of a limb (a paw's sole, a sleeve's cuff) the ray straight in runs
/// along the limb, and all four leave through its sides.
const DEPTH_TILT: f32 = std::f32::consts::FRAC_PI_4;
/// How many surfaces the ray into the body may cross before its depth is taken as
/// unmeasured (no limit on the fur): a part inside a part inside the skin is rare.
const MAX_CROSSINGS: u32 = 8;
/// How far past each surface it crosses the ray into the body goes on, as a share of the
/// body's height: past rounding, so the same surface is not met again.
const CROSSING_STEP_SHARE: f32 = 1e-5;
/// The least of those steps and of the rays' start above the skin, metres, so on a flat
/// body (no height) a ray still leaves the surface it starts on.
const MIN_RAY_STEP: f32 = 1e-6;

/// The most boxes and triangles a root's rays may test (two for the room, up to five for
/// the depth, each of those crossing up to eight surfaces), on average over the roots: the
/// Fox and the avatar stay below it; only triangles piled on one spot or spanning
/// the body reach it.
pub const ROOM_TESTS_PER_ROOT: u64 = 4_096;
/// The least the rays may test in all (a small coat on a small body).
const MIN_ROOM_TESTS: u64 = 100_000_000;
/// The most they may test for any body and coat, as the cover's winding numbers.
const MAX_ROOM_TESTS: u64 = 1_000_000_000;

/// How far a ray into the body went.
struct Chord {
    /// Where it left the body (its count of surfaces crossed back to zero).
    left: Option<f32>,
    /// Where there is no such point: the last surface it left through, infinite where it
    /// left through none or crossed too many to tell.
    open: f32,
    /// Whether it stopped at its reach with no answer (what lies beyond is unknown).
    stopped: bool,
}

impl Chord {
    /// A ray that left the body `distance` from where it started.
    fn left_at(distance: f32) -> Self {
        Chord {
            left: Some(distance),
            open: distance,
            stopped: false,
        }
    }
}

/// The rays a root's fur is measured along.
pub struct FreeSpace {
    rays: BodyRays,
    start: f32,
    /// How far past a surface the ray into the body goes on (see [`CROSSING_STEP_SHARE`]).
    step: f32,
    /// Each triangle's unit normal, turned to the side its vertex normals face (zero for a
    /// triangle with no area or a corner the mesh lacks).
    faces: Vec<Vec3>,
}

/// Triangle `t`'s unit normal on the side its vertex normals face, or zero.
fn face_normal(mesh: &BodyMesh, t: usize) -> Vec3 {
    let Some([a, b, c]) = super::bind::corners(mesh, t) else {
        return Vec3::ZERO;
    };
    let n = (b - a).cross(c - a).normalize_or_zero();
    let blended: Vec3 = mesh.triangles[t]
        .iter()
        .filter_map(|&v| mesh.normals.get(v as usize))
        .copied()
        .filter(|v| v.is_finite())
        .sum();
    if n.dot(blended) < 0.0 { -n } else { n }
}

impl FreeSpace {
    /// The body's triangles at rest.
    pub fn new(mesh: &BodyMesh) -> Self {
        FreeSpace {
            rays: BodyRays::new(mesh),
            start: (START_SHARE * mesh.rest_height()).max(MIN_RAY_STEP),
            step: (CROSSING_STEP_SHARE * mesh.rest_height()).max(MIN_RAY_STEP),
            faces: (0..mesh.triangles.len())
                .map(|t| face_normal(mesh, t))
                .collect(),
        }
    }

    /// The room in front of `root`, metres: the distance from the skin to the nearest part
    /// of the body along the directions its strand leaves the skin and ends (its lift angles
    /// from its face's normal toward the flow), the rays starting just above the skin; 0
    /// where a ray leaves the body (it started inside another part), infinite where nothing
    /// lies ahead. The rays' boxes and triangles tested are added to `tests`.
    pub fn room(&self, root: &BodyRoot, tests: &mut u64) -> f32 {
        let face = self.face_of(root);
        let flow = (root.flow - face * root.flow.dot(face)).normalize_or_zero();
        let along = |angle: f32| (face * angle.cos() + flow * angle.sin()).normalize_or_zero();
        let origin = root.position + face * self.start;
        let mut room = f32::INFINITY;
        for direction in [along(root.lift_root), along(root.lift_tip)] {
            if direction == Vec3::ZERO {
                continue;
            }
            let Some(hit) = self
                .rays
                .raycast_counting(&Ray { origin, direction }, tests)
            else {
                continue;
            };
            let back = self
                .faces
                .get(hit.triangle as usize)
                .is_some_and(|n| n.dot(direction) > 0.0);
            room = room.min(if back { 0.0 } else { hit.distance + self.start });
        }
        room
    }

    /// The unit normal of `root`'s own face (its blended normal where the face has none).
    fn face_of(&self, root: &BodyRoot) -> Vec3 {
        self.faces
            .get(root.triangle as usize)
            .copied()
            .filter(|n| *n != Vec3::ZERO)
            .unwrap_or(root.normal)
    }

    /// The body's depth beneath `root`, metres, where only a depth under `reach` matters:
    /// how far a ray straight in from the skin (against its face's normal) goes before it
    /// leaves the body, counting the surfaces it crosses (in through a face's front, out
    /// through its back) so a part inside the body does not end it; or less where all four
    /// rays leaning [`DEPTH_TILT`] from it leave the body sooner (the end of a limb: near
    /// the edge of a large flat part only the ray toward the edge leaves soon, and that part
    /// is not thin). Where the straight ray's count never falls to zero (an open layer: a
    /// garment with nothing closing it behind the body), the depth is to the last surface
    /// it left through; where it left through none (a sheet with nothing beneath it: a rug,
    /// a card) there is no depth to measure, and it is infinite, as it is where the ray is
    /// still inside after [`MAX_CROSSINGS`] surfaces. A ray without an answer
    /// within `reach` says nothing (past it, it could not lower the answer below `reach`),
    /// but where the straight ray has already left a layer within it: that exit is the
    /// answer if the ray never leaves the body, so it is followed to the end. The boxes and
    /// triangles tested are added to `tests`.
    fn depth_within(&self, root: &BodyRoot, reach: f32, tests: &mut u64) -> f32 {
        let inward = -self.face_of(root);
        let mut straight = self.chord(root.position, inward, reach, tests);
        if straight.stopped && straight.open < reach {
            straight = self.chord(root.position, inward, f32::INFINITY, tests);
        }
        let straight = straight.left.unwrap_or(straight.open);
        let (u, v) = inward.any_orthonormal_pair();
        let (lean, side) = (DEPTH_TILT.cos(), DEPTH_TILT.sin());
        let mut across = 0.0f32;
        for w in [u, -u, v, -v] {
            match self
                .chord(root.position, inward * lean + w * side, reach, tests)
                .left
            {
                Some(d) => across = across.max(d),
                // One leaning ray stays inside: not the end of a limb.
                None => return straight,
            }
        }
        straight.min(across)
    }

    /// [`FreeSpace::depth_within`] every depth.
    #[cfg(test)]
    fn depth(&self, root: &BodyRoot, tests: &mut u64) -> f32 {
        self.depth_within(root, f32::INFINITY, tests)
    }

    /// Where a ray from `from` along `direction` leaves the body, counting the surfaces it
    /// crosses (see [`FreeSpace::depth_within`]), looking no farther than `reach` from
    /// `from` for it. A surface it leaves through is the body's far side only if the ray
    /// next enters another part or meets nothing: leaving again without entering, it had
    /// crossed a sheet inside the body (a mouth's plane, a card), which is passed over.
    fn chord(&self, from: Vec3, direction: Vec3, reach: f32, tests: &mut u64) -> Chord {
        let mut origin = from + direction * self.step;
        let mut travelled = self.step;
        let mut inside = 1i32;
        let mut last_exit = None;
        // An exit that takes the count to zero, until the next surface confirms it.
        let mut exit: Option<f32> = None;
        for _ in 0..MAX_CROSSINGS {
            // Confirming an exit within the reach may take a look past it.
            let ahead = if exit.is_some() {
                f32::INFINITY
            } else {
                reach - travelled
            };
            let Some(hit) = self
                .rays
                .raycast_within(&Ray { origin, direction }, ahead, tests)
            else {
                return match exit {
                    Some(far) => Chord::left_at(far),
                    None => Chord {
                        left: None,
                        open: last_exit.unwrap_or(f32::INFINITY),
                        stopped: reach.is_finite(),
                    },
                };
            };
            travelled += hit.distance;
            let facing = self
                .faces
                .get(hit.triangle as usize)
                .map_or(0.0, |n| n.dot(direction));
            // Met edge on, or a face with no area: neither in nor out.
            if let Some(far) = exit {
                if facing < 0.0 {
                    return Chord::left_at(far);
                }
                if facing > 0.0 {
                    // Out again: the first was a sheet inside the body.
                    exit = Some(travelled);
                    last_exit = Some(travelled);
                }
            } else {
                if facing > 0.0 {
                    inside -= 1;
                    last_exit = Some(travelled);
                } else if facing < 0.0 {
                    inside += 1;
                }
                if inside == 0 {
                    exit = Some(travelled);
                }
            }
            origin = hit.point + direction * self.step;
            travelled += self.step;
        }
        match exit {
            Some(far) => Chord::left_at(far),
            // Still inside after every crossing it may count: too many layers to tell.
            None => Chord {
                left: None,
                open: f32::INFINITY,
                stopped: false,
            },
        }
    }

    /// `roots` with each length at most the room in front of it and [`THICKNESS_SHARE`] of
    /// the body's depth beneath it, never under `shortest`;
    /// returns false, every length kept, where measuring would test more than
    /// [`ROOM_TESTS_PER_ROOT`] boxes and triangles a root on average (10⁸ to 10⁹ in all).
    pub fn shorten(&self, roots: &mut [BodyRoot], shortest: f32) -> bool {
        let bound = (roots.len() as u64)
            .saturating_mul(ROOM_TESTS_PER_ROOT)
            .clamp(MIN_ROOM_TESTS, MAX_ROOM_TESTS);
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
                // Only a depth under this reach can cut the strand.
                let depth = self.depth_within(root, root.length / THICKNESS_SHARE, &mut tests);
                spent.fetch_add(tests, Ordering::Relaxed);
                room.min(THICKNESS_SHARE * depth)
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
    use super::super::test_meshes::{cuboid, mesh, octahedron};
    use super::*;

    /// The octahedron's face 0 (corners +x, +y, +z) and its outward normal.
    fn face_zero() -> Vec3 {
        Vec3::ONE.normalize()
    }

    /// A root on triangle `t` at `position`, its strand leaving at `lift` from the face.
    fn root(t: u32, position: Vec3, normal: Vec3, lift: (f32, f32), length: f32) -> BodyRoot {
        BodyRoot {
            triangle: t,
            barycentric: Vec3::splat(1.0 / 3.0),
            position,
            normal,
            flow: normal.any_orthonormal_vector(),
            length,
            lift_root: lift.0,
            lift_tip: lift.1,
            random: 0.5,
            color: Vec3::ONE,
            rest_angles: None,
        }
    }

    /// An octahedron of 0.5 m about the origin and a second one whose face opposite face
    /// 0 lies `gap` over it, parallel.
    fn two_parts(gap: f32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let (mut positions, mut triangles) = (Vec::new(), Vec::new());
        octahedron(0.5, Vec3::ZERO, 0, &mut positions, &mut triangles);
        // Each face lies 0.5/√3 from its centre.
        let centre = face_zero() * (gap + 1.0 / 3f32.sqrt());
        octahedron(0.5, centre, 6, &mut positions, &mut triangles);
        (positions, triangles)
    }

    /// The middle of face 0.
    fn middle() -> Vec3 {
        Vec3::splat(0.5 / 3.0)
    }

    #[test]
    fn fur_facing_another_part_is_cut_to_the_room_before_it_and_no_shorter_than_the_least() {
        let (positions, triangles) = two_parts(0.03);
        let space = FreeSpace::new(&mesh(positions, triangles));
        // The blended normal of the test meshes leans from the face; the rays follow the
        // face.
        let up = root(0, middle(), middle().normalize(), (0.0, 0.0), 0.12);
        let room = space.room(&up, &mut 0);
        assert!((room - 0.03).abs() < 1e-4, "{room}");
        // One of its two directions meeting the part is enough.
        let half_lying = BodyRoot {
            lift_tip: 1.45,
            ..up
        };
        assert_eq!(space.room(&half_lying, &mut 0), room);
        // The face opposite looks away from the other part.
        let away = root(6, -middle(), -middle().normalize(), (0.0, 0.0), 0.12);
        assert_eq!(space.room(&away, &mut 0), f32::INFINITY);
        let mut roots = [up, away, root(0, middle(), face_zero(), (0.0, 0.0), 0.02)];
        assert!(space.shorten(&mut roots, 0.008));
        let lengths = roots.map(|r| r.length);
        assert!((lengths[0] - 0.03).abs() < 1e-4, "{lengths:?}");
        assert_eq!(lengths[1], 0.12);
        assert_eq!(lengths[2], 0.02);
    }

    #[test]
    fn fur_whose_rays_start_inside_another_part_gets_the_shortest_length() {
        // The other part 1 mm off, nearer than the rays' start: they leave it through
        // the back of its far faces.
        let (positions, triangles) = two_parts(0.001);
        let space = FreeSpace::new(&mesh(positions, triangles));
        let up = root(0, middle(), face_zero(), (0.0, 0.0), 0.12);
        assert_eq!(space.room(&up, &mut 0), 0.0);
        let mut roots = [up];
        assert!(space.shorten(&mut roots, 0.008));
        assert_eq!(roots[0].length, 0.008);
    }

    #[test]
    fn a_smooth_convex_body_cuts_no_fur() {
        // Vertex normals blended (they lean 55° from the faces at the corners), the tip's
        // ray 18° above the skin: it must not meet the root's own face or its neighbours.
        let (mut positions, mut triangles) = (Vec::new(), Vec::new());
        octahedron(0.5, Vec3::ZERO, 0, &mut positions, &mut triangles);
        let body = mesh(positions, triangles);
        let space = FreeSpace::new(&body);
        for t in 0..8u32 {
            let [a, b, c] = body.triangles[t as usize].map(|v| body.positions[v as usize]);
            for w in [
                Vec3::new(0.9, 0.05, 0.05),
                Vec3::new(0.05, 0.9, 0.05),
                Vec3::new(0.34, 0.33, 0.33),
            ] {
                let at = a * w.x + b * w.y + c * w.z;
                let r = root(t, at, at.normalize(), (0.6, 1.25), 0.12);
                for turn in 0..4 {
                    let flow = Quat::from_axis_angle(at.normalize(), turn as f32)
                        * at.normalize().any_orthonormal_vector();
                    let r = BodyRoot { flow, ..r };
                    assert_eq!(space.room(&r, &mut 0), f32::INFINITY, "face {t} at {w}");
                }
            }
        }
    }

    #[test]
    fn a_body_too_tangled_to_measure_keeps_every_length() {
        // 20,000 slivers along the rays' line, each a hair beside it: their boxes hold it,
        // so every ray tests them all.
        let (mut positions, mut triangles) = two_parts(0.03);
        let aside = Vec3::new(1.0, -1.0, 0.0).normalize();
        for i in 0..20_000u32 {
            let offset = aside * (0.01 + 1e-6 * i as f32);
            let first = positions.len() as u32;
            positions.extend([
                Vec3::splat(-2.0) + offset,
                Vec3::splat(2.0) + offset,
                Vec3::splat(2.0) + offset + aside * 1e-4,
            ]);
            triangles.push([first, first + 1, first + 2]);
        }
        let space = FreeSpace::new(&mesh(positions, triangles));
        let up = root(0, middle(), face_zero(), (0.0, 0.0), 0.12);
        let mut roots = vec![up; 64];
        assert!(!space.shorten_within(&mut roots, 0.008, 200_000));
        assert!(roots.iter().all(|r| r.length == 0.12));
        // Without the bound, the room is measured (the slivers missed, to the other part).
        assert!(space.shorten_within(&mut roots, 0.008, u64::MAX));
        assert!(
            roots.iter().all(|r| (r.length - 0.03).abs() < 1e-4),
            "{}",
            roots[0].length
        );
    }

    /// A body of the boxes from `min` to `max`.
    fn boxes(spans: &[(Vec3, Vec3)]) -> BodyMesh {
        let (mut positions, mut triangles) = (Vec::new(), Vec::new());
        for &(min, max) in spans {
            let first = positions.len() as u32;
            cuboid(min, max, first, &mut positions, &mut triangles);
        }
        mesh(positions, triangles)
    }

    /// A box's +y face's first triangle (see `cuboid`'s faces), and its +z face's.
    const TOP: u32 = 6;
    const END: u32 = 2;

    #[test]
    fn fur_is_no_longer_than_its_part_is_thick() {
        // A slab 2 cm thick: the straight ray is its thickness, the leaning ones longer.
        let slab = boxes(&[(Vec3::new(-0.5, -0.01, -0.5), Vec3::new(0.5, 0.01, 0.5))]);
        let space = FreeSpace::new(&slab);
        let top = root(TOP, Vec3::new(0.1, 0.01, 0.0), Vec3::Y, (0.6, 1.25), 0.12);
        let depth = space.depth(&top, &mut 0);
        assert!((depth - 0.02).abs() < 1e-5, "{depth}");
        let short = BodyRoot {
            length: 0.02,
            ..top
        };
        let mut roots = [top, short];
        assert!(space.shorten(&mut roots, 0.005));
        let lengths = roots.map(|r| r.length);
        assert!(
            (lengths[0] - THICKNESS_SHARE * 0.02).abs() < 1e-5,
            "{lengths:?}"
        );
        assert_eq!(lengths[1], 0.02);
        // A body as thick as the fur is long cuts nothing.
        let thick = boxes(&[(Vec3::new(-0.5, -0.5, -0.5), Vec3::new(0.5, 0.01, 0.5))]);
        let mut roots = [top];
        assert!(FreeSpace::new(&thick).shorten(&mut roots, 0.005));
        assert_eq!(roots[0].length, 0.12);
    }

    #[test]
    fn fur_at_the_end_of_a_limb_is_measured_across_it() {
        // A bar 4 cm square and 1 m long: from the middle of its end the straight ray runs
        // its length; a ray leaning 45° leaves through a side 2 cm off.
        let bar = boxes(&[(Vec3::new(-0.02, -0.02, 0.0), Vec3::new(0.02, 0.02, 1.0))]);
        let space = FreeSpace::new(&bar);
        let end = root(END, Vec3::new(0.0, 0.0, 1.0), Vec3::Z, (0.6, 1.25), 0.12);
        let depth = space.depth(&end, &mut 0);
        let across = 0.02 * 2f32.sqrt();
        assert!((depth - across).abs() < 1e-4, "{depth}, not {across}");
        // Asked only about depths under 1 cm, every ray stops short of the body's far side
        // and says nothing.
        assert_eq!(space.depth_within(&end, 0.01, &mut 0), f32::INFINITY);
        assert_eq!(space.depth_within(&end, 0.05, &mut 0), depth);
    }

    #[test]
    fn the_edge_of_a_large_part_is_not_thin() {
        // 1 cm from an edge of a 1 m cube the ray leaning toward the edge leaves at once;
        // the others and the straight one go deep.
        let cube = boxes(&[(Vec3::splat(-0.5), Vec3::splat(0.5))]);
        let near_edge = root(TOP, Vec3::new(0.49, 0.5, 0.0), Vec3::Y, (0.6, 1.25), 0.12);
        let depth = FreeSpace::new(&cube).depth(&near_edge, &mut 0);
        assert!((depth - 1.0).abs() < 1e-4, "{depth}");
    }

    #[test]
    fn a_sheet_inside_the_body_does_not_end_its_depth() {
        // A disc 5 cm over the bottom of a box 20 cm deep, facing up (the ray in from the
        // bottom leaves through its back) or down.
        let span = (Vec3::new(-0.5, -0.2, -0.5), Vec3::new(0.5, 0.0, 0.5));
        let bottom = root(4, Vec3::new(0.1, -0.2, 0.0), Vec3::NEG_Y, (0.6, 1.25), 0.12);
        for up in [true, false] {
            let body = boxes(&[span]);
            let (mut positions, mut triangles) = (body.positions, body.triangles);
            let first = positions.len() as u32;
            positions.extend([
                Vec3::new(-0.3, -0.15, -0.3),
                Vec3::new(0.3, -0.15, -0.3),
                Vec3::new(0.3, -0.15, 0.3),
                Vec3::new(-0.3, -0.15, 0.3),
            ]);
            let disc = if up {
                [[0, 2, 1], [0, 3, 2]]
            } else {
                [[0, 1, 2], [0, 2, 3]]
            };
            triangles.extend(disc.map(|t| t.map(|v| first + v)));
            let depth = FreeSpace::new(&mesh(positions, triangles)).depth(&bottom, &mut 0);
            assert!((depth - 0.2).abs() < 1e-4, "facing up {up}: {depth}");
        }
    }

    #[test]
    fn a_body_with_more_layers_than_a_ray_counts_cuts_nothing() {
        // Five closed slabs stacked under the top of a 1 m cube: ten surfaces before the
        // cube's bottom, more than a ray counts, so the depth is not known.
        let mut spans = vec![(Vec3::splat(-0.5), Vec3::splat(0.5))];
        for k in 0..5 {
            let top = 0.49 - 0.02 * k as f32;
            spans.push((Vec3::new(-0.3, top - 0.01, -0.3), Vec3::new(0.3, top, 0.3)));
        }
        let top = root(TOP, Vec3::new(0.0, 0.5, 0.1), Vec3::Y, (0.6, 1.25), 0.12);
        let depth = FreeSpace::new(&boxes(&spans)).depth(&top, &mut 0);
        assert_eq!(depth, f32::INFINITY);
        // Three of them (six surfaces) are counted through, as if they were not there.
        let depth = FreeSpace::new(&boxes(&spans[..4])).depth(&top, &mut 0);
        let without = FreeSpace::new(&boxes(&spans[..1])).depth(&top, &mut 0);
        assert!(
            depth.is_finite() && depth == without,
            "{depth}, not {without}"
        );
    }

    #[test]
    fn a_part_inside_the_body_does_not_end_its_depth() {
        // Teeth: a closed box 5 cm under the top of a body 20 cm thick.
        let span = (Vec3::new(-0.5, -0.2, -0.5), Vec3::new(0.5, 0.0, 0.5));
        let teeth = (Vec3::new(-0.3, -0.1, -0.3), Vec3::new(0.3, -0.05, 0.3));
        let top = root(TOP, Vec3::new(0.0, 0.0, 0.1), Vec3::Y, (0.6, 1.25), 0.12);
        for body in [boxes(&[span]), boxes(&[span, teeth])] {
            let depth = FreeSpace::new(&body).depth(&top, &mut 0);
            assert!((depth - 0.2).abs() < 1e-4, "{depth}");
        }
    }

    #[test]
    fn an_open_layer_is_as_deep_as_what_it_covers_and_a_bare_sheet_keeps_its_fur() {
        // A sheet facing up 10 cm over a closed box 50 cm deep: a garment over a body.
        let (mut positions, mut triangles) = (
            vec![
                Vec3::new(-1.0, 0.1, -1.0),
                Vec3::new(1.0, 0.1, -1.0),
                Vec3::new(1.0, 0.1, 1.0),
                Vec3::new(-1.0, 0.1, 1.0),
            ],
            vec![[0, 2, 1], [0, 3, 2]],
        );
        let on_sheet = root(0, Vec3::new(0.1, 0.1, 0.0), Vec3::Y, (0.6, 1.25), 0.12);
        let sheet = FreeSpace::new(&mesh(positions.clone(), triangles.clone()));
        assert_eq!(sheet.depth(&on_sheet, &mut 0), f32::INFINITY);
        let mut roots = [on_sheet];
        assert!(sheet.shorten(&mut roots, 0.005));
        assert_eq!(roots[0].length, 0.12);
        let (min, max) = (Vec3::new(-0.5, -0.5, -0.5), Vec3::new(0.5, 0.0, 0.5));
        cuboid(min, max, 4, &mut positions, &mut triangles);
        let covering = FreeSpace::new(&mesh(positions, triangles));
        let depth = covering.depth(&on_sheet, &mut 0);
        assert!((depth - 0.6).abs() < 1e-4, "{depth}");
    }
}
