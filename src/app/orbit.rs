//! The orbit camera control: the primary button drags the camera around the creature (when
//! the creature is not being petted), the secondary or middle button pans, the wheel zooms.
//! Kept free of window types so it is easy to follow.

use glam::Vec2;
use pelt::render::Camera;

/// Which drag is under way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drag {
    /// None.
    Idle,
    /// Turning about the target (primary button on empty space).
    Orbit,
    /// Sliding the view (secondary or middle button).
    Pan,
}

/// The orbit control's state.
#[derive(Clone, Debug)]
pub struct OrbitControls {
    /// The camera it moves.
    pub camera: Camera,
    drag: Drag,
    last: Option<Vec2>,
}

/// Radians turned per pixel dragged.
const TURN_PER_PIXEL: f32 = 0.008;

/// How far from the world's origin a pan may take the point looked at, metres: the
/// creature is about a metre across, so past this there is nothing to see.
const MAX_TARGET_DISTANCE: f32 = 100.0;

impl OrbitControls {
    /// Controls moving `camera`.
    pub fn new(camera: Camera) -> Self {
        OrbitControls {
            camera,
            drag: Drag::Idle,
            last: None,
        }
    }

    /// A drag of kind `drag` begins at `position`.
    pub fn begin(&mut self, drag: Drag, position: Vec2) {
        self.drag = drag;
        self.last = Some(position);
    }

    /// Any drag ends.
    pub fn end(&mut self) {
        self.drag = Drag::Idle;
    }

    /// The drag under way.
    pub fn drag(&self) -> Drag {
        self.drag
    }

    /// The pointer moved to `position` in a window `height` pixels tall.
    pub fn moved(&mut self, position: Vec2, height: f32) {
        let delta = self.last.map_or(Vec2::ZERO, |last| position - last);
        self.last = Some(position);
        let before = self.camera;
        match self.drag {
            Drag::Orbit => self
                .camera
                .orbit(delta.x * TURN_PER_PIXEL, delta.y * TURN_PER_PIXEL),
            Drag::Pan => {
                let distance = self.camera.eye.distance(self.camera.target);
                let per_pixel = distance * self.camera.pixel_scale(height.max(1.0) as u32);
                self.camera.pan(-delta.x * per_pixel, delta.y * per_pixel);
            }
            Drag::Idle => {}
        }
        // A drag that would take the camera where no picture can be drawn (numbers that
        // are not finite, eye on target, or a pan far from the creature, as a scripted
        // drag of 1e30 pixels does) leaves it where it was.
        if self.camera.validate().is_err() || self.camera.target.length() > MAX_TARGET_DISTANCE {
            self.camera = before;
        }
    }

    /// The wheel turned by `lines` (positive: away from the user, zoom in).
    pub fn wheel(&mut self, lines: f32) {
        self.camera.zoom(0.9f32.powf(lines));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pelt::render::CameraPreset;

    #[test]
    fn drags_too_far_for_a_picture_leave_the_camera_where_it_was() {
        let start = Camera::preset(CameraPreset::Front);
        for (drag, to) in [
            (Drag::Pan, Vec2::splat(1e30)),
            (Drag::Pan, Vec2::splat(-3.4e38)),
            (Drag::Orbit, Vec2::splat(-3.4e38)),
        ] {
            let mut orbit = OrbitControls::new(start);
            orbit.begin(drag, Vec2::splat(3.4e38));
            orbit.moved(to, 720.0);
            assert_eq!(orbit.camera, start, "{drag:?} to {to}");
        }
        // An ordinary pan still moves it, and stays drawable.
        let mut orbit = OrbitControls::new(start);
        orbit.begin(Drag::Pan, Vec2::new(600.0, 300.0));
        orbit.moved(Vec2::new(640.0, 320.0), 720.0);
        assert!(orbit.camera.target.distance(start.target) > 0.01);
        assert!(orbit.camera.validate().is_ok());
    }
}
