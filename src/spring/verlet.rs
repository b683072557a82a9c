//! The anchored Verlet step that [`SpringChain`](super::SpringChain) and each warp of a
//! [`ClothGrid`](super::ClothGrid) take: the first point rides on the anchor, every other
//! point keeps its velocity (from the last step's motion) at the settings' damping, falls
//! under gravity and is pulled part of the way toward its rest place in the anchor's frame.

use glam::Vec3;

use super::{Frame, SpringSettings};

/// The per-step factors of one fixed step of `h` seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct VerletStep {
    /// The factor velocity keeps over the step.
    keep: f32,
    /// The fraction of the way to its rest place a point moves.
    pull: f32,
    /// Gravity's displacement over the step (`g h²`).
    gravity: Vec3,
}

impl VerletStep {
    /// The factors of a step of `h` seconds under `settings`.
    pub(crate) fn new(settings: &SpringSettings, h: f32) -> Self {
        Self {
            keep: settings.velocity_keep(h),
            pull: settings.pull_fraction(h),
            gravity: settings.gravity * h * h,
        }
    }

    /// Moves the points `pos` (last step's in `prev`) one step with the anchor at `anchor`;
    /// `rest` holds each point's rest place in the anchor's frame. The three slices have
    /// the same length; point 0 is pinned to the anchor.
    pub(crate) fn advance(
        &self,
        anchor: &Frame,
        rest: &[Vec3],
        pos: &mut [Vec3],
        prev: &mut [Vec3],
    ) {
        let Some(first) = rest.first() else {
            return;
        };
        pos[0] = anchor.point(*first);
        prev[0] = pos[0];
        for i in 1..pos.len() {
            let velocity = (pos[i] - prev[i]) * self.keep;
            prev[i] = pos[i];
            let mut p = pos[i] + velocity + self.gravity;
            p += (anchor.point(rest[i]) - p) * self.pull;
            pos[i] = p;
        }
    }
}
