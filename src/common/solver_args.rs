//! `--solver` for the commands that step a coat headless (`simulate`, `render`, `export`,
//! `run`): which solver, the adapter it steps beside, and the coat grown on it.

use pelt::creature::Creature;
use pelt::gpu::{GpuContext, GpuError};
use pelt::sim::{FurBody, FurConfig, FurSim, SimError, SolverKind};

/// Which solver steps the coat.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct SolverArgs {
    /// Which solver steps the coat: gpu (WGSL compute on the best adapter), cpu (the SIMD
    /// solver on this machine's cores) or auto, the default (cpu beside a CPU adapter such
    /// as lavapipe, where it is many times faster, and, for `simulate` and `export`, where
    /// no adapter is found; gpu elsewhere). Both give the creature's coat to within
    /// rounding; on a body, whose distance field pushes strands out of it, a few strands
    /// may come to rest apart (millimetres; on a walking body up to about 2 cm). Each gives
    /// the same bits for the same seed.
    #[arg(long, value_parser = solver_kind())]
    pub solver: Option<SolverKind>,
}

/// `--solver`'s parser: the names clap lists when the value is missing or wrong.
fn solver_kind() -> impl clap::builder::TypedValueParser<Value = SolverKind> {
    use clap::builder::TypedValueParser;
    let names = [SolverKind::Gpu, SolverKind::Cpu, SolverKind::Auto].map(SolverKind::name);
    clap::builder::PossibleValuesParser::new(names).try_map(|name| name.parse::<SolverKind>())
}

impl SolverArgs {
    /// The solver asked for: `auto` when none was.
    pub fn kind(&self) -> SolverKind {
        self.solver.unwrap_or(SolverKind::Auto)
    }

    /// The solver `kind` means beside `ctx`'s adapter.
    pub fn for_adapter(&self, ctx: &GpuContext) -> SolverKind {
        self.kind().for_adapter(&ctx.info())
    }

    /// For a command that needs no adapter of its own: the adapter the solver asked for
    /// steps on (none for `cpu`), and the solver. `auto` opens one to decide and, where
    /// there is none at all, says so and takes the CPU solver; an adapter asked for by
    /// `WGPU_ADAPTER_NAME` that is not there, or a bad `WGPU_BACKEND`, stays an error (the
    /// user asked for something else).
    pub fn open(&self) -> anyhow::Result<(Option<GpuContext>, SolverKind)> {
        Ok(match self.kind() {
            SolverKind::Cpu => (None, SolverKind::Cpu),
            kind => match GpuContext::new() {
                Ok(ctx) => {
                    let solver = kind.for_adapter(&ctx.info());
                    (Some(ctx), solver)
                }
                Err(e @ GpuError::NoAdapter { .. }) if kind == SolverKind::Auto => {
                    eprintln!("{e}\nThe CPU solver steps the coat.");
                    (None, SolverKind::Cpu)
                }
                Err(e) => return Err(e.into()),
            },
        })
    }
}

/// Grows the coat of `config` (on `body`, or the creature) on `solver` as
/// [`SolverArgs::open`] resolved it: beside `ctx`'s adapter, or on the CPU where there is
/// none.
pub fn grow(
    solver: SolverKind,
    ctx: Option<&GpuContext>,
    config: &FurConfig,
    body: Option<FurBody>,
) -> Result<FurSim, SimError> {
    match (ctx, body) {
        (Some(ctx), body) => solver.grow(config, Creature::default(), body, ctx),
        (None, Some(body)) => FurSim::new_cpu_on_body(config, body),
        (None, None) => FurSim::new_cpu(config, Creature::default()),
    }
}
