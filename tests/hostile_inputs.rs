//! Hostile and careless inputs, as a user meets them at the command line: endless devices
//! are read only up to a cap, unknown fields and byte-order marks are handled, sizes and
//! counts beyond what the machine can do are refused with the limit named, negative
//! numbers parse and are then checked, messages say each thing once and print no Rust
//! structs, and text from a file reaches the terminal escaped.

use pelt::vrm::{VrmError, glb, read_glb};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

mod cli_common;
use cli_common::{fails, pelt, s, stderr, still_motion};

#[test]
fn endless_devices_are_read_only_up_to_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.npy");
    let err = fails(&[
        "simulate",
        "--solver",
        "cpu",
        "--strands",
        "64",
        "--capsule-script",
        "/dev/zero",
        "--out",
        s(&out),
    ]);
    assert!(err.contains("larger than 16777216 bytes"), "{err}");
    let err = fails(&["demo", "--script", "/dev/zero", "--frames", "1"]);
    assert!(err.contains("larger than 16777216 bytes"), "{err}");
    let err = fails(&[
        "tail-trace",
        "--motion",
        "/dev/zero",
        "--frames",
        "1",
        "--out",
        s(&dir.path().join("t.csv")),
    ]);
    assert!(err.contains("larger than 67108864 bytes"), "{err}");
    assert!(!out.exists());
}

#[test]
fn capsule_scripts_refuse_unknown_fields_and_accept_a_byte_order_mark() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/back_stroke.json"
    ))
    .unwrap();
    let typo = dir.path().join("typo.json");
    std::fs::write(&typo, good.replace("\"capsules\"", "\"capsule\"")).unwrap();
    let out = dir.path().join("x.npy");
    let run = |script: &Path| {
        pelt()
            .args(["simulate", "--solver", "cpu", "--strands", "64", "--steps"])
            .args(["2", "--capsule-script", s(script), "--out", s(&out)])
            .output()
            .unwrap()
    };
    let o = run(&typo);
    let err = stderr(&o);
    assert!(!o.status.success(), "a script without a hand ran: {err}");
    assert!(err.contains("unknown field `capsule`"), "{err}");
    let bom = dir.path().join("bom.json");
    std::fs::write(&bom, format!("\u{feff}{good}")).unwrap();
    let o = run(&bom);
    assert!(o.status.success(), "{}", stderr(&o));
    // The pointer script and the motion take one too.
    let pointer = dir.path().join("p.json");
    std::fs::write(
        &pointer,
        "\u{feff}[{\"t\": 0, \"kind\": \"move\", \"x\": 1, \"y\": 2}]",
    )
    .unwrap();
    assert!(pelt::hand::PointerScript::from_path(&pointer).is_ok());
    let motion = dir.path().join("m.json");
    std::fs::write(
        &motion,
        "\u{feff}[{\"t\": 0, \"position\": [0, 0, 0], \"rotation\": [0, 0, 0, 1]}]",
    )
    .unwrap();
    let o = pelt()
        .args([
            "tail-trace",
            "--motion",
            s(&motion),
            "--frames",
            "2",
            "--out",
        ])
        .arg(dir.path().join("t.csv"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn negative_numbers_parse_and_are_then_checked() {
    // A leading minus is a number, not an unknown flag; then the range is checked, and the
    // message names the real bounds.
    let err = fails(&[
        "render",
        "--eye",
        "-0.7,-0.6,-1.5",
        "--target",
        "0,0,0",
        "--fov",
        "-5",
    ]);
    assert!(!err.contains("unexpected argument"), "{err}");
    assert!(
        err.contains("--fov -5") && err.contains("1 to 179"),
        "{err}"
    );
    for fov in ["0.05", "179.5", "nan", "inf"] {
        let err = fails(&["render", "--fov", fov]);
        assert!(err.contains("1 to 179"), "--fov {fov}: {err}");
        assert!(!err.contains("Camera {"), "a Debug struct: {err}");
    }
}

#[test]
fn counts_and_sizes_beyond_the_machine_are_refused_with_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.npy");
    let err = fails(&["simulate", "--steps", "4294967295", "--out", s(&out)]);
    assert!(err.contains("at most 1000000"), "{err}");
    // The GPU's real strand limit is named, not the groom's 16,777,216.
    let ctx = pelt::gpu::GpuContext::new().unwrap();
    let max = pelt::sim::max_strands(&ctx.device.limits());
    let err = fails(&[
        "simulate",
        "--solver",
        "gpu",
        "--strands",
        "0",
        "--out",
        s(&out),
    ]);
    assert!(err.contains(&format!("1 to {max} strands")), "{err}");
    let err = fails(&["render", "--width", "11585", "--height", "11585"]);
    assert!(err.contains("11585×11585"), "{err}");
    assert!(
        err.contains("GiB") || err.contains("largest texture"),
        "{err}"
    );
    assert!(!err.contains("TextureView"), "{err}");
    let err = fails(&["demo", "--width", "65536", "--frames", "1"]);
    assert!(err.contains("65536×720"), "{err}");
    let err = fails(&["demo", "--frames", "4294967295"]);
    assert!(err.contains("give 1 to 1000000"), "{err}");
    // `run` checks the count before it prints the count as if it would run it.
    for strands in ["0", "16777216"] {
        let o = pelt().args(["run", "--strands", strands]).output().unwrap();
        let err = stderr(&o);
        assert!(!o.status.success(), "{err}");
        assert!(err.contains(&format!("1 to {max} strands")), "{err}");
        assert!(
            o.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
    // 16,777,216 strands on the CPU take about 64 GiB: refused with the figure (instead of an
    // abort on allocation), whether the machine's free memory says no or the allocator does.
    // The run gets a 16 GiB address space so the test means the same on a machine with more.
    let o = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 16777216 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_pelt"))
        .args(["simulate", "--solver", "cpu", "--strands", "16777216"])
        .args(["--steps", "1", "--out", s(&out)])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("needs about 64.0 GiB"), "{err}");
}

/// `pelt simulate` under a capsule script of `text` (written as `name` in `dir`), which
/// must fail: its error.
fn simulate_fails_with_script(dir: &Path, name: &str, text: &str) -> String {
    let script = dir.join(name);
    std::fs::write(&script, text).unwrap();
    fails(&[
        "simulate",
        "--solver",
        "cpu",
        "--capsule-script",
        s(&script),
        "--out",
        s(&dir.join("x.npy")),
    ])
}

#[test]
fn each_cause_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let err = simulate_fails_with_script(dir.path(), "bad.json", "{ not json");
    assert_eq!(err.matches("key must be a string").count(), 1, "{err}");
    assert_eq!(err.matches("bad.json").count(), 1, "{err}");
    assert_eq!(err.matches("capsule script").count(), 1, "{err}");
    let err = fails(&["demo", "--script", "/no/such/script.json", "--frames", "1"]);
    assert_eq!(err.matches("/no/such/script.json").count(), 1, "{err}");
    let pointer = dir.path().join("pointer.json");
    std::fs::write(&pointer, "[{\"t\": 0, \"kind\": \"move\"}]").unwrap();
    let err = fails(&["demo", "--script", s(&pointer), "--frames", "1"]);
    assert_eq!(err.matches("pointer.json").count(), 1, "{err}");
    assert_eq!(err.matches("pointer script").count(), 1, "{err}");
}

#[test]
fn nan_and_infinity_are_named_as_numbers_json_cannot_hold() {
    // serde's own message ("expected value at line 1 column 31") does not say that the
    // number is what is wrong.
    let capsules = r#"{"capsules": [{"radius": 0.05, "keys": [{"step": NaN, "a": [0, 0, 0], "b": [0, 0, 1]}]}]}"#;
    let err = pelt::hand::CapsuleScript::from_json(capsules)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`NaN` at line 1 column 50 is not a number JSON can hold"),
        "{err}"
    );
    let pointer = "[{\"t\": 0, \"kind\": \"move\",\n  \"x\": -Infinity, \"y\": 2}]";
    let err = pelt::hand::PointerScript::from_json(pointer)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`-Infinity` at line 2 column 8 is not a number JSON can hold"),
        "{err}"
    );
    let motion = r#"[{"t": 0, "position": [0, inf, 0], "rotation": [0, 0, 0, 1]}]"#;
    let err = pelt::spring::motion::RootMotion::from_json(motion)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`inf` at line 1 column 27") && !err.contains("not a JSON array"),
        "{err}"
    );
    // Inside a string, a broken escape is what is wrong, not a number.
    let err = pelt::hand::PointerScript::from_json(r#"["C:\NaN"]"#)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("invalid escape") && !err.contains("JSON can hold"),
        "{err}"
    );
    // Other syntax errors keep serde's words.
    let err = pelt::hand::CapsuleScript::from_json(r#"{"capsules": [}"#)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("expected value at line 1") && !err.contains("JSON can hold"),
        "{err}"
    );
    // And at the command line, the file is named once with the word.
    let dir = tempfile::tempdir().unwrap();
    let err = simulate_fails_with_script(dir.path(), "nan.json", capsules);
    assert!(
        err.contains("nan.json: capsule script is not valid: `NaN`"),
        "{err}"
    );
}

/// The creature's export as JSON, edited, and packed again.
fn edited(f: impl FnOnce(&mut Value)) -> Vec<u8> {
    let bytes =
        pelt::vrm::creature_glb(&pelt::creature::Creature::default(), &Default::default()).unwrap();
    let (j, bin) = glb::unpack(&bytes).unwrap();
    let mut v: Value = serde_json::from_slice(j).unwrap();
    f(&mut v);
    glb::pack(&serde_json::to_vec(&v).unwrap(), bin.unwrap_or(&[]))
}

#[test]
fn scenes_naming_missing_nodes_and_nodes_with_matrix_and_trs_are_refused() {
    let n = |v: &Value| v["nodes"].as_array().unwrap().len();
    let e = read_glb(&edited(|v| v["scene"] = json!(5))).unwrap_err();
    assert!(
        matches!(e, VrmError::IndexOutOfRange { index: 5, .. }),
        "{e}"
    );
    let e = read_glb(&edited(|v| {
        let missing = n(v) + 3;
        v["scenes"] = json!([{ "nodes": [0, missing] }]);
    }))
    .unwrap_err();
    assert!(e.to_string().contains("scene 0 node"), "{e}");
    let e = read_glb(&edited(|v| {
        // Node 1 is a child: not a root a scene may list.
        v["scenes"] = json!([{ "nodes": [1] }]);
        v["scene"] = json!(0);
    }))
    .unwrap_err();
    assert!(e.to_string().contains("root nodes"), "{e}");
    let e = read_glb(&edited(|v| {
        v["nodes"][1]["matrix"] = json!([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
        v["nodes"][1]["translation"] = json!([0, 1, 0]);
    }))
    .unwrap_err();
    assert!(e.to_string().contains("both a matrix"), "{e}");
    // The export itself is fine.
    read_glb(&edited(|_| {})).unwrap();
}

#[test]
fn a_negative_vrm0_bone_is_reported_as_written() {
    let e = read_glb(&edited(|v| {
        v["extensions"] = json!({ "VRM": { "secondaryAnimation": {
            "boneGroups": [{ "bones": [-5], "stiffiness": 1, "gravityPower": 0,
                "gravityDir": { "x": 0, "y": -1, "z": 0 }, "dragForce": 0.4,
                "hitRadius": 0.02, "colliderGroups": [] }],
            "colliderGroups": [] } } });
        v["extensionsUsed"] = json!(["VRM"]);
    }))
    .unwrap_err();
    assert!(e.to_string().contains("-5"), "{e}");
    assert!(!e.to_string().contains("index 0"), "{e}");
}

#[test]
fn names_from_a_file_reach_the_terminal_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("evil.glb");
    let evil = "tail\u{1b}]0;owned\u{7}\r\u{202e}lmv.exe";
    std::fs::write(
        &file,
        edited(|v| {
            let i = v["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .position(|n| n["name"] == "tail_0")
                .unwrap();
            v["nodes"][i]["name"] = json!(evil);
        }),
    )
    .unwrap();
    let o = pelt().arg("import").arg(&file).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("tail\\u{1b}]0;owned\\u{7}\\u{d}\\u{202e}lmv.exe"),
        "{out}"
    );
    assert!(
        !out.chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "raw control characters printed: {out:?}"
    );
    // The trace's CSV header, which `cat` shows, holds the names escaped the same way.
    let motion = still_motion(&dir.path().join("m.json"));
    let csv = dir.path().join("t.csv");
    let o = pelt()
        .args(["tail-trace", "--frames", "1", "--motion", s(&motion)])
        .args(["--file", s(&file), "--out", s(&csv)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(&csv).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header.contains("tail/tail\\u{1b}]0;owned\\u{7}\\u{d}\\u{202e}lmv.exe.x"),
        "{header}"
    );
    assert!(
        !csv.chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "raw control characters in the CSV: {header:?}"
    );
}

/// The index of the creature export's node called `name`.
fn node(v: &Value, name: &str) -> usize {
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == name)
        .unwrap()
}

#[test]
fn transforms_that_overflow_f32_once_composed_are_refused() {
    // Each translation is finite; their sum is not.
    let e = read_glb(&edited(|v| {
        for name in ["tail_base", "tail_0"] {
            let i = node(v, name);
            v["nodes"][i]["translation"] = json!([3e38, 0, 0]);
        }
    }))
    .unwrap_err();
    assert!(e.to_string().contains("beyond f32's range"), "{e}");
    // A huge scale above a huge translation: inf and NaN in the world transform.
    let e = read_glb(&edited(|v| {
        let (base, tail) = (node(v, "tail_base"), node(v, "tail_0"));
        v["nodes"][base]["scale"] = json!([1e38, 1e38, 1e38]);
        v["nodes"][tail]["translation"] = json!([1e38, 0, 0]);
    }))
    .unwrap_err();
    assert!(e.to_string().contains("beyond f32's range"), "{e}");
    // The error names the node; a name of a million characters is cut there too.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("far.glb");
    std::fs::write(
        &file,
        edited(|v| {
            let i = node(v, "tail_0");
            v["nodes"][i]["translation"] = json!([1e38, 0, 0]);
            v["nodes"][i]["scale"] = json!([1e38, 1e38, 1e38]);
            v["nodes"][i]["name"] = json!("A".repeat(1_000_000));
        }),
    )
    .unwrap();
    let err = fails(&["import", s(&file)]);
    assert!(err.len() < 10_000, "{} bytes", err.len());
    assert!(err.contains("more characters)"), "{err}");
}

#[test]
fn folders_long_names_and_out_of_range_coordinates_are_reported_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let err = fails(&["import", s(dir.path())]);
    assert!(err.contains("it is a folder"), "{err}");
    assert!(!err.contains("os error"), "{err}");
    let motion = still_motion(&dir.path().join("m.json"));
    let out = dir.path().join("t.csv");
    let err = fails(&[
        "tail-trace",
        "--motion",
        s(&motion),
        "--file",
        s(dir.path()),
        "--frames",
        "1",
        "--out",
        s(&out),
    ]);
    assert!(err.contains("it is a folder"), "{err}");
    // A name of a million characters is printed cut, saying how much was cut.
    let file = dir.path().join("long.glb");
    std::fs::write(
        &file,
        edited(|v| {
            let i = node(v, "tail_0");
            v["nodes"][i]["name"] = json!("A".repeat(1_000_000));
        }),
    )
    .unwrap();
    let o = pelt().arg("import").arg(&file).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.len() < 10_000, "{} bytes printed", text.len());
    assert!(text.contains("… (999800 more characters)"), "{text}");
    // 3.5e38 is finite but beyond f32: the message says so, not that it is not finite.
    let script = dir.path().join("p.json");
    std::fs::write(
        &script,
        r#"[{"t": 0, "kind": "move", "x": 3.5e38, "y": 300}]"#,
    )
    .unwrap();
    let err = fails(&["demo", "--script", s(&script), "--frames", "1"]);
    assert!(err.contains("`x` = 3.5e38 pixels is out of range"), "{err}");
}

#[test]
fn a_vrm_name_gets_a_full_vrm_and_the_name_is_printed_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r\u{1b}[31m.vrm");
    let o = pelt()
        .arg("export")
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("r\\u{1b}[31m.vrm"), "{text}");
    assert!(!text.contains('\u{1b}'), "raw escape printed: {text:?}");
    let bytes = std::fs::read(&out).unwrap();
    let (j, _) = glb::unpack(&bytes).unwrap();
    let v: Value = serde_json::from_slice(j).unwrap();
    assert!(
        v["extensions"]["VRMC_vrm"].is_object(),
        "no VRMC_vrm in a .vrm"
    );
}

/// Runs `pelt args` under a 60-second `timeout`, so a run that waits for ever fails the test
/// (exit 124) instead of hanging it; it must fail cleanly. Returns its stderr.
fn fails_within_a_minute(args: &[&str]) -> String {
    let o = Command::new("timeout")
        .arg("60")
        .arg(env!("CARGO_BIN_EXE_pelt"))
        .args(args)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_ne!(o.status.code(), Some(124), "{args:?} waited for ever");
    assert!(!o.status.success(), "{args:?} succeeded: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

#[test]
fn a_named_pipe_as_an_input_is_refused_without_waiting_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.json");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let motion = still_motion(&dir.path().join("m.json"));
    let (png, csv) = (dir.path().join("x.png"), dir.path().join("x.csv"));
    for args in [
        vec!["render", "--capsule-script", s(&fifo), "--out", s(&png)],
        vec!["demo", "--script", s(&fifo), "--frames", "2"],
        vec![
            "tail-trace",
            "--motion",
            s(&fifo),
            "--frames",
            "2",
            "--out",
            s(&csv),
        ],
        vec![
            "tail-trace",
            "--motion",
            s(&motion),
            "--file",
            s(&fifo),
            "--frames",
            "2",
            "--out",
            s(&csv),
        ],
        vec!["import", s(&fifo)],
    ] {
        let err = fails_within_a_minute(&args);
        assert!(err.contains("named pipe"), "{args:?}: {err}");
    }
    assert!(!png.exists() && !csv.exists());
}

#[test]
fn an_oversized_demo_window_is_refused_before_any_gpu_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("s.png");
    let o = cli_common::run_under_xvfb(
        Command::new("xvfb-run")
            .arg("-a")
            .arg(env!("CARGO_BIN_EXE_pelt"))
            .args(["demo", "--strands", "1024", "--frames", "2", "--screenshot"])
            .arg(&shot)
            .args(["--width", "11585", "--height", "11585"]),
    );
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("11585×11585"), "{err}");
    // The one-line refusal only: no wgpu out-of-memory or invalid-texture errors first.
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        !err.contains("ERROR") && !err.contains("Validation"),
        "{err}"
    );
    assert!(!shot.exists());
}

#[test]
fn a_hostile_environment_map_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.png");
    // An endless device: read up to the cap, then refused.
    let err = fails(&["render", "--env", "/dev/zero", "--out", s(&out)]);
    assert!(err.contains("larger than 134217728 bytes"), "{err}");
    // A folder, and a named pipe (refused without waiting for a writer).
    let err = fails(&["render", "--env", s(dir.path()), "--out", s(&out)]);
    assert!(err.contains("folder"), "{err}");
    let fifo = dir.path().join("pipe.hdr");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let err = fails_within_a_minute(&["render", "--env", s(&fifo), "--out", s(&out)]);
    assert!(err.contains("named pipe"), "{err}");
    // Not a picture: refused before the GPU is asked for anything (a strand count no
    // adapter holds would otherwise be the error).
    let junk = dir.path().join("junk.exr");
    std::fs::write(&junk, [0u8; 64]).unwrap();
    let err = fails(&[
        "render",
        "--env",
        s(&junk),
        "--strands",
        "999999999999",
        "--out",
        s(&out),
    ]);
    assert!(err.contains("junk.exr") && err.contains("OpenEXR"), "{err}");
    let err = fails(&["demo", "--env", s(&junk), "--frames", "1"]);
    assert!(err.contains("junk.exr"), "{err}");
    assert!(!out.exists());
}

#[test]
fn keys_out_of_order_name_both_steps_and_steps_too_close_to_tell_apart() {
    let script = |first: &str, second: &str| {
        format!(
            r#"{{"mode": "pet", "capsules": [{{"radius": 0.05, "keys": [
                {{"step": {first}, "a": [0, 0.3, 0], "b": [0.1, 0.3, 0]}},
                {{"step": {second}, "a": [0, 0.3, 0], "b": [0.1, 0.3, 0]}}]}}]}}"#
        )
    };
    let err = pelt::hand::CapsuleScript::from_json(&script("30", "12.5"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("key 1: step 12.5 does not come after the previous key's step 30"),
        "{err}"
    );
    assert!(!err.contains("significant digit"), "{err}");
    // Two different whole numbers that are one f64: the message says why they are equal,
    // in exponent form rather than twenty digits.
    let err = pelt::hand::CapsuleScript::from_json(&script(
        "18446744073709551615",
        "18446744073709551616",
    ))
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("step 1.8446744073709552e19 does not come after")
            && err.contains("16th significant digit"),
        "{err}"
    );
    // Read correctly rounded: 2251799813685248.25 and .5 are 2^51 + 0.25 and + 0.5 as f64,
    // in order (a parser that rounds loosely read both as .5).
    assert!(
        pelt::hand::CapsuleScript::from_json(&script("2251799813685248.25", "2251799813685248.5"))
            .is_ok()
    );
    assert!(
        pelt::hand::CapsuleScript::from_json(&script("9007199254740990.3", "9007199254740990.6"))
            .is_ok()
    );
    let err = pelt::hand::CapsuleScript::from_json(&script("1e300", "1e299"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("step 1e299 does not come after the previous key's step 1e300"),
        "{err}"
    );
    // In order, both parse; a step that is no number is named.
    assert!(pelt::hand::CapsuleScript::from_json(&script("0", "30")).is_ok());
    for bad in [r#""30""#, "true", "[30]"] {
        let err = pelt::hand::CapsuleScript::from_json(&script("0", bad))
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected a number"), "{bad}: {err}");
    }
}
