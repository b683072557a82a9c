//! `pelt import`: reads a GLB or VRM and prints the springs it holds, per joint.

use anyhow::Context;

use pelt::spring::{ChainEnd, ColliderShape, VrmColliderShape};
use pelt::vrm::{SpringSource, read_glb_from};

use crate::common::printable::{MAX_SHOWN_CHARS, shortened};

/// A name from the file as printed: cut to [`MAX_SHOWN_CHARS`] characters.
fn short(name: &str) -> std::borrow::Cow<'_, str> {
    shortened(name, MAX_SHOWN_CHARS)
}

/// Arguments of `pelt import`.
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// The GLB or VRM file to read (only its header and JSON chunk are read: at most
    /// 32 MiB, whatever the file's size).
    pub file: std::path::PathBuf,
}

/// Reads the springs of `path`: the header and JSON chunk only, and checks a regular file
/// is as long as its header says.
pub fn read_file(path: &std::path::Path) -> anyhow::Result<pelt::vrm::ImportedSprings> {
    let file = pelt::files::open_input(path, "the file")?;
    let size = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let (found, declared) = read_glb_from(std::io::BufReader::new(file))
        .with_context(|| format!("reading {}", path.display()))?;
    if let Some(size) = size
        && size < declared as u64
    {
        anyhow::bail!(
            "reading {}: file truncated: the header says {declared} bytes, the file has {size}; export it again",
            path.display()
        );
    }
    Ok(found)
}

/// Prints one line made from file text, control and bidirectional characters escaped (a
/// node name may hold an escape sequence, a carriage return or a right-to-left override).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::common::stdout::write_line(format_args!(
            "{}",
            crate::common::printable::printable(&format!($($arg)*))
        ))?
    };
}

/// Runs `pelt import`.
pub fn run(args: &ImportArgs) -> anyhow::Result<()> {
    let found = read_file(&args.file)?;
    let source = match found.source {
        SpringSource::VrmcSpringBone => "VRMC_springBone 1.0",
        SpringSource::Vrm0 => "VRM 0.x secondaryAnimation",
        SpringSource::None => "none",
    };
    let rig = &found.springs;
    let sk = &rig.skeleton;
    let name = |n: usize| short(&sk.nodes()[n].name);
    say!(
        "{}: {} nodes{}; VRM springs from {source}: {} spring chain{}, {} collider{}",
        args.file.display(),
        sk.len(),
        if found.is_vrm {
            ", a VRM 1.0 avatar"
        } else {
            ""
        },
        rig.chains.len(),
        if rig.chains.len() == 1 { "" } else { "s" },
        rig.colliders.len(),
        if rig.colliders.len() == 1 { "" } else { "s" }
    );
    for (i, c) in rig.chains.iter().enumerate() {
        let end = match c.end {
            ChainEnd::Node(n) => name(n).to_string(),
            ChainEnd::Virtual => "a 7 cm tail".to_string(),
        };
        let approx = if found.approximations.contains(&i) {
            " (approximates an anchored chain below)"
        } else {
            ""
        };
        say!(
            "spring `{}`{approx}: {} joints to {end}, collider groups {:?}{}",
            short(&c.name),
            c.joints.len(),
            c.collider_groups,
            c.center
                .map(|n| format!(", center `{}`", name(n)))
                .unwrap_or_default()
        );
        for j in &c.joints {
            say!(
                "  `{}`: stiffness {}, gravityPower {}, gravityDir [{}, {}, {}], dragForce {}, hitRadius {}",
                name(j.node),
                j.stiffness,
                j.gravity_power,
                j.gravity_dir.x,
                j.gravity_dir.y,
                j.gravity_dir.z,
                j.drag_force,
                j.hit_radius
            );
        }
    }
    for (i, c) in rig.colliders.iter().enumerate() {
        let shape = match c.shape {
            VrmColliderShape::Sphere {
                offset,
                radius,
                inside,
            } => format!(
                "{}sphere at {offset} radius {radius}",
                if inside { "inside " } else { "" }
            ),
            VrmColliderShape::Capsule {
                offset,
                tail,
                radius,
                inside,
            } => format!(
                "{}capsule {offset} to {tail} radius {radius}",
                if inside { "inside " } else { "" }
            ),
            VrmColliderShape::Plane { offset, normal } => {
                format!("plane through {offset} facing {normal}")
            }
        };
        say!("collider {i} on `{}`: {shape}", name(c.node));
    }
    for g in &rig.groups {
        say!("collider group `{}`: {:?}", short(&g.name), g.colliders);
    }
    let anchored = &found.chains;
    for c in &anchored.chains {
        let s = &c.settings;
        say!(
            "anchored chain `{}` on `{}` (PELT_spring_chains, exact): {} joints [{}]",
            short(&c.name),
            short(&c.anchor),
            c.joints.len(),
            c.joints
                .iter()
                .map(|j| short(&j.name))
                .collect::<Vec<_>>()
                .join(", ")
        );
        say!(
            "  stiffness {} /s, damping {} /s, gravity [{}, {}, {}] m/s², radius {} m, collider groups {:?}",
            s.stiffness,
            s.damping,
            s.gravity.x,
            s.gravity.y,
            s.gravity.z,
            s.radius,
            c.collider_groups
        );
    }
    for (i, c) in anchored.colliders.iter().enumerate() {
        match c.shape {
            ColliderShape::Sphere { offset, radius } => {
                say!(
                    "anchored collider {i} on `{}`: sphere at {offset} radius {radius}",
                    short(&c.bone)
                )
            }
            ColliderShape::Capsule {
                offset,
                tail,
                radius,
            } => say!(
                "anchored collider {i} on `{}`: capsule {offset} to {tail} radius {radius}",
                short(&c.bone)
            ),
        }
    }
    for n in &found.notes {
        // A note may quote a name from the file.
        say!("note: {}", shortened(n, 4 * MAX_SHOWN_CHARS));
    }
    Ok(())
}
