//! Spring chains: VRM's own spring rule ([`VrmSpring`]), and Pelt's models (anchored Verlet
//! chains at 120 Hz, follow-the-leader chains, cloth grids of chains), with the colliders
//! they meet (seeds 000, 001 and 002).
//!
//! Which model to use:
//! - **[`VrmSpring`]** (on a [`VrmSpringRig`]) for anything that goes to a VRM tool: it IS
//!   the `VRMC_springBone` 1.0 rule, stepped at 60 Hz, so a tail tuned here swings the same
//!   in three-vrm (checked within 0.05 mm per joint by `tests/vrm-conformance/`, under
//!   either bone-length rule, [`BoneLength`]). Each joint
//!   bends from its parent's current rotation, so bends add up down a chain and a long chain
//!   rings in a slow whole-chain mode. The creature's tail uses it. Files keep it exactly
//!   (`VRMC_springBone`, per joint).
//! - **[`SpringChain`]** (anchored Verlet) when every point should be pulled toward a place
//!   fixed in the anchor's frame: it holds its shape under gravity whatever its length and
//!   does not depend on the frame rate. VRM cannot express it; files keep it exactly in
//!   `PELT_spring_chains`, with an approximate `VRMC_springBone` beside it (see
//!   [`crate::vrm::convert`] for how far apart they are).
//! - **[`FollowChain`]** for a trail that follows a leader, and **[`ClothGrid`]** for cloth
//!   made of chains side by side (side springs, triangle collision so colliders cannot slip
//!   between chains). Neither has a VRM form.
//!
//! ```
//! use glam::{Affine3A, Quat, Vec3};
//! use pelt::spring::{
//!     ChainEnd, NodeTransform, Skeleton, SkeletonNode, VrmChain, VrmJoint, VrmSpring,
//!     VrmSpringRig,
//! };
//!
//! // A root and a chain of three 10 cm bones pointing along +X.
//! let node = |name: &str, parent: Option<usize>, x: f32| SkeletonNode {
//!     name: name.into(),
//!     parent,
//!     rest: NodeTransform::from_translation(Vec3::new(x, 0.0, 0.0)),
//! };
//! let skeleton = Skeleton::new(vec![
//!     node("root", None, 0.0),
//!     node("a", Some(0), 0.0),
//!     node("b", Some(1), 0.1),
//!     node("c", Some(2), 0.1),
//!     node("end", Some(3), 0.1),
//! ])?;
//! let joint = |n| VrmJoint { gravity_power: 0.5, ..VrmJoint::new(n) };
//! let rig = VrmSpringRig {
//!     skeleton,
//!     chains: vec![VrmChain {
//!         name: "strand".into(),
//!         joints: vec![joint(1), joint(2), joint(3)],
//!         end: ChainEnd::Node(4),
//!         collider_groups: vec![],
//!         center: None,
//!     }],
//!     ..Default::default()
//! };
//! let mut spring = VrmSpring::new(rig, Affine3A::IDENTITY)?;
//! for _ in 0..120 {
//!     spring.step(Affine3A::IDENTITY); // 1/60 s each
//! }
//! let tip = spring.joint_positions()[0][3];
//! assert!(tip.y < -0.05, "gravity bends it down");
//! assert!((tip.length() - 0.3).abs() < 0.05);
//! # Ok::<(), pelt::spring::SpringError>(())
//! ```

pub mod chain;
pub mod cloth;
pub mod collider;
pub mod follow;
pub mod frame;
pub mod motion;
pub mod rig;
pub mod skeleton;
mod verlet;
pub mod vrm_collider;
pub mod vrm_rig;
pub mod vrm_spring;

pub use chain::{ChainSpec, JointSpec, STEP_HZ, SpringChain, SpringSettings};
pub use cloth::{ClothGrid, ClothSettings};
pub use collider::{Collider, ColliderGroup, ColliderShape, WorldCollider};
pub use follow::{FollowChain, FollowVector};
pub use frame::Frame;
pub use motion::{Keyframe, RootMotion};
pub use rig::SpringRig;
pub use skeleton::{NodeTransform, Skeleton, SkeletonNode};
pub use vrm_collider::VrmColliderShape;
pub use vrm_rig::{
    ChainEnd, VIRTUAL_TAIL_LENGTH, VrmChain, VrmCollider, VrmColliderGroup, VrmJoint, VrmSpringRig,
};
pub use vrm_spring::{BoneLength, VRM_STEP, VRM_STEP_HZ, VrmSpring};

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
    /// A skeleton's nodes do not form a forest of uniquely named nodes.
    #[error("bad skeleton: {0}")]
    BadSkeleton(String),
    /// More of something than Pelt accepts.
    #[error("{1} {0} is more than the limit {2}")]
    TooMany(&'static str, usize, usize),
    /// A chain's joints are not each a strict descendant of the one before.
    #[error(
        "chain `{0}`: joint {1} is not below joint {2}; list joints root to tip, each below the last"
    )]
    JointOrder(String, usize, usize),
    /// Two chains claim the same node, which the VRM specification forbids.
    #[error(
        "node `{node}` belongs to both chain `{first}` and chain `{second}`; a node may be in one chain only"
    )]
    SharedJoint {
        /// The node.
        node: String,
        /// The chain that has it first.
        first: String,
        /// The chain that has it again.
        second: String,
    },
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
