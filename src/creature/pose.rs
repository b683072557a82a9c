//! The creature's animated pivots: a gentle head idle motion and breathing, from a seeded
//! clock so the same seed moves the same way, and the tail bones' skinning transforms.

use super::{Creature, TAIL_BONES};
use glam::{Affine3A, Quat, Vec3};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Where the head, body and tail bones are at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CreaturePose {
    /// Head-local → world.
    pub head: Affine3A,
    /// Body-local → world.
    pub body: Affine3A,
    /// The skinning transform of each tail bone, root first: it maps a body-space REST
    /// point to world (the bone's current world transform × the inverse of its rest
    /// transform, in body-space-rest terms). With no swing every entry equals `body`.
    pub tail: [Affine3A; TAIL_BONES],
}

impl CreaturePose {
    /// This pose with the head turned by `turn` (a rotation in body-local axes) about its
    /// pivot, the head-local origin: how the creature leans into a hand.
    pub fn with_head_turn(&self, turn: Quat) -> Self {
        let body_rotation = Quat::from_mat3a(&self.body.matrix3).normalize();
        let world_turn = body_rotation * turn * body_rotation.inverse();
        let pivot = Vec3::from(self.head.translation);
        let about_pivot = Affine3A::from_translation(pivot)
            * Affine3A::from_quat(world_turn)
            * Affine3A::from_translation(-pivot);
        CreaturePose {
            head: about_pivot * self.head,
            ..*self
        }
    }

    /// The rest pose: body-local equals world, the head sits on its pivot, the tail hangs
    /// unswung.
    pub fn rest(creature: &Creature) -> Self {
        CreaturePose {
            head: creature.head_rest(),
            body: Affine3A::IDENTITY,
            tail: [Affine3A::IDENTITY; TAIL_BONES],
        }
    }
}

/// `rate · time` wrapped into [0, 2π) in f64, so that phases keep their resolution however
/// long the run (an f32 time at ten hours resolves only 4 ms).
pub fn wrapped_phase(rate: f64, time: f64) -> f64 {
    (rate * time).rem_euclid(std::f64::consts::TAU)
}

/// The idle animation: slow head sway and breathing with seeded phases.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IdleMotion {
    /// Phases (radians) of head yaw, pitch, roll and breathing.
    pub phases: [f32; 4],
    /// Overall strength, 1 = the default gentle motion, 0 = still.
    pub amount: f32,
}

impl IdleMotion {
    /// The idle motion whose phases come from `seed`.
    pub fn from_seed(seed: u64) -> Self {
        // A stream of its own so that the groom and the motion don't shift each other.
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x1d1e_0000_0000_0001);
        let mut phase = || rng.random::<f32>() * std::f32::consts::TAU;
        IdleMotion {
            phases: [phase(), phase(), phase(), phase()],
            amount: 1.0,
        }
    }

    /// No motion at all.
    pub fn still() -> Self {
        IdleMotion {
            phases: [0.0; 4],
            amount: 0.0,
        }
    }

    /// The pose at `time` seconds (f64, and any f32 converts). Angles stay within a few
    /// degrees: the motion is a living creature at rest, not a performance. Each phase is
    /// wrapped in f64 before the f32 sine, so a ten-hour run moves as smoothly as a new one.
    pub fn pose(&self, creature: &Creature, time: impl Into<f64>) -> CreaturePose {
        let time: f64 = time.into();
        let [p_yaw, p_pitch, p_roll, p_breath] = self.phases;
        let a = self.amount;
        let wave = |rate: f64, phase: f32| (wrapped_phase(rate, time) as f32 + phase).sin();
        let yaw = a * 0.10 * wave(0.45, p_yaw);
        let pitch = a * 0.05 * wave(0.31, p_pitch);
        let roll = a * 0.035 * wave(0.23, p_roll);
        // Breathing: about 20 breaths a minute, the chest rising a few millimetres.
        let breath = wave(std::f64::consts::TAU / 3.0, p_breath);
        let body = Affine3A::from_rotation_translation(
            Quat::from_rotation_x(a * 0.006 * breath),
            Vec3::new(0.0, a * 0.004 * breath, 0.0),
        );
        let head_local = Affine3A::from_rotation_translation(
            Quat::from_euler(glam::EulerRot::YXZ, yaw, pitch, roll),
            creature.head_pivot,
        );
        CreaturePose {
            head: body * head_local,
            body,
            tail: [body; TAIL_BONES],
        }
    }
}

/// A synthetic tail whip, for tests and benches: tail bone `b` (jointed at the tail's
/// centreline at `b / TAIL_BONES`) bends about the vertical by
/// `amplitude · sin(2π·frequency·time − 0.9·b)` on top of its parent, so the tip lashes
/// through large, fast angles. Returns each bone's skinning transform from body-space rest
/// to body space; premultiply by the body's transform for world.
pub fn tail_whip(
    creature: &Creature,
    time: f64,
    amplitude: f32,
    frequency: f64,
) -> [Affine3A; TAIL_BONES] {
    let joint = |b: usize| creature.tail.centerline(b as f32 / TAIL_BONES as f32);
    let mut rotation = Quat::IDENTITY;
    let mut position = joint(0);
    std::array::from_fn(|b| {
        if b > 0 {
            position += rotation * (joint(b) - joint(b - 1));
        }
        let phase = wrapped_phase(std::f64::consts::TAU * frequency, time) - 0.9 * b as f64;
        rotation = (rotation * Quat::from_rotation_y(amplitude * phase.sin() as f32)).normalize();
        Affine3A::from_rotation_translation(rotation, position)
            * Affine3A::from_translation(-joint(b))
    })
}
