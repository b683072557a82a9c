//! `pelt export`: writes the creature's rigged body with its tail spring as a GLB.

use anyhow::Context;

use pelt::creature::Creature;
use pelt::spring::SpringSettings;
use pelt::vrm::{creature_body, write_glb};

/// Arguments of `pelt export`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// Where to write the GLB.
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Seed for every random choice (recorded in the file's generator string; the rig
    /// itself has no random part).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Runs `pelt export`.
pub fn run(args: &ExportArgs) -> anyhow::Result<()> {
    let body = creature_body(&Creature::default(), SpringSettings::default(), args.seed);
    let bytes = write_glb(&body).context("building the GLB")?;
    std::fs::write(&args.out, &bytes).with_context(|| format!("writing {}", args.out.display()))?;
    println!(
        "wrote {} ({} bytes): {} bones, {} spring chain(s), VRMC_springBone + PELT_spring_chains",
        args.out.display(),
        bytes.len(),
        body.bones.len(),
        body.springs.chains.len()
    );
    Ok(())
}
