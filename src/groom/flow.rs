//! Groom flow: which way the fur lies at each root, how steeply it leaves the skin, and the
//! regional length factor. Head flow blends cheek, muzzle, belly, ear and fluff regions;
//! the body's turns downward across the chest; paws flow forward; the tail runs along its
//! Frenet frame.

use crate::creature::regions::{HeadRegions, chest_mask, smoothstep};
use crate::creature::{Creature, FaceLayout, Part, tangent_basis};
use glam::{Quat, Vec3};

/// The groomed direction at a root, before projection and jitter, and its lift angles
/// and regional length factor.
pub struct FlowSample {
    /// Preferred direction (not yet in the tangent plane).
    pub direction: Vec3,
    /// Angle from the normal at the root, radians.
    pub lift_root: f32,
    /// Angle from the normal toward the tip, radians.
    pub lift_tip: f32,
    /// Multiplies the part's base length.
    pub length_factor: f32,
}

/// The groom flow of `part` at a root with part-space `position` and `normal`; `t` is the
/// tail parameter (ignored elsewhere).
pub fn flow_at(
    creature: &Creature,
    part: Part,
    position: Vec3,
    normal: Vec3,
    t: f32,
) -> FlowSample {
    match part {
        Part::Head => {
            let head = &creature.head;
            let u = (position - head.center).normalize_or(Vec3::Y);
            let r = HeadRegions::at(head, u);
            let side = if u.x >= 0.0 { 1.0 } else { -1.0 };
            let base = Vec3::new(0.0, -0.3, -1.0);
            let muzzle_out = u - head.muzzle.direction + Vec3::new(0.0, 0.0, -0.2);
            let cheek_out = Vec3::new(side, -0.7, -0.4);
            let ear_up = Vec3::Y;
            let belly_down = Vec3::new(0.0, -1.0, 0.2);
            let fluff_back = Vec3::new(0.0, -0.8, -1.0);
            let weights = [r.muzzle, r.cheek, r.ear, r.belly, r.fluff];
            let total: f32 = weights.iter().sum();
            let direction = base * (1.0 - total).max(0.0)
                + muzzle_out.normalize_or_zero() * r.muzzle
                + cheek_out.normalize() * r.cheek
                + ear_up * r.ear
                + belly_down.normalize() * r.belly
                + fluff_back.normalize() * r.fluff;
            FlowSample {
                direction,
                lift_root: 0.55 - 0.2 * r.ear + 0.25 * r.muzzle,
                lift_tip: 1.2 - 0.4 * r.ear + 0.15 * r.muzzle,
                // Short fur around the eyes, so the face shows through the coat.
                length_factor: 1.0
                    - 0.45 * r.ear
                    - 0.5 * r.muzzle
                    - 0.8 * FaceLayout::default().eye_weight(u)
                    + 0.3 * r.cheek
                    + 0.2 * r.fluff
                    + 0.1 * r.belly,
            }
        }
        Part::Body => {
            let chest = chest_mask(normal);
            let belly = smoothstep(-0.5, -0.85, normal.y);
            let side = if position.x >= 0.0 { 1.0 } else { -1.0 };
            let back = Vec3::new(0.0, -0.3, -1.0).normalize();
            let direction = back * (1.0 - chest - belly).max(0.0)
                + Vec3::new(0.0, -1.0, -0.1) * chest
                + Vec3::new(side, -0.3, 0.0).normalize() * belly;
            FlowSample {
                direction,
                lift_root: 0.6,
                lift_tip: 1.25,
                length_factor: 1.0 + 0.1 * chest + 0.1 * belly,
            }
        }
        Part::Paw(_) => FlowSample {
            direction: Vec3::new(0.0, -0.2, 1.0),
            lift_root: 0.9,
            lift_tip: 1.35,
            length_factor: 1.0,
        },
        Part::Tail => FlowSample {
            direction: creature.tail.frame(t).tangent,
            lift_root: 0.5,
            lift_tip: 1.1,
            length_factor: 1.0 + 0.15 * smoothstep(0.6, 1.0, t),
        },
    }
}

/// `direction` projected onto the plane perpendicular to `normal`, normalised, then turned
/// about the normal by `angle`. A direction along the normal falls back to a fixed tangent.
pub fn project_and_turn(direction: Vec3, normal: Vec3, angle: f32) -> Vec3 {
    let tangential = direction - normal * direction.dot(normal);
    let flow = if tangential.length_squared() > 1e-8 {
        tangential.normalize()
    } else {
        tangent_basis(normal).0
    };
    Quat::from_axis_angle(normal, angle) * flow
}
