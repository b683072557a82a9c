//! The groom: where roots grow, which way the fur lies, how long it is and what colour
//! pattern it carries. One `u64` seed drives every random choice, so the same seed gives
//! bit-identical roots.

mod flow;
mod noise;
mod pattern;
mod sampler;

pub use pattern::{Pattern, pattern_at};
pub use sampler::{JACOBIAN_SAMPLES, PartArea, REJECTION_MARGIN};

use crate::creature::{Creature, Part, Space};
use glam::Vec3;
use thiserror::Error;

/// Hair length before local variation on the head, metres.
pub const HEAD_LENGTH: f32 = 0.12;
/// Hair length before local variation on the body and the tail, metres.
pub const BODY_LENGTH: f32 = 0.13;
/// Hair length before local variation on each paw, metres.
pub const PAW_LENGTH: f32 = 0.05;

/// What went wrong building a groom.
#[derive(Debug, Error, PartialEq)]
pub enum GroomError {
    /// A strand count of zero, or more than the groom is built to hold.
    #[error("strand count {count} is out of range: ask for between 1 and {max} strands")]
    StrandCount {
        /// What was asked for.
        count: usize,
        /// The largest count accepted.
        max: usize,
    },
    /// The sampler could not place roots (a degenerate creature: zero area or all culled).
    #[error(
        "could not place roots: {placed} of {wanted} after {tries} tries; is the creature degenerate (zero-size parts, or every part buried in another)?"
    )]
    Degenerate {
        /// Roots placed before giving up.
        placed: usize,
        /// Roots asked for.
        wanted: usize,
        /// Candidate samples drawn.
        tries: u64,
    },
}

/// The largest strand count a groom will build (about 16 million: far beyond any GPU tier,
/// small enough that the root arrays cannot overflow a 32-bit index).
pub const MAX_STRANDS: usize = 1 << 24;

/// One strand's root: everything the solver and the renderer need that never changes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrandRoot {
    /// The part it grows from.
    pub part: Part,
    /// Position in the part's space (head-local or body-local).
    pub position: Vec3,
    /// Outward unit surface normal, same space.
    pub normal: Vec3,
    /// Unit groom flow in the tangent plane, same space.
    pub flow: Vec3,
    /// Rest length of the whole strand, metres.
    pub length: f32,
    /// Angle from the normal at which the strand leaves the skin, radians.
    pub lift_root: f32,
    /// Angle from the normal toward which the tip lies, radians.
    pub lift_tip: f32,
    /// Per-strand random value in [0, 1).
    pub random: f32,
    /// Coat pattern channels.
    pub pattern: Pattern,
}

impl StrandRoot {
    /// Which pivot the root follows.
    pub fn space(&self) -> Space {
        self.part.space()
    }
}

/// A complete groom of the creature.
#[derive(Clone, Debug, PartialEq)]
pub struct Groom {
    /// The seed it was built from.
    pub seed: u64,
    /// Every root, in sampling order.
    pub roots: Vec<StrandRoot>,
    /// Each part's measured area and Jacobian bound, in [`Part::ALL`] order.
    pub areas: Vec<PartArea>,
}

impl Groom {
    /// Grows `count` roots on `creature` from `seed`: the seed document's sampler (areas from
    /// sampled Jacobians, part by area, rejection against 1.15 × the measured maximum, overlap
    /// culls), its groom flow, lengths and pattern channels.
    pub fn generate(creature: &Creature, count: usize, seed: u64) -> Result<Groom, GroomError> {
        if count == 0 || count > MAX_STRANDS {
            return Err(GroomError::StrandCount {
                count,
                max: MAX_STRANDS,
            });
        }
        sampler::sample(creature, count, seed)
    }

    /// Number of strands.
    pub fn len(&self) -> usize {
        self.roots.len()
    }

    /// Whether the groom has no strands (never true for a generated groom).
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }
}
