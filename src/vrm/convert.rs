//! Conversion between Pelt's anchored chain ([`crate::spring::SpringChain`]) and VRM's rule,
//! for the `VRMC_springBone` copy written beside `PELT_spring_chains` (seed 000). VRM's own
//! springs ([`crate::spring::VrmSpring`]) need no conversion: they are written per joint as
//! they are; use them for anything meant to swing the same in VRM tools.
//!
//! - Drag: ours keeps `1 − damping` of the velocity per SECOND, VRM keeps `1 − dragForce`
//!   per FRAME: `dragForce = 1 − (1 − damping)^(1/60)`, exact at 60 frames a second.
//! - Gravity: VRM adds `gravityPower · dt` metres per frame to the motion, an acceleration
//!   of `gravityPower / dt`: `gravityPower = |gravity| / 60`, exact at 60 frames a second.
//! - Stiffness: VRM pushes the tail `stiffness · dt` metres along the rest axis whatever
//!   the bend, so a level segment settles where `tan θ = gravityPower / stiffness`. Ours
//!   pulls a fraction `k = 1 − e^(−stiffness·h)` (h = 1/120 s) of the way to rest; its level
//!   segment of length `L` settles where `k·L·tan θ = (1 − k)·|g|·h²` (the fixed point of
//!   one step: the gravity drop balances the pull). Equating the two angles gives
//!   `stiffness_vrm = k·L / (60·(1 − k)·h²)`, independent of gravity, per segment length.
//!
//! Where the models still differ (no conversion fixes it, which is why VRM springs exist):
//! - VRM's restoring push is constant, ours grows with the bend, so swings away from the
//!   matched droop come back at different speeds.
//! - VRM bends each joint from its parent's CURRENT direction, so the bends add up down
//!   the chain and a long chain rings in a slow whole-chain mode; ours pulls every point
//!   toward its own rest place in the anchor's frame. Measured (issue 3) on an anchored
//!   chain along the creature's 5-bone tail at `SpringSettings::default()`: standing, the
//!   tip settles 4.3 cm lower in ours and 32 cm lower in three-vrm 3.5.5; after a 3 m/s
//!   sideways run for 0.5 s our tip swings 16 cm (1 cm two seconds later), three-vrm's
//!   59 cm (45 cm two seconds later).
//! - VRM steps once per rendered frame, so its motion depends on the frame rate; ours is
//!   fixed at 120 Hz. The formulas are exact at 60 frames a second only.

use glam::Vec3;

use crate::spring::{STEP_HZ, SpringSettings};

/// The frame rate the conversion is exact at.
pub const VRM_FPS: f32 = 60.0;

/// One VRM joint's parameters (`VRMC_springBone` `joints[]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VrmJointParams {
    /// `stiffness`: metres per second pushed back along the rest axis.
    pub stiffness: f32,
    /// `gravityPower`: metres per second along `gravity_dir`.
    pub gravity_power: f32,
    /// `gravityDir`: unit vector.
    pub gravity_dir: Vec3,
    /// `dragForce`: fraction of the motion lost per frame.
    pub drag_force: f32,
    /// `hitRadius`: radius of the joint's sphere, metres.
    pub hit_radius: f32,
}

/// `dragForce = 1 − (1 − damping)^(1/60)`.
pub fn drag_force_from_damping(damping: f32) -> f32 {
    1.0 - (1.0 - damping.clamp(0.0, 1.0)).powf(1.0 / VRM_FPS)
}

/// The inverse: `damping = 1 − (1 − dragForce)^60`.
pub fn damping_from_drag_force(drag: f32) -> f32 {
    1.0 - (1.0 - drag.clamp(0.0, 1.0)).powf(VRM_FPS)
}

/// VRM's settled angle below level of a level segment: `atan(gravityPower / stiffness)`.
pub fn vrm_level_droop(stiffness: f32, gravity_power: f32) -> f32 {
    gravity_power.atan2(stiffness)
}

/// Our settled angle below level of a level segment of length `length` (the fixed point of
/// one 120 Hz step, see the module docs).
pub fn our_level_droop(settings: &SpringSettings, length: f32) -> f32 {
    let h = 1.0 / STEP_HZ;
    let k = settings.pull_fraction(h);
    let g = settings.gravity.length();
    ((1.0 - k) * g * h * h).atan2(k * length)
}

/// VRM stiffness whose level droop equals ours for a segment of `length`.
pub fn vrm_stiffness(settings: &SpringSettings, length: f32) -> f32 {
    let h = 1.0 / STEP_HZ;
    let k = settings.pull_fraction(h);
    if k >= 1.0 {
        return 1.0e6;
    }
    (k * length / (VRM_FPS * (1.0 - k) * h * h)).min(1.0e6)
}

/// Our stiffness whose level droop equals VRM's `stiffness` for a segment of `length`.
pub fn our_stiffness(vrm_stiffness: f32, length: f32) -> f32 {
    let h = 1.0 / STEP_HZ;
    if length <= 0.0 || !vrm_stiffness.is_finite() || vrm_stiffness <= 0.0 {
        return 0.0;
    }
    let q = vrm_stiffness * VRM_FPS * h * h / length;
    // k/(1−k) = q, so 1−k = 1/(1+q) and stiffness = ln(1+q)/h.
    (q.ln_1p() / h).min(1.0e5)
}

/// Converts our settings to one VRM joint's parameters for a segment of `length` metres.
pub fn to_vrm(settings: &SpringSettings, length: f32) -> VrmJointParams {
    let g = settings.gravity.length();
    VrmJointParams {
        stiffness: vrm_stiffness(settings, length),
        gravity_power: g / VRM_FPS,
        gravity_dir: if g > 0.0 {
            settings.gravity / g
        } else {
            Vec3::NEG_Y
        },
        drag_force: drag_force_from_damping(settings.damping),
        hit_radius: settings.radius,
    }
}

/// Converts a VRM joint's parameters to our settings for a segment of `length` metres.
pub fn from_vrm(params: &VrmJointParams, length: f32) -> SpringSettings {
    let dir = params.gravity_dir.normalize_or(Vec3::NEG_Y);
    SpringSettings {
        stiffness: our_stiffness(params.stiffness, length),
        damping: damping_from_drag_force(params.drag_force),
        gravity: dir * params.gravity_power.max(0.0) * VRM_FPS,
        radius: params.hit_radius.max(0.0),
    }
}
