//! Hand contact as the solver sees it: world-space capsules with their velocities, the
//! gesture's friction and comb strength, and one bounding sphere for the broad phase.

use super::SimError;
use glam::Vec3;

/// How the hand touches the fur; each mode passes on a different share of its motion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ContactMode {
    /// Hovering: the fur parts around the hand but is barely dragged.
    #[default]
    Hover,
    /// Petting: the fur is dragged and combed along.
    Pet,
    /// Scratching: more drag and stronger combing.
    Scratch,
}

impl ContactMode {
    /// Share of capsule motion added to a point pushed out of a capsule.
    pub fn friction(self) -> f32 {
        match self {
            ContactMode::Hover => 0.15,
            ContactMode::Pet => 0.55,
            ContactMode::Scratch => 0.8,
        }
    }

    /// Multiplies the comb gain.
    pub fn comb_scale(self) -> f32 {
        match self {
            ContactMode::Hover => 0.3,
            ContactMode::Pet => 1.0,
            ContactMode::Scratch => 1.5,
        }
    }
}

/// How far from the origin any part of a capsule may lie, metres, on each axis (its ends
/// pushed out by its radius). The contact tests square distances and radii in `f32`, which
/// stay finite and exact enough far inside this; a capsule of a million metres is no hand,
/// and one of 1e38 (which squared is infinite) took in every strand.
pub const MAX_CAPSULE_REACH: f32 = 1.0e6;

/// The share of [`MAX_CAPSULE_REACH`] the checks allow past it for rounding: a capsule is
/// checked as centre and half-axis, made from ends that may be interpolated between keys,
/// each step rounding by up to a few parts in 10⁷, so a capsule script whose ends lie
/// exactly at the limit (checked as read, as ends) must not be refused mid-run.
const REACH_ROUNDING: f32 = 1e-5;

/// Whether a capsule reaching `reach` metres from the origin (on its farthest axis) is
/// within [`MAX_CAPSULE_REACH`], rounding allowed: the one test the solver and capsule
/// scripts apply.
pub(crate) fn within_reach(reach: f32) -> bool {
    reach <= MAX_CAPSULE_REACH * (1.0 + REACH_ROUNDING)
}

/// A capsule in world space: the segment `center ± axis`, thickened by `radius`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule {
    /// Midpoint of the capsule's segment.
    pub center: Vec3,
    /// Half the segment: the ends are `center − axis` and `center + axis`.
    pub axis: Vec3,
    /// Radius, metres.
    pub radius: f32,
    /// Velocity, metres per second.
    pub velocity: Vec3,
}

impl Capsule {
    /// The capsule between two points.
    pub fn between(a: Vec3, b: Vec3, radius: f32, velocity: Vec3) -> Self {
        Capsule {
            center: (a + b) * 0.5,
            axis: (b - a) * 0.5,
            radius,
            velocity,
        }
    }

    /// The segment's two ends.
    pub fn ends(&self) -> (Vec3, Vec3) {
        (self.center - self.axis, self.center + self.axis)
    }

    /// Signed distance from `p` to the capsule's surface (negative inside).
    pub fn distance(&self, p: Vec3) -> f32 {
        let (a, b) = self.ends();
        let ab = b - a;
        let h = ((p - a).dot(ab) / ab.dot(ab).max(1e-12)).clamp(0.0, 1.0);
        (p - (a + ab * h)).length() - self.radius
    }
}

/// The hand as the solver sees it for one step.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct HandContact {
    /// The capsules (at most [`super::MAX_CAPSULES`]).
    pub capsules: Vec<Capsule>,
    /// The gesture, which sets friction and comb strength.
    pub mode: ContactMode,
}

impl HandContact {
    /// The sphere that holds every capsule: the broad phase of the contact test.
    /// `None` without capsules.
    pub fn bounding_sphere(&self) -> Option<(Vec3, f32)> {
        if self.capsules.is_empty() {
            return None;
        }
        let (lo, hi) = self.capsules.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), c| {
                let (a, b) = c.ends();
                (lo.min(a.min(b)), hi.max(a.max(b)))
            },
        );
        let center = (lo + hi) * 0.5;
        let radius = self
            .capsules
            .iter()
            .map(|c| {
                let (a, b) = c.ends();
                (a - center).length().max((b - center).length()) + c.radius
            })
            .fold(0.0f32, f32::max);
        // A little slack so that rounding never drops a point on the boundary.
        Some((center, radius * 1.001 + 1e-4))
    }

    /// Checks the capsule count, that every number is finite, every radius positive and
    /// every capsule within [`MAX_CAPSULE_REACH`] of the origin (and its rounding).
    pub fn validate(&self) -> Result<(), SimError> {
        if self.capsules.len() > super::MAX_CAPSULES {
            return Err(SimError::TooManyCapsules {
                count: self.capsules.len(),
                max: super::MAX_CAPSULES,
            });
        }
        for (i, c) in self.capsules.iter().enumerate() {
            let finite = c.center.is_finite() && c.axis.is_finite() && c.velocity.is_finite();
            if !(finite && c.radius.is_finite() && c.radius > 0.0) {
                return Err(SimError::BadCapsule { index: i });
            }
            let reach = c.center.abs() + c.axis.abs() + Vec3::splat(c.radius);
            if !within_reach(reach.max_element()) {
                return Err(SimError::CapsuleOutOfReach {
                    index: i,
                    reach: reach.max_element(),
                });
            }
        }
        Ok(())
    }
}
