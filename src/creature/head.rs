//! The head: a radial surface `p = c + r(u)·u` over unit directions `u`, where `r` is a base
//! radius plus Gaussian bumps (ears, cheeks, muzzle).

use super::SurfacePoint;
use super::ray::{Ray, RayHit, march};
use glam::Vec3;

/// A Gaussian bump on the radial head: adds `height · exp((u·direction − 1) / width²)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bump {
    /// Unit direction from the head centre to the bump's peak.
    pub direction: Vec3,
    /// Radial height at the peak, metres.
    pub height: f32,
    /// Angular width, radians (roughly the standard deviation of the angle).
    pub width: f32,
}

impl Bump {
    /// A bump toward `direction` (normalised here).
    pub fn new(direction: Vec3, height: f32, width: f32) -> Self {
        Bump {
            direction: direction.normalize_or(Vec3::Y),
            height,
            width,
        }
    }

    /// The bump's height and its gradient on the unit sphere at `u`.
    fn value_and_gradient(&self, u: Vec3) -> (f32, Vec3) {
        let cos = u.dot(self.direction);
        let inv_w2 = 1.0 / (self.width * self.width);
        let value = self.height * ((cos - 1.0) * inv_w2).exp();
        // d/du of exp((u·c − 1)/w²) is c/w² times the value; keep its tangential part.
        let gradient = (self.direction - cos * u) * (value * inv_w2);
        (value, gradient)
    }

    /// Weight in [0, 1] of how close `u` is to the bump's peak (1 at the peak).
    pub fn weight(&self, u: Vec3) -> f32 {
        ((u.dot(self.direction) - 1.0) / (self.width * self.width)).exp()
    }
}

/// The radial head surface, in head-local coordinates (origin at the neck pivot).
#[derive(Clone, Debug, PartialEq)]
pub struct RadialHead {
    /// Centre of the radial surface.
    pub center: Vec3,
    /// Radius before bumps.
    pub base_radius: f32,
    /// Left and right ear.
    pub ears: [Bump; 2],
    /// Left and right cheek.
    pub cheeks: [Bump; 2],
    /// The muzzle, forward and a little down.
    pub muzzle: Bump,
}

impl Default for RadialHead {
    fn default() -> Self {
        RadialHead {
            center: Vec3::new(0.0, 0.14, 0.06),
            base_radius: 0.25,
            ears: [
                Bump::new(Vec3::new(0.52, 0.84, 0.02), 0.17, 0.2),
                Bump::new(Vec3::new(-0.52, 0.84, 0.02), 0.17, 0.2),
            ],
            cheeks: [
                Bump::new(Vec3::new(0.74, -0.3, 0.6), 0.05, 0.34),
                Bump::new(Vec3::new(-0.74, -0.3, 0.6), 0.05, 0.34),
            ],
            muzzle: Bump::new(Vec3::new(0.0, -0.3, 0.95), 0.07, 0.3),
        }
    }
}

impl RadialHead {
    fn bumps(&self) -> [&Bump; 5] {
        [
            &self.ears[0],
            &self.ears[1],
            &self.cheeks[0],
            &self.cheeks[1],
            &self.muzzle,
        ]
    }

    /// The radius `r(u)` and its tangential gradient on the unit sphere.
    pub fn radius_and_gradient(&self, u: Vec3) -> (f32, Vec3) {
        self.bumps()
            .iter()
            .fold((self.base_radius, Vec3::ZERO), |(r, g), b| {
                let (v, dg) = b.value_and_gradient(u);
                (r + v, g + dg)
            })
    }

    /// The largest radius any direction reaches (a bound for ray marching).
    pub fn max_radius(&self) -> f32 {
        self.base_radius + self.bumps().iter().map(|b| b.height).sum::<f32>()
    }

    /// The surface point along unit direction `u`. With tangential gradient `g` of `r`,
    /// the tangent vectors `g_a u + r a` and `g_b u + r b` cross to `r (r u − g)`, so the
    /// normal is `(r u − g)/√(r² + |g|²)` and the area per steradian `r √(r² + |g|²)`.
    pub fn surface(&self, u: Vec3) -> SurfacePoint {
        let (r, g) = self.radius_and_gradient(u);
        let len = (r * r + g.length_squared()).sqrt();
        SurfacePoint {
            position: self.center + u * r,
            normal: ((u * r - g) / len).normalize_or(u),
            jacobian: r * len,
        }
    }

    /// `|p − c| − r(u)`: negative inside (head-local `p`).
    pub fn implicit(&self, p: Vec3) -> f32 {
        let d = p - self.center;
        let dist = d.length();
        if dist <= 0.0 {
            return -self.base_radius;
        }
        dist - self.radius_and_gradient(d / dist).0
    }

    /// Whether head-local `p` lies strictly inside.
    pub fn inside(&self, p: Vec3) -> bool {
        self.implicit(p) < 0.0
    }

    /// The nearest forward hit of a head-local ray. The implicit is not a true distance
    /// on the ears' steep sides, so the march takes under-relaxed steps, then bisects.
    pub fn ray_hit(&self, ray: &Ray) -> Option<RayHit> {
        let reach = (ray.origin - self.center).length() + self.max_radius();
        let t = march(ray, reach, 0.35, 1e-3, |p| self.implicit(p))?;
        let point = ray.at(t);
        let u = (point - self.center).normalize_or(Vec3::Y);
        Some(RayHit {
            distance: t,
            point,
            normal: self.surface(u).normal,
        })
    }
}
