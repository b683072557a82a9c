//! `pelt export`: writes the creature's rig with its tail spring as a GLB (or, with
//! `--vrm`, a full VRM 1.0 avatar), or the simulated coat as USD curves (`.usda`).

use crate::common::progress::Progress;
use crate::common::stdout::say;
use anyhow::{Context, bail};
use pelt::creature::{Creature, CreatureExport};

use pelt::hand::CapsuleScript;
use pelt::render::RenderSettings;
use pelt::sim::{FIXED_STEP_HZ, FurConfig, FurSim, MAX_STEPS_PER_DISPATCH, SolverKind, StrandTier};
use pelt::usd::{CoatStageWriter, StageMesh, StageTiming};
use pelt::vrm::creature_glb;
use std::io::Write;
use std::path::PathBuf;

/// The most solver steps one export takes in all (over four hours at 60 Hz).
pub const MAX_STEPS: u32 = 1_000_000;
/// The most time samples one USD export writes.
pub const MAX_FRAMES: u32 = 10_000;

/// Bytes a `.usda` coat takes besides its strands and its skin: the header and the prims'
/// declarations.
const USDA_STAGE_BYTES: u64 = 4_000;
/// Bytes the built-in creature's skin mesh takes (one pose, the renderer's tessellation).
const USDA_CREATURE_SKIN_BYTES: u64 = 3_766_000;
/// Bytes a strand's fixed attributes take in a `.usda` coat (vertex count, widths, colour,
/// root normal, random value).
const USDA_BYTES_PER_STRAND: u64 = 171;
/// Bytes one point of one time sample takes in a `.usda` coat: three shortest-form numbers
/// of about ten characters in `(x, y, z), ` with a line break every eight points.
const USDA_BYTES_PER_POINT: u64 = 42;

/// The size of a `.usda` coat of `strands` strands and `frames` time samples beside a skin
/// of `skin_bytes` ([`skin_usda_bytes`]), estimated (docs/formats.md gives the figures).
pub fn usda_bytes(strands: usize, frames: u32, skin_bytes: u64) -> u64 {
    let strands = strands as u64;
    let points = strands * pelt::sim::POINTS_PER_STRAND as u64 * u64::from(frames);
    USDA_STAGE_BYTES + skin_bytes + strands * USDA_BYTES_PER_STRAND + points * USDA_BYTES_PER_POINT
}

/// The size of the stage's skin, estimated: the creature's in one pose, or `body`'s mesh
/// with its texture coordinates posed at each of `frames` time samples.
pub fn skin_usda_bytes(body: Option<&pelt::body::BodyMesh>, frames: u32) -> u64 {
    body.map_or(USDA_CREATURE_SKIN_BYTES, |b| {
        pelt::usd::mesh_usda_bytes(b.positions.len(), b.triangles.len(), frames, true)
    })
}

/// Arguments of `pelt export`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// Where to write the file: a name ending in .glb or .vrm (the creature's rig; a .vrm
    /// name implies --vrm) or .usda (the simulated coat as USD curves and the skin as a
    /// mesh). An existing regular file is replaced only once the new one is complete;
    /// anything else is refused.
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of the groom and the idle motion (.usda); for .glb/.vrm only recorded in the
    /// file's generator string (the rig has no random part).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also write VRMC_vrm (meta with license fields and a humanoid map over the creature's
    /// skeleton), so full VRM loaders accept the file, not only spring-bone plugins. Implied
    /// by a name ending in .vrm.
    #[arg(long)]
    pub vrm: bool,
    /// .usda: strands in the coat (default: the adapter's tier; at most what it holds,
    /// `pelt info`).
    #[arg(long)]
    pub strands: Option<usize>,
    /// .usda: fixed 60 Hz solver steps before the (first) sample, counted as `pelt simulate
    /// --steps` counts them (default 90 here, 600 there: give both the same to compare).
    #[arg(long)]
    pub steps: Option<u32>,
    /// .usda: a JSON capsule script (at most 16 MiB) moving a hand through the fur, so the
    /// coat is exported mid-stroke.
    #[arg(long)]
    pub capsule_script: Option<PathBuf>,
    /// .usda: write this many time samples of the points (1 to 10,000; an animated groom),
    /// the first after --steps, then one every --every steps.
    #[arg(long)]
    pub frames: Option<u32>,
    /// .usda: solver steps between time samples (default 1; needs --frames).
    #[arg(long, requires = "frames")]
    pub every: Option<u32>,
    /// .usda: a body of the user's to grow the coat on.
    #[command(flatten)]
    pub body: crate::common::body_args::BodyArgs,
    /// .usda: which solver steps the coat.
    #[command(flatten)]
    pub solver: crate::common::solver_args::SolverArgs,
}

/// What `--out` names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Rig,
    Usda,
}

/// Runs `pelt export`.
pub fn run(args: &ExportArgs) -> anyhow::Result<()> {
    let ext = args
        .out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if let Some(e @ ("usdc" | "usd" | "usdz")) = ext.as_deref() {
        bail!(
            "cannot save the coat to {}: Pelt writes USD as text (.usda) with a small writer of its own and does not write the binary .{e} (docs/usd.md says why); write coat.usda and convert it with Pixar's tools (usdcat coat.usda -o coat.usdc, or in Python with usd-core: Usd.Stage.Open('coat.usda').Export('coat.usdc'))",
            args.out.display()
        );
    }
    let format = if ext.as_deref() == Some("usda") {
        Format::Usda
    } else {
        Format::Rig
    };
    match format {
        Format::Rig => export_rig(args),
        Format::Usda => export_usda(args),
    }
}

/// Writes the rig (.glb or .vrm).
fn export_rig(args: &ExportArgs) -> anyhow::Result<()> {
    // The name first: a bare `.usda` (a hidden file with no extension) is a bad name, not
    // a rig that was given the coat's flags.
    crate::common::output_path::check(args)?;
    let coat_only = [
        ("--strands", args.strands.is_some()),
        ("--steps", args.steps.is_some()),
        ("--capsule-script", args.capsule_script.is_some()),
        ("--frames", args.frames.is_some()),
        ("--body", args.body.body.is_some()),
        ("--groom", args.body.groom.is_some()),
        ("--solver", args.solver.solver.is_some()),
    ];
    if let Some((flag, _)) = coat_only.iter().find(|(_, given)| *given) {
        bail!(
            "{flag} applies to the coat's USD export only (--out NAME.usda), not to a .glb or .vrm rig"
        );
    }
    // A .vrm without VRMC_vrm is refused by full VRM loaders, so the name asks for it.
    let vrm = args.vrm
        || args
            .out
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("vrm"));
    let options = CreatureExport {
        seed: args.seed,
        vrm,
        ..Default::default()
    };
    let bytes = creature_glb(&Creature::default(), &options).context("exporting the creature")?;
    pelt::files::write_atomic(&args.out, "the creature", &bytes)?;
    let size = bytes.len();
    say!(
        "wrote {} ({size} bytes): the creature's skeleton, mesh and tail spring (VRMC_springBone{})",
        crate::common::printable::printable_path(&args.out),
        if vrm { " + VRMC_vrm" } else { "" }
    );
    Ok(())
}

/// Simulates the coat and writes it as USD text.
fn export_usda(args: &ExportArgs) -> anyhow::Result<()> {
    if args.vrm {
        bail!("--vrm applies to a .glb or .vrm rig, not to the coat's USD export");
    }
    // Everything that can be wrong with the input is found before any work is done.
    crate::common::output_path::check(args)?;
    let steps = args.steps.unwrap_or(90);
    let frames = args.frames.unwrap_or(1);
    let every = args.every.unwrap_or(1);
    if !(1..=MAX_FRAMES).contains(&frames) {
        bail!("--frames {frames}: give 1 to {MAX_FRAMES} time samples");
    }
    if every == 0 {
        bail!("--every must be at least 1 step");
    }
    let total = u64::from(steps) + u64::from(frames - 1) * u64::from(every);
    if total > u64::from(MAX_STEPS) {
        bail!(
            "--steps {steps} --frames {frames} --every {every}: {total} steps in all, at most {MAX_STEPS}"
        );
    }
    if args.strands == Some(0) {
        bail!("--strands must be at least 1");
    }
    let script = args
        .capsule_script
        .as_deref()
        .map(super::read_capsule_script)
        .transpose()?;
    let body = args.body.load(args)?;
    if let Some(b) = &body {
        eprintln!("body: {}", b.summary);
    }
    // The file's size, known before any work (with the tier's count once the adapter is
    // known, when --strands is not given).
    let skin_bytes = skin_usda_bytes(body.as_ref().map(|b| &*b.body.mesh), frames);
    let check_size = |strands: usize| {
        crate::common::output_size::check(
            &args.out,
            "the coat",
            usda_bytes(strands, frames, skin_bytes),
            &format!(
                "--strands {strands} --frames {frames}: {strands} strands × {frames} sample{} × {} points × about {USDA_BYTES_PER_POINT} bytes{}",
                if frames == 1 { "" } else { "s" },
                pelt::sim::POINTS_PER_STRAND,
                match &body {
                    Some(b) => format!(
                        ", and the body's {} vertices × {frames} sample{} for its mesh",
                        b.body.mesh.positions.len(),
                        if frames == 1 { "" } else { "s" },
                    ),
                    None => String::new(),
                }
            ),
            "write fewer samples (--frames, with a larger --every for the same span) or fewer strands",
        )
    };
    if let Some(strands) = args.strands {
        check_size(strands)?;
    }
    // Opened now, beside the output, so an unwritable folder fails before the simulation.
    let file = pelt::files::AtomicFile::create(&args.out, "the coat")?;

    let started = std::time::Instant::now();
    // The CPU solver needs no adapter: `--solver cpu`, or `auto` where there is none.
    let (ctx, solver) = args.solver.open()?;
    // The GPU solver holds what its device binds; the CPU solver what memory holds.
    let strands = match (&ctx, solver) {
        (Some(ctx), SolverKind::Gpu) => {
            super::check_strands(args.strands, ctx)?;
            args.strands
                .unwrap_or(StrandTier::for_device(ctx.info().device_type).strands())
        }
        _ => args.strands.unwrap_or(StrandTier::Cpu.strands()),
    };
    // The coat as grown (a groom file may set its count), refused before it is grown.
    let (planned, what) =
        crate::common::strand_count::planned(strands, body.as_ref().map(|b| &b.body));
    crate::common::strand_count::check_planned((planned, &what), solver, ctx.as_ref(), false)?;
    check_size(planned)?;
    let creature = Creature::default();
    let mut sim =
        crate::common::progress::while_doing(&format!("growing {planned} strands"), || {
            let config = FurConfig::new(strands, args.seed);
            match &body {
                Some(b) => crate::common::solver_args::grow(
                    solver,
                    ctx.as_ref(),
                    &b.on_its_floor(config),
                    Some(b.body.clone()),
                ),
                None => crate::common::solver_args::grow(solver, ctx.as_ref(), &config, None),
            }
        })?;
    // A groom file's count or density, or a file of strands, sets the count.
    let strands = sim.groom().len();
    check_size(strands)?;
    let mut bar = Progress::new(total, "steps");
    advance(&mut sim, script.as_ref(), steps, &mut bar)?;

    // The time codes of the samples: the solver's step counts after --steps, then every
    // --every steps.
    let times: Vec<f64> = (0..frames)
        .map(|k| f64::from(steps) + f64::from(k) * f64::from(every))
        .collect();
    let pose = sim.pose_at(sim.time());
    let (skin, curves) = match (&body, sim.body_groom()) {
        (Some(b), Some(groom)) => body_coat(&b.body, groom, &sim, times)?,
        _ => (
            StageMesh::from(&pelt::usd::skin_mesh(&creature, &pose, 1.0)),
            pelt::usd::coat_curves(&sim.groom().roots, &pose, &RenderSettings::default()),
        ),
    };
    let timing = StageTiming {
        start: f64::from(steps),
        end: total as f64,
        per_second: FIXED_STEP_HZ,
    };
    let doc = format!(
        "Pelt {}: {strands} strands, seed {}, {steps} steps{}{}",
        env!("CARGO_PKG_VERSION"),
        args.seed,
        if frames > 1 {
            format!(", {frames} samples every {every} steps")
        } else {
            String::new()
        },
        if script.is_some() {
            ", under a capsule script"
        } else {
            ""
        }
    );
    let mut writing = std::time::Duration::ZERO;
    let write_error = || format!("cannot save the coat to {}", args.out.display());
    let clock = std::time::Instant::now();
    let mut stage = CoatStageWriter::begin_with_mesh(
        std::io::BufWriter::with_capacity(1 << 20, crate::common::output_size::Capped::new(file)),
        timing,
        &skin,
        &curves,
        frames > 1,
        &doc,
    )
    .with_context(write_error)?;
    writing += clock.elapsed();
    for frame in 0..frames {
        if frame > 0 {
            advance(&mut sim, script.as_ref(), every, &mut bar)?;
        }
        let positions = sim.positions()?;
        let clock = std::time::Instant::now();
        stage
            .points(sim.steps() as f64, &positions)
            .with_context(write_error)?;
        writing += clock.elapsed();
    }
    bar.finish();
    let clock = std::time::Instant::now();
    let mut out = stage.finish().with_context(write_error)?;
    out.flush().with_context(write_error)?;
    let file = out
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(write_error)?
        .into_inner();
    file.commit()?;
    writing += clock.elapsed();
    let size = std::fs::metadata(&args.out).map_or(0, |m| m.len());
    eprintln!(
        "{strands} strands{}, {total} steps on the {solver} solver{}, {frames} sample{}: wrote {} ({:.2} MB, estimated {:.2} MB) in {:.2} s, {:.2} s of it writing",
        super::beyond_full_coat(strands),
        ctx.as_ref()
            .map(|c| format!(" (adapter {})", c.info().name))
            .unwrap_or_default(),
        if frames == 1 { "" } else { "s" },
        crate::common::printable::printable_path(&args.out),
        size as f64 / 1e6,
        usda_bytes(strands, frames, skin_bytes) as f64 / 1e6,
        started.elapsed().as_secs_f64(),
        writing.as_secs_f64()
    );
    Ok(())
}

/// A body's coat for the stage: the body posed at each of `times` (time codes) on the
/// solver's clock, so the strands' roots lie on the written mesh at every sample, and the
/// curves' fixed attributes, each strand in its root's own colour with the skin's normal at
/// its root in the first sample's pose.
fn body_coat<'a>(
    body: &'a pelt::sim::FurBody,
    groom: &pelt::groom::BodyGroom,
    sim: &FurSim,
    times: Vec<f64>,
) -> anyhow::Result<(StageMesh<'a>, pelt::usd::CoatCurves)> {
    // The solver poses the body for the step that ends at time code `t` at `t / 60` seconds
    // (its clock starts at 0 and counts exactly steps / 60), so the export does too.
    let pose_at = move |t: f64| body.motion.pose_at(t / FIXED_STEP_HZ);
    let first = pose_at(times.first().copied().unwrap_or_default());
    let normals: Vec<glam::Vec3> = (0..body.mesh.positions.len())
        .map(|v| first.skin_vertex(&body.mesh, v).1)
        .collect();
    let skin = pelt::usd::body_skin(&body.mesh, times, pose_at)
        .context("writing the body as the stage's mesh")?;
    let mut curves = pelt::usd::coat_curves(
        &sim.groom().roots,
        &sim.pose_at(sim.time()),
        &RenderSettings::default(),
    );
    curves.colors = groom.roots.iter().map(|r| r.color).collect();
    curves.root_normals = groom
        .roots
        .iter()
        .map(|r| root_normal(&body.mesh, &normals, r))
        .collect();
    Ok((skin, curves))
}

/// The skin's unit normal at `root`: `normals` (one a vertex, posed) blended by the root's
/// barycentrics in its triangle, as a renderer interpolates the mesh's normals there; the
/// rest normal where the triangle is missing or the blend vanishes.
fn root_normal(
    mesh: &pelt::body::BodyMesh,
    normals: &[glam::Vec3],
    root: &pelt::groom::BodyRoot,
) -> glam::Vec3 {
    let Some(triangle) = mesh.triangles.get(root.triangle as usize) else {
        return root.normal;
    };
    let blend = triangle
        .iter()
        .zip(root.barycentric.to_array())
        .map(|(&v, w)| normals.get(v as usize).copied().unwrap_or(root.normal) * w)
        .sum::<glam::Vec3>();
    blend.normalize_or(root.normal)
}

/// Takes `n` solver steps, under `script` when there is one, in dispatch-sized runs.
fn advance(
    sim: &mut FurSim,
    script: Option<&CapsuleScript>,
    n: u32,
    bar: &mut Progress,
) -> anyhow::Result<()> {
    let mut left = n;
    while left > 0 {
        let k = left.min(MAX_STEPS_PER_DISPATCH as u32);
        match script {
            Some(s) => s.step(sim, k)?,
            None => sim.step(k)?,
        }
        bar.inc(u64::from(k));
        left -= k;
    }
    Ok(())
}
