//! Helpers the tests that run the `pelt` binary share.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

mod creature_file;
mod demo_shot;
mod pointer_replay;
mod usd_python;
mod xvfb;
#[allow(unused_imports)]
pub use creature_file::{creature_vrm, edit_glb_json, export_creature_vrm, pose_bits};
#[allow(unused_imports)]
pub use demo_shot::{HandPixels, demo_under_xvfb, hand_pixels, read_rgb_png, rgb_distance};
#[allow(unused_imports)]
pub use pointer_replay::{replay_event, strands_differing};
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

/// PNG's chunk checksum (CRC-32 of ISO 3309: reflected, polynomial 0xEDB88320), for tests
/// that forge a chunk.
pub fn png_crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
