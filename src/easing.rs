//! Frame-rate independent easing: a first-order approach toward a target, exact for any
//! step length, so thirty steps of 1/30 s land where sixty of 1/60 s do. The hand's motion
//! and the creature's response both ease with it.

use glam::Vec3;

/// The share of the remaining gap closed in `dt` seconds with time constant `tau`:
/// `1 − e^(−dt/τ)`. A step that is not a positive finite number closes nothing; a time
/// constant that is not positive closes everything.
pub(crate) fn approach_fraction(dt: f32, tau: f32) -> f32 {
    if !(dt.is_finite() && dt > 0.0) {
        return 0.0;
    }
    if tau.is_nan() || tau <= 0.0 {
        return 1.0;
    }
    1.0 - (-dt / tau).exp()
}

/// `current` moved toward `target` for `dt` seconds with time constant `tau`.
pub(crate) fn ease(current: f32, target: f32, dt: f32, tau: f32) -> f32 {
    current + (target - current) * approach_fraction(dt, tau)
}

/// [`ease`] for vectors, component by component.
pub(crate) fn ease_vec3(current: Vec3, target: Vec3, dt: f32, tau: f32) -> Vec3 {
    current + (target - current) * approach_fraction(dt, tau)
}
