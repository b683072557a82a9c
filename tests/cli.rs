//! The `pelt` binary as a user runs it: `simulate` writes NumPy files of the right shape
//! (`.npy`, and `.npz` with the comb and the touched flags), bad arguments exit with a
//! message that says what was wrong before any stepping, and Pelt's messages are its own.

use std::process::Command;

fn pelt() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pelt"))
}

#[test]
fn simulate_writes_a_npy_of_shape_strands_6_3() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("state.npy");
    let status = pelt()
        .args([
            "simulate",
            "--solver",
            "cpu",
            "--strands",
            "128",
            "--steps",
            "12",
            "--out",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    assert_eq!((10 + header_len) % 64, 0, "header not padded to 64 bytes");
    let header = std::str::from_utf8(&bytes[10..10 + header_len]).unwrap();
    assert!(header.contains("'descr': '<f4'"), "{header}");
    assert!(header.contains("'shape': (128, 6, 3)"), "{header}");
    let data = &bytes[10 + header_len..];
    assert_eq!(data.len(), 128 * 6 * 3 * 4);
    let values: Vec<f32> = data
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert!(values.iter().all(|v| v.is_finite() && v.abs() < 3.0));
    // Consecutive points of a strand are a few centimetres apart, never zero or metres.
    for strand in values.chunks(18) {
        for k in 0..5 {
            let d: f32 = (0..3)
                .map(|a| (strand[3 * (k + 1) + a] - strand[3 * k + a]).powi(2))
                .sum::<f32>()
                .sqrt();
            assert!((0.002..0.06).contains(&d), "segment length {d}");
        }
    }
}

#[test]
fn bad_arguments_exit_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.npy");
    let run = |args: &[&str]| {
        let o = pelt().args(args).arg("--out").arg(&out).output().unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let (ok, err) = run(&[
        "simulate",
        "--solver",
        "cpu",
        "--strands",
        "0",
        "--steps",
        "1",
    ]);
    assert!(!ok && err.contains("strand count 0"), "{err}");
    let script = dir.path().join("bad.json");
    // `pelt simulate` with the capsule script `text` in `script`.
    let simulate_script = |text: &str| {
        std::fs::write(&script, text).unwrap();
        run(&[
            "simulate",
            "--solver",
            "cpu",
            "--strands",
            "64",
            "--capsule-script",
            script.to_str().unwrap(),
        ])
    };
    let (ok, err) = simulate_script("{ not json");
    assert!(!ok && err.contains("capsule script"), "{err}");
    assert!(
        err.contains("bad.json"),
        "the error does not name the script: {err}"
    );
    // A capsule of radius 1e38 took in every strand: refused when the script is read.
    let (ok, err) = simulate_script(
        r#"{ "mode": "pet", "capsules": [ { "radius": 1e38, "keys": [
            { "step": 1, "a": [0, 0, 0], "b": [0, 0, 0.1] } ] } ] }"#,
    );
    assert!(
        !ok && err.contains("capsule 0, key 0") && err.contains("reaches"),
        "{err}"
    );
    // Numbers past f32's range are checked as the file gives them, not as infinity or 0.
    for (radius, wanted) in [
        ("1e39", "reaches 1e39 m"),
        ("1e-46", "radius 1e-46 m is too small"),
    ] {
        let (ok, err) = simulate_script(&format!(
            r#"{{ "mode": "pet", "capsules": [ {{ "radius": {radius}, "keys": [
                {{ "step": 1, "a": [0, 0, 0], "b": [0, 0, 0.1] }} ] }} ] }}"#
        ));
        assert!(!ok && err.contains(wanted), "{radius}: {err}");
    }
    let (ok, err) = run(&[
        "simulate",
        "--solver",
        "cpu",
        "--capsule-script",
        "/no/such/file.json",
    ]);
    assert!(!ok && err.contains("/no/such/file.json"), "{err}");
    for interval in ["0", "9", "x"] {
        let (ok, err) = run(&[
            "simulate",
            "--solver",
            "cpu",
            "--volume",
            "on",
            "--volume-interval",
            interval,
        ]);
        assert!(
            !ok && err.contains("--volume-interval"),
            "{interval}: {err}"
        );
    }
    let (ok, err) = run(&["simulate", "--solver", "cpu", "--volume-interval", "4"]);
    assert!(!ok && err.contains("needs --volume on"), "{err}");
    assert!(!out.exists(), "a failed run left a file behind");
}

#[test]
fn simulate_names_how_the_volume_grid_is_splatted() {
    let dir = tempfile::tempdir().unwrap();
    let summary = |strands: &str, interval: Option<&str>| {
        let out = pelt()
            .args([
                "simulate", "--solver", "cpu", "--steps", "1", "--volume", "on",
            ])
            .args(
                interval
                    .map(|n| ["--volume-interval", n])
                    .into_iter()
                    .flatten(),
            )
            .args(["--strands", strands, "--out"])
            .arg(dir.path().join("state.npy"))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // A coat over the 65,536 strands a grid splats by default splats one strand in k.
    let big = summary("70000", Some("4"));
    assert!(
        big.contains("volume grid on (splatted every 4 steps, from one strand in 2)"),
        "{big}"
    );
    let small = summary("512", Some("1"));
    assert!(
        small.contains("volume grid on (splatted every step) from step 60"),
        "{small}"
    );
    // Without --volume-interval, the library's default: every eighth step.
    let default = summary("512", None);
    assert!(
        default.contains("volume grid on (splatted every 8 steps) from step 60"),
        "{default}"
    );
}

/// The header and the data of one `.npy` inside an `.npz`.
fn npz_array(archive: &mut zip::ZipArchive<std::fs::File>, name: &str) -> (String, Vec<u8>) {
    use std::io::Read;
    let mut bytes = Vec::new();
    archive
        .by_name(name)
        .unwrap_or_else(|e| panic!("{name} missing: {e}"))
        .read_to_end(&mut bytes)
        .unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00", "{name}");
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + header_len])
        .unwrap()
        .to_string();
    (header, bytes[10 + header_len..].to_vec())
}

#[test]
fn simulate_writes_an_npz_with_positions_touched_comb_and_roots() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("stroke.npz");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/back_stroke.json");
    let o = pelt()
        .args([
            "simulate",
            "--solver",
            "cpu",
            "--strands",
            "2048",
            "--steps",
            "90",
        ])
        .args(["--capsule-script", script, "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("points in the last step"), "{err}");
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&out).unwrap()).unwrap();
    assert_eq!(archive.len(), 4);
    let (h, positions) = npz_array(&mut archive, "positions.npy");
    assert!(h.contains("'<f4'") && h.contains("(2048, 6, 3)"), "{h}");
    assert_eq!(positions.len(), 2048 * 18 * 4);
    let (h, touched) = npz_array(&mut archive, "touched.npy");
    assert!(h.contains("'|u1'") && h.contains("(2048, 6)"), "{h}");
    assert!(touched.iter().all(|&t| t <= 1));
    // Mid-stroke at step 90: the palm is in the fur.
    assert!(touched.contains(&1), "no point touched mid-stroke");
    let (h, comb) = npz_array(&mut archive, "comb.npy");
    assert!(h.contains("(2048, 3)"), "{h}");
    let floats = |b: &[u8]| -> Vec<f32> {
        b.chunks(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let comb = floats(&comb);
    assert!(comb.iter().any(|&c| c != 0.0), "the stroke combed nothing");
    let (h, roots) = npz_array(&mut archive, "roots.npy");
    assert!(h.contains("(2048, 3)"), "{h}");
    let roots = floats(&roots);
    // The roots lie on the creature's skin as posed at the end of the run: the same run in
    // the library gives the pose (the idle motion and the head's lean into the hand), and
    // each root, taken back to the rest pose through its part's transform, has the part's
    // inside within a millimetre on one side and its outside on the other.
    let script = pelt::hand::CapsuleScript::from_path(std::path::Path::new(script)).unwrap();
    let creature = pelt::creature::Creature::default();
    let mut sim =
        pelt::sim::FurSim::new_cpu(&pelt::sim::FurConfig::new(2048, 1), creature.clone()).unwrap();
    // In the chunks `pelt simulate` takes (one dispatch's worth at a time).
    let mut left = 90;
    while left > 0 {
        let n = left.min(pelt::sim::MAX_STEPS_PER_DISPATCH as u32);
        script.step(&mut sim, n).unwrap();
        left -= n;
    }
    let pose = sim.pose_at(sim.time());
    let on_skin = |p: glam::Vec3| {
        use pelt::creature::Part;
        let mut candidates = vec![(
            Part::Head,
            creature.to_body(Part::Head, pose.head.inverse().transform_point3(p)),
        )];
        let in_body = pose.body.inverse().transform_point3(p);
        candidates.extend(
            [
                Part::Body,
                Part::Paw(0),
                Part::Paw(1),
                Part::Paw(2),
                Part::Paw(3),
            ]
            .map(|part| (part, in_body)),
        );
        candidates.extend(
            pose.tail
                .iter()
                .map(|bone| (Part::Tail, bone.inverse().transform_point3(p))),
        );
        candidates.iter().any(|&(part, q)| {
            let sides: Vec<bool> = [glam::Vec3::X, glam::Vec3::Y, glam::Vec3::Z]
                .iter()
                .flat_map(|&axis| [q + axis * 1e-3, q - axis * 1e-3])
                .map(|x| creature.inside(part, x))
                .collect();
            sides.contains(&true) && sides.contains(&false)
        })
    };
    let on = (0..2048)
        .filter(|&s| on_skin(glam::Vec3::from_slice(&roots[s * 3..s * 3 + 3])))
        .count();
    eprintln!("{on} of 2048 roots on the skin");
    assert!(on >= 2040, "only {on} of 2048 roots lie on the skin");
}

#[test]
fn a_bad_output_path_fails_before_any_work() {
    let (ok, err) = {
        let o = pelt()
            .args([
                "simulate",
                "--solver",
                "cpu",
                "--strands",
                "64",
                "--steps",
                "1",
            ])
            .args(["--out", "/no/such/dir/state.npz"])
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    assert!(!ok && err.contains("/no/such/dir/state.npz"), "{err}");
    assert!(
        !err.contains("solver: CPU"),
        "it grew the coat before checking: {err}"
    );
    let o = pelt()
        .args([
            "simulate",
            "--solver",
            "cpu",
            "--strands",
            "64",
            "--out",
            "state.txt",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains(".npz"), "{err}");
}

#[test]
fn a_clean_environment_hears_only_pelt() {
    // No runtime directory, as on a fresh machine or in a container: Mesa would complain.
    let o = pelt()
        .args([
            "simulate",
            "--solver",
            "gpu",
            "--strands",
            "64",
            "--steps",
            "2",
            "--out",
        ])
        .arg(tempfile::tempdir().unwrap().path().join("s.npy"))
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("XDG_RUNTIME_DIR"), "{err}");
    for line in err.lines() {
        assert!(
            line.starts_with("solver: GPU on") || line.starts_with("groom and setup"),
            "a message that is not Pelt's: {line}"
        );
    }
}

#[test]
fn render_writes_the_same_png_twice_and_refuses_bad_arguments_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let render = |out: &std::path::Path| {
        let o = pelt()
            .args([
                "render",
                "--strands",
                "1024",
                "--steps",
                "4",
                "--width",
                "96",
                "--height",
                "64",
                "--out",
            ])
            .arg(out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(out).unwrap()
    };
    let a = render(&dir.path().join("a.png"));
    let b = render(&dir.path().join("b.png"));
    assert_eq!(&a[..8], b"\x89PNG\r\n\x1a\n");
    // Width and height in the IHDR chunk.
    assert_eq!(u32::from_be_bytes(a[16..20].try_into().unwrap()), 96);
    assert_eq!(u32::from_be_bytes(a[20..24].try_into().unwrap()), 64);
    assert!(a == b, "the same arguments gave different pictures");
    // And the picture shows the creature: two blank images would be equal too.
    let decoded = {
        let decoder = png::Decoder::new(std::io::Cursor::new(&a));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        buf
    };
    let pixels: Vec<&[u8]> = decoded.chunks_exact(3).collect();
    let background = pixels[0];
    let differ = pixels
        .iter()
        .filter(|p| {
            p.iter()
                .zip(background)
                .map(|(x, y)| x.abs_diff(*y) as u32)
                .sum::<u32>()
                > 60
        })
        .count();
    let colours: std::collections::HashSet<&[u8]> = pixels.iter().copied().collect();
    eprintln!(
        "{differ} of {} pixels differ from the background; {} colours",
        pixels.len(),
        colours.len()
    );
    assert!(
        differ > pixels.len() / 10,
        "only {differ} pixels show the creature"
    );
    assert!(
        colours.len() > 100,
        "{} colours: a flat picture",
        colours.len()
    );

    // Refused at once, before any work: the arguments that need no adapter are refused
    // where no adapter can be had (`WGPU_ADAPTER_NAME` names none), so a check made after
    // the GPU was asked for would print that error instead.
    let missing = dir.path().join("no/such/folder/x.png");
    let no_adapter = "no adapter has this name";
    let cases: [(&[&str], &str); 4] = [
        (&["--width", "0"], "at least 1"),
        (&["--eye", "nan,0,1", "--target", "0,0,0"], "finite"),
        (&["--fov", "200"], "field of view"),
        (&["--out", missing.to_str().unwrap()], "no such folder"),
    ];
    for (args, expected) in cases {
        let o = pelt()
            .args(["render", "--strands", "420032"])
            .args(args)
            .env("WGPU_ADAPTER_NAME", no_adapter)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(
            err.contains(expected) && !err.contains(no_adapter),
            "{args:?}: {err}"
        );
    }
    // A size is checked against the adapter's largest texture, so once the adapter is
    // open, but before the coat is grown: with a strand count no adapter holds (refused
    // when the coat would be grown), the size is what is refused.
    let o = pelt()
        .args(["render", "--strands", "999999999999", "--height", "100000"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "--height 100000 succeeded");
    assert!(
        err.contains("largest texture") && !err.contains("999999999999"),
        "--height 100000: {err}"
    );
}

/// A PNG's pixels, 8-bit RGB.
fn decode_rgb(bytes: &[u8]) -> Vec<u8> {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf
}

/// `--solver` on `render` and `simulate`: either solver settles the same coat (the
/// pictures a level or two apart at most in a few pixels), and `auto` gives exactly what
/// the solver it picks for this adapter gives.
#[test]
fn either_solver_settles_the_same_coat_and_auto_is_the_one_it_picks() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str], out: &std::path::Path| -> Vec<u8> {
        let o = pelt().args(args).arg("--out").arg(out).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(out).unwrap()
    };
    let picked = pelt::sim::SolverKind::Auto
        .for_adapter(&pelt::gpu::GpuContext::new().unwrap().info())
        .name();
    // Mid-stroke, so a coat drawn where it was grown instead of where it was stepped to
    // would show: the hand parts the fur.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/back_stroke.json");
    let render = |solver: &str| {
        let args = [
            "render",
            "--strands",
            "4096",
            "--steps",
            "60",
            "--width",
            "256",
            "--height",
            "160",
            "--capsule-script",
            script,
            "--solver",
            solver,
        ];
        decode_rgb(&run(&args, &dir.path().join(format!("{solver}.png"))))
    };
    let (cpu, gpu, auto) = (render("cpu"), render("gpu"), render("auto"));
    let pixels = cpu.len() / 3;
    let apart = cpu
        .chunks_exact(3)
        .zip(gpu.chunks_exact(3))
        .filter(|(a, b)| a.iter().zip(*b).any(|(x, y)| x.abs_diff(*y) > 2))
        .count();
    eprintln!("{apart} of {pixels} pixels more than two levels apart; auto is {picked}");
    assert!(
        apart * 200 < pixels,
        "{apart} of {pixels} pixels differ by more than two levels between the solvers"
    );
    assert!(
        auto == if picked == "cpu" { cpu } else { gpu },
        "auto did not draw what {picked} draws"
    );

    let simulate = |solver: &str| {
        let args = [
            "simulate",
            "--strands",
            "256",
            "--steps",
            "12",
            "--solver",
            solver,
        ];
        run(&args, &dir.path().join(format!("{solver}.npy")))
    };
    assert!(
        simulate("auto") == simulate(picked),
        "simulate --solver auto did not write what {picked} writes"
    );
    // The CPU solver needs no adapter: `export` on it writes the same coat without one
    // (`WGPU_BACKEND=dx12` finds none here), and `simulate`'s `auto` falls back to it.
    let no_adapter = |args: &[&str], out: &std::path::Path| {
        let o = pelt()
            .args(args)
            .arg("--out")
            .arg(out)
            .env("WGPU_BACKEND", "dx12")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(out).unwrap()
    };
    let export = [
        "export",
        "--strands",
        "256",
        "--steps",
        "4",
        "--solver",
        "cpu",
    ];
    assert!(
        no_adapter(&export, &dir.path().join("a.usda")) == run(&export, &dir.path().join("b.usda")),
        "export --solver cpu wrote another coat without an adapter"
    );
    let args = ["simulate", "--strands", "256", "--steps", "12"];
    assert!(
        no_adapter(&args, &dir.path().join("n.npy")) == simulate("cpu"),
        "simulate --solver auto without an adapter did not step the CPU solver's coat"
    );
    // `pelt run` (what a bare `pelt` does without a display) times the same solver.
    let o = pelt().args(["run", "--strands", "1024"]).output().unwrap();
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(said.contains(&format!("on the {picked} solver")), "{said}");
}

#[test]
fn every_command_s_help_ends_with_an_example_using_only_its_own_options() {
    let commands = [
        "run",
        "info",
        "simulate",
        "export",
        "import",
        "tail-trace",
        "render",
        "demo",
    ];
    for command in commands {
        let o = pelt().args([command, "--help"]).output().unwrap();
        assert!(o.status.success(), "{command} --help failed");
        let help = String::from_utf8(o.stdout).unwrap();
        let last = help.trim_end().lines().last().unwrap();
        let example = last
            .strip_prefix("Example: pelt ")
            .unwrap_or_else(|| panic!("{command} --help ends with {last:?}"));
        assert!(example.starts_with(command), "{command}: {last}");
        // Every option the example uses is one the help lists (a renamed flag would leave
        // the example stale).
        for flag in example.split_whitespace().filter(|w| w.starts_with("--")) {
            let listed = help
                .lines()
                .filter(|l| !l.starts_with("Example:"))
                .any(|l| l.contains(&format!("{flag} ")) || l.trim_end().ends_with(flag));
            assert!(
                listed,
                "{command}: the example's {flag} is not an option: {last}"
            );
        }
    }
}

#[test]
fn a_bare_pelt_without_a_display_prints_what_pelt_run_prints() {
    // Both must get `pelt run`'s defaults (seed 1, its strand count), not zeros.
    let printout = |args: &[&str]| {
        let out = pelt()
            .args(args)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The lines that do not depend on timing.
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.contains("points pushed") || l.starts_with("invariants"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let bare = printout(&[]);
    assert_eq!(bare.len(), 2, "{bare:?}");
    assert_eq!(bare, printout(&["run"]));
}
