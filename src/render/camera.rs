//! A perspective camera (right-handed, +Y up, depth reversed so the far plane is at 0 and
//! precision is spent near the eye), named viewpoints of the creature, and rays through
//! pixels for picking.

use super::RenderError;
use crate::creature::Ray;
use glam::{Mat4, Vec2, Vec3};
use std::str::FromStr;

/// Where the camera is and what it looks at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// The eye, world space.
    pub eye: Vec3,
    /// The point looked at.
    pub target: Vec3,
    /// Roughly up (made perpendicular to the view direction).
    pub up: Vec3,
    /// Vertical field of view, radians.
    pub fov_y: f32,
    /// Distance to the near plane, metres (there is no far plane).
    pub near: f32,
    /// Lens shift: where the view axis (the target) lands on the image, in normalised
    /// device units from its centre (x right, y up; ±1 are the edges). Zero centres the
    /// target; the demo shifts it right by half the width its panel covers, so the
    /// creature sits in the middle of what the panel leaves visible.
    pub shift: Vec2,
}

/// The named viewpoints `pelt render --camera` offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraPreset {
    /// Three-quarter view from the front: the face, a flank and the tail.
    Front,
    /// From the creature's left side.
    Side,
    /// From behind and above: back, dorsal stripe, tail.
    Back,
    /// From above.
    Top,
    /// Close to the face: strands, highlights and shadows at a size you can see.
    Closeup,
}

impl CameraPreset {
    /// Every preset, in the order the CLI lists them.
    pub const ALL: [CameraPreset; 5] = [
        CameraPreset::Front,
        CameraPreset::Side,
        CameraPreset::Back,
        CameraPreset::Top,
        CameraPreset::Closeup,
    ];

    /// The preset's CLI name.
    pub fn name(self) -> &'static str {
        match self {
            CameraPreset::Front => "front",
            CameraPreset::Side => "side",
            CameraPreset::Back => "back",
            CameraPreset::Top => "top",
            CameraPreset::Closeup => "closeup",
        }
    }
}

impl FromStr for CameraPreset {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        CameraPreset::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = CameraPreset::ALL.iter().map(|p| p.name()).collect();
                format!("unknown camera {s:?}; expected one of {}", names.join(", "))
            })
    }
}

/// The middle of the creature, fur included: what the whole-body presets look at.
pub const CREATURE_CENTER: Vec3 = Vec3::new(0.0, -0.22, -0.38);

impl Camera {
    /// A camera at `eye` looking at `target` with a vertical field of view in degrees.
    pub fn look_at(eye: Vec3, target: Vec3, fov_y_degrees: f32) -> Self {
        Camera {
            eye,
            target,
            up: Vec3::Y,
            fov_y: fov_y_degrees.to_radians(),
            near: 0.02,
            shift: Vec2::ZERO,
        }
    }

    /// A named viewpoint of a body other than the creature whose rest pose, fur included,
    /// fills the box `lo..hi`: the preset's direction, aimed at the box's centre, far
    /// enough that the box's bounding sphere fits the view.
    pub fn framing(preset: CameraPreset, lo: Vec3, hi: Vec3) -> Self {
        let center = (lo + hi) * 0.5;
        let radius = ((hi - lo).length() * 0.5).max(1e-3);
        let (dir, fov) = match preset {
            CameraPreset::Front => (Vec3::new(0.62, 0.28, 1.0), 38.0f32),
            CameraPreset::Side => (Vec3::new(1.0, 0.12, 0.05), 38.0),
            CameraPreset::Back => (Vec3::new(-0.45, 0.5, -1.0), 38.0),
            CameraPreset::Top => (Vec3::new(0.05, 1.0, 0.3), 38.0),
            CameraPreset::Closeup => (Vec3::new(0.55, 0.1, 1.0), 20.0),
        };
        let distance = radius / (0.5 * fov.to_radians()).sin() * 1.05;
        Camera::look_at(center + dir.normalize() * distance, center, fov)
    }

    /// A named viewpoint of the creature.
    pub fn preset(preset: CameraPreset) -> Self {
        let from = |dir: Vec3, distance: f32, target: Vec3, fov: f32| {
            Camera::look_at(target + dir.normalize() * distance, target, fov)
        };
        match preset {
            CameraPreset::Front => from(Vec3::new(0.62, 0.28, 1.0), 2.7, CREATURE_CENTER, 38.0),
            CameraPreset::Side => from(Vec3::new(1.0, 0.12, 0.05), 2.9, CREATURE_CENTER, 38.0),
            CameraPreset::Back => from(Vec3::new(-0.45, 0.5, -1.0), 2.9, CREATURE_CENTER, 38.0),
            CameraPreset::Top => from(Vec3::new(0.05, 1.0, 0.3), 3.1, CREATURE_CENTER, 38.0),
            CameraPreset::Closeup => from(
                Vec3::new(0.55, 0.1, 1.0),
                0.95,
                Vec3::new(0.0, 0.02, 0.28),
                32.0,
            ),
        }
    }

    /// Checks that every number is finite, the eye is not on the target, the field of
    /// view lies in (0°, 180°) and the near plane is positive.
    pub fn validate(&self) -> Result<(), RenderError> {
        let finite = self.eye.is_finite()
            && self.target.is_finite()
            && self.up.is_finite()
            && self.fov_y.is_finite()
            && self.near.is_finite()
            && self.shift.is_finite();
        if !finite {
            return Err(RenderError::Camera(format!(
                "a camera value is not a finite number: {self:?}"
            )));
        }
        if self.eye.distance_squared(self.target) < 1e-12 {
            return Err(RenderError::Camera(
                "the eye and the target are the same point".into(),
            ));
        }
        if !(self.fov_y > 1e-3 && self.fov_y < std::f32::consts::PI - 1e-3) {
            return Err(RenderError::Camera(format!(
                "field of view {:.3}° is outside (0°, 180°)",
                self.fov_y.to_degrees()
            )));
        }
        if self.near <= 0.0 {
            return Err(RenderError::Camera(format!(
                "near plane {} must be positive",
                self.near
            )));
        }
        Ok(())
    }

    /// Unit viewing direction.
    pub fn forward(&self) -> Vec3 {
        (self.target - self.eye).normalize_or(Vec3::NEG_Z)
    }

    /// An up vector perpendicular to the view (falls back when looking straight up/down).
    fn true_up(&self) -> Vec3 {
        let f = self.forward();
        let right = f.cross(self.up);
        let right = if right.length_squared() > 1e-8 {
            right.normalize()
        } else {
            f.any_orthonormal_vector()
        };
        right.cross(f)
    }

    /// World → view.
    pub fn view(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.eye, self.target, self.true_up())
    }

    /// View → clip with reversed depth (1 at the near plane, 0 at infinity), the image
    /// moved by the lens [`shift`](Camera::shift).
    pub fn projection(&self, aspect: f32) -> Mat4 {
        let centred = glam::camera::rh::proj::directx::perspective_infinite_reverse(
            self.fov_y,
            aspect.max(1e-6),
            self.near,
        );
        // Clip x += shift.x · w: after the divide, every point moves by the shift.
        Mat4::from_translation(self.shift.extend(0.0)) * centred
    }

    /// World → clip.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    /// World size of one pixel at unit distance along the view, for a target `height`
    /// pixels tall.
    pub fn pixel_scale(&self, height: u32) -> f32 {
        2.0 * (0.5 * self.fov_y).tan() / height.max(1) as f32
    }

    /// The ray from the eye through pixel `pixel` (origin top left, y down) of a target of
    /// `size` pixels: what the pointer picks.
    pub fn ray_through(&self, pixel: Vec2, size: Vec2) -> Ray {
        let size = size.max(Vec2::ONE);
        let ndc =
            Vec2::new(2.0 * pixel.x / size.x - 1.0, 1.0 - 2.0 * pixel.y / size.y) - self.shift;
        let half = (0.5 * self.fov_y).tan();
        let f = self.forward();
        let up = self.true_up();
        let right = f.cross(up);
        let dir = f + right * (ndc.x * half * size.x / size.y) + up * (ndc.y * half);
        Ray::new(self.eye, dir)
    }

    /// Turns the camera about its target: `yaw` about +Y, `pitch` toward the poles (kept
    /// short of them), for an orbit control.
    pub fn orbit(&mut self, yaw: f32, pitch: f32) {
        let offset = self.eye - self.target;
        let distance = offset.length();
        let current_pitch = (offset.y / distance.max(1e-6)).clamp(-1.0, 1.0).asin();
        let new_pitch = (current_pitch + pitch).clamp(-1.45, 1.45);
        let heading = offset.z.atan2(offset.x) - yaw;
        let ring = distance * new_pitch.cos();
        self.eye = self.target
            + Vec3::new(
                ring * heading.cos(),
                distance * new_pitch.sin(),
                ring * heading.sin(),
            );
    }

    /// Moves the eye toward (`factor` < 1) or away from the target, within limits.
    pub fn zoom(&mut self, factor: f32) {
        let offset = self.eye - self.target;
        let distance = (offset.length() * factor).clamp(0.3, 20.0);
        self.eye = self.target + offset.normalize_or(Vec3::Z) * distance;
    }

    /// Slides eye and target together across the view by `right` and `up` metres.
    pub fn pan(&mut self, right: f32, up: f32) {
        let f = self.forward();
        let u = self.true_up();
        let r = f.cross(u);
        let shift = r * right + u * up;
        self.eye += shift;
        self.target += shift;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where `world` lands on a `size` image of `camera`, pixels (origin top left, y down).
    fn pixel_of(camera: &Camera, world: Vec3, size: Vec2) -> Vec2 {
        let clip = camera.view_proj(size.x / size.y) * world.extend(1.0);
        let ndc = Vec2::new(clip.x, clip.y) / clip.w;
        Vec2::new((ndc.x * 0.5 + 0.5) * size.x, (0.5 - ndc.y * 0.5) * size.y)
    }

    #[test]
    fn a_lens_shift_moves_the_image_and_the_rays_through_it_alike() {
        let size = Vec2::new(640.0, 360.0);
        let centred = Camera::preset(CameraPreset::Front);
        let shifted = Camera {
            shift: Vec2::new(0.4, -0.25),
            ..centred
        };
        // The target lands at the shift (0.4 of the half-width right, 0.25 of the
        // half-height down), and every point moves by the same pixels.
        let target = pixel_of(&shifted, shifted.target, size);
        let expected = Vec2::new(320.0 + 0.4 * 320.0, 180.0 + 0.25 * 180.0);
        assert!(
            target.distance(expected) < 1e-3,
            "{target} against {expected}"
        );
        let point = centred.target + Vec3::new(0.13, 0.21, -0.07);
        let moved = pixel_of(&shifted, point, size) - pixel_of(&centred, point, size);
        assert!(
            moved.distance(expected - size * 0.5) < 1e-3,
            "moved by {moved}"
        );
        // The ray through a point's pixel passes through the point, shifted or not.
        for camera in [centred, shifted] {
            let ray = camera.ray_through(pixel_of(&camera, point, size), size);
            let along = (point - ray.origin).dot(ray.direction);
            let miss = (ray.origin + ray.direction * along).distance(point);
            assert!(miss < 1e-5, "the ray misses the point by {miss} m");
        }
    }

    #[test]
    fn a_shift_that_is_not_a_number_is_refused() {
        let camera = Camera {
            shift: Vec2::new(f32::NAN, 0.0),
            ..Camera::preset(CameraPreset::Front)
        };
        assert!(camera.validate().is_err());
    }
}
