//! The strand solver: parameters, the per-step uniforms shared with WGSL, the GPU solver and
//! its CPU mirror behind one step API, the fixed-step clock, strand-count tiers, and
//! [`FurSim`], which ties the creature, the groom and a solver together.

mod body_field;
mod clock;
mod contact;
mod cpu;
mod fur;
mod gpu_solver;
mod layout;
mod params;
mod reference;
mod simd;
mod skinned;
mod solver_kind;
mod stats;
mod tier;
pub mod volume;

pub use body_field::{
    CANDIDATES, FieldSteps, GpuGridFrame, NO_GRID, candidate_grids, field_sample, grid_frames,
};
pub use clock::{FIXED_STEP_HZ, MAX_FRAME_SECONDS, StepClock, TimeMode};
pub(crate) use contact::within_reach;
pub use contact::{Capsule, ContactMode, HandContact, MAX_CAPSULE_REACH};
pub use cpu::{CpuPath, CpuSolver};
pub use fur::{FurBody, FurConfig, FurSim, SETTLE_STEPS, StepInput};
pub use gpu_solver::{
    GpuSolver, MAX_STEPS_PER_SUBMIT, POSITION_BYTES_PER_STRAND, WORKGROUP_SIZE, max_strands,
};
pub use layout::{
    GUST_RATES, GpuCapsule, GpuRoot, MAX_CAPSULES, MAX_STEPS_PER_DISPATCH, POINTS_PER_STRAND,
    SEGMENTS, StepBatch, StepUniforms, gpu_roots, gust_spatial_phases,
};
pub use params::FurParams;
pub use reference::{
    GridView, rest_positions, rest_positions_on, step_strand, step_strand_in, step_strand_skinned,
};
pub use simd::{LANES, StepCapsules, step_lanes, step_lanes_skinned};
pub use skinned::{
    GpuRootBinding, SPACE_SKINNED, SkinnedSteps, StrandSkin, is_skinned, skin_vertices,
    skinned_root, skinned_roots, triangle_frame,
};
pub use solver_kind::SolverKind;
pub use stats::StrandStats;
pub use tier::{StrandTier, bytes_per_strand, dispatch_traffic_per_strand};
pub use volume::{VolumeSettings, VolumeUniforms};

use glam::Vec4;
use thiserror::Error;

/// What went wrong in the solver.
#[derive(Debug, Error)]
pub enum SimError {
    /// A parameter was NaN, infinite or out of its range.
    #[error("parameter `{name}` is {value}: expected {expected}")]
    Parameter {
        /// Which parameter.
        name: &'static str,
        /// Its value.
        value: f32,
        /// What it should be.
        expected: &'static str,
    },
    /// A whole-number parameter out of its range (named with its exact value, which an
    /// `f32` would round past 2²⁴).
    #[error("parameter `{name}` is {value}: expected {expected}")]
    WholeParameter {
        /// Which parameter.
        name: &'static str,
        /// Its value.
        value: u64,
        /// What it should be.
        expected: &'static str,
    },
    /// Zero strands, or more than this device (or the groom) can hold.
    #[error(
        "strand count {count} is out of range: this device holds 1 to {max} strands (try a smaller --strands)"
    )]
    StrandCount {
        /// What was asked for.
        count: usize,
        /// The most accepted.
        max: usize,
    },
    /// A state array of the wrong length was given.
    #[error("state has {got} points, expected {expected} (six per strand)")]
    StateSize {
        /// Points expected.
        expected: usize,
        /// Points given.
        got: usize,
    },
    /// A body's bindings or posed vertices that do not match its roots or its steps.
    #[error("the body's {what} has {got} entries, expected {expected}")]
    BodySize {
        /// Which array.
        what: &'static str,
        /// Entries expected.
        expected: usize,
        /// Entries given.
        got: usize,
    },
    /// More capsules than a step can carry.
    #[error("the hand has {count} capsules; at most {max} are supported")]
    TooManyCapsules {
        /// Capsules given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A capsule with a non-finite number or a non-positive radius.
    #[error(
        "capsule {index} has a non-finite position, axis or velocity, or a radius that is not positive"
    )]
    BadCapsule {
        /// Its index.
        index: usize,
    },
    /// A capsule reaching past [`MAX_CAPSULE_REACH`] from the origin.
    #[error(
        "capsule {index} reaches {reach:e} m from the origin; at most {max:e} m",
        max = MAX_CAPSULE_REACH
    )]
    CapsuleOutOfReach {
        /// Its index.
        index: usize,
        /// How far it reaches on its farthest axis, metres.
        reach: f32,
    },
    /// More steps recorded into one dispatch than its uniforms hold.
    #[error(
        "{count} steps in one dispatch; at most {max} (a dispatch's slots, or with the volume \
         grid on the steps until its next splat): submit and record the rest"
    )]
    TooManySteps {
        /// Steps asked for.
        count: usize,
        /// Slots available.
        max: usize,
    },
    /// A strand index past the last strand.
    #[error("strand {strand} does not exist: there are {count}")]
    NoSuchStrand {
        /// The index given.
        strand: usize,
        /// Strands there are.
        count: usize,
    },
    /// A frame time that is NaN or infinite.
    #[error("frame time {0} s is not a finite number")]
    FrameTime(f64),
    /// The body's distance field could not be built.
    #[error(transparent)]
    BodyField(#[from] crate::body::DistanceError),
    /// The groom could not be built.
    #[error(transparent)]
    Groom(#[from] crate::groom::GroomError),
    /// No GPU could be opened.
    #[error(transparent)]
    NoGpu(#[from] crate::gpu::GpuError),
    /// The GPU reported an error (validation, out of memory, lost device, mapping).
    #[error("GPU error: {0}")]
    Gpu(String),
}

/// One step API for the GPU solver and its CPU mirror.
pub trait StrandSolver {
    /// Number of strands.
    fn strand_count(&self) -> usize;
    /// Advances one step per entry of `steps`, in order.
    fn step(&mut self, steps: &[StepUniforms]) -> Result<(), SimError>;
    /// Turns the volume grid on (with these settings) or off for the steps that follow. On,
    /// the grid is splatted from every [`volume::VolumeSettings::stride`]-th strand before
    /// the next step and then every [`volume::VolumeSettings::interval`] steps, counted by
    /// the solver whatever the batches (settings for the same grid keep the count); the
    /// step after a splat reads it, the others step each strand alone.
    fn set_volume(&mut self, volume: Option<volume::VolumeSettings>) -> Result<(), SimError>;
    /// The latest positions: six per strand, xyz world position, w 1 where the hand
    /// touched the point in the last step.
    fn positions(&mut self) -> Result<Vec<Vec4>, SimError>;
    /// The comb vectors: one per strand, xyz in the root's part space.
    fn comb(&mut self) -> Result<Vec<Vec4>, SimError>;
    /// Strands reset to rest because their state was not finite, since the solver was made.
    fn recovered(&mut self) -> Result<u64, SimError>;
    /// Overwrites one strand's latest and previous positions with `points` (six), as a
    /// restore does; a test injects bad numbers this way. The next step uses them.
    fn set_strand(&mut self, strand: usize, points: &[Vec4]) -> Result<(), SimError>;
}

/// The points of `strand` among `count` strands, after checking that `points` is one
/// strand's worth and `strand` exists.
pub(crate) fn strand_range(
    strand: usize,
    count: usize,
    points: &[Vec4],
) -> Result<std::ops::Range<usize>, SimError> {
    if points.len() != POINTS_PER_STRAND {
        return Err(SimError::StateSize {
            expected: POINTS_PER_STRAND,
            got: points.len(),
        });
    }
    if strand >= count {
        return Err(SimError::NoSuchStrand { strand, count });
    }
    Ok(strand * POINTS_PER_STRAND..(strand + 1) * POINTS_PER_STRAND)
}
