//! Where the face sits on the head: the eyes and the nose, as directions from the head's
//! centre. The renderer draws them there and the groom keeps the fur around them short.

use glam::Vec3;

/// The face's features on the radial head.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceLayout {
    /// Left and right eye: unit directions from the head's centre.
    pub eyes: [Vec3; 2],
    /// The nose, at the front of the muzzle: a unit direction from the head's centre.
    pub nose: Vec3,
}

impl Default for FaceLayout {
    fn default() -> Self {
        FaceLayout {
            eyes: [
                Vec3::new(0.36, 0.16, 0.92).normalize(),
                Vec3::new(-0.36, 0.16, 0.92).normalize(),
            ],
            nose: Vec3::new(0.0, -0.2, 1.0).normalize(),
        }
    }
}

impl FaceLayout {
    /// How close head direction `u` is to an eye: 1 at an eye's centre, falling to 1/e
    /// about 12° away.
    pub fn eye_weight(&self, u: Vec3) -> f32 {
        self.eyes
            .iter()
            .map(|e| ((u.dot(*e) - 1.0) / 0.022).exp())
            .fold(0.0, f32::max)
    }
}
