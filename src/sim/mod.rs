//! The strand solver: parameters, the per-step uniforms shared with WGSL, the GPU solver and
//! its CPU mirror behind one step API, the fixed-step clock, strand-count tiers, and
//! [`FurSim`], which ties the creature, the groom and a solver together.

mod clock;
mod contact;
mod cpu;
mod fur;
mod gpu_solver;
mod layout;
mod params;
mod script;
mod stats;
mod tier;

pub use clock::{FIXED_STEP_HZ, MAX_FRAME_SECONDS, StepClock, TimeMode};
pub use contact::{Capsule, ContactMode, HandContact};
pub use cpu::{CpuSolver, rest_positions};
pub use fur::{FurConfig, FurSim, SolverKind};
pub use gpu_solver::{
    GpuSolver, MAX_STEPS_PER_SUBMIT, POSITION_BYTES_PER_STRAND, STRAND_STEP_WGSL, WORKGROUP_SIZE,
    max_strands, read_buffer,
};
pub use layout::{GpuCapsule, GpuRoot, MAX_CAPSULES, POINTS_PER_STRAND, StepUniforms};
pub use params::FurParams;
pub use script::{CapsuleKey, CapsuleScript, ScriptError, ScriptedCapsule};
pub use stats::StrandStats;
pub use tier::{StrandTier, bytes_per_strand};

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
    /// More steps recorded into one submission than there are uniform slots.
    #[error("{count} steps in one submission; at most {max}: submit and record the rest")]
    TooManySteps {
        /// Steps asked for.
        count: usize,
        /// Slots available.
        max: usize,
    },
    /// A frame time that is NaN or infinite.
    #[error("frame time {0} s is not a finite number")]
    FrameTime(f64),
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
    /// The latest positions: six per strand, xyz world position, w 1 where the hand
    /// touched the point in the last step.
    fn positions(&mut self) -> Result<Vec<Vec4>, SimError>;
    /// The comb vectors: one per strand, xyz in the root's part space.
    fn comb(&mut self) -> Result<Vec<Vec4>, SimError>;
}
