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
    /// Number of 60 fps frames to trace (1 to 10,000,000).
    #[arg(long)]
    pub frames: u64,
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
    if args.frames == 0 || args.frames > MAX_FRAMES {
        anyhow::bail!("--frames is {}; give 1 to {MAX_FRAMES}", args.frames);
    }
    let mut inputs = vec![args.motion.as_path()];
    inputs.extend(args.file.as_deref());
    pelt::files::check_output(&args.out, "the trace", &["csv"], &inputs)?;
    let text = pelt::files::read_text_capped(&args.motion, MAX_MOTION_BYTES, "the motion")?;
    let motion = RootMotion::from_json(&text).with_context(|| args.motion.display().to_string())?;
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
    let spring = VrmSpring::new(rig, motion.at(0.0)).context("starting the springs")?;
    let tests = spring.collider_tests_per_step();
    if tests > MAX_COLLIDER_TESTS_PER_STEP {
        anyhow::bail!(
            "the springs would make {tests} joint–collider tests a step, more than the limit \
             {MAX_COLLIDER_TESTS_PER_STEP}; give the chains fewer joints or their groups fewer \
             colliders"
        );
    }
    let mut spring = spring.with_bone_length(args.bone_length.into());
    let out = pelt::files::AtomicFile::create(&args.out, "the trace")?;
    let mut out = std::io::BufWriter::new(out);
    let write_err = || format!("writing {}", args.out.display());
    let mut header = String::from("frame");
    let rig = spring.rig();
    let names = |n: usize| rig.skeleton.nodes()[n].name.clone();
    for c in &rig.chains {
        let mut nodes: Vec<String> = c.joints.iter().map(|j| names(j.node)).collect();
        nodes.push(match c.end {
            ChainEnd::Node(n) => names(n),
            ChainEnd::Virtual => format!("{}+tail", names(c.joints[c.joints.len() - 1].node)),
        });
        for n in nodes {
            for axis in ["x", "y", "z"] {
                header.push(',');
                // Escaped: a name may hold an escape sequence that `cat` would send to
                // the terminal.
                let column = format!("{}/{n}.{axis}", c.name);
                header.push_str(&field(&super::printable::printable(&column)));
            }
        }
    }
    writeln!(out, "{header}").with_context(write_err)?;
    let mut row = String::new();
    for f in 0..args.frames {
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
        writeln!(out, "{row}").with_context(write_err)?;
    }
    out.into_inner()
        .map_err(|e| e.into_error())
        .with_context(write_err)?
        .commit()?;
    Ok(())
}
