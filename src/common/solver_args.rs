//! `--solver` for the commands that step a coat headless (`simulate`, `render`, `export`).

use pelt::sim::SolverKind;

/// Which solver steps the coat.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct SolverArgs {
    /// Which solver steps the coat: gpu (WGSL compute on the best adapter), cpu (the SIMD
    /// solver on this machine's cores) or auto (cpu beside a CPU adapter such as lavapipe,
    /// where it is many times faster, and for `simulate` where there is no adapter; gpu
    /// elsewhere). Either gives the same coat to within rounding; each, the same bits for
    /// the same seed.
    #[arg(long, default_value = "auto")]
    pub solver: SolverKind,
}
