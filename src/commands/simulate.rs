//! `pelt simulate`: the strand solver headless, the state written as `.npy` (positions) or
//! `.npz` (positions, touched flags, comb and roots).

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::hand::CapsuleScript;
use pelt::sim::{FurConfig, FurSim, MAX_STEPS_PER_DISPATCH, StrandTier};
use std::path::{Path, PathBuf};

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
    /// A JSON capsule script moving a hand through the fur (example:
    /// assets/back_stroke.json; format in the README).
    #[arg(long)]
    pub capsule_script: Option<PathBuf>,
    /// Where to write the state: `.npy` for positions only (float32 [strands, 6, 3]),
    /// `.npz` for positions, touched, comb and roots.
    #[arg(long, default_value = "state.npy")]
    pub out: PathBuf,
    /// Which solver steps the strands.
    #[arg(long, value_enum, default_value_t = SolverArg::Gpu)]
    pub solver: SolverArg,
}

/// The output formats `--out` may name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Npy,
    Npz,
}

/// The format of `path` from its extension, or an error naming what is accepted.
fn format_of(path: &Path) -> anyhow::Result<Format> {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("npy") => Ok(Format::Npy),
        Some(e) if e.eq_ignore_ascii_case("npz") => Ok(Format::Npz),
        _ => bail!(
            "--out {}: the file name must end in .npy (positions) or .npz (positions, touched, comb, roots)",
            path.display()
        ),
    }
}

fn read_script(path: &Path) -> anyhow::Result<CapsuleScript> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading capsule script {}", path.display()))?;
    CapsuleScript::from_json(&text).with_context(|| format!("in {}", path.display()))
}

/// Runs `pelt simulate`.
pub fn run(args: &SimulateArgs) -> anyhow::Result<()> {
    // Everything that can be wrong with the input is found before any work is done.
    let format = format_of(&args.out)?;
    let script = args
        .capsule_script
        .as_deref()
        .map(read_script)
        .transpose()?;
    // Created now, so a bad path fails before a long run; removed again if the run fails.
    let file = std::fs::File::create(&args.out)
        .with_context(|| format!("cannot write --out {}", args.out.display()))?;
    let result = simulate(args, script.as_ref(), file, format);
    if result.is_err() {
        let _ = std::fs::remove_file(&args.out);
    }
    result
}

fn simulate(
    args: &SimulateArgs,
    script: Option<&CapsuleScript>,
    file: std::fs::File,
    format: Format,
) -> anyhow::Result<()> {
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
    // A bar on a terminal only: indicatif draws nothing when stderr is piped or a file.
    let bar = ProgressBar::new(u64::from(args.steps));
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} steps, {per_sec}, {eta} left")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
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
    bar.finish_and_clear();
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
    written
        .and_then(|()| std::io::Write::flush(&mut writer))
        .with_context(|| format!("writing {}", args.out.display()))?;
    let combed = comb
        .iter()
        .filter(|c| c.x != 0.0 || c.y != 0.0 || c.z != 0.0)
        .count();
    eprintln!(
        "groom and setup {:.2} s, {} steps {:.2} s; wrote {}",
        built.as_secs_f64(),
        args.steps,
        stepped.as_secs_f64(),
        args.out.display()
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
