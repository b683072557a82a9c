//! One articulated digit as a chain of three bones flexing about one axis, and the range
//! its curl moves in (the rig curls it toward the fur under each joint).

use glam::{Quat, Vec3};

/// The least curl (a slight backward bend) and the most (a loose fist), radians.
pub(crate) const CURL_RANGE: (f32, f32) = (-0.12, 1.45);

/// A digit in hand-local coordinates. Curl is the total flexion, shared among the joints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DigitChain {
    /// The first joint.
    pub base: Vec3,
    /// Unit direction of the straight digit.
    pub direction: Vec3,
    /// Unit axis the joints flex about: positive curl turns the digit toward −y.
    pub flex_axis: Vec3,
    /// Bone lengths.
    pub lengths: [f32; 3],
    /// Bone radii.
    pub radii: [f32; 3],
    /// Each joint's share of the curl (they sum to 1).
    pub shares: [f32; 3],
}

impl DigitChain {
    /// A chain whose flex axis turns `direction` toward −y (hand-local down).
    pub fn new(
        base: Vec3,
        direction: Vec3,
        lengths: [f32; 3],
        radii: [f32; 3],
        shares: [f32; 3],
    ) -> Self {
        let direction = direction.normalize_or(Vec3::Z);
        // Turning `d` about `d × (−y)` moves it toward −y.
        let flex_axis = direction.cross(Vec3::NEG_Y).normalize_or(Vec3::X);
        DigitChain {
            base,
            direction,
            flex_axis,
            lengths,
            radii,
            shares,
        }
    }

    /// The four joint positions (base, two inner joints, tip) at `curl`.
    pub fn joints(&self, curl: f32) -> [Vec3; 4] {
        let mut joints = [self.base; 4];
        let mut angle = 0.0;
        for i in 0..3 {
            angle += curl * self.shares[i];
            let dir = Quat::from_axis_angle(self.flex_axis, angle) * self.direction;
            joints[i + 1] = joints[i] + dir * self.lengths[i];
        }
        joints
    }

    /// The direction the back of the last bone faces at `curl` (where a nail sits).
    pub fn dorsal(&self, curl: f32) -> Vec3 {
        let up = (Vec3::Y - self.direction * self.direction.y).normalize_or(Vec3::Y);
        Quat::from_axis_angle(self.flex_axis, curl) * up
    }
}
