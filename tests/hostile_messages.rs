//! What Pelt says about bad input, round three: every message names what is wrong in words
//! (the keyframe out of order and both times, the list of the wrong length and its count,
//! nesting too deep, the backend name that is no backend and the valid ones, a damaged
//! picture without Rust's debug text, a chain's real length), and a file given to the wrong
//! flag is recognised and sent to the flag that reads it.

use pelt::hand::{CapsuleScript, PointerScript};
use pelt::spring::RootMotion;
use serde_json::json;
use std::path::{Path, PathBuf};

mod cli_common;
use cli_common::{fails, pelt, s, stderr};

fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(name)
}

/// A capsule script of one capsule whose first key's end `a` is `a`.
fn capsule_script(a: &str) -> String {
    format!(
        r#"{{"mode": "pet", "capsules": [{{"radius": 0.05, "keys": [
            {{"step": 0, "a": {a}, "b": [0.1, 0.4, 0.1]}},
            {{"step": 60, "a": [-0.1, 0.4, 0.0], "b": [-0.1, 0.4, 0.1]}}]}}]}}"#
    )
}

/// A motion of one keyframe with `position` and `rotation` as given.
fn motion(position: &str, rotation: &str) -> String {
    format!(r#"[{{"t": 0, "position": {position}, "rotation": {rotation}}}]"#)
}

#[test]
fn a_keyframe_out_of_order_is_named_with_both_times() {
    let text = r#"[{"t": 1, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]},
        {"t": 0.5, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]},
        {"t": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]}]"#;
    let e = RootMotion::from_json(text).unwrap_err().to_string();
    assert!(
        e.contains("keyframe 1 (t = 0.5 s) is earlier than the keyframe before it (t = 1 s)"),
        "{e}"
    );
    // Equal times are allowed; the first decrease is the one named, wherever it is.
    let text = r#"[{"t": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]},
        {"t": 2, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]},
        {"t": 2, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]},
        {"t": 1e-300, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]}]"#;
    let e = RootMotion::from_json(text).unwrap_err().to_string();
    assert!(
        e.contains("keyframe 3 (t = 1e-300 s) is earlier than the keyframe before it (t = 2 s)"),
        "{e}"
    );
}

#[test]
fn a_value_of_the_wrong_type_is_named_in_words_in_every_script() {
    // serde names Rust's types ("expected f64"); someone editing a JSON file reads words.
    let pointer = r#"[{"t": "zero", "kind": "move", "x": 1, "y": 2}]"#;
    let capsule = capsule_script(r#"[0.1, "high", 0.0]"#);
    let moved = motion(r#"[0, 0, "up"]"#, "[0, 0, 0, 1]");
    let messages = [
        PointerScript::from_json(pointer).unwrap_err().to_string(),
        CapsuleScript::from_json(&capsule).unwrap_err().to_string(),
        RootMotion::from_json(&moved).unwrap_err().to_string(),
    ];
    for e in messages {
        assert!(e.contains("expected a number"), "{e}");
        assert!(!e.contains("f64") && !e.contains("f32"), "{e}");
    }
}

#[test]
fn a_misspelt_wgpu_backend_is_named_with_the_valid_ones() {
    for (value, named) in [
        ("bogus", "`bogus` is not a backend"),
        ("vulkan, bogus", "`bogus` is not a backend"),
        ("", "an empty name is no backend"),
    ] {
        let o = pelt()
            .arg("info")
            .env("WGPU_BACKEND", value)
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(!o.status.success(), "{value}: {err}");
        assert!(
            err.contains(&format!("WGPU_BACKEND={value}: {named}")),
            "{err}"
        );
        for valid in [
            "vulkan (or vk)",
            "metal",
            "dx12",
            "gl (or gles, opengl)",
            "webgpu",
        ] {
            assert!(err.contains(valid), "{valid}: {err}");
        }
        // wgpu's own warnings and its debug text of the empty set are not shown.
        assert!(!err.contains("WARN") && !err.contains("Backends("), "{err}");
    }
    // Names in any case, with spaces, are read as wgpu reads them.
    let both = pelt::gpu::parse_backends(" VK ,gles").unwrap();
    assert_eq!(both, wgpu::Backends::VULKAN | wgpu::Backends::GL);
}

#[test]
fn a_list_of_the_wrong_length_says_how_many_numbers_it_has() {
    for (a, count) in [
        ("[0.1, 0.4, 0.0, 7]", "has 4 numbers"),
        ("[0.1, 0.4]", "has 2 numbers"),
        ("[0.1]", "has 1 number"),
        ("[]", "has 0 numbers"),
    ] {
        let e = CapsuleScript::from_json(&capsule_script(a))
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("`a` {count}, wants 3")), "{a}: {e}");
        assert!(e.contains("line 2"), "{a}: {e}");
    }
    let e = CapsuleScript::from_json(&capsule_script("5"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected `a` to be a list of 3 numbers"), "{e}");
    let e = RootMotion::from_json(&motion("[0, 0, 0, 0]", "[0, 0, 0, 1]"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("`position` has 4 numbers, wants 3"), "{e}");
    let e = RootMotion::from_json(&motion("[0, 0, 0]", "[0, 0, 1]"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("`rotation` has 3 numbers, wants 4"), "{e}");
    // The right lengths still read.
    assert!(CapsuleScript::from_json(&capsule_script("[0.1, 0.4, 0.0]")).is_ok());
    assert!(RootMotion::from_json(&motion("[0, 0, 0]", "[0, 0, 0, 1]")).is_ok());
}

#[test]
fn nesting_too_deep_is_named_in_every_json_file_pelt_reads() {
    let deep = "[".repeat(100_000);
    let said = [
        CapsuleScript::from_json(&deep).unwrap_err().to_string(),
        PointerScript::from_json(&deep).unwrap_err().to_string(),
        RootMotion::from_json(&deep).unwrap_err().to_string(),
        pelt::vrm::read_glb(&pelt::vrm::glb::pack(deep.as_bytes(), &[]))
            .unwrap_err()
            .to_string(),
    ];
    for e in said {
        assert!(e.contains("nested too deeply"), "{e}");
        assert!(e.contains("line 1 column 129 opens level 129"), "{e}");
    }
    // Objects count as lists do, on any line, columns in characters.
    let deep = format!("[\n\"日本\", {}", "{\"a\": ".repeat(200));
    let e = PointerScript::from_json(&deep).unwrap_err().to_string();
    assert!(e.contains("at line 2 column 769 opens level 129"), "{e}");
    // Brackets inside a string are text, not nesting.
    let text = format!(
        r#"[{{"t": 0, "kind": "move", "x": 1, "y": 2, "z": "{deep}"}}]"#,
        deep = "[".repeat(500)
    );
    let e = PointerScript::from_json(&text).unwrap_err().to_string();
    assert!(e.contains("unknown field `z`"), "{e}");
}

/// A 4×2 RGB PNG.
fn png_bytes() -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, 4, 2);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&[90u8; 4 * 2 * 3]).unwrap();
    writer.finish().unwrap();
    out
}

#[test]
fn a_damaged_png_environment_map_is_described_in_a_sentence() {
    let good = png_bytes();
    assert!(pelt::render::EnvironmentMap::from_bytes(&good, "map.png").is_ok());
    // The pixels' chunk with a wrong checksum (its last four bytes), and with a byte of its
    // compressed data changed.
    let idat = good.windows(4).position(|w| w == b"IDAT").unwrap();
    let length = u32::from_be_bytes(good[idat - 4..idat].try_into().unwrap()) as usize;
    let mut bad_sum = good.clone();
    bad_sum[idat + 4 + length] ^= 0x55;
    let mut bad_data = good.clone();
    bad_data[idat + 6] ^= 0x55;
    for (bad, says) in [
        (
            bad_sum,
            "its PNG data does not decode: CRC error: expected 0x",
        ),
        (
            bad_data,
            "its PNG data does not decode (the file is damaged or cut short)",
        ),
    ] {
        let e = pelt::render::EnvironmentMap::from_bytes(&bad, "map.png")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("environment map map.png is damaged: "), "{e}");
        assert!(e.contains(says), "{e}");
        assert!(!e.contains("ChunkType") && !e.contains('{'), "{e}");
        // No CamelCase name of a Rust type or variant (png's `InvalidBlockType`).
        let camel = e.split(|c: char| !c.is_alphanumeric()).find(|w| {
            w.chars().skip(1).any(char::is_uppercase) && w.chars().any(char::is_lowercase)
        });
        assert_eq!(camel, None, "{e}");
    }
    // Cut short inside the pixels, and a picture of another kind.
    let e = pelt::render::EnvironmentMap::from_bytes(&good[..idat + 8], "map.png")
        .unwrap_err()
        .to_string();
    assert!(e.contains("is damaged") && !e.contains('{'), "{e}");
    let jpeg = [0xff, 0xd8, 0xff, 0xe0, 0, 0x10, b'J', b'F', b'I', b'F', 0];
    let e = pelt::render::EnvironmentMap::from_bytes(&jpeg, "map.jpg")
        .unwrap_err()
        .to_string();
    assert!(e.contains("it is a JPG picture"), "{e}");
}

/// A GLB whose one VRMC spring has `joints` joints down a line of nodes.
fn vrmc_glb(path: &Path, joints: usize) {
    let nodes: Vec<_> = (0..4)
        .map(|i| {
            let mut n = json!({"name": format!("bone{i}"), "translation": [0.0, -0.05, 0.0]});
            if i < 3 {
                n["children"] = json!([i + 1]);
            }
            n
        })
        .collect();
    let doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "extensionsUsed": ["VRMC_springBone"],
        "extensions": {"VRMC_springBone": {
            "specVersion": "1.0",
            "springs": [{"name": "stub", "joints": (1..=joints).map(|j| json!({"node": j})).collect::<Vec<_>>()}],
        }},
    });
    let bytes = pelt::vrm::glb::pack(&serde_json::to_vec(&doc).unwrap(), &[]);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_one_joint_spring_is_explained_alike_by_import_and_tail_trace() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("stub.glb");
    vrmc_glb(&file, 1);
    let o = pelt().args(["import", s(&file)]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let listed = String::from_utf8_lossy(&o.stdout).into_owned();
    let note = listed
        .lines()
        .find_map(|l| l.strip_prefix("note: "))
        .filter(|n| n.contains("spring `stub` has 1 joint"))
        .unwrap_or_else(|| panic!("import says nothing of the spring: {listed}"))
        .to_string();
    let motion = cli_common::still_motion(&dir.path().join("m.json"));
    let out = dir.path().join("t.csv");
    let err = fails(&[
        "tail-trace",
        "--file",
        s(&file),
        "--motion",
        s(&motion),
        "--frames",
        "2",
        "--out",
        s(&out),
    ]);
    assert!(err.contains("has no VRM springs to trace"), "{err}");
    assert!(err.contains(&note), "import: {note}\ntail-trace: {err}");
    assert!(!out.exists());
    // Two joints swing one bone: traced.
    vrmc_glb(&file, 2);
    let o = pelt()
        .args([
            "tail-trace",
            "--file",
            s(&file),
            "--motion",
            s(&motion),
            "--frames",
            "2",
        ])
        .args(["--out", s(&out)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_vrm0_chain_past_the_joint_limit_is_refused_with_its_real_length() {
    let bones = 10_000;
    let nodes: Vec<_> = (0..bones)
        .map(|i| {
            let mut n = json!({"translation": [0.0, -0.01, 0.0]});
            if i + 1 < bones {
                n["children"] = json!([i + 1]);
            }
            n
        })
        .collect();
    let doc = json!({
        "asset": {"version": "2.0"},
        "nodes": nodes,
        "extensionsUsed": ["VRM"],
        "extensions": {"VRM": {"secondaryAnimation": {"boneGroups": [{"comment": "tail", "bones": [0]}]}}},
    });
    let bytes = pelt::vrm::glb::pack(&serde_json::to_vec(&doc).unwrap(), &[]);
    let e = pelt::vrm::read_glb(&bytes).unwrap_err().to_string();
    assert!(
        e.contains("chain `tail_0`'s joint count is 10000, more than the limit 1024"),
        "{e}"
    );
}

#[test]
fn a_file_given_to_the_wrong_flag_is_recognised() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.npy");
    let png = dir.path().join("map.png");
    std::fs::write(&png, png_bytes()).unwrap();
    let motion = cli_common::still_motion(&dir.path().join("m.json"));
    let simulate = |script: &Path| {
        fails(&[
            "simulate",
            "--solver",
            "cpu",
            "--strands",
            "64",
            "--steps",
            "1",
            "--capsule-script",
            s(script),
            "--out",
            s(&out),
        ])
    };
    let err = simulate(&asset("pet_scratch.json"));
    assert!(
        err.contains("is a pointer script") && err.contains("`pelt demo --script` replays"),
        "{err}"
    );
    assert!(!err.contains("unknown variant"), "{err}");
    let err = simulate(&png);
    assert!(
        err.contains("this is a PNG picture, not a capsule script: --capsule-script takes a JSON file, an object like {\"mode\""),
        "{err}"
    );
    let err = simulate(&motion);
    assert!(
        err.contains("is a root motion") && err.contains("--motion"),
        "{err}"
    );
    assert!(!out.exists());

    let demo = |script: &Path| fails(&["demo", "--script", s(script), "--frames", "1"]);
    let err = demo(&asset("back_stroke.json"));
    assert!(
        err.contains("this is a capsule script") && err.contains("--capsule-script"),
        "{err}"
    );
    let err = demo(&png);
    assert!(
        err.contains("this is a PNG picture, not a pointer script: `pelt demo --script` takes a JSON file, a list of events like"),
        "{err}"
    );
    let err = demo(&motion);
    assert!(err.contains("is a root motion"), "{err}");
    // And a script given as a motion.
    let err = fails(&[
        "tail-trace",
        "--motion",
        s(&asset("pet_scratch.json")),
        "--frames",
        "1",
        "--out",
        s(&dir.path().join("t.csv")),
    ]);
    assert!(
        err.contains("is a pointer script") && err.contains("not a root motion"),
        "{err}"
    );
}
