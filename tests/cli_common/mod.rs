//! Helpers the tests that run the `pelt` binary share.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

mod usd_python;
mod xvfb;
#[allow(unused_imports)]
pub use usd_python::{CHECK_COMPLIANCE, usd_python};
#[allow(unused_imports)]
pub use xvfb::run_under_xvfb;

/// The `pelt` binary of this build.
pub fn pelt() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pelt"))
}

/// What a run printed on stderr.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `pelt args`, which must fail cleanly (no panic); returns its stderr.
pub fn fails(args: &[&str]) -> String {
    let o = pelt().args(args).output().unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "{args:?} succeeded: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

/// A path as an argument.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Writes a motion of one keyframe (the root still at the origin) to `path`, for commands
/// that need a valid `--motion`; returns the path.
pub fn still_motion(path: &Path) -> std::path::PathBuf {
    std::fs::write(
        path,
        r#"[{"t": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]}]"#,
    )
    .unwrap();
    path.to_path_buf()
}
