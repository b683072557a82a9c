//! A perspective camera (right-handed, +Y up, depth reversed so the far plane is at 0 and
//! precision is spent near the eye), named viewpoints of the creature, and rays through
//! pixels for picking.

use super::RenderError;
use crate::creature::Ray;
use glam::{Mat4, Vec2, Vec3};
use std::str::FromStr;

/// How near and far the wheel takes the eye from the creature, metres ([`Camera::zoom`]).
pub const ZOOM_DISTANCES: std::ops::RangeInclusive<f32> = 0.3..=20.0;

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

/// The share of the view's height (or width) a body's projection fills when
/// [`Camera::fit`] frames it: the creature's coat at its front preset fills about this
/// much of a 16:9 view's height.
pub const BODY_FILL: f32 = 0.8;

/// A preset's direction from the target toward the eye (unit) and its vertical field of
/// view in degrees, as the body views use them.
fn body_view(preset: CameraPreset) -> (Vec3, f32) {
    let (dir, fov) = match preset {
        CameraPreset::Front => (Vec3::new(0.62, 0.28, 1.0), 38.0f32),
        CameraPreset::Side => (Vec3::new(1.0, 0.12, 0.05), 38.0),
        CameraPreset::Back => (Vec3::new(-0.45, 0.5, -1.0), 38.0),
        CameraPreset::Top => (Vec3::new(0.05, 1.0, 0.3), 38.0),
        CameraPreset::Closeup => (Vec3::new(0.55, 0.1, 1.0), 20.0),
    };
    (dir.normalize(), fov)
}

/// The share of a body's height about its head that a close-up of it frames.
pub const CLOSEUP_REACH: f32 = 0.2;

/// What a close-up of a body frames ([`Camera::fit`] with [`CameraPreset::Closeup`]): the
/// points within [`CLOSEUP_REACH`] of the body's `height` of `head` (its highest joint,
/// posed: the head on most animals and people); all of them where fewer than a hundredth
/// are that near, or where `head` or `height` is not a usable number.
pub fn near_head(points: &[Vec3], head: Vec3, height: f32) -> Vec<Vec3> {
    let reach = CLOSEUP_REACH * height;
    if !(head.is_finite() && reach.is_finite() && reach > 0.0) {
        return points.to_vec();
    }
    let near: Vec<Vec3> = points
        .iter()
        .copied()
        .filter(|p| p.distance_squared(head) <= reach * reach)
        .collect();
    if near.len() * 100 < points.len() || near.is_empty() {
        points.to_vec()
    } else {
        near
    }
}

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
    /// enough that the box's bounding sphere fits the view whatever its shape (a loose fit
    /// for a long, thin body; [`Camera::fit`] frames what is seen).
    pub fn framing(preset: CameraPreset, lo: Vec3, hi: Vec3) -> Self {
        let center = (lo + hi) * 0.5;
        let radius = ((hi - lo).length() * 0.5).max(1e-3);
        let (dir, fov) = body_view(preset);
        let distance = radius / (0.5 * fov.to_radians()).sin() * 1.05;
        Camera::look_at(center + dir * distance, center, fov)
    }

    /// A named viewpoint of a body other than the creature, fur included, made of
    /// `points`, for a view `aspect` wide over tall: the preset's direction, moved and
    /// brought in until the points' projection fills [`BODY_FILL`] of the view's height
    /// or of its width, whichever it reaches first, centred; so a body fills the view
    /// about as the creature fills it at the creature's presets, long and thin or not.
    /// Points that are not finite are left out; with none left, the view of
    /// [`Camera::preset`].
    pub fn fit(preset: CameraPreset, points: &[Vec3], aspect: f32) -> Self {
        let points: Vec<Vec3> = points.iter().copied().filter(|p| p.is_finite()).collect();
        let Some(first) = points.first() else {
            return Camera::preset(preset);
        };
        let (lo, hi) = points
            .iter()
            .fold((*first, *first), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
        let (dir, fov) = body_view(preset);
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            16.0 / 9.0
        };
        let half = (0.5 * fov.to_radians()).tan() * BODY_FILL;
        let mut camera = Camera::look_at(Vec3::ZERO, Vec3::ZERO, fov);
        camera.target = (lo + hi) * 0.5;
        // The view's axes do not depend on where the camera is, only on its direction.
        camera.eye = camera.target + dir;
        let up = camera.true_up();
        let right = (-dir).cross(up);
        // Twice: placed for the points about the box's centre, then moved across the view
        // so their projection is centred, which changes the distance a little.
        let mut nearest = f32::INFINITY;
        for _ in 0..2 {
            let c = camera.target;
            // The eye at distance d along `dir` sees a point p at depth d − (p−c)·dir; it
            // lies within the filled part of the view where both offsets across the view
            // over the depth stay within `half` (times the aspect across).
            let distance = points
                .iter()
                .map(|p| {
                    let v = *p - c;
                    let along = v.dot(dir);
                    along + (v.dot(right).abs() / aspect).max(v.dot(up).abs()) / half
                })
                .fold(1e-4f32, f32::max);
            camera.eye = c + dir * distance;
            // Where the projection spans, in units of the view's half height at depth 1.
            let (mut min, mut max) = (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
            nearest = f32::INFINITY;
            for p in &points {
                let v = *p - camera.eye;
                let depth = v.dot(-dir).max(1e-6);
                nearest = nearest.min(depth);
                let at = Vec2::new(v.dot(right), v.dot(up)) / depth;
                min = min.min(at);
                max = max.max(at);
            }
            // Turning the view onto the projection's centre would tilt it; moving the
            // target (and the eye with it) across the view at the depth of the box's
            // centre centres it as nearly.
            let middle = 0.5 * (min + max) * distance;
            camera.target = c + right * middle.x + up * middle.y;
            camera.eye = camera.target + dir * distance;
        }
        // Near enough for a small body's nearest point (the creature's 2 cm otherwise).
        camera.near = camera.near.min(0.5 * nearest).max(1e-5);
        camera
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

    /// Moves the eye toward (`factor` < 1) or away from the target, within
    /// [`ZOOM_DISTANCES`] (the creature's: close enough to see single hairs, far enough to
    /// see it whole in its room).
    pub fn zoom(&mut self, factor: f32) {
        self.zoom_within(factor, *ZOOM_DISTANCES.start(), *ZOOM_DISTANCES.end());
    }

    /// Moves the eye toward (`factor` < 1) or away from the target, keeping its distance
    /// between `nearest` and `farthest` metres (a body of another size scales the
    /// creature's [`ZOOM_DISTANCES`]). A factor that is not a positive number (an infinite
    /// one goes to `farthest`), or bounds that are not positive finite numbers in order,
    /// leave the camera where it is.
    pub fn zoom_within(&mut self, factor: f32, nearest: f32, farthest: f32) {
        let usable = |v: f32| v.is_finite() && v > 0.0;
        if !(factor > 0.0 && usable(nearest) && usable(farthest) && nearest <= farthest) {
            return;
        }
        let offset = self.eye - self.target;
        let distance = (offset.length() * factor).clamp(nearest, farthest);
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

    #[test]
    fn a_close_up_of_a_body_frames_the_points_about_its_head() {
        // A body of 1,000 points along 1 m, its head at the top end.
        let points: Vec<Vec3> = (0..1000)
            .map(|i| Vec3::new(0.0, i as f32 / 1000.0, 0.0))
            .collect();
        let head = Vec3::new(0.0, 1.0, 0.0);
        let near = near_head(&points, head, 1.0);
        assert_eq!(near.len(), 200, "the top fifth");
        assert!(near.iter().all(|p| p.y >= 0.8 - 1e-6));
        // Too few near the head, or no usable head: every point.
        assert_eq!(
            near_head(&points, Vec3::new(0.0, 5.0, 0.0), 1.0).len(),
            1000
        );
        assert_eq!(near_head(&points, Vec3::NAN, 1.0).len(), 1000);
        assert_eq!(near_head(&points, head, 0.0).len(), 1000);
        // The close-up of those points is nearer the head than the front view of all.
        let close = Camera::fit(CameraPreset::Closeup, &near, 16.0 / 9.0);
        let front = Camera::fit(CameraPreset::Front, &points, 16.0 / 9.0);
        assert!(close.eye.distance(head) < 0.5 * front.eye.distance(head));
    }

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

    /// Points on an ellipsoid with semi-axes `radii` about `centre`: a long, thin animal's
    /// coat when the radii differ.
    fn ellipsoid(centre: Vec3, radii: Vec3) -> Vec<Vec3> {
        let mut points = Vec::new();
        for i in 0..=12 {
            let polar = std::f32::consts::PI * i as f32 / 12.0;
            for j in 0..24 {
                let around = std::f32::consts::TAU * j as f32 / 24.0;
                let unit = Vec3::new(
                    polar.sin() * around.cos(),
                    polar.cos(),
                    polar.sin() * around.sin(),
                );
                points.push(centre + unit * radii);
            }
        }
        points
    }

    #[test]
    fn a_long_thin_body_is_fitted_to_fill_the_view_as_the_creature_does() {
        let aspect = 16.0 / 9.0;
        let size = Vec2::new(640.0, 360.0);
        // A fox's coat, about 1.4 m nose to tail, 0.3 m wide and 0.9 m tall, off the
        // origin; the same a hundredth the size, nearer than the creature's near plane.
        let fox = ellipsoid(Vec3::new(0.1, 0.45, -0.2), Vec3::new(0.15, 0.45, 0.7));
        let tiny: Vec<Vec3> = fox.iter().map(|p| *p * 0.01).collect();
        for (name, points) in [("fox", &fox), ("tiny fox", &tiny)] {
            for preset in [CameraPreset::Front, CameraPreset::Side] {
                let camera = Camera::fit(preset, points, aspect);
                assert!(camera.validate().is_ok(), "{name}, {}", preset.name());
                let (mut lo, mut hi) = (Vec2::splat(f32::INFINITY), Vec2::splat(-f32::INFINITY));
                let view = camera.view();
                for p in points {
                    let depth = -view.transform_point3(*p).z;
                    assert!(
                        depth > camera.near,
                        "{name}, {}: a point {depth} m away is nearer than the near plane",
                        preset.name()
                    );
                    let at = pixel_of(&camera, *p, size) / size;
                    lo = lo.min(at);
                    hi = hi.max(at);
                }
                // Its projection lies in the view, centred, and spans at least 3/4 of the
                // view's height or width (the creature's coat at its front preset spans
                // 0.82 of the height; framed by its bounding sphere the fox spanned 0.44
                // of the height and 0.27 of the width).
                let span = hi - lo;
                let centre = 0.5 * (lo + hi);
                assert!(
                    lo.min_element() >= 0.0 && hi.max_element() <= 1.0,
                    "{name}, {}: the projection {lo}..{hi} leaves the view",
                    preset.name()
                );
                assert!(
                    centre.distance(Vec2::splat(0.5)) < 0.03,
                    "{name}, {}: centred at {centre}",
                    preset.name()
                );
                assert!(
                    span.max_element() >= 0.75,
                    "{name}, {}: the body spans only {span} of the view",
                    preset.name()
                );
            }
        }
        // Nothing finite to fit: the creature's view.
        assert_eq!(
            Camera::fit(CameraPreset::Side, &[Vec3::NAN], aspect),
            Camera::preset(CameraPreset::Side)
        );
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
