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
    }

    /// The wheel turned by `lines` (positive: away from the user, zoom in).
    pub fn wheel(&mut self, lines: f32) {
        self.camera.zoom(0.9f32.powf(lines));
    }
}
