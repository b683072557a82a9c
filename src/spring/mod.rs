//! Spring chains: anchored Verlet chains at 120 Hz, follow-the-leader chains, cloth grids of
//! chains, and the sphere and capsule colliders they meet (seeds 000, 001 and 002).
//!
//! The model here is what [`crate::vrm`] writes to `PELT_spring_chains` exactly and converts
//! to `VRMC_springBone` for other engines.
//!
//! ```
//! use glam::Vec3;
//! use pelt::spring::{ChainSpec, Frame, JointSpec, SpringChain, SpringSettings};
//!
//! // A level chain of three 10 cm segments hanging from the origin.
//! let joints = (0..4)
//!     .map(|i| JointSpec {
//!         name: format!("j{i}"),
//!         offset: if i == 0 { Vec3::ZERO } else { Vec3::X * 0.1 },
//!     })
//!     .collect();
//! let spec = ChainSpec {
//!     name: "strand".into(),
//!     anchor: "root".into(),
//!     joints,
//!     settings: SpringSettings::default(),
//!     collider_groups: vec![],
//! };
//! let mut chain = SpringChain::new(spec, Frame::IDENTITY)?;
//! for _ in 0..120 {
//!     chain.advance(1.0 / 60.0, Frame::IDENTITY, &[]);
//! }
//! let tip = chain.positions()[3];
//! assert!(tip.y < 0.0, "gravity bends it down");
//! assert!((tip.length() - 0.3).abs() < 0.05);
//! # Ok::<(), pelt::spring::SpringError>(())
//! ```

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
