//! Which way the hand faces: fingers pointing away from the viewer (the arm comes from the
//! camera), turned toward the stroke while the hand moves but never round to point back
//! at the viewer, with the surface normal and the finger direction both eased so the hand
//! turns smoothly across creases and part boundaries.

use crate::easing::approach_fraction;
use glam::{Quat, Vec3};

/// How long the hand takes to settle onto a new normal, seconds.
const UP_TAU: f32 = 0.06;
/// How long the fingers take to turn toward a new direction, seconds.
const FORWARD_TAU: f32 = 0.2;
/// Hand speed (m/s) at which the stroke has its full say in the finger direction.
const FULL_STROKE_SPEED: f32 = 0.5;
/// The stroke's say at full speed, against the view direction's (the sine of the angle
/// between the view and the surface normal, at most 1).
const STROKE_WEIGHT: f32 = 0.7;

/// The eased up and forward directions of the hand.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HandOrientation {
    up: Option<Vec3>,
    forward: Option<Vec3>,
    last_point: Option<Vec3>,
}

impl HandOrientation {
    /// No orientation yet: the next update takes its targets at once.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the orientation (when the hand disappears).
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// Moves toward the orientation for a hand at `point` on a surface with `normal`,
    /// seen along `view_direction` (the pointer ray's direction), over `dt` seconds.
    /// Returns `(up, forward)`; `forward` may be degenerate (zero) for degenerate input,
    /// which [`super::HandFrame::new`] resolves.
    pub fn update(
        &mut self,
        point: Vec3,
        normal: Vec3,
        view_direction: Vec3,
        dt: f32,
    ) -> (Vec3, Vec3) {
        let normal = normal.normalize_or(self.up.unwrap_or(Vec3::Y));
        let flat = |v: Vec3| v - normal * v.dot(normal);
        // Away from the viewer, as strongly as the view is oblique to the surface: looking
        // straight down at the fur says nothing about which way the arm comes from.
        let view = flat(view_direction);
        let view = if view.is_finite() { view } else { Vec3::ZERO };
        let away = view.normalize_or_zero();
        let mut wanted = view;
        if let Some(last) = self.last_point
            && dt > 0.0
            && point.is_finite()
        {
            let mut stroke = flat(point - last).normalize_or_zero();
            // The part of a stroke back toward the viewer turns nothing: pulling the hand
            // toward oneself does not twist the fingers round to point back.
            let back = stroke.dot(away);
            if back < 0.0 {
                stroke -= away * back;
            }
            let speed = (point - last).length() / dt;
            let weight = STROKE_WEIGHT * (speed / FULL_STROKE_SPEED).min(1.0);
            if weight.is_finite() && stroke.is_finite() {
                wanted += stroke * weight;
            }
        }
        let wanted = wanted.normalize_or_zero();
        if point.is_finite() {
            self.last_point = Some(point);
        }
        let up = match self.up {
            Some(up) => up
                .lerp(normal, approach_fraction(dt, UP_TAU))
                .normalize_or(normal),
            None => normal,
        };
        let forward = match self.forward {
            Some(f) if wanted != Vec3::ZERO => {
                turn_toward(f, wanted, up, approach_fraction(dt, FORWARD_TAU))
            }
            Some(f) => f,
            None => wanted,
        };
        self.up = Some(up);
        if forward != Vec3::ZERO && forward.is_finite() {
            self.forward = Some(forward);
        }
        (up, forward)
    }
}

/// `from` turned about `axis` by `share` of its signed angle to `to` (both projected onto
/// the plane normal to `axis`). Unlike a blend of the two vectors this also turns a
/// direction that points the opposite way.
fn turn_toward(from: Vec3, to: Vec3, axis: Vec3, share: f32) -> Vec3 {
    let flat = |v: Vec3| (v - axis * v.dot(axis)).normalize_or_zero();
    let (a, b) = (flat(from), flat(to));
    if a == Vec3::ZERO {
        return b;
    }
    if b == Vec3::ZERO {
        return a;
    }
    let angle = a.cross(b).dot(axis).atan2(a.dot(b));
    Quat::from_axis_angle(axis, angle * share) * a
}
