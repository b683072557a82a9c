//! The creature's animated pivots: a gentle head idle motion and breathing, from a seeded
//! clock so the same seed moves the same way.

use super::Creature;
use glam::{Affine3A, Quat, Vec3};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Where the head and body are at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CreaturePose {
    /// Head-local → world.
    pub head: Affine3A,
    /// Body-local → world.
    pub body: Affine3A,
}

impl CreaturePose {
    /// The rest pose: body-local equals world, the head sits on its pivot.
    pub fn rest(creature: &Creature) -> Self {
        CreaturePose {
            head: creature.head_rest(),
            body: Affine3A::IDENTITY,
        }
    }
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

    /// The pose at `time` seconds. Angles stay within a few degrees: the motion is a
    /// living creature at rest, not a performance.
    pub fn pose(&self, creature: &Creature, time: f32) -> CreaturePose {
        let [p_yaw, p_pitch, p_roll, p_breath] = self.phases;
        let a = self.amount;
        let yaw = a * 0.10 * (0.45 * time + p_yaw).sin();
        let pitch = a * 0.05 * (0.31 * time + p_pitch).sin();
        let roll = a * 0.035 * (0.23 * time + p_roll).sin();
        // Breathing: about 20 breaths a minute, the chest rising a few millimetres.
        let breath = (std::f32::consts::TAU / 3.0 * time + p_breath).sin();
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
        }
    }
}
