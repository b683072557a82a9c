//! Sphere and capsule colliders fixed to a bone with an offset in that bone's frame, the
//! groups springs meet them by, and the push-out of points and triangles.

use glam::Vec3;

use super::{SpringError, check_finite, check_range};
use crate::spring::Frame;

/// The shape of a collider in its bone's local frame (VRM's `shape`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ColliderShape {
    /// A sphere at `offset` in the bone's frame.
    Sphere {
        /// Centre in the bone's frame, metres.
        offset: Vec3,
        /// Radius, metres.
        radius: f32,
    },
    /// A capsule from `offset` to `tail`, both in the bone's frame.
    Capsule {
        /// One end of the axis in the bone's frame.
        offset: Vec3,
        /// The other end of the axis in the bone's frame.
        tail: Vec3,
        /// Radius, metres.
        radius: f32,
    },
}

/// A collider on a named bone of the rig.
#[derive(Debug, Clone, PartialEq)]
pub struct Collider {
    /// Name of the bone (glTF node) that carries it.
    pub bone: String,
    /// Its shape in that bone's frame.
    pub shape: ColliderShape,
}

/// A named set of colliders; a spring lists the groups it meets (VRM's `colliderGroups`).
#[derive(Debug, Clone, PartialEq)]
pub struct ColliderGroup {
    /// Name of the group.
    pub name: String,
    /// Indices into the rig's collider list.
    pub colliders: Vec<usize>,
}

/// A collider placed in world space for one step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WorldCollider {
    /// A sphere.
    Sphere {
        /// Centre, world space.
        center: Vec3,
        /// Radius.
        radius: f32,
    },
    /// A capsule around the segment `a`–`b`.
    Capsule {
        /// One end of the axis.
        a: Vec3,
        /// The other end of the axis.
        b: Vec3,
        /// Radius.
        radius: f32,
    },
}

impl ColliderShape {
    /// Checks that the numbers are finite and the radius is not negative.
    pub fn validate(&self) -> Result<(), SpringError> {
        match *self {
            ColliderShape::Sphere { offset, radius } => {
                check_finite("collider offset", offset)?;
                check_range("collider radius", radius, 0.0, 1.0e6, "use a radius >= 0")
            }
            ColliderShape::Capsule {
                offset,
                tail,
                radius,
            } => {
                check_finite("collider offset", offset)?;
                check_finite("collider tail", tail)?;
                check_range("collider radius", radius, 0.0, 1.0e6, "use a radius >= 0")
            }
        }
    }

    /// Places the shape in world space given its bone's world frame.
    pub fn to_world(&self, bone: &Frame) -> WorldCollider {
        match *self {
            ColliderShape::Sphere { offset, radius } => WorldCollider::Sphere {
                center: bone.point(offset),
                radius,
            },
            ColliderShape::Capsule {
                offset,
                tail,
                radius,
            } => WorldCollider::Capsule {
                a: bone.point(offset),
                b: bone.point(tail),
                radius,
            },
        }
    }
}

/// The point of segment `a`–`b` closest to `p`.
pub fn closest_on_segment(a: Vec3, b: Vec3, p: Vec3) -> Vec3 {
    let ab = b - a;
    let len2 = ab.length_squared();
    if len2 <= f32::EPSILON {
        return a;
    }
    let t = ((p - a).dot(ab) / len2).clamp(0.0, 1.0);
    a + ab * t
}

impl WorldCollider {
    /// The radius of the shape.
    pub fn radius(&self) -> f32 {
        match *self {
            WorldCollider::Sphere { radius, .. } | WorldCollider::Capsule { radius, .. } => radius,
        }
    }

    /// The point of the shape's core (centre or axis) closest to `p`.
    pub fn core_point(&self, p: Vec3) -> Vec3 {
        match *self {
            WorldCollider::Sphere { center, .. } => center,
            WorldCollider::Capsule { a, b, .. } => closest_on_segment(a, b, p),
        }
    }

    /// Where a point of radius `point_radius` at `p` goes when pushed out of the collider,
    /// or `None` when it does not touch it.
    pub fn push_out(&self, p: Vec3, point_radius: f32) -> Option<Vec3> {
        let c = self.core_point(p);
        let reach = self.radius() + point_radius;
        let d = p - c;
        let dist2 = d.length_squared();
        if dist2 >= reach * reach {
            return None;
        }
        let dist = dist2.sqrt();
        let dir = if dist > 1.0e-9 { d / dist } else { Vec3::Y };
        Some(c + dir * reach)
    }

    /// Pushes the triangle `tri` (with thickness `thickness`) out of the collider. Returns the
    /// displacement the touching point of the triangle needs and the barycentric weights of
    /// that point, or `None` when they do not touch.
    pub fn triangle_contact(&self, tri: [Vec3; 3], thickness: f32) -> Option<(Vec3, [f32; 3])> {
        // The triangle point nearest the core: for a sphere that is exact; for a capsule we
        // take the best of the triangle point nearest each end and the axis point nearest
        // the triangle's closest point (two refinement rounds, enough for short capsules).
        let (core, (q, w)) = match *self {
            WorldCollider::Sphere { center, .. } => (center, closest_on_triangle(tri, center)),
            WorldCollider::Capsule { a, b, .. } => {
                let mut best: Option<(f32, Vec3, (Vec3, [f32; 3]))> = None;
                for start in [a, b, (a + b) * 0.5] {
                    let mut c = start;
                    let mut hit = closest_on_triangle(tri, c);
                    for _ in 0..3 {
                        c = closest_on_segment(a, b, hit.0);
                        hit = closest_on_triangle(tri, c);
                    }
                    let d2 = (hit.0 - c).length_squared();
                    if best.as_ref().is_none_or(|b| d2 < b.0) {
                        best = Some((d2, c, hit));
                    }
                }
                let (_, c, hit) = best?;
                (c, hit)
            }
        };
        let reach = self.radius() + thickness;
        let d = q - core;
        let dist = d.length();
        if dist >= reach {
            return None;
        }
        let dir = if dist > 1.0e-9 {
            d / dist
        } else {
            let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
            n.normalize_or(Vec3::Y)
        };
        Some((dir * (reach - dist), w))
    }
}

/// The point of triangle `t` closest to `p`, with its barycentric weights (Ericson, Real-Time
/// Collision Detection, 5.1.5).
pub fn closest_on_triangle(t: [Vec3; 3], p: Vec3) -> (Vec3, [f32; 3]) {
    let [a, b, c] = t;
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, [1.0, 0.0, 0.0]);
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, [0.0, 1.0, 0.0]);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (a + ab * v, [1.0 - v, v, 0.0]);
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, [0.0, 0.0, 1.0]);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (a + ac * w, [1.0 - w, 0.0, w]);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, [0.0, 1.0 - w, w]);
    }
    let denom = va + vb + vc;
    if denom.abs() <= f32::MIN_POSITIVE {
        return (a, [1.0, 0.0, 0.0]);
    }
    let v = vb / denom;
    let w = vc / denom;
    (a + ab * v + ac * w, [1.0 - v - w, v, w])
}
