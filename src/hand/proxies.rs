//! The creature's analytic parts as ray targets in world space: pointer rays and finger
//! rays test them at the creature's current pose (head-local for the head, body-local for
//! the body, paws and tail).

use super::probe::SurfaceProbe;
use crate::creature::{Creature, CreaturePose, Part, Ray, RayHit, Space};
use glam::{Affine3A, Vec3};

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
}

impl ProxyHit {
    /// The hit's point and normal carried to `pose`: the same spot of the part after it
    /// moved.
    pub fn at_pose(&self, pose: &CreaturePose) -> (Vec3, Vec3) {
        let to_world = part_to_world(pose, self.part);
        (
            to_world.transform_point3(self.local_point),
            to_world
                .transform_vector3(self.local_normal)
                .normalize_or(self.normal),
        )
    }
}

/// The part's space → world at `pose`.
fn part_to_world(pose: &CreaturePose, part: Part) -> Affine3A {
    match part.space() {
        Space::Head => pose.head,
        Space::Body => pose.body,
    }
}

/// The creature and its current pose: the proxies pointer and finger rays test.
#[derive(Clone, Debug, PartialEq)]
pub struct CreatureProxies {
    creature: Creature,
    pose: CreaturePose,
}

impl CreatureProxies {
    /// The creature at `pose`.
    pub fn new(creature: Creature, pose: CreaturePose) -> Self {
        CreatureProxies { creature, pose }
    }

    /// The creature at its rest pose.
    pub fn at_rest(creature: Creature) -> Self {
        let pose = CreaturePose::rest(&creature);
        CreatureProxies { creature, pose }
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
        if !(ray.origin.is_finite() && ray.direction.is_finite()) {
            return None;
        }
        Part::ALL
            .iter()
            .filter_map(|&part| self.part_hit(part, ray))
            .min_by(|a, b| a.distance.total_cmp(&b.distance))
    }

    /// The hit of a world ray with one part at the current pose.
    pub fn part_hit(&self, part: Part, ray: &Ray) -> Option<ProxyHit> {
        let to_world = part_to_world(&self.pose, part);
        let to_local = to_world.inverse();
        let local = Ray::new(
            to_local.transform_point3(ray.origin),
            to_local.transform_vector3(ray.direction),
        );
        // The head's ray test works in head-local space; the others in body space.
        let hit = match part {
            Part::Head => self.creature.head.ray_hit(&local),
            _ => self.creature.ray_hit(part, &local),
        }?;
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
        })
    }
}

impl SurfaceProbe for CreatureProxies {
    fn probe(&self, ray: &Ray) -> Option<RayHit> {
        self.raycast(ray).map(|h| RayHit {
            distance: h.distance,
            point: h.point,
            normal: h.normal,
        })
    }
}
