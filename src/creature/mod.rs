//! The analytic host the fur grows on: a radial head with ears and cheeks, an ellipsoid body,
//! four paws and a tail around a curve, plus the animated pivots that move them.
//!
//! Every part is a map from a two-dimensional parameter (a unit direction, or a tail
//! parameter pair) to a surface point, with its normal and Jacobian (area per unit of
//! parameter measure). The groom samples roots through these maps; pointer and finger rays
//! test the same shapes, posed ([`CreatureProxies`]); [`tessellation`] turns them into the
//! triangles the renderer draws and the exported file carries.
//!
//! Beside its shapes the creature owns its coat colours ([`Srgb`]), its rig and the rigged
//! body it exports ([`creature_body`], written by [`crate::vrm`]), its live tail
//! ([`CreatureTail`]) and how it answers being petted ([`CreatureResponse`]). It imports no
//! file format.

mod coat;
mod ellipsoid;
mod face;
mod head;
mod pattern;
mod pose;
mod ray;
mod ray_proxies;
pub(crate) mod regions;
mod response;
mod rig;
mod skinned_mesh;
mod skinning;
mod swinging_tail;
mod tail_bones;
mod tail_shape;
pub mod tessellation;

pub use coat::{Srgb, srgb_to_linear};
pub use ellipsoid::Ellipsoid;
pub use face::{EYE_COLOR, FaceFeature, FaceLayout, NOSE_COLOR};
pub use head::{Bump, RadialHead};
pub use pattern::{Pattern, pattern_at};
pub use pose::{CreaturePose, IdleMotion, tail_whip, wrapped_phase};
pub use ray::{Ray, RayHit};
pub use ray_proxies::{CreatureProxies, ProxyHit};
pub use response::{CreatureResponse, ResponseTuning, Touch};
pub use rig::{
    BODY_BONE, CreatureExport, ROOT_NODE, body_collider, creature_body, creature_humanoid,
    creature_skeleton, creature_spring_rig,
};
pub use skinning::{GpuCreaturePose, place_direction, place_point, root_transform, space_code};
pub use swinging_tail::CreatureTail;
pub use tail_bones::{TAIL_BASE, TailSettings, tail_joint_names};
pub use tail_shape::TailShape;

use glam::{Affine3A, Vec2, Vec3};

/// Bones in the creature's tail chain. Tail fur is skinned to them (see
/// [`CreaturePose::tail`]); the spring tail that swings drives the same number.
pub const TAIL_BONES: usize = 5;

/// One analytic part of the creature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    /// The radial head (ears, cheeks and muzzle included).
    Head,
    /// The body ellipsoid.
    Body,
    /// One of the four paws: 0 front left, 1 front right, 2 back left, 3 back right.
    Paw(u8),
    /// The tail tube.
    Tail,
}

impl Part {
    /// Every part, in the order the sampler measures them.
    pub const ALL: [Part; 7] = [
        Part::Head,
        Part::Body,
        Part::Paw(0),
        Part::Paw(1),
        Part::Paw(2),
        Part::Paw(3),
        Part::Tail,
    ];

    /// The coordinate space the part's roots live in.
    pub fn space(self) -> Space {
        match self {
            Part::Head => Space::Head,
            Part::Tail => Space::Tail,
            _ => Space::Body,
        }
    }

    /// A small integer for the part (its index in [`Part::ALL`]).
    pub fn index(self) -> usize {
        match self {
            Part::Head => 0,
            Part::Body => 1,
            Part::Paw(i) => 2 + i.min(3) as usize,
            Part::Tail => 6,
        }
    }
}

/// Which animated pivot a root follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Head-local coordinates: the root follows the head's pivot.
    Head,
    /// Body-local coordinates: the root follows the body (breathing).
    Body,
    /// Body-local rest coordinates skinned to the tail bones: the root follows the two
    /// bones nearest its tail parameter (see [`CreaturePose::tail`]).
    Tail,
}

/// A point on a part's surface with what the sampler and the groom need.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfacePoint {
    /// Position in the part's space (head-local for the head, body-local otherwise).
    pub position: Vec3,
    /// Outward unit normal in the same space.
    pub normal: Vec3,
    /// Area element per unit of parameter measure (steradian, or tail `dt dψ`).
    pub jacobian: f32,
}

/// The whole host: its shapes at rest and where the head hangs on the body.
#[derive(Clone, Debug, PartialEq)]
pub struct Creature {
    /// The head surface, in head-local coordinates.
    pub head: RadialHead,
    /// Where the head's local origin (its neck pivot) sits in body space at rest.
    pub head_pivot: Vec3,
    /// The body ellipsoid, body-local.
    pub body: Ellipsoid,
    /// The four paws, body-local: front left, front right, back left, back right.
    pub paws: [Ellipsoid; 4],
    /// The tail tube, body-local.
    pub tail: TailShape,
}

impl Default for Creature {
    fn default() -> Self {
        let paw_radii = Vec3::new(0.085, 0.16, 0.11);
        let paw = |x: f32, z: f32| Ellipsoid::new(Vec3::new(x, -0.68, z), paw_radii);
        Creature {
            head: RadialHead::default(),
            head_pivot: Vec3::new(0.0, -0.16, 0.10),
            body: Ellipsoid::new(Vec3::new(0.0, -0.40, -0.22), Vec3::new(0.34, 0.33, 0.46)),
            paws: [
                paw(0.16, 0.10),
                paw(-0.16, 0.10),
                paw(0.19, -0.50),
                paw(-0.19, -0.50),
            ],
            tail: TailShape::default(),
        }
    }
}

impl Creature {
    /// The transform from head-local to body-local coordinates at rest.
    pub fn head_rest(&self) -> Affine3A {
        Affine3A::from_translation(self.head_pivot)
    }

    /// Measure of the part's parameter domain: 4π for a direction, 2π for the tail's
    /// `(t, ψ) ∈ [0,1] × [0,2π)`. Area = mean Jacobian × this measure.
    pub fn parameter_measure(part: Part) -> f32 {
        match part {
            Part::Tail => std::f32::consts::TAU,
            _ => 4.0 * std::f32::consts::PI,
        }
    }

    /// The surface point of `part` at parameter `param`: a unit direction for the
    /// head, body and paws; `(t, ψ, _)` for the tail.
    pub fn surface(&self, part: Part, param: Vec3) -> SurfacePoint {
        match part {
            Part::Head => self.head.surface(param),
            Part::Body => self.body.surface(param),
            Part::Paw(i) => self.paws[usize::from(i.min(3))].surface(param),
            Part::Tail => self.tail.surface(Vec2::new(param.x, param.y)),
        }
    }

    /// Moves a point from `part`'s space to body space at rest.
    pub fn to_body(&self, part: Part, p: Vec3) -> Vec3 {
        match part.space() {
            Space::Head => self.head_rest().transform_point3(p),
            Space::Body | Space::Tail => p,
        }
    }

    /// Whether a body-space point lies strictly inside `part` (at rest).
    pub fn inside(&self, part: Part, body_point: Vec3) -> bool {
        match part {
            Part::Head => self.head.inside(body_point - self.head_pivot),
            Part::Body => self.body.inside(body_point),
            Part::Paw(i) => self.paws[usize::from(i.min(3))].inside(body_point),
            Part::Tail => self.tail.inside(body_point),
        }
    }

    /// Whether a body-space point lies inside any part other than `except`.
    pub fn inside_other(&self, except: Part, body_point: Vec3) -> bool {
        Part::ALL
            .iter()
            .any(|&p| p != except && self.inside(p, body_point))
    }

    /// The nearest hit of a body-space ray with `part` (at rest), if any.
    pub fn ray_hit(&self, part: Part, ray: &Ray) -> Option<RayHit> {
        match part {
            Part::Head => {
                let local = Ray::new(ray.origin - self.head_pivot, ray.direction);
                self.head.ray_hit(&local).map(|h| RayHit {
                    point: h.point + self.head_pivot,
                    ..h
                })
            }
            Part::Body => self.body.ray_hit(ray),
            Part::Paw(i) => self.paws[usize::from(i.min(3))].ray_hit(ray),
            Part::Tail => self.tail.ray_hit(ray),
        }
    }

    /// The nearest hit of a body-space ray with any part: the proxies pointer and finger
    /// rays test against. Returns the part and the hit.
    pub fn raycast(&self, ray: &Ray) -> Option<(Part, RayHit)> {
        Part::ALL
            .iter()
            .filter_map(|&p| self.ray_hit(p, ray).map(|h| (p, h)))
            .min_by(|a, b| a.1.distance.total_cmp(&b.1.distance))
    }
}

/// An orthonormal pair spanning the plane perpendicular to the unit vector `n`.
pub fn tangent_basis(n: Vec3) -> (Vec3, Vec3) {
    let a = n.any_orthonormal_vector();
    (a, n.cross(a))
}
