//! `pelt import`: reads a GLB or VRM and prints the spring chains it found.

use anyhow::Context;

use pelt::spring::ColliderShape;
use pelt::vrm::{SpringSource, read_glb};

/// Arguments of `pelt import`.
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// The GLB or VRM file to read.
    pub file: std::path::PathBuf,
}

/// Runs `pelt import`.
pub fn run(args: &ImportArgs) -> anyhow::Result<()> {
    let bytes =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let found = read_glb(&bytes).with_context(|| format!("parsing {}", args.file.display()))?;
    let source = match found.source {
        SpringSource::Pelt => "PELT_spring_chains (exact)",
        SpringSource::VrmcSpringBone => "VRMC_springBone 1.0 (converted)",
        SpringSource::Vrm0 => "VRM 0.x secondaryAnimation (converted)",
        SpringSource::None => "none",
    };
    let rig = &found.springs;
    println!("{}: springs from {source}", args.file.display());
    for c in &rig.chains {
        let s = &c.settings;
        println!(
            "chain `{}` on `{}`: {} joints [{}]",
            c.name,
            if c.anchor.is_empty() {
                "(world)"
            } else {
                &c.anchor
            },
            c.joints.len(),
            c.joints
                .iter()
                .map(|j| j.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        println!(
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
    for (i, c) in rig.colliders.iter().enumerate() {
        match c.shape {
            ColliderShape::Sphere { offset, radius } => {
                println!(
                    "collider {i} on `{}`: sphere at {offset} radius {radius}",
                    c.bone
                )
            }
            ColliderShape::Capsule {
                offset,
                tail,
                radius,
            } => println!(
                "collider {i} on `{}`: capsule {offset} to {tail} radius {radius}",
                c.bone
            ),
        }
    }
    for g in &rig.groups {
        println!("collider group `{}`: {:?}", g.name, g.colliders);
    }
    for n in &found.notes {
        println!("note: {n}");
    }
    Ok(())
}
