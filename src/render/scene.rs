//! [`Scene`]: what one frame shows (camera, creature pose, lights, hand, diagnostics),
//! checked before any GPU work.

use super::RenderError;
use super::camera::Camera;
use super::debug::DebugMode;
use super::palette::Lighting;
use super::shapes::DrawCapsule;
use crate::creature::{CreaturePose, RayHit};

/// What one frame shows: camera, creature pose, lights, hand and diagnostics.
#[derive(Clone, Debug)]
pub struct Scene<'a> {
    /// The camera.
    pub camera: Camera,
    /// Where the head, body and tail bones are (the pose of the solver's last step).
    pub pose: CreaturePose,
    /// Which view to draw.
    pub mode: DebugMode,
    /// The lights.
    pub lighting: Lighting,
    /// Capsules to draw in world space: the hand (its skin-material capsules also darken
    /// the fur near them).
    pub hand: &'a [DrawCapsule],
    /// Strength of the hand's soft occlusion, 0 … 1.
    pub hand_occlusion: f32,
    /// How far the eyes are narrowed, 0 open … 1 nearly shut.
    pub eye_narrowing: f32,
    /// The last ray hit, drawn in the `contact` view.
    pub ray_hit: Option<RayHit>,
    /// Which of the solver's two position buffers holds the latest positions.
    pub positions_index: usize,
}

impl<'a> Scene<'a> {
    /// The creature at `pose` from `camera`, no hand, default lights, final view.
    pub fn new(camera: Camera, pose: CreaturePose) -> Self {
        Scene {
            camera,
            pose,
            mode: DebugMode::Final,
            lighting: Lighting::default(),
            hand: &[],
            hand_occlusion: 0.0,
            eye_narrowing: 0.0,
            ray_hit: None,
            positions_index: 0,
        }
    }

    pub(super) fn validate(&self) -> Result<(), RenderError> {
        self.camera.validate()?;
        if !self.lighting.is_valid() {
            return Err(RenderError::Scene(format!(
                "the lighting has a non-finite number or a zero direction: {:?}",
                self.lighting
            )));
        }
        let pose_ok = self.pose.head.is_finite()
            && self.pose.body.is_finite()
            && self.pose.tail.iter().all(|t| t.is_finite());
        if !pose_ok {
            return Err(RenderError::Scene(
                "the creature's pose is not finite".into(),
            ));
        }
        if !(self.hand_occlusion.is_finite() && self.eye_narrowing.is_finite()) {
            return Err(RenderError::Scene(
                "hand occlusion or eye narrowing is not finite".into(),
            ));
        }
        Ok(())
    }
}
