//! `--body`, `--body-height` and `--animation` on `render`, `simulate`, `export` and `demo`:
//! they parse, bad values are refused with a message that names the flag and the range,
//! and a body that cannot be read is named in the error before any output is touched.

mod cli_common;

use cli_common::{fails, s};

const COMMANDS: [(&str, &str); 4] = [
    ("render", "x.png"),
    ("simulate", "x.npy"),
    ("export", "x.usda"),
    ("demo", ""),
];

/// `pelt COMMAND [--out DIR/OUT] extra…`, which must fail; its stderr.
fn run(command: &str, out: &str, dir: &std::path::Path, extra: &[&str]) -> String {
    let target = dir.join(if out.is_empty() { "unused" } else { out });
    let mut args = vec![command];
    if !out.is_empty() {
        args.extend(["--out", s(&target)]);
    }
    args.extend(extra);
    fails(&args)
}

#[test]
fn a_body_height_out_of_range_or_not_a_number_is_refused_with_its_range() {
    let dir = tempfile::tempdir().unwrap();
    for (command, out) in COMMANDS {
        for bad in ["0", "-1", "1000", "nan", "inf"] {
            let err = run(
                command,
                out,
                dir.path(),
                &["--body", "b.glb", "--body-height", bad],
            );
            assert!(
                err.contains("--body-height") && err.contains("from 0.01 to 100"),
                "{command} --body-height {bad}: {err}"
            );
        }
        let err = run(
            command,
            out,
            dir.path(),
            &["--body", "b.glb", "--body-height", "tall"],
        );
        assert!(err.contains("not a number of metres"), "{command}: {err}");
    }
}

#[test]
fn body_height_and_animation_need_a_body() {
    let dir = tempfile::tempdir().unwrap();
    for (command, out) in COMMANDS {
        for extra in [["--body-height", "1.5"], ["--animation", "walk"]] {
            let err = run(command, out, dir.path(), &extra);
            assert!(
                err.contains("--body <FILE>") && err.contains(extra[0]),
                "{command} {extra:?}: {err}"
            );
        }
    }
}

#[test]
fn a_body_that_cannot_be_read_is_named_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no such body.glb");
    for (command, out) in COMMANDS {
        let existing = dir.path().join(if out.is_empty() { "unused" } else { out });
        std::fs::write(&existing, b"keep me").unwrap();
        let err = run(
            command,
            out,
            dir.path(),
            &[
                "--body",
                s(&missing),
                "--body-height",
                "1.5",
                "--animation",
                "walk",
            ],
        );
        assert!(err.contains("no such body.glb"), "{command}: {err}");
        assert!(!err.contains(".rs:"), "{command}: {err}");
        assert_eq!(std::fs::read(&existing).unwrap(), b"keep me", "{command}");
    }
}

#[test]
fn a_rig_export_refuses_a_body() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rig.glb");
    let err = fails(&["export", "--out", s(&out), "--body", "b.glb"]);
    assert!(
        err.contains("--body applies to the coat's USD export only"),
        "{err}"
    );
}
