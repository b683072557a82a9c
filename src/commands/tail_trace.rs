//! `pelt tail-trace`: drives springs with a motion of the scene root and writes every
//! joint's world position per frame as CSV, to compare Pelt with other VRM tools.
//!
//! Format: a header row `frame,<spring>/<node>.x,<spring>/<node>.y,<spring>/<node>.z,...`,
//! then one row per frame `f` (from 0): `f`, then the world position (metres) of every
//! joint node of every spring in file order, the chain's end node included (a VRM 0.x
//! leaf's end is its 7 cm virtual tail). Row `f` is the pose after the root is placed at
//! `t = f/60` s and the springs are advanced by 1/60 s, as three-vrm does when a program
//! moves the model and then calls `update(1/60)`. The springs start at rest with the root at
//! its `t = 0` place. Numbers are written in full (shortest round-trip) f32 precision.

use std::io::Write;

use anyhow::Context;

use pelt::creature::{Creature, TailSettings, creature_spring_rig};
use pelt::spring::vrm_spring::BoneLength;
use pelt::spring::{ChainEnd, RootMotion, VrmSpring};

/// The command's long help: what it does and the CSV format.
pub const LONG_ABOUT: &str = "Drives the creature's tail (or, with --file, the springs of any VRM or GLB) with a motion of the scene root at 60 fps and writes a CSV.

Header: frame, then <spring>/<node>.x,.y,.z for every joint node of every spring in file order, the chain's end node included (a VRM 0.x leaf ends at its 7 cm virtual tail, named <node>+tail). Control and bidirectional characters in names are written as \\u{…}, and \\ as \\\\.
Row f: f, then each joint's world position in metres: the pose after the root is placed at t = f/60 s and the springs advanced by 1/60 s (three-vrm's order: move, then update). The springs start at rest with the root at its t = 0 place.

Bone length (--bone-length): three-vrm (the default) measures each bone against its child's last world position, as three-vrm does when a program moves the model and then calls update; rest keeps the rest pose's length, as the VRM specification's reference, UniVRM and Godot do. (three-vrm with scene.updateMatrixWorld() between the move and update follows neither exactly.)

Motion file: [{\"t\": s, \"position\": [x,y,z], \"rotation\": [x,y,z,w]}, ...], world space, positions linear and rotations slerped between keyframes, held before the first and after the last.";

/// Largest motion file read, bytes.
const MAX_MOTION_BYTES: u64 = 64 << 20;
/// Most frames one trace writes.
const MAX_FRAMES: u64 = 10_000_000;
/// Most joint–collider tests one step may make. A file within every per-item limit (16
/// chains of 1,023 joints against 4,096 colliders: 67 million tests) took 1.6 s a frame;
/// four million is about a tenth of a second a frame on a slow core, and far above real
/// avatars (a few hundred joints against a few dozen colliders).
pub const MAX_COLLIDER_TESTS_PER_STEP: u64 = 4 << 20;

/// The `--bone-length` rule (see [`BoneLength`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BoneLengthArg {
    /// Against the child's last world position (three-vrm's usual loop).
    #[default]
    #[value(name = "three-vrm")]
    ThreeVrm,
    /// The rest pose's length (the VRM specification's reference, UniVRM, Godot).
    Rest,
}

impl From<BoneLengthArg> for BoneLength {
    fn from(a: BoneLengthArg) -> Self {
        match a {
            BoneLengthArg::ThreeVrm => BoneLength::ThreeVrm,
            BoneLengthArg::Rest => BoneLength::Rest,
        }
    }
}

/// Arguments of `pelt tail-trace`.
#[derive(clap::Args, Debug)]
pub struct TailTraceArgs {
    /// The root's motion: a JSON array of world-space keyframes
    /// `[{"t": s, "position": [x,y,z], "rotation": [x,y,z,w]}]`, positions linear and
    /// rotations slerped between them, held before the first and after the last. At most 64 MiB.
    #[arg(long)]
    pub motion: std::path::PathBuf,
    /// Number of 60 fps frames to trace (1 to 10,000,000; the CSV at most 64 GiB) [default:
    /// the motion's length, through its last keyframe].
    #[arg(long)]
    pub frames: Option<u64>,
    /// Where to write the CSV (a name ending in .csv; written whole or not at all).
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Trace the springs of this VRM or GLB instead of the creature's tail.
    #[arg(long)]
    pub file: Option<std::path::PathBuf>,
    /// How each bone's length is kept: `three-vrm` (against the child's last world
    /// position) or `rest` (the rest pose's, as UniVRM and Godot keep it).
    #[arg(long, value_enum, default_value_t = BoneLengthArg::ThreeVrm)]
    pub bone_length: BoneLengthArg,
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Runs `pelt tail-trace`.
pub fn run(args: &TailTraceArgs) -> anyhow::Result<()> {
    if let Some(frames) = args.frames
        && (frames == 0 || frames > MAX_FRAMES)
    {
        anyhow::bail!("--frames is {frames}; give 1 to {MAX_FRAMES}");
    }
    crate::common::output_path::check(args)?;
    let text = pelt::files::read_text_capped(&args.motion, MAX_MOTION_BYTES, "the motion")?;
    let motion = RootMotion::from_json(&text).with_context(|| args.motion.display().to_string())?;
    let frames = match args.frames {
        Some(frames) => frames,
        None => motion_frames(&motion)?,
    };
    let rig = match &args.file {
        Some(path) => {
            let found = super::import::read_file(path)?;
            if found.springs.chains.is_empty() {
                // The import's notes say why (a one-joint spring swings nothing): the same words.
                let why: String = found.notes.iter().map(|n| format!("; {n}")).collect();
                anyhow::bail!("{} has no VRM springs to trace{why}", path.display());
            }
            found.springs
        }
        None => creature_spring_rig(&Creature::default(), &TailSettings::default())
            .context("building the creature's tail")?,
    };
    // Counted from the record, before the springs are built (see the count's doc).
    let tests = rig.collider_tests_per_step();
    if tests > MAX_COLLIDER_TESTS_PER_STEP {
        anyhow::bail!(
            "the springs would make {tests} joint–collider tests a step, more than the limit \
             {MAX_COLLIDER_TESTS_PER_STEP}; give the chains fewer joints or their groups fewer \
             colliders"
        );
    }
    let spring = VrmSpring::new(rig, motion.at(0.0)).context("starting the springs")?;
    let mut spring = spring.with_bone_length(args.bone_length.into());
    let mut header = String::from("frame");
    let rig = spring.rig();
    let names = |n: usize| rig.skeleton.nodes()[n].name.clone();
    let mut joints = 0;
    for c in &rig.chains {
        let mut nodes: Vec<String> = c.joints.iter().map(|j| names(j.node)).collect();
        nodes.push(match c.end {
            ChainEnd::Node(n) => names(n),
            ChainEnd::Virtual => format!("{}+tail", names(c.joints[c.joints.len() - 1].node)),
        });
        joints += nodes.len();
        for n in nodes {
            for axis in ["x", "y", "z"] {
                header.push(',');
                // Escaped: a name may hold an escape sequence that `cat` would send to
                // the terminal.
                let column = format!("{}/{n}.{axis}", c.name);
                header.push_str(&field(&crate::common::printable::printable(&column)));
            }
        }
    }
    let springs = rig.chains.len();
    // Row `f`: the springs stepped to frame `f`, written as `f,x,y,z,…`.
    let mut next_row = |f: u64, row: &mut String| -> anyhow::Result<()> {
        spring.step(motion.at(f as f64 / 60.0));
        row.clear();
        row.push_str(&f.to_string());
        for chain in spring.joint_positions() {
            for p in chain {
                for v in p.to_array() {
                    if !v.is_finite() {
                        anyhow::bail!(
                            "frame {f}: a joint's position became {v} (the rig's numbers overflow \
                             f32); {} was not written",
                            args.out.display()
                        );
                    }
                    row.push(',');
                    row.push_str(&v.to_string());
                }
            }
        }
        row.push('\n');
        Ok(())
    };
    // The size, known before the trace: every row as long as the first, its frame number
    // as wide as the last one's.
    let mut row = String::new();
    next_row(0, &mut row)?;
    let row_bytes = row.len() as u64 - 1 + (frames - 1).to_string().len() as u64;
    let estimate = header.len() as u64 + 1 + frames.saturating_mul(row_bytes);
    crate::common::output_size::check(
        &args.out,
        "the trace",
        estimate,
        &format!(
            "--frames {frames}: {frames} rows of {joints} joints, about {row_bytes} bytes a row"
        ),
        "trace fewer frames, or the springs of fewer joints",
    )?;
    let out = pelt::files::AtomicFile::create(&args.out, "the trace")?;
    let mut out = std::io::BufWriter::new(crate::common::output_size::Capped::new(out));
    let write_err = || format!("writing {}", args.out.display());
    writeln!(out, "{header}").with_context(write_err)?;
    out.write_all(row.as_bytes()).with_context(write_err)?;
    let mut bar = crate::common::progress::Progress::new(frames, "frames");
    bar.inc(1);
    for f in 1..frames {
        next_row(f, &mut row)?;
        out.write_all(row.as_bytes()).with_context(write_err)?;
        bar.inc(1);
    }
    bar.finish();
    let out = out
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(write_err)?;
    let written = out.written();
    out.into_inner().commit()?;
    eprintln!(
        "{joints} joints in {springs} spring{}, {frames} frame{} ({:.2} s at 60 fps): wrote {} ({})",
        if springs == 1 { "" } else { "s" },
        if frames == 1 { "" } else { "s" },
        frames as f64 / 60.0,
        crate::common::printable::printable_path(&args.out),
        crate::common::output_size::human(written)
    );
    Ok(())
}

/// Frames that trace `motion` through its last keyframe, at 60 a second (one for a motion
/// of one keyframe, or none past `t = 0`).
fn motion_frames(motion: &RootMotion) -> anyhow::Result<u64> {
    let last = motion.keys().last().map_or(0.0, |k| k.t).max(0.0);
    let frames = (last * 60.0).floor() + 1.0;
    if frames > MAX_FRAMES as f64 {
        anyhow::bail!(
            "the motion's last keyframe is at {} s, past the {MAX_FRAMES} frames a trace may have; give --frames",
            crate::common::printable::shortest(last)
        );
    }
    Ok(frames as u64)
}
