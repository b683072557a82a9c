//! Hostile input, round three: outputs against every input, sizes known before any work,
//! paths asked for by name, clips streamed, numbers in every form the command line takes,
//! and what a newcomer meets first. Each refusal that must come before any work is tried
//! with a strand count no adapter holds or with no display, so a check moved after the
//! work would answer with another error.

mod cli_common;

use cli_common::{fails, pelt, s, stderr, still_motion};
use std::path::Path;
use std::process::{Command, Stdio};

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A strand count no adapter holds: a run that reaches the GPU is refused for it.
const NO_ADAPTER_HOLDS: &str = "999999999999";

#[test]
fn every_output_is_checked_against_every_input_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("map.png");
    std::fs::write(&map, b"the environment map").unwrap();
    let script = dir.path().join("stroke.usda");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/assets/back_stroke.json"),
        &script,
    )
    .unwrap();
    let pointer = dir.path().join("pointer.png");
    std::fs::write(&pointer, "[]").unwrap();
    let motion = still_motion(&dir.path().join("motion.csv"));
    let rig = dir.path().join("rig.csv");
    std::fs::write(&rig, b"a rig").unwrap();
    let before = listing(dir.path());
    let cases: Vec<Vec<&str>> = vec![
        // The window's screenshot over its environment map (the finding).
        vec![
            "demo",
            "--strands",
            NO_ADAPTER_HOLDS,
            "--env",
            s(&map),
            "--frames",
            "1",
            "--screenshot",
            s(&map),
        ],
        vec![
            "demo",
            "--strands",
            NO_ADAPTER_HOLDS,
            "--env",
            s(&map),
            "--script",
            s(&pointer),
            "--frames",
            "1",
            "--record",
            s(&map),
        ],
        vec![
            "render",
            "--strands",
            NO_ADAPTER_HOLDS,
            "--env",
            s(&map),
            "--out",
            s(&map),
        ],
        vec![
            "export",
            "--strands",
            NO_ADAPTER_HOLDS,
            "--capsule-script",
            s(&script),
            "--out",
            s(&script),
        ],
        vec![
            "tail-trace",
            "--motion",
            s(&motion),
            "--file",
            s(&rig),
            "--out",
            s(&rig),
        ],
        vec!["tail-trace", "--motion", s(&motion), "--out", s(&motion)],
    ];
    for args in cases {
        let o = pelt()
            .args(&args)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?} succeeded: {err}");
        assert!(
            err.contains("is the input") && err.contains("would destroy it"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(std::fs::read(&map).unwrap(), b"the environment map");
    assert_eq!(std::fs::read(&rig).unwrap(), b"a rig");
    assert_eq!(std::fs::read_to_string(&pointer).unwrap(), "[]");
    assert_eq!(listing(dir.path()), before, "something was written");
}

#[test]
fn an_output_that_ends_in_a_folder_separator_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let motion = still_motion(&dir.path().join("m.json"));
    for tail in ["/", "/.", "//"] {
        let png = format!("{}{tail}", dir.path().join("a.png").display());
        let usda = format!("{}{tail}", dir.path().join("c.usda").display());
        let csv = format!("{}{tail}", dir.path().join("t.csv").display());
        let npy = format!("{}{tail}", dir.path().join("s.npy").display());
        for (args, path) in [
            (
                vec!["render", "--strands", NO_ADAPTER_HOLDS, "--out", &png],
                &png,
            ),
            (
                vec!["export", "--strands", NO_ADAPTER_HOLDS, "--out", &usda],
                &usda,
            ),
            (
                vec!["simulate", "--strands", NO_ADAPTER_HOLDS, "--out", &npy],
                &npy,
            ),
            (
                vec!["tail-trace", "--motion", s(&motion), "--out", &csv],
                &csv,
            ),
        ] {
            let err = fails(&args);
            assert!(
                err.contains(path.as_str()) && err.contains("does not end in a file name"),
                "{args:?}: {err}"
            );
        }
    }
    assert_eq!(listing(dir.path()), ["m.json"]);
}

#[test]
fn a_raster_path_asked_for_by_name_draws_the_frame_or_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let render = |raster: &str, width: u64, height: u64, out: &Path| {
        pelt()
            .args([
                "render",
                "--strands",
                "256",
                "--steps",
                "1",
                "--raster",
                raster,
            ])
            .args([
                "--width",
                &width.to_string(),
                "--height",
                &height.to_string(),
            ])
            .arg("--out")
            .arg(out)
            .output()
            .unwrap()
    };
    // A small frame: drawn by the path asked for, and said so.
    let small = dir.path().join("small.png");
    let o = render("native", 64, 36, &small);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("native raster"), "{err}");
    // The retired compute rasteriser: refused before any work, saying so and naming every
    // path there is, not drawn by another one in its place.
    let retired = dir.path().join("retired.png");
    let o = render("compute", 64, 36, &retired);
    let err = stderr(&o);
    assert!(!o.status.success(), "drawn by another path: {err}");
    assert!(err.contains("retired"), "{err}");
    for name in ["ribbons", "native", "strands", "auto"] {
        assert!(err.contains(name), "{name} not named: {err}");
    }
    assert!(!retired.exists());
}

/// Runs `pelt args`, which must fail cleanly, with no adapter to be found and files
/// limited to 512 KiB: a size check that came after the GPU work, or none, fails
/// otherwise (and writes nothing large). Returns its stderr.
fn fails_before_gpu_or_disk(args: &[&str]) -> String {
    let o = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 1024; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_pelt"))
        .args(args)
        .env("WGPU_ADAPTER_NAME", "no such adapter anywhere")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "{args:?} succeeded: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

#[test]
fn an_export_too_large_to_write_is_refused_with_its_size_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("huge.usda");
    let err = fails_before_gpu_or_disk(&[
        "export",
        "--strands",
        "1048576",
        "--frames",
        "10000",
        "--out",
        s(&out),
    ]);
    // 1,048,576 strands × 10,000 samples × 6 points × 42 bytes: 2.4 TiB.
    assert!(err.contains("2.4 TiB"), "{err}");
    assert!(err.contains("64 GiB") && err.contains("--frames"), "{err}");
    assert_eq!(listing(dir.path()), Vec::<String>::new());
}

/// A number of megabytes after `key` in `line` ("wrote x (3.2 MB, estimated 3.4 MB)").
fn megabytes_after(line: &str, key: &str) -> f64 {
    line.split(key)
        .nth(1)
        .and_then(|rest| rest.trim_start_matches([' ', '(']).split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {key:?} in {line}"))
}

#[test]
fn an_exports_estimated_size_is_within_a_tenth_of_what_it_writes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("coat.usda");
    // Enough samples that the points, not the skin, make most of the file.
    let o = pelt()
        .args([
            "export",
            "--strands",
            "2048",
            "--steps",
            "2",
            "--frames",
            "16",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let written = std::fs::metadata(&out).unwrap().len() as f64 / 1e6;
    let estimated = megabytes_after(&err, "estimated");
    assert!(
        (estimated / written - 1.0).abs() < 0.1,
        "estimated {estimated} MB, wrote {written} MB: {err}"
    );
}

/// A GLB whose VRM 0.x spring is one line of `joints` bones.
fn line_of_bones(path: &Path, joints: usize) {
    let mut json = String::from(r#"{"asset":{"version":"2.0"},"nodes":["#);
    for i in 0..joints {
        let kids = if i + 1 < joints {
            format!(r#","children":[{}]"#, i + 1)
        } else {
            String::new()
        };
        json.push_str(&format!(
            r#"{}{{"name":"b{i}","translation":[0,-0.01,0]{kids}}}"#,
            if i == 0 { "" } else { "," }
        ));
    }
    json.push_str(r#"],"extensionsUsed":["VRM"],"extensions":{"VRM":{"secondaryAnimation":{"boneGroups":[{"bones":[0]}]}}}}"#);
    std::fs::write(path, pelt::vrm::glb::pack(json.as_bytes(), &[])).unwrap();
}

#[test]
fn a_trace_too_large_to_write_is_refused_with_its_size_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let motion = still_motion(&dir.path().join("m.json"));
    let glb = dir.path().join("line.glb");
    line_of_bones(&glb, 1000);
    let out = dir.path().join("t.csv");
    let err = fails_before_gpu_or_disk(&[
        "tail-trace",
        "--motion",
        s(&motion),
        "--file",
        s(&glb),
        "--frames",
        "10000000",
        "--out",
        s(&out),
    ]);
    assert!(
        err.contains("10000000 rows of 1001 joints") && err.contains("more than the 64 GiB"),
        "{err}"
    );
    assert!(!out.exists());
    assert_eq!(listing(dir.path()), ["line.glb", "m.json"]);
}

#[test]
fn a_trace_defaults_to_its_motions_length_and_says_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let motion = dir.path().join("m.json");
    // Half a second: frames 0 to 30 reach the last keyframe.
    std::fs::write(
        &motion,
        r#"[{"t": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]},
            {"t": 0.5, "position": [0.2, 0, 0], "rotation": [0, 0, 0, 1]}]"#,
    )
    .unwrap();
    let out = dir.path().join("t.csv");
    let o = pelt()
        .args(["tail-trace", "--motion", s(&motion), "--out", s(&out)])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    let csv = std::fs::read_to_string(&out).unwrap();
    let rows = csv.lines().count() - 1;
    assert_eq!(rows, 31, "{err}");
    let columns = csv.lines().next().unwrap().split(',').count() - 1;
    let line = err
        .lines()
        .find(|l| l.contains("wrote"))
        .unwrap_or_else(|| panic!("no summary: {err}"));
    assert!(
        line.starts_with(&format!("{} joints", columns / 3)) && line.contains("31 frames"),
        "{line}"
    );
}

#[test]
fn a_clip_is_streamed_to_its_temporary_file_as_it_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("clip.png");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/pet_scratch.json");
    let mut child = pelt()
        .args(["demo", "--strands", "64", "--script", script])
        .args(["--frames", "1000000", "--record-size", "64x36"])
        .args(["--width", "640", "--height", "360", "--record"])
        .arg(&out)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Frames reach the file while the clip is far from done: the write buffer (8 KiB)
    // flushed, more than the header alone. (A clip held in memory writes nothing until its
    // end.)
    let mut streamed = 0;
    for _ in 0..3000 {
        assert!(child.try_wait().unwrap().is_none(), "the recording ended");
        streamed = listing(dir.path())
            .iter()
            .filter(|n| n.ends_with(".part"))
            .map(|n| std::fs::metadata(dir.path().join(n)).map_or(0, |m| m.len()))
            .max()
            .unwrap_or(0);
        if streamed > 4 << 10 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let killed = Command::new("kill")
        .args(["-s", "TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    child.wait().unwrap();
    assert!(streamed > 4 << 10, "only {streamed} bytes reached the file");
    assert_eq!(
        listing(dir.path()),
        Vec::<String>::new(),
        "a temporary was left"
    );
}

#[test]
fn a_camera_beyond_a_hands_reach_and_odd_numbers_are_refused_in_short_form() {
    let err = fails(&[
        "render",
        "--strands",
        NO_ADAPTER_HOLDS,
        "--eye",
        "3.4e38,3.4e38,3.4e38",
        "--target",
        "0,0,0",
    ]);
    assert!(
        err.contains("--eye 3.4e38,3.4e38,3.4e38") && err.contains("1e6 m"),
        "{err}"
    );
    let err = fails(&[
        "render",
        "--strands",
        NO_ADAPTER_HOLDS,
        "--eye",
        "0,0,1",
        "--target",
        "-2e6,0,0",
    ]);
    assert!(err.contains("--target -2e6,0,0"), "{err}");
    let err = fails(&["render", "--strands", NO_ADAPTER_HOLDS, "--fov", "1e-45"]);
    assert!(err.contains("--fov 1e-45:"), "{err}");
    assert!(!err.contains("0.000"), "{err}");
}

#[test]
fn negative_numbers_are_read_as_values_and_refused_with_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let motion = still_motion(&dir.path().join("m.json"));
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/pet_scratch.json");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["render", "--volume-interval", "-1"], "1..=8"),
        (vec!["simulate", "--volume-interval", "-3"], "1..=8"),
        (vec!["render", "--steps", "-1"], "-1"),
        (vec!["render", "--width", "-5"], "-5"),
        (vec!["render", "--strands", "-5"], "-5"),
        (vec!["simulate", "--seed", "-1"], "-1"),
        (vec!["export", "--out", "c.usda", "--frames", "-2"], "-2"),
        (
            vec![
                "export", "--out", "c.usda", "--frames", "2", "--every", "-2",
            ],
            "-2",
        ),
        (vec!["run", "--strands", "-1"], "-1"),
        (
            vec!["tail-trace", "--motion", s(&motion), "--frames", "-1"],
            "-1",
        ),
        (vec!["demo", "--frames", "-1"], "-1"),
        (vec!["demo", "--budget", "-1"], "1 to 240"),
        (
            vec!["demo", "--budget", "off", "--scale", "-0.5"],
            "0.1 to 1",
        ),
        (
            vec![
                "demo",
                "--script",
                script,
                "--frames",
                "2",
                "--record",
                "c.png",
                "--record-fps",
                "-30",
            ],
            "30..=60",
        ),
        (
            vec![
                "demo",
                "--script",
                script,
                "--frames",
                "2",
                "--record",
                "c.png",
                "--record-tolerance",
                "-1",
            ],
            "-1",
        ),
    ];
    for (args, says) in cases {
        let err = fails(&args);
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    assert_eq!(listing(dir.path()), ["m.json"]);
}

#[test]
fn record_flags_need_record_and_sizes_say_their_limit() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/pet_scratch.json");
    for flag in [
        ["--record-fps", "30"],
        ["--record-size", "320x180"],
        ["--record-tolerance", "2"],
    ] {
        let err = fails(&[
            "demo", "--script", script, "--frames", "2", flag[0], flag[1],
        ]);
        assert!(
            err.contains(flag[0]) && err.contains("--record <RECORD>"),
            "{flag:?}: {err}"
        );
    }
    let err = fails(&[
        "demo",
        "--script",
        script,
        "--frames",
        "2",
        "--record",
        "clip.png",
        "--record-size",
        "4294967296x1",
    ]);
    assert!(
        err.contains("4294967296 pixels is too large: a side is at most 65535"),
        "{err}"
    );
    let err = fails(&["render", "--camera"]);
    assert!(
        err.contains("front, side, back, top, closeup"),
        "the cameras are not listed: {err}"
    );
}

#[test]
fn the_demo_without_a_display_says_what_works_and_names_no_source_file() {
    let o = pelt()
        .args(["demo", "--frames", "1"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("--record") && err.contains("xvfb-run"),
        "{err}"
    );
    assert!(!err.contains(".rs:"), "a source path: {err}");
    // A display that is set but refuses: the window system's reason, without its source.
    let o = pelt()
        .args(["demo", "--frames", "1"])
        .env_remove("WAYLAND_DISPLAY")
        .env("DISPLAY", ":12345")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("DISPLAY=:12345"), "{err}");
    assert!(err.contains("xvfb-run"), "{err}");
    assert!(!err.contains(".rs:"), "a source path: {err}");
}

#[test]
fn a_pipe_as_an_input_is_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.csv");
    let mut child = pelt()
        .args(["tail-trace", "--motion", "/dev/stdin", "--frames", "2"])
        .arg("--out")
        .arg(&out)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Given the motion on the pipe, as `--motion <(cat m.json)` would be.
    use std::io::Write;
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"[{"t": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]}]"#);
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("/dev/stdin") && err.contains("named pipe") && err.contains("save"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn stale_temporaries_of_a_killed_run_are_cleared_and_live_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    let make = |name: &str, hours_ago: u32| {
        let path = dir.path().join(name);
        std::fs::write(&path, b"half").unwrap();
        let touched = Command::new("touch")
            .args(["-d", &format!("{hours_ago} hours ago")])
            .arg(&path)
            .status()
            .unwrap();
        assert!(touched.success());
        path
    };
    let stale = make(".pelt-AbC123.part", 2);
    let young = make(".pelt-XyZ789.part", 0);
    let held = make(".pelt-Held00.part", 2);
    let not_ours = make(".pelt-abc.part", 2);
    let other = make("notes.part", 2);
    // Someone else's file under a name like ours: a hard link has a second name, which a
    // temporary file Pelt made never has.
    let linked_from = make("keep.txt", 2);
    let linked = dir.path().join(".pelt-Link00.part");
    std::fs::hard_link(&linked_from, &linked).unwrap();
    // A live run's file: locked by a process that is still going.
    let mut holder = Command::new("flock")
        .arg(&held)
        .args(["sleep", "600"])
        .spawn()
        .unwrap();
    // Until the lock is taken: the holder then waits in `sleep`, a child of its own.
    let lock_taken = || {
        !Command::new("flock")
            .args(["--nonblock", "--shared"])
            .arg(&held)
            .arg("true")
            .status()
            .unwrap()
            .success()
    };
    while !lock_taken() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Any write to the folder: the rig, which needs no GPU.
    let rig = dir.path().join("rig.glb");
    let o = pelt().args(["export", "--out", s(&rig)]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let left = listing(dir.path());
    let _ = holder.kill();
    let _ = holder.wait();
    assert!(!stale.exists(), "the stale temporary was kept: {left:?}");
    for kept in [&young, &held, &not_ours, &other, &linked] {
        assert!(kept.exists(), "{} was removed: {left:?}", kept.display());
    }
}
