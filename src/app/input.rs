//! Window and replayed pointer events to the creature (or the body in its place) and the
//! orbit camera: a primary press on it pets it and holds the orbit; on empty space it
//! orbits; the other buttons pan; the wheel zooms. Every release, cancel and focus loss
//! restores the orbit.

use super::orbit::{Drag, OrbitControls};
use glam::Vec2;
use pelt::SimulatedFur;
use pelt::hand::{PointerButton, PointerEvent, PointerEventKind};
use winit::event::{ElementState, MouseButton, MouseScrollDelta, TouchPhase, WindowEvent};

/// The pointer as the demo tracks it.
#[derive(Clone, Debug, Default)]
pub struct PointerInput {
    position: Option<Vec2>,
}

fn button(b: MouseButton) -> Option<PointerButton> {
    match b {
        MouseButton::Left => Some(PointerButton::Primary),
        MouseButton::Right => Some(PointerButton::Secondary),
        MouseButton::Middle => Some(PointerButton::Middle),
        _ => None,
    }
}

impl PointerInput {
    /// Where the pointer was last seen in the window, pixels.
    pub fn position(&self) -> Option<Vec2> {
        self.position
    }

    /// A pointer button went down at `px`.
    pub fn down(
        &mut self,
        px: Vec2,
        b: PointerButton,
        fur: &mut SimulatedFur,
        orbit: &mut OrbitControls,
        size: Vec2,
    ) {
        self.position = Some(px);
        let ray = orbit.camera.ray_through(px, size);
        fur.pointer_down(ray, px, b);
        match b {
            // A press on the creature or body starts a pet and holds the orbit; a miss
            // orbits.
            PointerButton::Primary if fur.interaction().orbit_enabled => {
                orbit.begin(Drag::Orbit, px)
            }
            PointerButton::Primary => {}
            PointerButton::Secondary | PointerButton::Middle => orbit.begin(Drag::Pan, px),
        }
    }

    /// The pointer moved to `px`.
    pub fn moved(
        &mut self,
        px: Vec2,
        fur: &mut SimulatedFur,
        orbit: &mut OrbitControls,
        size: Vec2,
    ) {
        self.position = Some(px);
        if orbit.drag() != Drag::Idle && fur.interaction().orbit_enabled {
            orbit.moved(px, size.y);
        }
        let ray = orbit.camera.ray_through(px, size);
        fur.pointer_move(ray, px);
    }

    /// A pointer button went up at `px`.
    pub fn up(
        &mut self,
        px: Vec2,
        b: PointerButton,
        fur: &mut SimulatedFur,
        orbit: &mut OrbitControls,
        size: Vec2,
    ) {
        let ray = orbit.camera.ray_through(px, size);
        fur.pointer_up(ray, px, b);
        orbit.end();
    }

    /// A window event. `consumed`: the panel took it (then the creature never starts a
    /// pet from it, but releases still end one).
    pub fn window_event(
        &mut self,
        event: &WindowEvent,
        consumed: bool,
        fur: &mut SimulatedFur,
        orbit: &mut OrbitControls,
        size: Vec2,
    ) {
        match event {
            WindowEvent::CursorMoved { position, .. } => {
                let px = Vec2::new(position.x as f32, position.y as f32);
                if consumed && orbit.drag() == Drag::Idle && fur.interaction().orbit_enabled {
                    // Over the panel: the hand leaves the creature.
                    self.position = Some(px);
                    fur.pointer_leave();
                } else {
                    self.moved(px, fur, orbit, size);
                }
            }
            WindowEvent::MouseInput {
                state, button: b, ..
            } => {
                let (Some(b), Some(px)) = (button(*b), self.position) else {
                    return;
                };
                match state {
                    ElementState::Pressed if !consumed => self.down(px, b, fur, orbit, size),
                    ElementState::Pressed => {}
                    ElementState::Released => self.up(px, b, fur, orbit, size),
                }
            }
            WindowEvent::MouseWheel { delta, .. } if !consumed => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => *y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                orbit.wheel(lines);
            }
            WindowEvent::CursorLeft { .. } => {
                self.position = None;
                fur.pointer_leave();
            }
            WindowEvent::Focused(false) => {
                fur.focus_lost();
                orbit.end();
            }
            WindowEvent::Touch(touch) if touch.phase == TouchPhase::Cancelled => {
                fur.pointer_cancel();
                orbit.end();
            }
            _ => {}
        }
    }

    /// A replayed event, through the same paths as real ones.
    pub fn replay(
        &mut self,
        event: &PointerEvent,
        fur: &mut SimulatedFur,
        orbit: &mut OrbitControls,
        size: Vec2,
    ) {
        match event.kind {
            PointerEventKind::Down { position, button } => {
                self.down(position, button, fur, orbit, size)
            }
            PointerEventKind::Move { position } => self.moved(position, fur, orbit, size),
            PointerEventKind::Up { position, button } => {
                self.up(position, button, fur, orbit, size)
            }
            PointerEventKind::Cancel => {
                fur.pointer_cancel();
                orbit.end();
            }
            PointerEventKind::Leave => {
                self.position = None;
                fur.pointer_leave();
            }
        }
    }
}
