//! The petting hand: its rig (palm, thumb, four articulated fingers, nails, forearm and
//! sleeve), the gesture machine that turns pointer events into hover, pet and scratch, and
//! the scripted pointer replay, on the creature or on a body of the user's
//! ([`Hand::set_body`]: the rays test its posed triangles). The creature's answer to being petted
//! ([`crate::creature::CreatureResponse`]) and the ray targets the pointer and fingers test
//! ([`crate::creature::CreatureProxies`]) are the creature's, in [`crate::creature`].
//!
//! Nothing here owns a window: the caller turns window events into the pointer calls of
//! [`Hand`] (a world ray from its camera, the screen position in pixels, the button and a
//! time), calls [`Hand::step`] once per fixed solver step, and hands
//! [`Hand::contact`] to the solver ([`crate::sim::FurSim::set_contact`]) and
//! [`Hand::shapes`] to the renderer.
//!
//! - [`HandRig`]: the hand posed on the fur from a target point, the surface normal there,
//!   a stroke direction and a gesture mode; its contact capsules and its draw list.
//! - [`body_hand_factor`]: the hand's size on a body, by the body's height against the
//!   creature's.
//! - [`GestureMachine`]: idle, hover, pet and scratch from pointer events, and whether
//!   the camera may orbit.
//! - [`PointerScript`]: the JSON pointer-event format `pelt demo --script` replays.
//!
//! ```
//! use glam::{Vec2, Vec3};
//! use pelt::creature::{Creature, CreaturePose, Ray};
//! use pelt::hand::{Hand, PointerButton};
//!
//! let creature = Creature::default();
//! let pose = CreaturePose::rest(&creature);
//! let mut hand = Hand::new(creature, 7);
//! // A pointer straight down onto the creature's back starts a pet and stops the orbit.
//! let ray = Ray::new(Vec3::new(0.0, 1.0, -0.3), Vec3::NEG_Y);
//! hand.pointer_down(ray, Vec2::new(400.0, 300.0), PointerButton::Primary, 0.0);
//! assert!(!hand.orbit_enabled());
//! hand.step(1.0 / 60.0, 1.0 / 60.0, &pose);
//! let contact = hand.contact().expect("the hand is on the fur");
//! assert!(contact.capsules.len() <= pelt::sim::MAX_CAPSULES);
//! ```

mod anatomy;
mod body_size;
mod body_target;
mod capsule_script;
mod finger;
mod frame;
mod gesture;
mod interaction;
mod mode_style;
mod orientation;
mod pointer_script;
mod probe;
mod rig;
mod shape;

pub use anatomy::{FingerDimensions, HandDimensions, ThumbDimensions};
pub use body_size::{BODY_HAND_FACTORS, CREATURE_HEIGHT, body_hand_factor};
pub use body_target::BodyTarget;
pub use capsule_script::{
    CapsuleKey, CapsuleScript, CapsuleScriptError, MAX_CAPSULE_SCRIPT_BYTES, ScriptedCapsule,
};
pub use frame::HandFrame;
pub use gesture::{
    GestureMachine, GestureState, PointerButton, SCRATCH_DWELL_SECONDS, SCRATCH_SPEED_PX_PER_S,
};
pub use interaction::Hand;
pub use mode_style::{ModeStyle, ModeStyles, SCRATCH_HZ};
pub use orientation::HandOrientation;
pub use pointer_script::{
    MAX_SCRIPT_BYTES, MAX_SCRIPT_EVENTS, PointerEvent, PointerEventKind, PointerScript,
    PointerScriptError,
};
pub use probe::{PlaneSurface, SurfaceProbe};
pub use rig::{CONTACT_CAPSULES, HandRig, HandTarget, finger_capsule, thumb_capsule};
pub use shape::{HandMaterial, HandShape};
