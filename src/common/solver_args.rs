//! `--solver` for the commands that step a coat headless (`simulate`, `render`, `export`).

use pelt::sim::SolverKind;

/// Which solver steps the coat.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct SolverArgs {
    /// Which solver steps the coat: gpu (WGSL compute on the best adapter), cpu (the SIMD
    /// solver on this machine's cores) or auto, the default (cpu beside a CPU adapter such
    /// as lavapipe, where it is many times faster, and, for `simulate`, where no adapter
    /// opens; gpu elsewhere). Both give the creature's coat to within rounding; on a body,
    /// whose distance field pushes strands out of it, a few strands may come to rest apart
    /// (millimetres; on a walking body up to about 2 cm). Each gives the same bits for the
    /// same seed.
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
    pub fn for_adapter(&self, ctx: &pelt::gpu::GpuContext) -> SolverKind {
        self.kind().for_adapter(&ctx.info())
    }
}
