//! `pelt simulate`: the strand solver headless, positions written as `.npy`.

use anyhow::Context;
use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::sim::{CapsuleScript, FurConfig, FurSim, StrandTier};
use std::path::PathBuf;

/// Which solver `--solver` picks.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverArg {
    /// WGSL compute on the best adapter.
    Gpu,
    /// The CPU mirror.
    Cpu,
}

/// Arguments of `pelt simulate`.
#[derive(clap::Args, Debug)]
pub struct SimulateArgs {
    /// Number of strands (default: the adapter's tier; the CPU tier for --solver cpu).
    #[arg(long)]
    pub strands: Option<usize>,
    /// Fixed 60 Hz steps to take.
    #[arg(long, default_value_t = 600)]
    pub steps: u32,
    /// Seed for the groom and the idle motion.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A JSON capsule script moving a hand through the fur (see `pelt::sim::CapsuleScript`).
    #[arg(long)]
    pub capsule_script: Option<PathBuf>,
    /// Where to write the positions: float32, shape [strands, 6, 3].
    #[arg(long, default_value = "state.npy")]
    pub out: PathBuf,
    /// Which solver steps the strands.
    #[arg(long, value_enum, default_value_t = SolverArg::Gpu)]
    pub solver: SolverArg,
}

/// Runs `pelt simulate`.
pub fn run(args: &SimulateArgs) -> anyhow::Result<()> {
    let script = match &args.capsule_script {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading capsule script {}", path.display()))?;
            Some(CapsuleScript::from_json(&text)?)
        }
        None => None,
    };
    let creature = Creature::default();
    let started = std::time::Instant::now();
    let mut sim = match args.solver {
        SolverArg::Gpu => {
            let ctx = GpuContext::new()?;
            let strands = args
                .strands
                .unwrap_or(StrandTier::for_device(ctx.info().device_type).strands());
            eprintln!("adapter: {} ({strands} strands)", ctx.info().name);
            FurSim::new_gpu(&FurConfig::new(strands, args.seed), creature, &ctx)?
        }
        SolverArg::Cpu => {
            let strands = args.strands.unwrap_or(StrandTier::Cpu.strands());
            eprintln!("solver: CPU ({strands} strands)");
            FurSim::new_cpu(&FurConfig::new(strands, args.seed), creature)?
        }
    };
    let built = started.elapsed();
    for step in 0..args.steps {
        if let Some(s) = &script {
            sim.set_contact(Some(s.contact_at(f64::from(step) + 1.0)))?;
        }
        sim.step(1)?;
    }
    let positions = sim.positions()?;
    let stepped = started.elapsed() - built;
    let file = std::fs::File::create(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let mut writer = std::io::BufWriter::new(file);
    pelt::npy::write_positions(&mut writer, &positions)
        .with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!(
        "groom and setup {:.2} s, {} steps {:.2} s; wrote {}",
        built.as_secs_f64(),
        args.steps,
        stepped.as_secs_f64(),
        args.out.display()
    );
    Ok(())
}
