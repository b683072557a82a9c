//! What poses a body read from a file: its node tree, its skin's joints, its animations and
//! its fit, turned into skinning matrices for any set of node transforms.

use glam::Mat4;

use super::SkinPose;
use super::animation::Clip;
use super::nodes::{Local, NodeTree};
use super::skin::Joint;

/// What poses a body read from a file.
#[derive(Debug)]
pub(super) struct Rig {
    /// The file's node tree.
    pub(super) tree: NodeTree,
    /// The skin's joints: each a node and its inverse bind matrix.
    pub(super) joints: Vec<Joint>,
    /// The animations.
    pub(super) clips: Vec<Clip>,
    /// File space → fitted frame.
    pub(super) fit: Mat4,
    /// Fitted frame → file space.
    pub(super) fit_inverse: Mat4,
}

impl Rig {
    /// Every node's local transform `seconds` into animation `clip` (looped), or at rest
    /// for `None`.
    pub(super) fn locals_at(&self, clip: Option<usize>, seconds: f64) -> Vec<Local> {
        let mut locals = self.tree.rest.clone();
        if let Some(clip) = clip.and_then(|c| self.clips.get(c)) {
            clip.apply(seconds, &mut locals);
        }
        locals
    }

    /// [`Self::pose`], a joint whose matrix overflows (huge keyed scales) holding its
    /// matrix in `rest`, so a pose is always finite.
    pub(super) fn finite_pose(&self, locals: &[Local], rest: &SkinPose) -> SkinPose {
        let mut pose = self.pose(locals);
        for (m, rest) in pose.joints.iter_mut().zip(&rest.joints) {
            if !m.is_finite() {
                *m = *rest;
            }
        }
        pose
    }

    /// The skinning matrices for the nodes' local transforms, in the fitted frame.
    pub(super) fn pose(&self, locals: &[Local]) -> SkinPose {
        let world = self.tree.world(locals);
        let joints = self
            .joints
            .iter()
            .map(|j| {
                let w = world.get(j.node).copied().unwrap_or(Mat4::IDENTITY);
                self.fit * w * j.inverse_bind * self.fit_inverse
            })
            .collect();
        SkinPose { joints }
    }
}
