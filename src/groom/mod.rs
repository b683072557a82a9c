//! The groom: where roots grow, which way the fur lies, how long it is and what colour
//! pattern it carries. One `u64` seed drives every random choice, so the same seed gives
//! bit-identical roots. Roots are checked (no zero length, no degenerate normal) and kept
//! in Morton order of their rest position, so neighbours on the skin are neighbours in
//! memory.

mod bind;
mod body;
mod body_root;
mod covered;
mod file;
mod flow;
mod free_space;
mod mask;
mod morton;
mod near_bare;
mod noise;
mod sampler;
mod strands;
#[cfg(test)]
mod test_meshes;

pub use crate::creature::{Pattern, pattern_at};
pub use bind::{BindError, RootBinding, TriangleGrid, bind_roots, closest_on_triangle};
pub use body::{BodyGroom, default_bare_materials};
pub use body_root::{BodyRoot, STRAND_POINTS, STRAND_SEGMENTS};
pub use covered::{COVER_TESTS_PER_FACE, CoveredSkin, LIFT_SHARE, MAX_COVER_TESTS};
pub use file::{
    BARE_MATERIAL_WORDS, Channel, Clumping, Colour, Density, Direction, GROOM_FILE_VERSION,
    GroomFile, GroomFileError, LENGTH_BOUNDS, Lift, MAX_GROOM_FILE_BYTES, MAX_MASKS, Mask,
    Threshold,
};
pub use mask::{BodyMasks, colour_at_point, stored_texel, uv_at_point};
pub use morton::{morton_code, sort_by_morton};
pub use sampler::{JACOBIAN_SAMPLES, PartArea, REJECTION_MARGIN};
pub use strands::{
    BodyGroomSource, GroomStrand, MAX_ROOT_GAP_SHARE, rest_points, roots_from_strands,
};

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
    /// A body none of whose triangles has an area to grow fur on.
    #[error(
        "the body's {triangles} triangles have no area to grow fur on (each is collapsed to a line or a point, or names a vertex the body lacks); give a body with a surface"
    )]
    NoSurface {
        /// The body's triangles.
        triangles: usize,
    },
    /// A groom file's masks that do not fit the body (a material it lacks, a texture it
    /// has not): what and why.
    #[error("{0}")]
    Masks(String),
    /// A groom file's masks that leave no skin to grow fur on.
    #[error(
        "the groom file's `no_fur` masks cover the whole body (all of it that another layer of the body does not cover), so no fur grows; check the masks' thresholds and material names"
    )]
    AllMasked,
    /// A groom file's density that gives no strand or too many on this body.
    #[error(
        "`density` {density} strands per m² over the body's {area:.4} m² of skin is outside 1 to {max} strands; give a density that fits, or `count`"
    )]
    Density {
        /// Strands per square metre asked for.
        density: f32,
        /// The body's skin, square metres.
        area: f32,
        /// The most strands a groom holds.
        max: usize,
    },
    /// Strands from a file that cannot be grown on the body: which and why.
    #[error("{0}")]
    Strands(String),
    /// A root the solver cannot grow a strand from.
    #[error("root {index} is unusable: {reason}")]
    BadRoot {
        /// Its index in the groom.
        index: usize,
        /// What is wrong with it.
        reason: &'static str,
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
    /// Tail parameter in [0, 1] (root to tip) for tail roots, which follow the tail bones
    /// nearest it; 0 elsewhere.
    pub tail_t: f32,
    /// Coat pattern channels.
    pub pattern: Pattern,
}

impl StrandRoot {
    /// Which pivot the root follows.
    pub fn space(&self) -> Space {
        self.part.space()
    }

    /// Why the solver could not grow a strand from this root, if it could not: a
    /// non-finite or non-positive length, a normal or flow that is not a unit vector, a
    /// flow off the tangent plane, a non-finite position or angle, or a tail parameter
    /// outside [0, 1].
    pub fn defect(&self) -> Option<&'static str> {
        let unit = |v: Vec3| v.is_finite() && (v.length() - 1.0).abs() <= 1e-3;
        if !self.position.is_finite() {
            Some("its position is not finite")
        } else if !(self.length.is_finite() && self.length > 0.0) {
            Some("its length is zero, negative or not finite")
        } else if !unit(self.normal) {
            Some("its normal is not a unit vector (degenerate surface)")
        } else if !unit(self.flow) || self.flow.dot(self.normal).abs() > 1e-3 {
            Some("its groom flow is not a unit vector in the tangent plane")
        } else if !(self.lift_root.is_finite() && self.lift_tip.is_finite()) {
            Some("its lift angles are not finite")
        } else if !(self.random.is_finite() && (0.0..=1.0).contains(&self.tail_t)) {
            Some("its random value or tail parameter is out of range")
        } else {
            None
        }
    }
}

/// The first root the solver could not use, as an error.
pub fn check_roots(roots: &[StrandRoot]) -> Result<(), GroomError> {
    match roots
        .iter()
        .enumerate()
        .find_map(|(i, r)| r.defect().map(|reason| (i, reason)))
    {
        Some((index, reason)) => Err(GroomError::BadRoot { index, reason }),
        None => Ok(()),
    }
}

/// A complete groom of the creature.
#[derive(Clone, Debug, PartialEq)]
pub struct Groom {
    /// The seed it was built from.
    pub seed: u64,
    /// Every root, in Morton order of its rest position (strand `i` is root `i` in the
    /// solver and the renderer).
    pub roots: Vec<StrandRoot>,
    /// Each part's measured area and Jacobian bound, in [`Part::ALL`] order (empty for a
    /// groom made [`Groom::from_roots`]).
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
        let mut groom = sampler::sample(creature, count, seed)?;
        check_roots(&groom.roots)?;
        sort_by_morton(creature, &mut groom.roots);
        Ok(groom)
    }

    /// A groom from roots made elsewhere: each is checked ([`StrandRoot::defect`]) and the
    /// roots are put in Morton order on `creature`, as [`Groom::generate`] does.
    pub fn from_roots(
        creature: &Creature,
        seed: u64,
        mut roots: Vec<StrandRoot>,
    ) -> Result<Groom, GroomError> {
        if roots.is_empty() || roots.len() > MAX_STRANDS {
            return Err(GroomError::StrandCount {
                count: roots.len(),
                max: MAX_STRANDS,
            });
        }
        check_roots(&roots)?;
        sort_by_morton(creature, &mut roots);
        Ok(Groom {
            seed,
            roots,
            areas: Vec::new(),
        })
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
