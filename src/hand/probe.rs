//! Surfaces the hand's finger rays can probe: the posed creature or a body's posed
//! triangles in the app, a plane in tests and tools.

use crate::body::BodyRays;
use crate::creature::{CreatureProxies, Ray, RayHit};
use glam::Vec3;

/// Something a world-space ray can hit: what the fingers reach toward.
pub trait SurfaceProbe {
    /// The nearest hit of `ray` ahead of its origin, if it lies no farther than
    /// `max_distance` along the ray or is the far side of a part the ray starts inside
    /// (its normal then faces along the ray); else `None`.
    fn probe(&self, ray: &Ray, max_distance: f32) -> Option<RayHit>;
}

/// An infinite plane, one-sided: only rays coming from the side its normal points to hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlaneSurface {
    /// A point on the plane.
    pub point: Vec3,
    /// The side the hand is on (normalised when probed; a zero normal means +Y).
    pub normal: Vec3,
}

impl PlaneSurface {
    /// The plane through `point` facing `normal`.
    pub fn new(point: Vec3, normal: Vec3) -> Self {
        PlaneSurface { point, normal }
    }
}

impl SurfaceProbe for PlaneSurface {
    fn probe(&self, ray: &Ray, max_distance: f32) -> Option<RayHit> {
        let n = self.normal.normalize_or(Vec3::Y);
        let height = (ray.origin - self.point).dot(n);
        let closing = -ray.direction.dot(n);
        if !(height >= 0.0 && closing > 1e-6) {
            return None;
        }
        let distance = height / closing;
        (distance.is_finite() && distance <= max_distance).then(|| RayHit {
            distance,
            point: ray.at(distance),
            normal: n,
        })
    }
}

impl SurfaceProbe for CreatureProxies {
    fn probe(&self, ray: &Ray, max_distance: f32) -> Option<RayHit> {
        self.raycast_within(ray, max_distance).map(|h| RayHit {
            distance: h.distance,
            point: h.point,
            normal: h.normal,
        })
    }
}

impl SurfaceProbe for BodyRays {
    fn probe(&self, ray: &Ray, max_distance: f32) -> Option<RayHit> {
        let h = self.raycast(ray)?;
        let counts = h.distance <= max_distance || h.normal.dot(ray.direction) > 0.0;
        counts.then_some(RayHit {
            distance: h.distance,
            point: h.point,
            normal: h.normal,
        })
    }
}
