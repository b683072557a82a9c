//! `pelt export`: writes the creature's rig with its tail spring as a GLB (or, with
//! `--vrm`, a full VRM 1.0 avatar).

use anyhow::Context;

use pelt::creature::{Creature, CreatureExport};
use pelt::vrm::creature_glb;

/// Arguments of `pelt export`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// Where to write the file: a name ending in .glb or .vrm (a .vrm name implies --vrm; an
    /// existing regular file is replaced only once the new one is complete; anything else is
    /// refused).
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Seed recorded in the file's generator string (the rig itself has no random part).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also write VRMC_vrm (meta with license fields and a humanoid map over the creature's
    /// skeleton), so full VRM loaders accept the file, not only spring-bone plugins. Implied
    /// by a name ending in .vrm.
    #[arg(long)]
    pub vrm: bool,
}

/// Runs `pelt export`.
pub fn run(args: &ExportArgs) -> anyhow::Result<()> {
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
    pelt::files::check_output(&args.out, "the creature", &["glb", "vrm"], &[])?;
    let bytes = creature_glb(&Creature::default(), &options).context("exporting the creature")?;
    pelt::files::write_atomic(&args.out, "the creature", &bytes)?;
    let size = bytes.len();
    println!(
        "wrote {} ({size} bytes): the creature's skeleton, mesh and tail spring (VRMC_springBone{})",
        super::printable::printable_path(&args.out),
        if vrm { " + VRMC_vrm" } else { "" }
    );
    Ok(())
}
