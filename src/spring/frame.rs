//! A rigid frame (rotation then translation), the pose a chain is anchored to.

use glam::{Affine3A, Quat, Vec3};

/// A rigid transform: `world = rotation * local + translation`. No scale: springs keep their
/// lengths in metres whatever the parent's scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// Orientation of the frame in world space.
    pub rotation: Quat,
    /// Origin of the frame in world space.
    pub translation: Vec3,
}

impl Default for Frame {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl From<Affine3A> for Frame {
    /// The rigid part of an affine transform (see [`Frame::from_affine`]).
    fn from(a: Affine3A) -> Self {
        Frame::from_affine(&a)
    }
}

impl From<Frame> for Affine3A {
    fn from(f: Frame) -> Self {
        Affine3A::from_rotation_translation(f.rotation, f.translation)
    }
}

impl Frame {
    /// The world frame itself.
    pub const IDENTITY: Frame = Frame {
        rotation: Quat::IDENTITY,
        translation: Vec3::ZERO,
    };

    /// A frame at `translation` with no rotation.
    pub fn from_translation(translation: Vec3) -> Self {
        Self {
            rotation: Quat::IDENTITY,
            translation,
        }
    }

    /// The rigid part of an affine transform (its scale is dropped).
    pub fn from_affine(a: &Affine3A) -> Self {
        let (_, rotation, translation) = a.to_scale_rotation_translation();
        Self {
            rotation: rotation.normalize(),
            translation,
        }
    }

    /// Maps a point from this frame to world space.
    pub fn point(&self, local: Vec3) -> Vec3 {
        self.rotation * local + self.translation
    }

    /// Maps a direction from this frame to world space.
    pub fn vector(&self, local: Vec3) -> Vec3 {
        self.rotation * local
    }

    /// The frame a fraction `t` of the way from `self` to `other` (lerp and slerp).
    pub fn lerp(&self, other: &Frame, t: f32) -> Frame {
        Frame {
            rotation: self.rotation.slerp(other.rotation, t).normalize(),
            translation: self.translation.lerp(other.translation, t),
        }
    }

    /// True when every number in the frame is finite.
    pub fn is_finite(&self) -> bool {
        self.rotation.is_finite() && self.translation.is_finite()
    }
}
