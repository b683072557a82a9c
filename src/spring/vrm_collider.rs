//! The collider shapes of `VRMC_springBone` (sphere, capsule) and of
//! `VRMC_springBone_extended_collider` (inside sphere, inside capsule, plane), and how a
//! joint's tail is pushed by them, exactly as three-vrm computes it.

use glam::{Affine3A, Mat3, Vec3};

use super::{SpringError, check_finite, check_range};

/// A collider shape in the local frame of its node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum VrmColliderShape {
    /// A sphere at `offset`. With `inside`, joints are kept INSIDE it (extended collider).
    Sphere {
        /// Centre in the node's frame.
        offset: Vec3,
        /// Radius, metres.
        radius: f32,
        /// Keep joints inside instead of outside.
        inside: bool,
    },
    /// A capsule from `offset` to `tail`. With `inside`, joints are kept inside it.
    Capsule {
        /// Start of the axis in the node's frame.
        offset: Vec3,
        /// End of the axis in the node's frame.
        tail: Vec3,
        /// Radius, metres.
        radius: f32,
        /// Keep joints inside instead of outside.
        inside: bool,
    },
    /// An infinite plane through `offset` with unit `normal`: joints stay on the normal's
    /// side (extended collider).
    Plane {
        /// A point of the plane in the node's frame.
        offset: Vec3,
        /// The side joints are kept on, in the node's frame.
        normal: Vec3,
    },
}

impl VrmColliderShape {
    /// A plain (outside) sphere.
    pub fn sphere(offset: Vec3, radius: f32) -> Self {
        Self::Sphere {
            offset,
            radius,
            inside: false,
        }
    }

    /// A plain (outside) capsule.
    pub fn capsule(offset: Vec3, tail: Vec3, radius: f32) -> Self {
        Self::Capsule {
            offset,
            tail,
            radius,
            inside: false,
        }
    }

    /// True for the shapes only `VRMC_springBone_extended_collider` can express.
    pub fn is_extended(&self) -> bool {
        match *self {
            Self::Sphere { inside, .. } | Self::Capsule { inside, .. } => inside,
            Self::Plane { .. } => true,
        }
    }

    /// Checks the numbers are finite, radii not negative and a plane's normal not zero.
    pub fn validate(&self) -> Result<(), SpringError> {
        let radius = |r: f32| check_range("collider radius", r, 0.0, 1.0e6, "use a radius >= 0");
        match *self {
            Self::Sphere {
                offset, radius: r, ..
            } => {
                check_finite("collider offset", offset)?;
                radius(r)
            }
            Self::Capsule {
                offset,
                tail,
                radius: r,
                ..
            } => {
                check_finite("collider offset", offset)?;
                check_finite("collider tail", tail)?;
                radius(r)
            }
            Self::Plane { offset, normal } => {
                check_finite("collider offset", offset)?;
                check_finite("plane normal", normal)?;
                if normal.length() < 1.0e-6 {
                    return Err(SpringError::BadParameter {
                        what: "plane normal".into(),
                        value: normal.length(),
                        hint: "give the plane a non-zero normal",
                    });
                }
                Ok(())
            }
        }
    }

    /// How far a sphere of `radius` at `p` (world) is from touching this shape placed by
    /// `node` (its node's world transform), and the direction that pushes it out. A negative
    /// distance means they overlap by that much. Returns `None` when the direction is
    /// undefined (the point sits exactly on a sphere's centre or a capsule's axis).
    pub fn distance(&self, node: &Affine3A, p: Vec3, radius: f32) -> Option<(f32, Vec3)> {
        match *self {
            Self::Sphere {
                offset,
                radius: r,
                inside,
            } => {
                let delta = p - node.transform_point3(offset);
                round_distance(delta, r, radius, inside)
            }
            Self::Capsule {
                offset,
                tail,
                radius: r,
                inside,
            } => {
                let head = node.transform_point3(offset);
                let axis = node.transform_vector3(tail - offset);
                let mut delta = p - head;
                let along = axis.dot(delta);
                let len2 = axis.length_squared();
                if along <= 0.0 {
                    // Beyond the head: the head's sphere.
                } else if len2 <= along {
                    delta -= axis;
                } else {
                    delta -= axis * (along / len2);
                }
                round_distance(delta, r, radius, inside)
            }
            Self::Plane { offset, normal } => {
                let point = node.transform_point3(offset);
                // Normals transform by the inverse transpose of the linear part.
                let linear = Mat3::from(node.matrix3);
                let n = (linear.inverse().transpose() * normal).normalize_or_zero();
                Some(((p - point).dot(n) - radius, n))
            }
        }
    }
}

/// Distance and push direction for a point `delta` away from a sphere's (or a capsule
/// axis's) nearest core point.
fn round_distance(
    delta: Vec3,
    shape_radius: f32,
    radius: f32,
    inside: bool,
) -> Option<(f32, Vec3)> {
    let length = delta.length();
    let distance = if inside {
        shape_radius - radius - length
    } else {
        length - radius - shape_radius
    };
    if distance >= 0.0 {
        return Some((distance, Vec3::ZERO));
    }
    if length <= 0.0 {
        return None;
    }
    let dir = delta / length;
    Some((distance, if inside { -dir } else { dir }))
}
