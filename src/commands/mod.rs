//! The subcommands of the `pelt` binary, one file each.

pub mod demo;
pub mod environment;
pub mod export;
pub mod import;
pub mod info;
pub mod output_path;
pub mod output_size;
pub mod picture_size;
pub mod printable;
pub mod progress;
pub mod render;
pub mod report;
pub mod run;
pub mod simulate;
pub mod tail_trace;

use anyhow::Context;

/// Refuses a `--strands` the GPU of `ctx` cannot hold, naming its real limit (the largest
/// storage buffer it binds and the workgroups one dispatch may have).
pub fn check_strands(strands: Option<usize>, ctx: &pelt::gpu::GpuContext) -> anyhow::Result<()> {
    let max = pelt::sim::max_strands(&ctx.device.limits());
    match strands {
        Some(n) if n == 0 || n > max => anyhow::bail!(
            "--strands {n}: strand count {n} is out of range; {} holds 1 to {max} strands",
            ctx.info().name
        ),
        _ => Ok(()),
    }
}

/// What a strand count past the full coat means, for a summary line: the same skin, more
/// densely covered (empty for a count within the full coat).
pub fn beyond_full_coat(strands: usize) -> String {
    let full = pelt::sim::StrandTier::Full.strands();
    if strands <= full {
        return String::new();
    }
    format!(
        " ({:.1}× as dense as the full coat of {full}: more strands on the same skin)",
        strands as f64 / full as f64
    )
}

/// Reads a capsule script file (capped, byte-order mark skipped); a script that does not
/// parse names the file (the error itself says it is a capsule script).
pub fn read_capsule_script(path: &std::path::Path) -> anyhow::Result<pelt::hand::CapsuleScript> {
    use pelt::hand::CapsuleScriptError;
    pelt::hand::CapsuleScript::from_path(path).or_else(|e| match e {
        CapsuleScriptError::File(f) => Err(f.into()),
        other => Err(other).with_context(|| path.display().to_string()),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_count_past_the_full_coat_says_how_much_denser_it_is() {
        let full = pelt::sim::StrandTier::Full.strands();
        assert_eq!(super::beyond_full_coat(full), "");
        let note = super::beyond_full_coat(1_000_000);
        assert!(
            note.contains("2.4× as dense as the full coat of 420032"),
            "{note}"
        );
    }
}
