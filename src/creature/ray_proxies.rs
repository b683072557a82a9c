//! The creature's analytic parts as ray targets in world space: pointer rays and finger
//! rays test them at the creature's current pose (head-local for the head, body-local for
//! the body and paws, and the tail as its bones have swung it).

use super::{
    Creature, CreaturePose, GpuCreaturePose, Part, Ray, RayHit, Space, TAIL_BONES, root_transform,
};
use glam::{Affine3A, Vec3};

/// How many surface crossings a ray is followed through in one tail bone's space before it
/// gives up looking for one on that bone's stretch of the tail.
const TAIL_CROSSINGS: usize = 4;

/// How far past a crossing the ray restarts, metres.
const CROSSING_STEP: f32 = 1e-3;

/// How many times a tail hit is moved onto the blended skin (see
/// [`CreatureProxies::refine_tail_hit`]).
const TAIL_REFINEMENTS: usize = 4;

/// How far before the previous crossing a refinement starts its march, metres.
const REFINE_BACKUP: f32 = 0.02;

/// Where a world ray met the posed creature.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProxyHit {
    /// The part hit.
    pub part: Part,
    /// Distance along the ray, metres.
    pub distance: f32,
    /// The hit point, world space.
    pub point: Vec3,
    /// Outward unit normal at the hit, world space.
    pub normal: Vec3,
    /// The hit point in the part's own space (head-local or body-local), so the hit can
    /// ride along when the part moves.
    pub local_point: Vec3,
    /// The normal in the part's own space.
    pub local_normal: Vec3,
    /// Where along the tail the hit is, 0 at its base and 1 at its tip (0 for the other
    /// parts): which of the tail's bones carry the spot when the tail swings.
    pub tail_t: f32,
}

impl ProxyHit {
    /// The hit's point and normal carried to `pose`: the same spot of the part after it
    /// moved.
    pub fn at_pose(&self, pose: &CreaturePose) -> (Vec3, Vec3) {
        let to_world = match self.part {
            Part::Tail => tail_to_world(pose, self.tail_t),
            part => part_to_world(pose, part),
        };
        (
            to_world.transform_point3(self.local_point),
            to_world
                .transform_vector3(self.local_normal)
                .normalize_or(self.normal),
        )
    }
}

/// The part's space → world at `pose`; for the tail, its base's bone (see
/// [`tail_to_world`] for the spot-by-spot transform).
fn part_to_world(pose: &CreaturePose, part: Part) -> Affine3A {
    match part.space() {
        Space::Head => pose.head,
        Space::Body => pose.body,
        Space::Tail => pose.tail[0],
    }
}

/// Body-space rest → world for the tail's spot at parameter `t`: the blend of its two
/// nearest bones, exactly as the tail's skin and fur roots are placed.
fn tail_to_world(pose: &CreaturePose, t: f32) -> Affine3A {
    Affine3A::from_mat4(root_transform(&GpuCreaturePose::from(pose), Space::Tail, t))
}

/// The tail bone whose stretch of the tail holds parameter `t`: the one with the larger
/// weight in [`root_transform`]'s blend.
fn tail_bone(t: f32) -> usize {
    ((t * TAIL_BONES as f32) as usize).min(TAIL_BONES - 1)
}

/// The creature and its current pose: the proxies pointer and finger rays test.
#[derive(Clone, Debug, PartialEq)]
pub struct CreatureProxies {
    creature: Creature,
    pose: CreaturePose,
    /// A sphere around the rest tail (centre, radius; body-space rest): rays that miss it
    /// skip the tail's marching test.
    tail_bound: (Vec3, f32),
}

impl CreatureProxies {
    /// The creature at `pose`.
    pub fn new(creature: Creature, pose: CreaturePose) -> Self {
        let tail_bound = tail_bound(&creature);
        CreatureProxies {
            creature,
            pose,
            tail_bound,
        }
    }

    /// The creature at its rest pose.
    pub fn at_rest(creature: Creature) -> Self {
        let pose = CreaturePose::rest(&creature);
        Self::new(creature, pose)
    }

    /// Moves the proxies to `pose`.
    pub fn set_pose(&mut self, pose: CreaturePose) {
        self.pose = pose;
    }

    /// The current pose.
    pub fn pose(&self) -> &CreaturePose {
        &self.pose
    }

    /// The creature.
    pub fn creature(&self) -> &Creature {
        &self.creature
    }

    /// The nearest hit of a world-space ray with any part at the current pose. A ray with
    /// a non-finite origin or direction hits nothing.
    pub fn raycast(&self, ray: &Ray) -> Option<ProxyHit> {
        self.raycast_within(ray, f32::INFINITY)
    }

    /// [`CreatureProxies::raycast`]'s hit where it lies no farther than `max_distance`
    /// along the ray or is the far side of a part the ray starts inside, else `None`: what
    /// the hand's finger probes, which look a few centimetres down, can use. The tail is
    /// then tested only where it could give such a hit.
    pub fn raycast_within(&self, ray: &Ray, max_distance: f32) -> Option<ProxyHit> {
        if !(ray.origin.is_finite() && ray.direction.is_finite()) || max_distance.is_nan() {
            return None;
        }
        // The tail last, and only where it could be nearer than what the rest hit: its
        // test (every bone's stretch, several crossings each) costs the most, and the
        // hand's finger probes, aimed into the head or the back, mostly meet skin first.
        let counts = |h: &ProxyHit| h.distance <= max_distance || h.normal.dot(ray.direction) > 0.0;
        let rest = Part::ALL
            .iter()
            .filter(|&&part| part != Part::Tail)
            .filter_map(|&part| self.part_hit(part, ray))
            .min_by(|a, b| a.distance.total_cmp(&b.distance));
        // A tail hit counts only nearer than the rest's, and (unless the ray starts inside
        // the tail, where its bound is entered at once) within `max_distance`.
        let limit = match rest {
            Some(h) if counts(&h) => h.distance,
            _ => max_distance,
        };
        let tail = self
            .tail_hit(ray, limit)
            .filter(|t| rest.is_none_or(|h| t.distance < h.distance));
        tail.or(rest).filter(counts)
    }

    /// The hit of a world ray with one part at the current pose.
    pub fn part_hit(&self, part: Part, ray: &Ray) -> Option<ProxyHit> {
        if part == Part::Tail {
            return self.tail_hit(ray, f32::INFINITY);
        }
        let to_world = part_to_world(&self.pose, part);
        let local = to_local(&to_world, ray);
        // The head's ray test works in head-local space; the others in body space.
        let hit = match part {
            Part::Head => self.creature.head.ray_hit(&local),
            _ => self.creature.ray_hit(part, &local),
        }?;
        self.world_hit(part, ray, &to_world, hit, 0.0)
    }

    /// The first crossing of a world ray with the swung tail. Each bone carries its own
    /// stretch of the tail rigidly enough for a pointer: the rest tail is tested in every
    /// bone's space, and only a crossing on that bone's stretch counts (a crossing elsewhere
    /// is where the rest shape would be under the wrong bone, so the ray moves past it).
    /// The spot found is then placed by the same two-bone blend as the tail's skin.
    /// Bones whose stretch the ray cannot reach before `nearer_than` (metres along it) are
    /// not tested.
    fn tail_hit(&self, ray: &Ray, nearer_than: f32) -> Option<ProxyHit> {
        let tail = &self.creature.tail;
        let bones = &self.pose.tail;
        // An unswung tail is one rigid shape: one test, any stretch.
        let rigid = bones.iter().all(|b| *b == bones[0]);
        let mut best: Option<ProxyHit> = None;
        for (b, bone) in bones
            .iter()
            .enumerate()
            .take(if rigid { 1 } else { TAIL_BONES })
        {
            if sphere_entry(ray, world_sphere(bone, self.tail_bound))
                .is_none_or(|entry| entry >= nearer_than)
            {
                continue;
            }
            let mut local = to_local(bone, ray);
            for _ in 0..TAIL_CROSSINGS {
                let Some(hit) = tail.ray_hit(&local) else {
                    break;
                };
                let t = tail.nearest_parameter(hit.point);
                if rigid || tail_bone(t) == b {
                    let (hit, t) = if rigid {
                        (hit, t)
                    } else {
                        self.refine_tail_hit(ray, hit, t)
                    };
                    let to_world = tail_to_world(&self.pose, t);
                    let found = self.world_hit(Part::Tail, ray, &to_world, hit, t);
                    if let Some(f) = found
                        && best.is_none_or(|h| f.distance < h.distance)
                    {
                        best = Some(f);
                    }
                    break;
                }
                local = Ray::new(hit.point + local.direction * CROSSING_STEP, local.direction);
            }
        }
        best
    }

    /// Moves a tail hit found under one bone onto the blended skin: the ray is tested
    /// again under the blend at the hit's parameter, until the parameter settles. Between
    /// two bones the blend lies up to several millimetres from either bone's rigid shape.
    fn refine_tail_hit(&self, ray: &Ray, mut hit: RayHit, mut t: f32) -> (RayHit, f32) {
        let tail = &self.creature.tail;
        for _ in 0..TAIL_REFINEMENTS {
            let local = to_local(&tail_to_world(&self.pose, t), ray);
            // Start just before the current hit, so the march finds the same crossing.
            let back = (hit.point - local.origin).dot(local.direction) - REFINE_BACKUP;
            let start = Ray::new(
                local.origin + local.direction * back.max(0.0),
                local.direction,
            );
            let Some(next) = tail.ray_hit(&start) else {
                break;
            };
            let next_t = tail.nearest_parameter(next.point);
            let settled = (next_t - t).abs() < 1e-4;
            (hit, t) = (next, next_t);
            if settled {
                break;
            }
        }
        (hit, t)
    }

    /// A part-space hit carried to world by `to_world`, measured along the world `ray`.
    fn world_hit(
        &self,
        part: Part,
        ray: &Ray,
        to_world: &Affine3A,
        hit: RayHit,
        tail_t: f32,
    ) -> Option<ProxyHit> {
        let point = to_world.transform_point3(hit.point);
        let normal = to_world
            .transform_vector3(hit.normal)
            .normalize_or(hit.normal);
        let distance = (point - ray.origin).length();
        (point.is_finite() && normal.is_finite()).then_some(ProxyHit {
            part,
            distance,
            point,
            normal,
            local_point: hit.point,
            local_normal: hit.normal,
            tail_t,
        })
    }
}

/// A sphere holding the rest tail: around its centreline's middle, out to the farthest
/// sampled point of the tube, with a margin for what the samples miss.
fn tail_bound(creature: &Creature) -> (Vec3, f32) {
    let tail = &creature.tail;
    let centre = tail.centerline(0.5);
    let radius = (0..=64)
        .map(|i| {
            let t = i as f32 / 64.0;
            (tail.centerline(t) - centre).length() + tail.radius(t)
        })
        .fold(0.0, f32::max);
    (centre, radius * 1.05 + 0.01)
}

/// `sphere` (centre, radius) in a bone's space as a world sphere holding it: the centre
/// mapped, the radius by the bone's largest stretch (its longest axis where the axes are
/// at right angles, as a posed bone's are; else the matrix's Frobenius norm, which no
/// direction's stretch exceeds, shear or not).
fn world_sphere(to_world: &Affine3A, (centre, radius): (Vec3, f32)) -> (Vec3, f32) {
    let (x, y, z) = (to_world.x_axis, to_world.y_axis, to_world.z_axis);
    let squares = [x.length_squared(), y.length_squared(), z.length_squared()];
    let largest = squares[0].max(squares[1]).max(squares[2]);
    let square = x.dot(y).abs().max(y.dot(z).abs()).max(z.dot(x).abs()) <= 1e-5 * largest;
    let stretch = if square {
        largest.sqrt()
    } else {
        (squares[0] + squares[1] + squares[2]).sqrt()
    };
    (to_world.transform_point3(centre), radius * stretch)
}

/// How far along `ray` (a unit direction) it enters `sphere` (centre, radius): 0 when it
/// starts inside, `None` when it passes wholly outside or the sphere lies behind it.
fn sphere_entry(ray: &Ray, (centre, radius): (Vec3, f32)) -> Option<f32> {
    let to_centre = centre - ray.origin;
    if to_centre.length_squared() <= radius * radius {
        return Some(0.0);
    }
    let along = to_centre.dot(ray.direction);
    let miss = (to_centre - ray.direction * along).length_squared();
    if along < 0.0 || miss > radius * radius {
        return None;
    }
    Some(along - (radius * radius - miss).sqrt())
}

/// A world ray in the space `to_world` maps from.
fn to_local(to_world: &Affine3A, ray: &Ray) -> Ray {
    let to_local = to_world.inverse();
    Ray::new(
        to_local.transform_point3(ray.origin),
        to_local.transform_vector3(ray.direction),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest hit found by testing every part in full.
    fn every_part(p: &CreatureProxies, ray: &Ray) -> Option<ProxyHit> {
        Part::ALL
            .iter()
            .filter_map(|&part| match part {
                Part::Tail => p.tail_hit(ray, f32::INFINITY),
                _ => p.part_hit(part, ray),
            })
            .min_by(|a, b| a.distance.total_cmp(&b.distance))
    }

    /// A small deterministic generator of numbers in [-1, 1).
    fn unit(state: &mut u64) -> f32 {
        *state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((*state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    #[test]
    fn skipping_the_tail_where_it_cannot_be_nearer_finds_the_same_hits() {
        let creature = Creature::default();
        let mut pose = CreaturePose::rest(&creature);
        // A swung tail (each bone turned a little more about the tail's root), so that every
        // bone's stretch is tested on its own.
        let pivot = Vec3::from(pose.tail[0].translation);
        for (b, bone) in pose.tail.iter_mut().enumerate() {
            let swing = Affine3A::from_translation(pivot)
                * Affine3A::from_rotation_y(0.12 * b as f32)
                * Affine3A::from_translation(-pivot);
            *bone = swing * *bone;
        }
        let proxies = CreatureProxies::new(creature, pose);
        let (mut state, mut tail_hits, mut within) = (7u64, 0, 0);
        for _ in 0..3000 {
            // From around the creature toward a point near it, or straight down from just
            // above its back and tail, as a finger's probe looks.
            // Half the rays aimed about the swung tail, half about the body.
            let (centre, radius) =
                world_sphere(&proxies.pose.tail[TAIL_BONES / 2], proxies.tail_bound);
            let about = if unit(&mut state) > 0.0 {
                (centre, radius * 0.6)
            } else {
                (Vec3::new(0.0, 0.2, 0.0), 0.35)
            };
            let aim =
                about.0 + Vec3::new(unit(&mut state), unit(&mut state), unit(&mut state)) * about.1;
            let ray = if unit(&mut state) > 0.0 {
                let from = Vec3::new(
                    unit(&mut state),
                    unit(&mut state) * 0.5 + 0.3,
                    unit(&mut state),
                ) * 0.9;
                Ray::new(from, aim - from)
            } else {
                Ray::new(
                    aim + Vec3::Y * 0.25,
                    Vec3::new(unit(&mut state) * 0.2, -1.0, unit(&mut state) * 0.2),
                )
            };
            let want = every_part(&proxies, &ray);
            let got = proxies.raycast(&ray);
            assert_eq!(
                got.map(|h| (h.part, h.distance.to_bits())),
                want.map(|h| (h.part, h.distance.to_bits())),
                "{ray:?}"
            );
            tail_hits += usize::from(want.is_some_and(|h| h.part == Part::Tail));
            for max in [0.02, 0.08, 0.3] {
                let counts = |h: &ProxyHit| h.distance <= max || h.normal.dot(ray.direction) > 0.0;
                let want = want.filter(counts);
                let got = proxies.raycast_within(&ray, max);
                assert_eq!(
                    got.map(|h| (h.part, h.distance.to_bits())),
                    want.map(|h| (h.part, h.distance.to_bits())),
                    "{ray:?} within {max}"
                );
                within += usize::from(want.is_some());
            }
        }
        // The rays reach the tail and find hits within the limits, so both rules are tried.
        assert!(tail_hits > 100, "{tail_hits} rays hit the tail first");
        assert!(within > 300, "{within} hits within the limits");
    }
}
