//! How the creature answers the hand: pleasure that builds while it is petted (faster while
//! scratched) and fades when it is left alone, shown as narrowing eyes, a head that leans
//! toward the hand and a tail that swishes.
//!
//! Every quantity eases with exact exponentials, so the response is the same at any frame
//! rate. Outputs and how to wire them:
//!
//! - [`pleasure`](CreatureResponse::pleasure): 0 (indifferent) to 1 (blissful), for the
//!   panel and anything else that wants it.
//! - [`eye_narrowing`](CreatureResponse::eye_narrowing): 0 eyes open … 1 nearly closed; a
//!   smooth step of pleasure. Scale the eyelid opening (or the eye's vertical size) by
//!   `1 − 0.85·narrowing`.
//! - [`head_lean`](CreatureResponse::head_lean): a small rotation of the head about its neck
//!   pivot, in body space, that tips the head toward the hand (at most
//!   [`ResponseTuning::max_lean`]); [`apply_to`](CreatureResponse::apply_to) applies it to a
//!   pose, and the leaned pose is the one to simulate, draw and raycast.
//! - [`tail_swish_angle`](CreatureResponse::tail_swish_angle): the tail's current
//!   side-to-side angle, radians, to add as a turn about the body's up axis at the tail
//!   root (for example on the tail chain's anchor); its envelope is
//!   [`tail_swish_amplitude`](CreatureResponse::tail_swish_amplitude).

use super::{Creature, CreaturePose};
use crate::easing::{ease, ease_vec3};
use glam::{Quat, Vec3};

/// How the creature is being touched: what its pleasure answers to. The hand's gesture
/// states convert into it (`GestureState` idle and hover are [`Touch::None`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    /// Nothing is petting it (no hand, or a hand hovering).
    None,
    /// Stroked.
    Pet,
    /// Scratched: a pet that stays nearly still.
    Scratch,
}

impl Touch {
    /// Whether the creature is being petted or scratched.
    pub fn is_petting(self) -> bool {
        matches!(self, Touch::Pet | Touch::Scratch)
    }
}

/// The response's time constants and limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResponseTuning {
    /// Time constant of pleasure rising toward 1 while petted, seconds.
    pub pet_rise_seconds: f32,
    /// The same while scratched (shorter: scratching pleases faster).
    pub scratch_rise_seconds: f32,
    /// Time constant of pleasure fading toward 0 when not petted, seconds.
    pub decay_seconds: f32,
    /// The largest head lean, radians.
    pub max_lean: f32,
    /// Time constant of the head lean, seconds.
    pub lean_seconds: f32,
    /// Tail swish amplitude at full pleasure, radians.
    pub max_swish: f32,
    /// Swish amplitude when indifferent, radians (a living tail never stops quite still).
    pub idle_swish: f32,
    /// Time constant of the swish amplitude, seconds.
    pub swish_seconds: f32,
    /// Swish rate when indifferent and at full pleasure, hertz.
    pub swish_hz: [f32; 2],
}

impl Default for ResponseTuning {
    fn default() -> Self {
        ResponseTuning {
            pet_rise_seconds: 4.0,
            scratch_rise_seconds: 1.6,
            decay_seconds: 6.0,
            max_lean: 6f32.to_radians(),
            lean_seconds: 0.6,
            max_swish: 0.35,
            idle_swish: 0.04,
            swish_seconds: 0.8,
            swish_hz: [0.3, 0.8],
        }
    }
}

/// The creature's state of mind and its visible signs.
#[derive(Clone, Debug, PartialEq)]
pub struct CreatureResponse {
    /// Time constants and limits; change freely between updates.
    pub tuning: ResponseTuning,
    /// The head's centre, head-local: the lean tips it toward the hand.
    head_center: Vec3,
    pleasure: f32,
    /// Rotation vector (axis × angle), body space.
    lean: Vec3,
    swish_amplitude: f32,
    swish_phase: f32,
}

impl CreatureResponse {
    /// A calm creature (no pleasure, no lean).
    pub fn new(creature: &Creature) -> Self {
        let tuning = ResponseTuning::default();
        CreatureResponse {
            tuning,
            head_center: creature.head.center,
            pleasure: 0.0,
            lean: Vec3::ZERO,
            swish_amplitude: tuning.idle_swish,
            swish_phase: 0.0,
        }
    }

    /// Advances `dt` seconds touched as `state` and with the hand's palm at `hand`
    /// (world space; `None` when there is no hand), the creature at `pose` before any lean.
    /// A `dt` that is not a positive finite number changes nothing.
    pub fn update(
        &mut self,
        dt: f32,
        state: impl Into<Touch>,
        hand: Option<Vec3>,
        pose: &CreaturePose,
    ) {
        if !(dt.is_finite() && dt > 0.0) {
            return;
        }
        let state = state.into();
        let t = self.tuning;
        let before = self.pleasure;
        self.pleasure = match state {
            Touch::Pet => ease(self.pleasure, 1.0, dt, t.pet_rise_seconds),
            Touch::Scratch => ease(self.pleasure, 1.0, dt, t.scratch_rise_seconds),
            Touch::None => ease(self.pleasure, 0.0, dt, t.decay_seconds),
        }
        .clamp(0.0, 1.0);
        // What follows pleasure eases toward its value midway through the step, which keeps
        // the cascade's result within a fraction of a percent across frame rates (exact for
        // pleasure itself).
        let mid = 0.5 * (before + self.pleasure);

        let lean_target = match hand {
            Some(hand) if state.is_petting() && hand.is_finite() => {
                self.lean_toward(hand, pose, mid)
            }
            _ => Vec3::ZERO,
        };
        self.lean = ease_vec3(self.lean, lean_target, dt, t.lean_seconds);

        let swish_target = t.idle_swish + (t.max_swish - t.idle_swish) * smoothstep(0.05, 0.8, mid);
        self.swish_amplitude = ease(self.swish_amplitude, swish_target, dt, t.swish_seconds);
        let hz = t.swish_hz[0] + (t.swish_hz[1] - t.swish_hz[0]) * mid;
        self.swish_phase =
            (self.swish_phase + std::f32::consts::TAU * hz * dt).rem_euclid(std::f32::consts::TAU);
    }

    /// The body-space rotation vector that tips the head centre toward `hand`, as far as
    /// the angle between them allows, at most `max_lean`, more the more pleased.
    fn lean_toward(&self, hand: Vec3, pose: &CreaturePose, pleasure: f32) -> Vec3 {
        let pivot = Vec3::from(pose.head.translation);
        let center = pose.head.transform_point3(self.head_center) - pivot;
        let toward = hand - pivot;
        let axis = center.cross(toward);
        let between = axis.length().atan2(center.dot(toward));
        let Some(axis) = axis.try_normalize() else {
            return Vec3::ZERO;
        };
        let willing = 0.35 + 0.65 * pleasure;
        let angle = between.min(self.tuning.max_lean) * willing;
        let body_axis = pose.body.matrix3.inverse() * glam::Vec3A::from(axis);
        Vec3::from(body_axis).normalize_or_zero() * angle
    }

    /// Pleasure, 0 to 1.
    pub fn pleasure(&self) -> f32 {
        self.pleasure
    }

    /// How far the eyes have closed: 0 open … 1 nearly closed (a smooth step of pleasure
    /// from 0.1 to 0.9).
    pub fn eye_narrowing(&self) -> f32 {
        smoothstep(0.1, 0.9, self.pleasure)
    }

    /// The head lean as a rotation vector (unit axis × angle in radians), body space,
    /// about the neck pivot.
    pub fn head_lean_vector(&self) -> Vec3 {
        self.lean
    }

    /// The head lean as a body-space rotation about the neck pivot.
    pub fn head_lean(&self) -> Quat {
        Quat::from_scaled_axis(self.lean)
    }

    /// The head lean's angle, radians.
    pub fn head_lean_angle(&self) -> f32 {
        self.lean.length()
    }

    /// `pose` with the head turned by the lean about its pivot (the head-local origin).
    pub fn apply_to(&self, pose: &CreaturePose) -> CreaturePose {
        pose.with_head_turn(self.head_lean())
    }

    /// The envelope of the tail's swish, radians.
    pub fn tail_swish_amplitude(&self) -> f32 {
        self.swish_amplitude
    }

    /// The tail's current side-to-side angle, radians (positive toward +x, the creature's
    /// left): amplitude × sin(phase), the phase advancing faster the more pleased.
    pub fn tail_swish_angle(&self) -> f32 {
        self.swish_amplitude * self.swish_phase.sin()
    }
}

/// 0 below `lo`, 1 above `hi`, a smooth cubic between.
fn smoothstep(lo: f32, hi: f32, x: f32) -> f32 {
    let t = ((x - lo) / (hi - lo)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}
