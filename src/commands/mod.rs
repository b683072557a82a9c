//! The subcommands of the `pelt` binary, one file each.

pub mod demo;
pub mod environment;
pub mod export;
pub mod import;
pub mod info;
mod named_files;
pub mod render;
pub mod report;
pub mod run;
pub mod simulate;
pub mod tail_trace;

use anyhow::Context;

pub use crate::common::strand_count::{beyond_full_coat, check_strands};

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
