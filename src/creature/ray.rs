//! Rays and ray hits against the analytic proxies.

use glam::Vec3;

/// A ray with a unit direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where the ray starts.
    pub origin: Vec3,
    /// Unit direction.
    pub direction: Vec3,
}

impl Ray {
    /// A ray from `origin` along `direction` (normalised here; a zero direction becomes −Z).
    pub fn new(origin: Vec3, direction: Vec3) -> Self {
        Ray {
            origin,
            direction: direction.normalize_or(Vec3::NEG_Z),
        }
    }

    /// The point at distance `t` along the ray.
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.direction * t
    }
}

/// Where a ray met a surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Distance along the ray.
    pub distance: f32,
    /// The hit point.
    pub point: Vec3,
    /// Outward unit normal at the hit.
    pub normal: Vec3,
}

/// Finds the first sign change of `f` along `ray` within `max_distance` by marching with
/// steps of `f`'s value times `step_scale` (at least `min_step`), then bisecting.
/// `f` is a signed distance-like function, negative inside.
pub(crate) fn march(
    ray: &Ray,
    max_distance: f32,
    step_scale: f32,
    min_step: f32,
    f: impl Fn(Vec3) -> f32,
) -> Option<f32> {
    let mut t = 0.0f32;
    let mut prev_t = 0.0f32;
    let mut value = f(ray.at(0.0));
    if value < 0.0 {
        return Some(0.0);
    }
    while t < max_distance {
        prev_t = t;
        t += (value * step_scale).max(min_step);
        value = f(ray.at(t));
        if value < 0.0 {
            break;
        }
    }
    if value >= 0.0 {
        return None;
    }
    let (mut lo, mut hi) = (prev_t, t);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if f(ray.at(mid)) < 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}
