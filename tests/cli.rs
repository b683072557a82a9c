//! The `pelt` binary as a user runs it: `simulate` writes a NumPy file of the right shape,
//! and bad arguments exit with a message that says what was wrong.

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
    std::fs::write(&script, "{ not json").unwrap();
    let (ok, err) = run(&[
        "simulate",
        "--solver",
        "cpu",
        "--strands",
        "64",
        "--capsule-script",
        script.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("capsule script"), "{err}");
    let (ok, err) = run(&[
        "simulate",
        "--solver",
        "cpu",
        "--capsule-script",
        "/no/such/file.json",
    ]);
    assert!(!ok && err.contains("/no/such/file.json"), "{err}");
    assert!(!out.exists(), "a failed run left a file behind");
}
