//! The gesture machine: pointer events in, idle / hover / pet / scratch out, and whether
//! the camera may orbit. No window in it, so every path is unit-testable.
//!
//! - A primary-button press whose ray hits the creature (head, body, paws or tail at the
//!   current pose) starts a pet and disables orbit; a miss leaves orbit working (the app
//!   orbits with that drag). Other buttons never pet: the app binds pan to them.
//! - While the pet is held, each pointer ray that hits the creature moves the hand's spot
//!   there; the spot is kept in the hit part's own space, so it rides along when the
//!   creature moves under a still pointer. A ray that misses leaves the hand where it was.
//! - A held pointer that stays below [`SCRATCH_SPEED_PX_PER_S`] for more than
//!   [`SCRATCH_DWELL_SECONDS`] turns the pet into a scratch. Speed is measured between
//!   consecutive pointer positions; a faster move restarts the clock and turns a scratch
//!   back into a pet.
//! - Releasing the primary button, a cancel and focus loss always end the pet and restore
//!   orbit. Leaving the window hides a hovering hand; during a pet the hand stays until
//!   the release (which then hides it, as the pointer is outside).
//! - With no button held, a pointer over the creature hovers the hand there.
//! - On a body of the user's ([`GestureMachine::set_body`]) the same rules hold with the
//!   body's posed triangles in place of the creature: the spot is kept as its triangle and
//!   barycentric coordinates, so it rides along as the body's animation moves it.
//!
//! Times are seconds on any clock that does not run backwards (the same one the hand is
//! stepped with); a non-finite time is read as the latest time seen.

use super::body_target::BodyTarget;
use super::probe::SurfaceProbe;
use crate::body::BodyHit;
use crate::creature::{Creature, CreaturePose, Ray, RayHit};
use crate::creature::{CreatureProxies, ProxyHit};
use crate::sim::{ContactMode, FurBody};
use glam::{Vec2, Vec3};

/// A held pointer slower than this (pixels per second) is scratching, once it has been
/// slow for [`SCRATCH_DWELL_SECONDS`].
pub const SCRATCH_SPEED_PX_PER_S: f32 = 90.0;
/// How long (seconds) the held pointer must stay slow before a scratch begins.
pub const SCRATCH_DWELL_SECONDS: f64 = 0.22;

/// A pointer button.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PointerButton {
    /// The main button (left mouse button, a touch, a pen tip): pets.
    Primary,
    /// The secondary button (right mouse button).
    Secondary,
    /// The middle button or wheel press.
    Middle,
}

impl PointerButton {
    fn bit(self) -> u8 {
        match self {
            PointerButton::Primary => 1,
            PointerButton::Secondary => 2,
            PointerButton::Middle => 4,
        }
    }
}

/// What the hand is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GestureState {
    /// No hand: the pointer is elsewhere, or the camera is being dragged.
    Idle,
    /// The pointer is over the creature with no button held: the hand hovers there.
    Hover,
    /// The primary button is held after pressing on the creature.
    Pet,
    /// A pet whose pointer has stayed nearly still.
    Scratch,
}

impl From<GestureState> for crate::creature::Touch {
    /// Petting and scratching touch the creature; idle and hover do not.
    fn from(state: GestureState) -> Self {
        match state {
            GestureState::Idle | GestureState::Hover => Self::None,
            GestureState::Pet => Self::Pet,
            GestureState::Scratch => Self::Scratch,
        }
    }
}

impl GestureState {
    /// How the hand touches the fur in this state; `None` when there is no hand.
    pub fn contact_mode(self) -> Option<ContactMode> {
        match self {
            GestureState::Idle => None,
            GestureState::Hover => Some(ContactMode::Hover),
            GestureState::Pet => Some(ContactMode::Pet),
            GestureState::Scratch => Some(ContactMode::Scratch),
        }
    }

    /// Whether a pet (or scratch) is under way.
    pub fn is_petting(self) -> bool {
        matches!(self, GestureState::Pet | GestureState::Scratch)
    }

    /// A lower-case name for panels and logs.
    pub fn name(self) -> &'static str {
        match self {
            GestureState::Idle => "idle",
            GestureState::Hover => "hover",
            GestureState::Pet => "pet",
            GestureState::Scratch => "scratch",
        }
    }
}

/// A spot a pointer ray hit, kept so that it rides along when its surface moves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Spot {
    /// On the creature, in its part's space.
    Creature(ProxyHit),
    /// On a body: its triangle and barycentric coordinates. `side` is 1 where the ray met
    /// the body's outside and −1 where it met a triangle from behind (an open mesh seen
    /// through its hole): the hand goes on the side the pointer is.
    Body { hit: BodyHit, side: f32 },
}

impl Spot {
    /// The spot as the ray met it, world space.
    fn ray_hit(&self) -> RayHit {
        match self {
            Spot::Creature(h) => RayHit {
                distance: h.distance,
                point: h.point,
                normal: h.normal,
            },
            Spot::Body { hit, side } => RayHit {
                distance: hit.distance,
                point: hit.point,
                normal: hit.normal * *side,
            },
        }
    }
}

/// The gesture state machine.
#[derive(Clone, Debug)]
pub struct GestureMachine {
    proxies: CreatureProxies,
    /// The body the rays test in place of the creature, if any.
    body: Option<BodyTarget>,
    state: GestureState,
    /// Held buttons, one bit each.
    buttons: u8,
    /// Whether the pointer is inside the window (no leave since the last event with a
    /// position).
    inside: bool,
    last_ray: Option<Ray>,
    /// The last pointer ray's hit; `None` when it missed.
    last_hit: Option<Spot>,
    /// The spot the hand is on.
    anchor: Option<Spot>,
    /// The last held pointer position and its time, for the speed.
    last_position: Option<(Vec2, f64)>,
    /// Since when the held pointer has been slow.
    slow_since: f64,
    latest_time: f64,
}

impl GestureMachine {
    /// A machine for `creature` at its rest pose.
    pub fn new(creature: Creature) -> Self {
        Self::with_proxies(CreatureProxies::at_rest(creature))
    }

    /// A machine raycasting `proxies`.
    pub fn with_proxies(proxies: CreatureProxies) -> Self {
        GestureMachine {
            proxies,
            body: None,
            state: GestureState::Idle,
            buttons: 0,
            inside: false,
            last_ray: None,
            last_hit: None,
            anchor: None,
            last_position: None,
            slow_since: 0.0,
            latest_time: 0.0,
        }
    }

    /// Moves the creature to `pose` for the rays that follow.
    pub fn set_pose(&mut self, pose: CreaturePose) {
        self.proxies.set_pose(pose);
    }

    /// The proxies the rays test (on the creature; see [`set_body`](Self::set_body)).
    pub fn proxies(&self) -> &CreatureProxies {
        &self.proxies
    }

    /// Makes the rays test `body`'s posed triangles in place of the creature (`None`: the
    /// creature again). Any hand shown goes, since its spot was on the other surface.
    pub fn set_body(&mut self, body: Option<FurBody>) {
        self.body = body.map(BodyTarget::new);
        self.hide();
        self.last_hit = None;
    }

    /// The body the rays test, if any.
    pub fn body(&self) -> Option<&BodyTarget> {
        self.body.as_ref()
    }

    /// Moves the body to its pose `seconds` into its motion for the rays that follow and
    /// for [`target`](Self::target) (nothing without a body).
    pub fn set_body_time(&mut self, seconds: f64) {
        if let Some(body) = &mut self.body {
            body.set_time(seconds);
            // The hand's spot is read at the new pose right away; an idle hand's body is
            // posed by the next ray instead.
            if self.anchor.is_some() {
                body.pose();
            }
        }
    }

    /// The surface the hand's fingers probe: the body's posed triangles, or the creature.
    pub fn surface(&self) -> &dyn SurfaceProbe {
        match &self.body {
            Some(body) => body.rays(),
            None => &self.proxies,
        }
    }

    fn clock(&mut self, time: f64) -> f64 {
        if time.is_finite() {
            self.latest_time = self.latest_time.max(time);
            time
        } else {
            self.latest_time
        }
    }

    fn cast(&mut self, ray: Ray) -> Option<Spot> {
        let hit = match &mut self.body {
            Some(body) => body.raycast(&ray).map(|hit| Spot::Body {
                side: if hit.normal.dot(ray.direction) > 0.0 {
                    -1.0
                } else {
                    1.0
                },
                hit,
            }),
            None => self.proxies.raycast(&ray).map(Spot::Creature),
        };
        self.last_ray = Some(ray);
        self.last_hit = hit;
        hit
    }

    /// A button went down with the pointer along world ray `ray` at `screen_px`.
    pub fn pointer_down(&mut self, ray: Ray, screen_px: Vec2, button: PointerButton, time: f64) {
        let time = self.clock(time);
        self.inside = true;
        self.buttons |= button.bit();
        if button != PointerButton::Primary {
            // Panning or the like: the hover hand steps aside; a pet carries on.
            if self.state == GestureState::Hover {
                self.hide();
            }
            return;
        }
        match self.cast(ray) {
            Some(hit) => {
                self.state = GestureState::Pet;
                self.anchor = Some(hit);
                self.slow_since = time;
                self.last_position = screen_px.is_finite().then_some((screen_px, time));
            }
            // A miss orbits the camera; a pet somehow still under way ends here.
            None => self.hide(),
        }
    }

    /// The pointer moved to world ray `ray` at `screen_px`.
    pub fn pointer_move(&mut self, ray: Ray, screen_px: Vec2, time: f64) {
        let time = self.clock(time);
        self.inside = true;
        let hit = self.cast(ray);
        if self.state.is_petting() {
            if hit.is_some() {
                self.anchor = hit;
            }
            self.track_speed(screen_px, time);
            self.check_scratch(time);
        } else {
            self.hover_or_hide(hit);
        }
    }

    /// A button was released with the pointer along `ray`. The screen position is taken
    /// for symmetry with the other calls; the release needs only the ray, to decide
    /// whether the hand hovers on afterwards.
    pub fn pointer_up(&mut self, ray: Ray, _screen_px: Vec2, button: PointerButton, time: f64) {
        self.clock(time);
        self.buttons &= !button.bit();
        if self.state.is_petting() && button != PointerButton::Primary {
            return;
        }
        let hit = self.cast(ray);
        if self.inside {
            self.hover_or_hide(hit);
        } else {
            self.hide();
        }
    }

    /// The system took the pointer away (a touch cancelled, a drag stolen): every button
    /// counts as released and the hand goes.
    pub fn pointer_cancel(&mut self, time: f64) {
        self.clock(time);
        self.buttons = 0;
        self.hide();
    }

    /// The window lost focus: as [`pointer_cancel`](Self::pointer_cancel), since the
    /// release may never arrive.
    pub fn focus_lost(&mut self, time: f64) {
        self.pointer_cancel(time);
    }

    /// The pointer left the window: a hovering hand goes; a pet carries on until the
    /// release.
    pub fn pointer_leave(&mut self, time: f64) {
        self.clock(time);
        self.inside = false;
        if !self.state.is_petting() {
            self.hide();
        }
    }

    /// Advances the clock without an event: a pointer held still turns into a scratch.
    pub fn update(&mut self, time: f64) {
        let time = self.clock(time);
        self.check_scratch(time);
    }

    fn hide(&mut self) {
        self.state = GestureState::Idle;
        self.anchor = None;
        self.last_position = None;
    }

    fn hover_or_hide(&mut self, hit: Option<Spot>) {
        match hit {
            Some(hit) if self.buttons == 0 && self.inside => {
                self.state = GestureState::Hover;
                self.anchor = Some(hit);
            }
            _ => self.hide(),
        }
    }

    fn track_speed(&mut self, screen_px: Vec2, time: f64) {
        if !screen_px.is_finite() {
            return;
        }
        if let Some((before, then)) = self.last_position {
            let distance = f64::from(screen_px.distance(before));
            let elapsed = time - then;
            let fast = distance > 0.0
                && (elapsed <= 0.0 || distance / elapsed >= f64::from(SCRATCH_SPEED_PX_PER_S));
            if fast {
                self.slow_since = time;
                if self.state == GestureState::Scratch {
                    self.state = GestureState::Pet;
                }
            }
        }
        self.last_position = Some((screen_px, time));
    }

    fn check_scratch(&mut self, time: f64) {
        if self.state == GestureState::Pet && time - self.slow_since > SCRATCH_DWELL_SECONDS {
            self.state = GestureState::Scratch;
        }
    }

    /// The current state.
    pub fn state(&self) -> GestureState {
        self.state
    }

    /// Whether the camera may orbit: always, except during a pet or scratch.
    pub fn orbit_enabled(&self) -> bool {
        !self.state.is_petting()
    }

    /// Whether the hand is shown.
    pub fn hand_visible(&self) -> bool {
        self.state != GestureState::Idle
    }

    /// The last pointer ray's hit on the creature's proxies (`None` if it missed, or on a
    /// body). World space at the pose the ray was cast against.
    pub fn last_hit(&self) -> Option<&ProxyHit> {
        match &self.last_hit {
            Some(Spot::Creature(h)) => Some(h),
            _ => None,
        }
    }

    /// The last pointer ray's hit on the body (`None` if it missed, or on the creature).
    /// World space at the pose the ray was cast against.
    pub fn last_body_hit(&self) -> Option<&BodyHit> {
        match &self.last_hit {
            Some(Spot::Body { hit, .. }) => Some(hit),
            _ => None,
        }
    }

    /// The last pointer ray's hit on whichever surface the rays test, its normal facing
    /// the ray's side, for the contact debug view.
    pub fn last_surface_hit(&self) -> Option<RayHit> {
        self.last_hit.as_ref().map(Spot::ray_hit)
    }

    /// The last pointer ray.
    pub fn last_ray(&self) -> Option<&Ray> {
        self.last_ray.as_ref()
    }

    /// The spot on the creature the hand is on (the hit it follows), if the hand is shown
    /// there.
    pub fn anchor(&self) -> Option<&ProxyHit> {
        match &self.anchor {
            Some(Spot::Creature(h)) => Some(h),
            _ => None,
        }
    }

    /// The spot on the body the hand is on (as the ray met it), if the hand is shown there.
    pub fn body_anchor(&self) -> Option<&BodyHit> {
        match &self.anchor {
            Some(Spot::Body { hit, .. }) => Some(hit),
            _ => None,
        }
    }

    /// The hand's target at the current pose: the anchored skin point and its outward
    /// normal (on a body, the side the pointer is), world space. The rig lifts the palm
    /// along the normal.
    pub fn target(&self) -> Option<(Vec3, Vec3)> {
        match self.anchor? {
            Spot::Creature(a) => Some(a.at_pose(self.proxies.pose())),
            Spot::Body { hit, side } => {
                let rays = self.body.as_ref()?.rays();
                let (point, normal) = rays.surface_at(hit.vertices, hit.barycentric)?;
                Some((point, normal * side))
            }
        }
    }
}
