//! The default program without a display: grows the coat on the best adapter, strokes a
//! capsule hand along the creature's back with the solver `--solver` picks (beside a CPU
//! adapter the SIMD CPU solver, as every command), and reports speed and the solver's
//! invariants. With a display, `pelt` opens the petting demo instead.

use crate::common::stdout::say;
use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::hand::CapsuleScript;
use pelt::sim::{FurConfig, StrandTier};

/// Arguments of `pelt run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Number of strands (default: the adapter's tier).
    #[arg(long)]
    pub strands: Option<usize>,
    /// Seed for the groom and the idle motion.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Which solver steps the coat.
    #[command(flatten)]
    pub solver: crate::common::solver_args::SolverArgs,
}

/// Runs the default program.
pub fn run(args: &RunArgs) -> anyhow::Result<()> {
    let ctx = GpuContext::new()?;
    // Before anything is printed, so the first line never names a count the device refuses.
    super::check_strands(args.strands, &ctx)?;
    let info = ctx.info();
    let strands = args
        .strands
        .unwrap_or(StrandTier::for_device(info.device_type).strands());
    say!(
        "Pelt: {strands} strands on {} ({:?})",
        info.name,
        info.backend
    );
    let solver = args.solver.for_adapter(&ctx);
    crate::common::strand_count::check_planned(
        (strands, &format!("--strands {strands}")),
        solver,
        Some(&ctx),
        false,
    )?;
    let started = std::time::Instant::now();
    let mut sim = solver.grow(
        &FurConfig::new(strands, args.seed),
        Creature::default(),
        None,
        &ctx,
    )?;
    say!("groom and setup: {:.2} s", started.elapsed().as_secs_f64());
    let script = CapsuleScript::back_stroke(30.0, 150.0);
    let steps = 240u32;
    let started = std::time::Instant::now();
    // Up to eight steps per dispatch, as a frame of catch-up would take them.
    script.step(&mut sim, 150)?;
    let mid = sim.stats()?;
    say!(
        "mid-stroke: {} points pushed by the hand",
        mid.touched_points
    );
    script.step(&mut sim, steps - 150)?;
    let stats = sim.stats()?;
    let elapsed = started.elapsed().as_secs_f64();
    say!(
        "{steps} steps ({:.1} s simulated) in {elapsed:.2} s on the {solver} solver: {:.2} ms per step including read-backs",
        sim.time(),
        elapsed * 1e3 / f64::from(steps)
    );
    say!(
        "invariants: max stretch {:.2e} m, below floor {:.2e} m, below skin clearance {:.2e} m, max comb {:.3}, non-finite {}, strands reset {}",
        stats.max_stretch,
        stats.max_below_floor.max(0.0),
        stats.max_below_skin.max(0.0),
        stats.max_comb,
        stats.non_finite,
        stats.recovered_strands
    );
    say!(
        "(with a display, `pelt` opens the petting demo; `pelt render --out fur.png` draws the coat without one; `pelt --help` lists the other commands)"
    );
    Ok(())
}
