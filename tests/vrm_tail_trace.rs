//! `pelt tail-trace` on files: `--bone-length` picks the rule (three-vrm's by default), and
//! springs whose joint–collider work per step is out of all proportion are refused with
//! the figure and the limit before any frame is traced.

use serde_json::{Value, json};
use std::path::Path;
use std::process::Output;

fn pelt(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pelt"))
        .args(args)
        .output()
        .unwrap()
}

/// A glTF document with `chains` springs of `joints` joints each (nested nodes under one
/// root) that all meet one group of `colliders` spheres.
fn springs_doc(chains: usize, joints: usize, colliders: usize) -> Value {
    let mut nodes = vec![json!({"name": "root", "children": []})];
    let mut springs = Vec::new();
    for c in 0..chains {
        let first = nodes.len();
        nodes[0]["children"]
            .as_array_mut()
            .unwrap()
            .push(json!(first));
        for j in 0..=joints {
            let mut n = json!({"name": format!("c{c}_{j}"), "translation": [0.0, -0.01, 0.0]});
            if j < joints {
                n["children"] = json!([first + j + 1]);
            }
            nodes.push(n);
        }
        springs.push(json!({
            "name": format!("chain{c}"),
            "colliderGroups": [0],
            "joints": (0..=joints).map(|j| json!({"node": first + j})).collect::<Vec<_>>(),
        }));
    }
    let shapes: Vec<Value> = (0..colliders)
        .map(|k| json!({"node": 0, "shape": {"sphere": {"offset": [k as f32, 5.0, 0.0], "radius": 0.1}}}))
        .collect();
    json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "extensionsUsed": ["VRMC_springBone"],
        "extensions": {"VRMC_springBone": {
            "specVersion": "1.0",
            "colliders": shapes,
            "colliderGroups": [{"name": "all", "colliders": (0..colliders).collect::<Vec<_>>()}],
            "springs": springs,
        }},
    })
}

fn write_glb(path: &Path, doc: &Value) {
    let json = serde_json::to_vec(doc).unwrap();
    std::fs::write(path, pelt::vrm::glb::pack(&json, &[])).unwrap();
}

const TURN: &str = r#"[{"t": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]},
    {"t": 0.3, "position": [0.6, 0.2, 0], "rotation": [0, 0.7071068, 0, 0.7071068]}]"#;

#[test]
fn springs_with_too_much_collider_work_per_step_are_refused_with_the_figure() {
    let dir = tempfile::tempdir().unwrap();
    let motion = dir.path().join("m.json");
    std::fs::write(&motion, TURN).unwrap();
    let out = dir.path().join("t.csv");
    let trace = |file: &Path| {
        pelt(&[
            "tail-trace",
            "--motion",
            motion.to_str().unwrap(),
            "--frames",
            "2",
            "--out",
            out.to_str().unwrap(),
            "--file",
            file.to_str().unwrap(),
        ])
    };
    // 4 chains of 1,000 joints against 4,096 colliders: 16,384,000 tests a step, within
    // every per-item limit of the reader.
    let big = dir.path().join("big.glb");
    write_glb(&big, &springs_doc(4, 1000, 4096));
    let o = trace(&big);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "refused: {err}");
    assert!(
        err.contains("16384000") && err.contains("4194304") && err.contains("joint–collider"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out.exists(), "no trace is written");
    // Just under the limit (1,024 joints against 4,096 colliders) runs.
    let fits = dir.path().join("fits.glb");
    write_glb(&fits, &springs_doc(1, 1023, 4096));
    let o = trace(&fits);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn bone_length_picks_the_rule_and_defaults_to_three_vrms() {
    let dir = tempfile::tempdir().unwrap();
    let motion = dir.path().join("m.json");
    std::fs::write(&motion, TURN).unwrap();
    let file = dir.path().join("s.glb");
    write_glb(&file, &springs_doc(1, 6, 1));
    let trace = |name: &str, rule: Option<&str>| {
        let out = dir.path().join(name);
        let mut args = vec![
            "tail-trace",
            "--motion",
            motion.to_str().unwrap(),
            "--frames",
            "40",
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(rule) = rule {
            args.extend(["--bone-length", rule]);
        }
        let o = pelt(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(out).unwrap()
    };
    let default = trace("d.csv", None);
    let three = trace("t.csv", Some("three-vrm"));
    let rest = trace("r.csv", Some("rest"));
    assert_eq!(default, three, "three-vrm's rule is the default");
    assert_ne!(three, rest, "the rules differ on a quick turn");
    let o = pelt(&[
        "tail-trace",
        "--motion",
        motion.to_str().unwrap(),
        "--frames",
        "1",
        "--out",
        dir.path().join("x.csv").to_str().unwrap(),
        "--bone-length",
        "unity",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("three-vrm") && err.contains("rest"),
        "{err}"
    );
    // The rules on a file too (its chain hangs along -y and swings on the turn).
    let on_file = |rule: &str| {
        let out = dir.path().join(format!("f_{rule}.csv"));
        let o = pelt(&[
            "tail-trace",
            "--motion",
            motion.to_str().unwrap(),
            "--frames",
            "40",
            "--out",
            out.to_str().unwrap(),
            "--file",
            file.to_str().unwrap(),
            "--bone-length",
            rule,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(out).unwrap()
    };
    assert_ne!(on_file("three-vrm"), on_file("rest"));
}
