//! [`Hand`]: the gesture machine, the rig and the creature's response tied together —
//! pointer events in, and each fixed step the contact for the solver, the shapes to draw
//! and the creature's response out.

use super::anatomy::HandDimensions;
use super::body_size::{body_hand_factor, coat_height_factor};
use super::gesture::{GestureMachine, GestureState, PointerButton};
use super::orientation::HandOrientation;
use super::pointer_script::{PointerEvent, PointerEventKind};
use super::rig::{HandRig, HandTarget};
use super::shape::HandShape;
use crate::creature::{Creature, CreaturePose, CreatureResponse, Ray};
use crate::sim::{FurBody, HandContact};
use glam::{Vec2, Vec3};

/// The petting hand and the creature's answer to it.
///
/// Per frame, the caller forwards pointer events (a world ray through the pointer from its
/// camera, the pointer's window position, the button, a time in seconds). Per fixed
/// solver step it calls [`step`](Self::step) with the creature's pose before any lean, then
/// passes [`contact`](Self::contact) to the solver, draws [`shapes`](Self::shapes), and
/// simulates and draws the creature at [`leaned_pose`](Self::leaned_pose). Event times and
/// step times must come from one clock.
#[derive(Clone, Debug)]
pub struct Hand {
    gesture: GestureMachine,
    rig: HandRig,
    /// The hand's proportions beside the creature; on a body they are scaled
    /// ([`Hand::set_body`]).
    dimensions: HandDimensions,
    orientation: HandOrientation,
    response: CreatureResponse,
    visible: bool,
}

impl Hand {
    /// An adult hand for `creature` (at rest until the first step); `seed` sets the
    /// fingers' scratch phases.
    pub fn new(creature: Creature, seed: u64) -> Self {
        Self::with_dimensions(creature, HandDimensions::default(), seed)
    }

    /// A hand of `dimensions` beside the creature (scaled on a body: see
    /// [`set_body`](Self::set_body)).
    pub fn with_dimensions(creature: Creature, dimensions: HandDimensions, seed: u64) -> Self {
        let response = CreatureResponse::new(&creature);
        Hand {
            gesture: GestureMachine::new(creature),
            rig: HandRig::new(dimensions, seed),
            dimensions,
            orientation: HandOrientation::new(),
            response,
            visible: false,
        }
    }

    /// Pets `body` in place of the creature (`None`: the creature again): the pointer's
    /// and fingers' rays test its posed triangles, and the creature's response (its face,
    /// its head's lean, its tail) stays at rest, since a body has none of them.
    ///
    /// The hand is sized for the body: its proportions scaled by the body's height at rest
    /// against the creature's ([`super::body_hand_factor`]), its capsules and what is drawn
    /// alike, and its heights above the skin scaled as the body's coat is. A hand whose
    /// size changes is placed afresh at the next step.
    pub fn set_body(&mut self, body: Option<FurBody>) {
        let height = body.as_ref().map(|b| b.mesh.rest_height());
        let factor = height.map_or(1.0, body_hand_factor);
        let heights = height.map_or(1.0, coat_height_factor);
        if factor != self.rig.size() || heights != self.rig.height_scale() {
            self.rig
                .resize(self.dimensions.scaled(factor), factor, heights);
        }
        self.gesture.set_body(body);
        self.response = CreatureResponse::new(self.gesture.proxies().creature());
    }

    /// Poses the body `seconds` into its motion for the rays and the step that follow: the
    /// time of the coat's step the hand is posed for (nothing without a body).
    pub fn set_body_time(&mut self, seconds: f64) {
        self.gesture.set_body_time(seconds);
    }

    /// A button went down; see [`GestureMachine::pointer_down`].
    pub fn pointer_down(&mut self, ray: Ray, screen_px: Vec2, button: PointerButton, time: f64) {
        self.gesture.pointer_down(ray, screen_px, button, time);
    }

    /// The pointer moved; see [`GestureMachine::pointer_move`].
    pub fn pointer_move(&mut self, ray: Ray, screen_px: Vec2, time: f64) {
        self.gesture.pointer_move(ray, screen_px, time);
    }

    /// A button came up; see [`GestureMachine::pointer_up`].
    pub fn pointer_up(&mut self, ray: Ray, screen_px: Vec2, button: PointerButton, time: f64) {
        self.gesture.pointer_up(ray, screen_px, button, time);
    }

    /// The pointer was cancelled; see [`GestureMachine::pointer_cancel`].
    pub fn pointer_cancel(&mut self, time: f64) {
        self.gesture.pointer_cancel(time);
    }

    /// The window lost focus; see [`GestureMachine::focus_lost`].
    pub fn focus_lost(&mut self, time: f64) {
        self.gesture.focus_lost(time);
    }

    /// The pointer left the window; see [`GestureMachine::pointer_leave`].
    pub fn pointer_leave(&mut self, time: f64) {
        self.gesture.pointer_leave(time);
    }

    /// Feeds one scripted event, turning its window position into a world ray with
    /// `ray_at` (the camera's ray through that pixel).
    pub fn apply_event(&mut self, event: &PointerEvent, ray_at: impl Fn(Vec2) -> Ray) {
        let t = event.time;
        match event.kind {
            PointerEventKind::Down { position, button } => {
                self.pointer_down(ray_at(position), position, button, t)
            }
            PointerEventKind::Move { position } => self.pointer_move(ray_at(position), position, t),
            PointerEventKind::Up { position, button } => {
                self.pointer_up(ray_at(position), position, button, t)
            }
            PointerEventKind::Cancel => self.pointer_cancel(t),
            PointerEventKind::Leave => self.pointer_leave(t),
        }
    }

    /// One fixed step of `dt` seconds ending at `time`, the creature at `pose` (before the
    /// lean): the gesture's clock advances (a still pointer may start a scratch), the hand
    /// is posed on its spot at the leaned pose, and the response moves on. On a body the
    /// spot is read at the body's pose ([`set_body_time`](Self::set_body_time)) and `pose`
    /// is not used.
    pub fn step(&mut self, time: f64, dt: f32, pose: &CreaturePose) {
        let leaned = self.response.apply_to(pose);
        self.gesture.set_pose(leaned);
        self.gesture.update(time);
        let mode = self.gesture.state().contact_mode();
        match (self.gesture.target(), mode) {
            (Some((point, normal)), Some(mode)) => {
                if !self.visible {
                    self.rig.reset();
                    self.orientation.reset();
                    self.visible = true;
                }
                let view = self.gesture.last_ray().map_or(-normal, |r| r.direction);
                let (up, forward) = self.orientation.update(point, normal, view, dt);
                let target = HandTarget {
                    point,
                    normal: up,
                    forward,
                    mode,
                };
                self.rig.update(&target, self.gesture.surface(), time, dt);
            }
            _ => {
                if self.visible {
                    self.rig.reset();
                    self.orientation.reset();
                    self.visible = false;
                }
            }
        }
        let palm = if self.visible {
            self.rig.palm_point()
        } else {
            None
        };
        if self.gesture.body().is_none() {
            self.response.update(dt, self.gesture.state(), palm, pose);
        }
    }

    /// The hand as the solver sees it for the next steps; `None` when the hand is hidden.
    pub fn contact(&self) -> Option<HandContact> {
        if self.visible {
            self.rig.contact()
        } else {
            None
        }
    }

    /// What to draw of the hand (empty when hidden).
    pub fn shapes(&self) -> &[HandShape] {
        if self.visible { self.rig.shapes() } else { &[] }
    }

    /// How strongly to darken the fur around the hand, 0 to 1 (0 when hidden).
    pub fn occlusion(&self) -> f32 {
        if self.visible {
            self.rig.occlusion()
        } else {
            0.0
        }
    }

    /// The centre and radius of the sphere around the contact capsules, for the occlusion
    /// falloff and culling; `None` when hidden.
    pub fn bounds(&self) -> Option<(Vec3, f32)> {
        self.contact().and_then(|c| c.bounding_sphere())
    }

    /// `pose` with the head leaned toward the hand: what to simulate and draw.
    pub fn leaned_pose(&self, pose: &CreaturePose) -> CreaturePose {
        self.response.apply_to(pose)
    }

    /// The gesture state.
    pub fn state(&self) -> GestureState {
        self.gesture.state()
    }

    /// Whether the camera may orbit.
    pub fn orbit_enabled(&self) -> bool {
        self.gesture.orbit_enabled()
    }

    /// Whether the hand is shown (after the last step).
    pub fn visible(&self) -> bool {
        self.visible
    }

    /// The gesture machine (last ray hit, anchor, proxies).
    pub fn gesture(&self) -> &GestureMachine {
        &self.gesture
    }

    /// The rig (capsules, curls, finger probe hits).
    pub fn rig(&self) -> &HandRig {
        &self.rig
    }

    /// The rig, to change its gesture styles.
    pub fn rig_mut(&mut self) -> &mut HandRig {
        &mut self.rig
    }

    /// The creature's response.
    pub fn response(&self) -> &CreatureResponse {
        &self.response
    }

    /// The response, to change its tuning.
    pub fn response_mut(&mut self) -> &mut CreatureResponse {
        &mut self.response
    }
}
