//! `pelt simulate`: the strand solver headless, the state written as `.npy` (positions) or
//! `.npz` (positions, touched flags, comb and roots).

use crate::common::progress::Progress;
use crate::common::strand_count::check_cpu_strands;
use anyhow::{Context, bail};
use pelt::hand::CapsuleScript;

use pelt::sim::{FurConfig, MAX_STEPS_PER_DISPATCH, SolverKind, StrandTier};
use std::path::{Path, PathBuf};

/// Arguments of `pelt simulate`.
#[derive(clap::Args, Debug)]
pub struct SimulateArgs {
    /// Number of strands (default: the adapter's tier on the GPU solver, the CPU tier on
    /// the CPU solver). On the GPU solver at most what the adapter holds (`pelt info`); on
    /// the CPU solver at most 16,777,216 and what the machine's free memory holds (about
    /// 4 KiB a strand).
    #[arg(long)]
    pub strands: Option<usize>,
    /// Fixed 60 Hz steps to take, at most 1,000,000.
    #[arg(long, default_value_t = 600)]
    pub steps: u32,
    /// Seed for the groom and the idle motion.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A JSON capsule script moving a hand through the fur, at most 16 MiB (example:
    /// assets/back_stroke.json; format in docs/formats.md).
    #[arg(long)]
    pub capsule_script: Option<PathBuf>,
    /// Where to write the state: `.npy` for positions only (float32 [strands, 6, 3]),
    /// `.npz` for positions, touched, comb and roots. An existing regular file is replaced
    /// only once the run succeeds; anything else (a device, a link) is refused.
    #[arg(long, default_value = "state.npy")]
    pub out: PathBuf,
    /// Which solver steps the strands.
    #[command(flatten)]
    pub solver: crate::common::solver_args::SolverArgs,
    /// The coat's density and velocity grid.
    #[command(flatten)]
    pub volume: VolumeArgs,
    /// A body of the user's to grow the coat on.
    #[command(flatten)]
    pub body: crate::common::body_args::BodyArgs,
}

pub use crate::common::volume_args::VolumeArgs;

/// The most steps one run takes (over four hours of simulated time at 60 Hz).
pub const MAX_STEPS: u32 = 1_000_000;

/// The output formats `--out` may name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Npy,
    Npz,
}

/// The format of `path` from its extension (checked to be one of the two before).
fn format_of(path: &Path) -> Format {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("npz") => Format::Npz,
        _ => Format::Npy,
    }
}

/// Runs `pelt simulate`.
pub fn run(args: &SimulateArgs) -> anyhow::Result<()> {
    // Everything that can be wrong with the input is found before any work is done.
    crate::common::output_path::check(args)?;
    let format = format_of(&args.out);
    if args.steps > MAX_STEPS {
        bail!("--steps {}: at most {MAX_STEPS}", args.steps);
    }
    args.volume.check_for_run()?;
    if args.solver.kind() == SolverKind::Cpu
        && let Some(n) = args.strands
    {
        check_cpu_strands(n, &format!("--strands {n}"), None)?;
    }
    let script = args
        .capsule_script
        .as_deref()
        .map(super::read_capsule_script)
        .transpose()?;
    // Opened now, beside the output, so an unwritable folder fails before a long run; it
    // replaces the output only when complete, and vanishes if the run fails.
    let body = args.body.load(args)?;
    let file = pelt::files::AtomicFile::create(&args.out, "the state")?;
    simulate(args, script.as_ref(), body, file, format)
}

fn simulate(
    args: &SimulateArgs,
    script: Option<&CapsuleScript>,
    body: Option<crate::common::body_args::RunBody>,
    file: pelt::files::AtomicFile,
    format: Format,
) -> anyhow::Result<()> {
    if let Some(b) = &body {
        eprintln!("body: {}", b.summary);
    }
    let on_body = body.map(|b| b.body);
    let started = std::time::Instant::now();
    // The CPU solver needs no adapter: `--solver cpu`, or `auto` where there is none.
    let (ctx, solver) = args.solver.open()?;
    let gpu = ctx.as_ref().filter(|_| solver == SolverKind::Gpu);
    if let Some(ctx) = gpu {
        super::check_strands(args.strands, ctx)?;
    }
    let strands = args.strands.unwrap_or(match gpu {
        Some(ctx) => StrandTier::for_device(ctx.info().device_type).strands(),
        None => StrandTier::Cpu.strands(),
    });
    // The coat as grown (a groom file may set its count), refused before it is grown.
    let (planned, what) = crate::common::strand_count::planned(strands, on_body.as_ref());
    crate::common::strand_count::check_planned((planned, &what), solver, ctx.as_ref(), false)?;
    let mut config = args.volume.apply(FurConfig::new(strands, args.seed));
    if let Some(b) = &on_body {
        config = crate::common::body_args::on_floor(config, b);
    }
    let mut sim = crate::common::solver_args::grow(solver, ctx.as_ref(), &config, on_body)?;
    // The count grown, which a groom file's density or count sets on a body.
    let grown = sim.groom().len();
    match gpu {
        Some(ctx) => eprintln!(
            "solver: GPU on {} ({grown} strands{})",
            ctx.info().name,
            super::beyond_full_coat(grown)
        ),
        None => eprintln!(
            "solver: CPU ({grown} strands{})",
            super::beyond_full_coat(grown)
        ),
    }
    if args.volume.on() {
        let settle = pelt::sim::SETTLE_STEPS;
        eprintln!(
            "{} from step {settle}{}",
            args.volume
                .describe(sim.gpu_roots().len())
                .trim_start_matches(", "),
            if u64::from(args.steps) <= settle {
                format!(" (this run stops at step {}, before it starts)", args.steps)
            } else {
                String::new()
            }
        );
    }
    let built = started.elapsed();
    let mut bar = Progress::new(u64::from(args.steps), "steps");
    let mut left = args.steps;
    while left > 0 {
        let n = left.min(MAX_STEPS_PER_DISPATCH as u32);
        match script {
            Some(s) => s.step(&mut sim, n)?,
            None => sim.step(n)?,
        }
        bar.inc(u64::from(n));
        left -= n;
    }
    bar.finish();
    let positions = sim.positions()?;
    let comb = sim.comb()?;
    let stats = sim.stats()?;
    let stepped = started.elapsed() - built;
    let mut writer = std::io::BufWriter::new(file);
    let written = match format {
        Format::Npy => pelt::npy::write_positions(&mut writer, &positions),
        Format::Npz => pelt::npy::write_npz(
            &mut writer,
            &pelt::npy::StrandState {
                positions: &positions,
                comb: &comb,
            },
        ),
    };
    let file = written
        .and_then(|()| writer.into_inner().map_err(|e| e.into_error()))
        .with_context(|| format!("cannot save the state to {}", args.out.display()))?;
    file.commit()?;
    let combed = comb
        .iter()
        .filter(|c| c.x != 0.0 || c.y != 0.0 || c.z != 0.0)
        .count();
    eprintln!(
        "groom and setup {:.2} s, {} steps {:.2} s; wrote {}",
        built.as_secs_f64(),
        args.steps,
        stepped.as_secs_f64(),
        crate::common::printable::printable_path(&args.out)
    );
    if script.is_some() {
        eprintln!(
            "the hand touched {} points in the last step; {combed} strands carry its comb",
            stats.touched_points
        );
    }
    if stats.recovered_strands > 0 {
        eprintln!(
            "warning: {} strands went non-finite and were reset to rest",
            stats.recovered_strands
        );
    }
    Ok(())
}
