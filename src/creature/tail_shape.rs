//! The tail: a tube of varying radius around a planar cubic Bézier centreline, framed by
//! its Frenet frame. Parameters: `t ∈ [0, 1]` from root to tip and angle `ψ` around it.

use super::SurfacePoint;
use super::ray::{Ray, RayHit, march};
use glam::{Vec2, Vec3};

/// The tail tube, body-local.
#[derive(Clone, Debug, PartialEq)]
pub struct TailShape {
    /// Cubic Bézier control points of the centreline; the root starts inside the body.
    /// They must lie in one plane (the frame assumes zero torsion).
    pub control: [Vec3; 4],
    /// Tube radius at the root.
    pub root_radius: f32,
    /// Tube radius where the rounded tip cap begins.
    pub tip_radius: f32,
    /// Fraction of the length (from the end) over which the tip closes as a round cap.
    pub cap_fraction: f32,
}

impl Default for TailShape {
    fn default() -> Self {
        TailShape {
            control: [
                Vec3::new(0.0, -0.45, -0.55),
                Vec3::new(0.0, -0.55, -0.95),
                Vec3::new(0.0, -0.15, -1.2),
                Vec3::new(0.0, 0.15, -1.05),
            ],
            root_radius: 0.08,
            tip_radius: 0.05,
            cap_fraction: 0.12,
        }
    }
}

/// The Frenet frame of the centreline at one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Unit tangent, root to tip.
    pub tangent: Vec3,
    /// Unit principal normal (toward the centre of curvature).
    pub normal: Vec3,
    /// Unit binormal `tangent × normal`.
    pub binormal: Vec3,
    /// Speed `|c'(t)|`.
    pub speed: f32,
    /// Curvature κ.
    pub curvature: f32,
}

impl TailShape {
    /// The centreline point at `t ∈ [0, 1]` (clamped).
    pub fn centerline(&self, t: f32) -> Vec3 {
        let t = t.clamp(0.0, 1.0);
        let s = 1.0 - t;
        let [p0, p1, p2, p3] = self.control;
        p0 * (s * s * s) + p1 * (3.0 * s * s * t) + p2 * (3.0 * s * t * t) + p3 * (t * t * t)
    }

    fn derivative(&self, t: f32) -> Vec3 {
        let s = 1.0 - t;
        let [p0, p1, p2, p3] = self.control;
        (p1 - p0) * (3.0 * s * s) + (p2 - p1) * (6.0 * s * t) + (p3 - p2) * (3.0 * t * t)
    }

    fn second_derivative(&self, t: f32) -> Vec3 {
        let [p0, p1, p2, p3] = self.control;
        (p2 - p1 * 2.0 + p0) * (6.0 * (1.0 - t)) + (p3 - p2 * 2.0 + p1) * (6.0 * t)
    }

    /// The Frenet frame at `t` (clamped to [0, 1]); where the curve is straight the
    /// binormal falls back to +X, the normal of the plane the tail curls in.
    pub fn frame(&self, t: f32) -> Frame {
        let t = t.clamp(0.0, 1.0);
        let d1 = self.derivative(t);
        let d2 = self.second_derivative(t);
        let speed = d1.length().max(1e-6);
        let tangent = d1 / speed;
        let c = d1.cross(d2);
        let binormal = if c.length() > 1e-6 {
            c.normalize()
        } else {
            Vec3::X
        };
        Frame {
            tangent,
            normal: binormal.cross(tangent),
            binormal,
            speed,
            curvature: c.length() / (speed * speed * speed),
        }
    }

    /// The tube radius at `t` and its derivative: linear from root to tip radius, closed by
    /// a round cap over the last `cap_fraction`.
    pub fn radius_and_slope(&self, t: f32) -> (f32, f32) {
        let t = t.clamp(0.0, 1.0);
        let base = self.root_radius + (self.tip_radius - self.root_radius) * t;
        let base_slope = self.tip_radius - self.root_radius;
        let cap_start = 1.0 - self.cap_fraction;
        if t <= cap_start {
            return (base, base_slope);
        }
        let x = (t - cap_start) / self.cap_fraction;
        let root = (1.0 - x * x).max(0.0).sqrt();
        // d/dt √(1 − x²) = −x / (f √(1 − x²)); kept finite at the very tip.
        let cap_slope = -x / (self.cap_fraction * root.max(1e-3));
        (base * root, base_slope * root + base * cap_slope)
    }

    /// The tube radius at `t`.
    pub fn radius(&self, t: f32) -> f32 {
        self.radius_and_slope(t).0
    }

    /// The surface point at `(t, ψ)`. With radial unit `e = cosψ N + sinψ B` and zero
    /// torsion, `∂p/∂t = |c'|(1 − ρκ cosψ) T + ρ' e` and `∂p/∂ψ = ρ e⊥`, which cross to
    /// `ρ (|c'|(1 − ρκ cosψ) e − ρ' T)` up to sign: that gives the normal and Jacobian.
    pub fn surface(&self, param: Vec2) -> SurfacePoint {
        let (t, psi) = (param.x.clamp(0.0, 1.0), param.y);
        let f = self.frame(t);
        let (rho, slope) = self.radius_and_slope(t);
        let e = f.normal * psi.cos() + f.binormal * psi.sin();
        let along = f.speed * (1.0 - rho * f.curvature * psi.cos());
        let n = e * along - f.tangent * slope;
        SurfacePoint {
            position: self.centerline(t) + e * rho,
            normal: n.normalize_or(e),
            jacobian: rho * n.length(),
        }
    }

    /// The centreline parameter nearest to `p`: a coarse scan, then golden-section refine.
    pub fn nearest_parameter(&self, p: Vec3) -> f32 {
        const SAMPLES: usize = 64;
        let dist2 = |t: f32| (self.centerline(t) - p).length_squared();
        let best = (0..=SAMPLES)
            .map(|i| i as f32 / SAMPLES as f32)
            .min_by(|a, b| dist2(*a).total_cmp(&dist2(*b)))
            .unwrap_or(0.0);
        let step = 1.0 / SAMPLES as f32;
        let (mut lo, mut hi) = ((best - step).max(0.0), (best + step).min(1.0));
        for _ in 0..24 {
            let m1 = lo + (hi - lo) * 0.382;
            let m2 = lo + (hi - lo) * 0.618;
            if dist2(m1) < dist2(m2) {
                hi = m2;
            } else {
                lo = m1;
            }
        }
        0.5 * (lo + hi)
    }

    /// Distance from `p` to the centreline minus the tube radius there: negative inside.
    pub fn implicit(&self, p: Vec3) -> f32 {
        let t = self.nearest_parameter(p);
        (self.centerline(t) - p).length() - self.radius(t)
    }

    /// Whether body-local `p` lies strictly inside the tube.
    pub fn inside(&self, p: Vec3) -> bool {
        self.implicit(p) < 0.0
    }

    /// The nearest forward hit of a body-local ray.
    pub fn ray_hit(&self, ray: &Ray) -> Option<RayHit> {
        let reach = (ray.origin - self.centerline(0.5)).length() + 1.0;
        let t = march(ray, reach, 0.8, 5e-4, |p| self.implicit(p))?;
        let point = ray.at(t);
        let s = self.nearest_parameter(point);
        let normal = (point - self.centerline(s)).normalize_or(Vec3::Y);
        Some(RayHit {
            distance: t,
            point,
            normal,
        })
    }
}
