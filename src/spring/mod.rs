//! Spring chains: anchored Verlet chains at 120 Hz, follow-the-leader chains, cloth grids of
//! chains, and the sphere and capsule colliders they meet (seeds 000, 001 and 002).
//!
//! The model here is what [`crate::vrm`] writes to `PELT_spring_chains` exactly and converts
//! to `VRMC_springBone` for other engines.

pub mod chain;
pub mod cloth;
pub mod collider;
pub mod creature_tail;
pub mod follow;
pub mod frame;
pub mod rig;

pub use chain::{ChainSpec, JointSpec, STEP_HZ, SpringChain, SpringSettings};
pub use cloth::{ClothGrid, ClothSettings};
pub use collider::{Collider, ColliderGroup, ColliderShape, WorldCollider};
pub use follow::{FollowChain, FollowVector};
pub use frame::Frame;
pub use rig::SpringRig;

/// What can be wrong with a spring description handed to this module.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpringError {
    /// A chain needs its first joint and at least one more point to swing.
    #[error("chain `{0}` has {1} joints; give it at least 2 (a root and a tip)")]
    TooFewJoints(String, usize),
    /// A parameter is NaN, infinite or out of its range.
    #[error("{what} is {value}, which is not allowed: {hint}")]
    BadParameter {
        /// Which parameter.
        what: String,
        /// Its value.
        value: f32,
        /// What would be allowed.
        hint: &'static str,
    },
    /// A segment of zero length cannot give a direction to bend.
    #[error("chain `{0}`, segment {1} has zero length; joints must be apart")]
    ZeroSegment(String, usize),
    /// A reference to a collider or group that does not exist.
    #[error("{0} refers to index {1}, but there are only {2}")]
    IndexOutOfRange(String, usize, usize),
    /// `close_loop` joins the last warp to the first, which needs three warps or more.
    #[error("close_loop needs at least 3 warps, the grid has {0}")]
    LoopTooSmall(usize),
    /// A cloth grid needs at least two warps side by side.
    #[error("a cloth grid needs at least 2 warps with 2 points each, got {0}")]
    TooFewWarps(usize),
}

/// Checks that a parameter is finite and within `[min, max]`.
pub(crate) fn check_range(
    what: &str,
    value: f32,
    min: f32,
    max: f32,
    hint: &'static str,
) -> Result<(), SpringError> {
    if value.is_finite() && value >= min && value <= max {
        Ok(())
    } else {
        Err(SpringError::BadParameter {
            what: what.to_string(),
            value,
            hint,
        })
    }
}

/// Checks that every component of a vector is finite.
pub(crate) fn check_finite(what: &str, v: glam::Vec3) -> Result<(), SpringError> {
    for c in v.to_array() {
        if !c.is_finite() {
            return Err(SpringError::BadParameter {
                what: what.to_string(),
                value: c,
                hint: "must be a finite number",
            });
        }
    }
    Ok(())
}
