//! Write → read round trips: ours exactly through PELT_spring_chains; VRMC_springBone alone
//! and VRM 0.x through the inverse conversion; the CLI.

use glam::Vec3;
use pelt::creature::Creature;
use pelt::spring::creature_tail::{CreatureTail, body_rest_frame};
use pelt::spring::{ColliderShape, Frame, SpringSettings};
use pelt::vrm::convert::{our_stiffness, vrm_level_droop};
use pelt::vrm::{SpringSource, creature_body, glb, read_glb, write_glb};
use serde_json::Value;

fn exported() -> (pelt::vrm::RiggedBody, Vec<u8>) {
    let body = creature_body(&Creature::default(), SpringSettings::default(), 1);
    let bytes = write_glb(&body).expect("export");
    (body, bytes)
}

fn json_of(bytes: &[u8]) -> (Value, Vec<u8>) {
    let (j, bin) = glb::unpack(bytes).unwrap();
    (
        serde_json::from_slice(j).unwrap(),
        bin.unwrap_or(&[]).to_vec(),
    )
}

fn repack(json: &Value, bin: &[u8]) -> Vec<u8> {
    glb::pack(&serde_json::to_vec(json).unwrap(), bin)
}

#[test]
fn pelt_round_trip_is_bit_exact() {
    let (body, bytes) = exported();
    let back = read_glb(&bytes).expect("read back");
    assert_eq!(back.source, SpringSource::Pelt);
    assert_eq!(back.springs, body.springs);
    // Bit for bit, not just ==: compare the f32 bits of every number.
    for (a, b) in back.springs.chains.iter().zip(&body.springs.chains) {
        let s = (a.settings, b.settings);
        assert_eq!(s.0.stiffness.to_bits(), s.1.stiffness.to_bits());
        assert_eq!(s.0.damping.to_bits(), s.1.damping.to_bits());
        for (x, y) in a.joints.iter().zip(&b.joints) {
            for k in 0..3 {
                assert_eq!(x.offset[k].to_bits(), y.offset[k].to_bits());
            }
        }
    }
    // Awkward values survive too: subnormals, negative zero, long fractions.
    let mut odd = body.clone();
    odd.springs.chains[0].settings = SpringSettings {
        stiffness: 1.0e-40,
        damping: 0.123_456_79,
        gravity: Vec3::new(-0.0, -9.806_65, 1.0 / 3.0),
        radius: 0.1,
    };
    let back = read_glb(&write_glb(&odd).unwrap()).unwrap();
    let g = back.springs.chains[0].settings;
    assert_eq!(g.stiffness.to_bits(), 1.0e-40f32.to_bits());
    assert_eq!(g.gravity.x.to_bits(), (-0.0f32).to_bits());
    assert_eq!(g.gravity.z.to_bits(), (1.0f32 / 3.0).to_bits());
    assert_eq!(back.springs, odd.springs);
}

#[test]
fn file_has_both_extensions_and_every_joint_parameter() {
    let (body, bytes) = exported();
    let (json, _) = json_of(&bytes);
    let used: Vec<&str> = json["extensionsUsed"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(used.contains(&"VRMC_springBone") && used.contains(&"PELT_spring_chains"));
    let spring = &json["extensions"]["VRMC_springBone"]["springs"][0];
    let joints = spring["joints"].as_array().unwrap();
    assert_eq!(joints.len(), body.springs.chains[0].joints.len());
    for j in joints {
        for key in [
            "node",
            "hitRadius",
            "stiffness",
            "gravityPower",
            "gravityDir",
            "dragForce",
        ] {
            assert!(j.get(key).is_some(), "joint lacks {key}: {j}");
        }
    }
    // Consecutive joints are parent and child in the node hierarchy.
    let nodes = json["nodes"].as_array().unwrap();
    for w in joints.windows(2) {
        let parent = w[0]["node"].as_u64().unwrap() as usize;
        let child = w[1]["node"].as_u64().unwrap();
        let kids = nodes[parent]["children"].as_array().unwrap();
        assert!(kids.iter().any(|k| k.as_u64() == Some(child)));
    }
    assert_eq!(json["extensions"]["VRMC_springBone"]["specVersion"], "1.0");
    // The skinned mesh uses the tail bones.
    assert!(json["skins"][0]["joints"].as_array().unwrap().len() >= 7);
    assert!(json["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"].is_number());
}

#[test]
fn vrmc_only_file_imports_through_the_inverse_conversion() {
    let (body, bytes) = exported();
    let (mut json, bin) = json_of(&bytes);
    json["extensions"]
        .as_object_mut()
        .unwrap()
        .remove("PELT_spring_chains");
    json["extensionsUsed"] = serde_json::json!(["VRMC_springBone"]);
    let back = read_glb(&repack(&json, &bin)).expect("read VRMC-only");
    assert_eq!(back.source, SpringSource::VrmcSpringBone);
    let (a, b) = (&back.springs.chains[0], &body.springs.chains[0]);
    assert_eq!(a.anchor, b.anchor);
    assert_eq!(a.joints.len(), b.joints.len());
    for (x, y) in a.joints.iter().zip(&b.joints) {
        assert_eq!(x.name, y.name);
        assert!((x.offset - y.offset).length() < 1.0e-5);
    }
    let (s, t) = (a.settings, b.settings);
    println!("original {t:?}\nimported {s:?}");
    assert!((s.stiffness - t.stiffness).abs() < 1.0e-3 * t.stiffness);
    assert!((s.damping - t.damping).abs() < 1.0e-4);
    assert!((s.gravity - t.gravity).length() < 1.0e-4);
    assert_eq!(s.radius, t.radius);
    assert_eq!(back.springs.colliders, body.springs.colliders);
    assert_eq!(a.collider_groups, b.collider_groups);
}

#[test]
fn vrm0_secondary_animation_imports() {
    let (_, bytes) = exported();
    let (mut json, bin) = json_of(&bytes);
    let ext = json["extensions"].as_object_mut().unwrap();
    ext.clear();
    // Tail root is node 2 (creature, body, tail_0, ...); one sphere on the body.
    ext.insert(
        "VRM".into(),
        serde_json::json!({"secondaryAnimation": {
            "boneGroups": [{"comment": "tail", "stiffiness": 1.5, "gravityPower": 0.2,
                "gravityDir": {"x": 0, "y": -1, "z": 0}, "dragForce": 0.4, "hitRadius": 0.03,
                "bones": [2], "colliderGroups": [0]}],
            "colliderGroups": [{"node": 1, "colliders": [{"offset": {"x": 0, "y": 0.1, "z": 0.2}, "radius": 0.25}]}]
        }}),
    );
    json["extensionsUsed"] = serde_json::json!(["VRM"]);
    let back = read_glb(&repack(&json, &bin)).expect("read VRM 0.x");
    assert_eq!(back.source, SpringSource::Vrm0);
    let c = &back.springs.chains[0];
    assert_eq!(c.joints.len(), 6, "tail_0 down to tail_end");
    assert_eq!(c.anchor, "body");
    assert!((c.settings.gravity.y + 0.2 * 60.0).abs() < 1.0e-3);
    assert!((c.settings.radius - 0.03).abs() < 1.0e-6);
    // Collider offset z is mirrored from VRM 0.x's Unity axes.
    assert_eq!(
        back.springs.colliders[0].shape,
        ColliderShape::Sphere {
            offset: Vec3::new(0.0, 0.1, -0.2),
            radius: 0.25
        }
    );
    // Per-bone stiffness converts with each bone's own length; the chain keeps the mean.
    let lens: Vec<f32> = c.joints[1..].iter().map(|j| j.offset.length()).collect();
    let mean = lens.iter().map(|&l| our_stiffness(1.5, l)).sum::<f32>() / lens.len() as f32;
    assert!((c.settings.stiffness - mean).abs() < 1.0e-3 * mean);
}

#[test]
fn creature_tail_droops_and_settles_like_the_file_says() {
    // Our tail, standing still: how far the tip drops (compare three-vrm's figure from
    // tests/vrm-conformance/check.mjs).
    let creature = Creature::default();
    let mut tail = CreatureTail::new(&creature, SpringSettings::default()).unwrap();
    let tip0 = *tail.positions().last().unwrap();
    let mut trace = Vec::new();
    for _ in 0..600 {
        tail.advance(1.0 / 60.0, body_rest_frame(&creature));
        trace.push(*tail.positions().last().unwrap());
    }
    let tip = *trace.last().unwrap();
    let last_second = trace[540..]
        .iter()
        .map(|p| (*p - tip).length())
        .fold(0.0f32, f32::max);
    println!(
        "our tail tip: start {tip0}, after 10 s {tip}, drop {:.4} m, last-second motion {last_second:.6} m",
        tip0.y - tip.y
    );
    assert!(tip0.y - tip.y > 0.03, "the tail should droop");
    assert!(last_second < 2.0e-3, "the tail should settle");
    // Swinging the body moves the tail's bones.
    let mut t = 0.0f32;
    for _ in 0..60 {
        t += 1.0 / 60.0;
        let body = Frame::from_translation(creature.body.center + Vec3::X * (t * 6.0).sin() * 0.3);
        tail.advance(1.0 / 60.0, body);
    }
    let rots = tail.local_rotations();
    assert_eq!(rots.len(), 6);
    assert!(
        rots.iter()
            .any(|q| q.angle_between(glam::Quat::IDENTITY) > 0.05)
    );
    // VRM's closed form for a level segment of the first bone, from the file's values.
    let (_, bytes) = exported();
    let (json, _) = json_of(&bytes);
    let j0 = &json["extensions"]["VRMC_springBone"]["springs"][0]["joints"][0];
    let droop = vrm_level_droop(
        j0["stiffness"].as_f64().unwrap() as f32,
        j0["gravityPower"].as_f64().unwrap() as f32,
    );
    assert!(droop > 0.0 && droop < std::f32::consts::FRAC_PI_2);
}

#[test]
fn cli_export_then_import() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("creature.glb");
    let exe = env!("CARGO_BIN_EXE_pelt");
    let st = std::process::Command::new(exe)
        .args(["export", "--out"])
        .arg(&out)
        .args(["--seed", "3"])
        .status()
        .unwrap();
    assert!(st.success());
    let o = std::process::Command::new(exe)
        .arg("import")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("PELT_spring_chains"), "{text}");
    assert!(text.contains("chain `tail` on `body`: 6 joints"), "{text}");
    assert!(text.contains("stiffness 2 /s"), "{text}");
    // A bad file fails with a message, not a panic.
    let bad = dir.path().join("bad.glb");
    std::fs::write(&bad, b"glTF\x02\0\0\0\xff\xff\xff\x7f").unwrap();
    let o = std::process::Command::new(exe)
        .arg("import")
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("truncated") || err.contains("limit"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
