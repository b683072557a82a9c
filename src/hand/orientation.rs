//! Which way the hand faces: fingers pointing away from the viewer, turned partly toward
//! the stroke while the hand moves, with the surface normal and the finger direction both
//! eased so the hand turns smoothly across creases and part boundaries.

use super::easing::approach_fraction;
use glam::Vec3;

/// How long the hand takes to settle onto a new normal, seconds.
const UP_TAU: f32 = 0.06;
/// How long the fingers take to turn toward a new direction, seconds.
const FORWARD_TAU: f32 = 0.2;
/// Hand speed (m/s) at which the stroke has its full say in the finger direction.
const FULL_STROKE_SPEED: f32 = 0.5;
/// The stroke's say at full speed, against the view direction's 1: a stroke toward the
/// viewer never turns the fingers back toward them.
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
        let tangent = |v: Vec3| (v - normal * v.dot(normal)).normalize_or_zero();
        let mut wanted = tangent(view_direction);
        if let Some(last) = self.last_point
            && dt > 0.0
            && point.is_finite()
        {
            let stroke = tangent(point - last);
            let speed = (point - last).length() / dt;
            let weight = STROKE_WEIGHT * (speed / FULL_STROKE_SPEED).min(1.0);
            if weight.is_finite() {
                wanted = (wanted + stroke * weight).normalize_or(wanted);
            }
        }
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
            Some(f) if wanted != Vec3::ZERO => f
                .lerp(wanted, approach_fraction(dt, FORWARD_TAU))
                .normalize_or(wanted),
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
