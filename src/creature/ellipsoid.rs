//! An axis-aligned ellipsoid: the body and the paws.

use super::SurfacePoint;
use super::ray::{Ray, RayHit};
use glam::Vec3;

/// An axis-aligned ellipsoid `((p - center) / radii)² = 1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ellipsoid {
    /// Centre, in the space of the part that owns it.
    pub center: Vec3,
    /// Semi-axes along x, y and z.
    pub radii: Vec3,
}

impl Ellipsoid {
    /// An ellipsoid from its centre and semi-axes.
    pub const fn new(center: Vec3, radii: Vec3) -> Self {
        Ellipsoid { center, radii }
    }

    /// The point reached along unit direction `u` of the parameter sphere:
    /// `p = c + r ⊙ u`. Its area element per steradian is `rx·ry·rz·|u ⊘ r|`, because
    /// `(D a) × (D b) = det(D) D⁻¹ (a × b)` for the diagonal scale `D`.
    pub fn surface(&self, u: Vec3) -> SurfacePoint {
        let scaled_normal = u / self.radii;
        let r = self.radii;
        SurfacePoint {
            position: self.center + r * u,
            normal: scaled_normal.normalize_or(Vec3::Y),
            jacobian: r.x * r.y * r.z * scaled_normal.length(),
        }
    }

    /// `|(p − c) ⊘ r|² − 1`: negative inside.
    pub fn implicit(&self, p: Vec3) -> f32 {
        ((p - self.center) / self.radii).length_squared() - 1.0
    }

    /// Whether `p` lies strictly inside.
    pub fn inside(&self, p: Vec3) -> bool {
        self.implicit(p) < 0.0
    }

    /// The nearest forward hit of `ray`, solved in the unit-sphere space of the ellipsoid.
    pub fn ray_hit(&self, ray: &Ray) -> Option<RayHit> {
        let o = (ray.origin - self.center) / self.radii;
        let d = ray.direction / self.radii;
        let a = d.length_squared();
        let b = o.dot(d);
        let c = o.length_squared() - 1.0;
        let disc = b * b - a * c;
        if disc < 0.0 || a <= 0.0 {
            return None;
        }
        let sq = disc.sqrt();
        let t0 = (-b - sq) / a;
        let t1 = (-b + sq) / a;
        let t = if t0 >= 0.0 { t0 } else { t1 };
        if t < 0.0 {
            return None;
        }
        let point = ray.at(t);
        let normal = ((point - self.center) / (self.radii * self.radii)).normalize_or(Vec3::Y);
        Some(RayHit {
            distance: t,
            point,
            normal,
        })
    }
}
