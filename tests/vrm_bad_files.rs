//! Bad files give errors that say what is wrong, never panics: truncation, wrong magic,
//! chunk lengths past the end, bad hierarchies, joints out of order, shared joints, bad
//! versions and centers, absurd counts, and random damage to the part that is read.

use pelt::creature::{Creature, CreatureExport};
use pelt::spring::SpringError;
use pelt::vrm::creature_glb;
use pelt::vrm::{VrmError, glb, read_glb};
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};

fn good() -> Vec<u8> {
    creature_glb(&Creature::default(), &CreatureExport::default()).unwrap()
}

fn doc() -> Value {
    let bytes = good();
    let (j, _) = glb::unpack(&bytes).unwrap();
    serde_json::from_slice(j).unwrap()
}

fn edit(f: impl FnOnce(&mut Value)) -> Vec<u8> {
    let bytes = good();
    let (j, bin) = glb::unpack(&bytes).unwrap();
    let mut v: Value = serde_json::from_slice(j).unwrap();
    f(&mut v);
    glb::pack(&serde_json::to_vec(&v).unwrap(), bin.unwrap_or(&[]))
}

fn node(v: &Value, name: &str) -> usize {
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == name)
        .unwrap()
}

fn spring(v: &mut Value) -> &mut Value {
    &mut v["extensions"]["VRMC_springBone"]
}

#[test]
fn container_errors() {
    let g = good();
    assert!(matches!(read_glb(&[]), Err(VrmError::Truncated(_))));
    assert!(matches!(read_glb(&g[..11]), Err(VrmError::Truncated(_))));
    let mut m = g.clone();
    m[0..4].copy_from_slice(b"GLTF");
    assert!(matches!(read_glb(&m), Err(VrmError::BadMagic(_))));
    let mut m = g.clone();
    m[4] = 1;
    assert!(matches!(read_glb(&m), Err(VrmError::BadVersion(1))));
    assert!(matches!(
        read_glb(&g[..g.len() - 4]),
        Err(VrmError::Truncated(_))
    ));
    let mut m = g.clone();
    m[8..12].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    assert!(matches!(read_glb(&m), Err(VrmError::TooMany(..))));
    let mut m = g.clone();
    m[12..16].copy_from_slice(&(g.len() as u32).to_le_bytes());
    assert!(matches!(read_glb(&m), Err(VrmError::BadChunk(_))));
    let mut m = g.clone();
    m[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(read_glb(&m), Err(VrmError::BadChunk(_))));
    let mut m = g.clone();
    m[16..20].copy_from_slice(&0x004E_4942u32.to_le_bytes());
    assert!(matches!(read_glb(&m), Err(VrmError::BadChunk(_))));
    assert!(matches!(
        read_glb(&glb::pack(b"{ not json", &[])),
        Err(VrmError::Json(_))
    ));
    // JSON that is not glTF 2.
    let m = glb::pack(br#"{"asset": {"version": "1.0"}}"#, &[]);
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::UnsupportedVersion { .. })
    ));
    assert!(matches!(
        read_glb(&glb::pack(b"{}", &[])),
        Err(VrmError::Json(_))
    ));
}

#[test]
fn every_truncation_is_an_error() {
    let g = good();
    for n in 0..g.len() {
        assert!(
            read_glb(&g[..n]).is_err(),
            "prefix of {n} bytes was accepted"
        );
    }
    assert!(read_glb(&g).is_ok());
}

#[test]
fn hierarchy_and_node_errors() {
    let v = doc();
    let end = node(&v, "tail_end");
    let tail0 = node(&v, "tail_0");
    let m = edit(|v| v["nodes"][end]["children"] = json!([999]));
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::IndexOutOfRange { index: 999, .. })
    ));
    let m = edit(|v| v["nodes"][end]["children"] = json!([tail0 + 1]));
    assert!(matches!(read_glb(&m), Err(VrmError::Hierarchy(_))));
    // A cycle: the tail's base hangs from the tail's own end instead of the hips.
    let base = node(&v, "tail_base");
    let hips = node(&v, "hips");
    let m = edit(|v| {
        let kids: Vec<Value> = v["nodes"][hips]["children"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|k| k.as_u64() != Some(base as u64))
            .cloned()
            .collect();
        v["nodes"][hips]["children"] = Value::Array(kids);
        v["nodes"][end]["children"] = json!([base]);
    });
    assert!(matches!(read_glb(&m), Err(VrmError::Hierarchy(_))));
    let m = edit(|v| v["nodes"][end]["children"] = json!([end]));
    assert!(matches!(read_glb(&m), Err(VrmError::Hierarchy(_))));
    // A zero or non-finite rotation.
    let m = edit(|v| v["nodes"][tail0]["rotation"] = json!([0, 0, 0, 0]));
    assert!(matches!(read_glb(&m), Err(VrmError::BadNode(..))));
    let m = edit(|v| v["nodes"][tail0]["translation"] = json!([1e39, 0, 0]));
    assert!(matches!(read_glb(&m), Err(VrmError::BadNode(..))));
    // A zero scale above a spring joint.
    let m = edit(|v| v["nodes"][base]["scale"] = json!([0, 0, 0]));
    let e = read_glb(&m).unwrap_err();
    assert!(e.to_string().contains("zero scale"), "{e}");
}

#[test]
fn spring_errors() {
    // Joints not each below the one before.
    let m = edit(|v| {
        let j = &mut spring(v)["springs"][0]["joints"];
        let a = j[0].clone();
        j[0] = j[3].clone();
        j[3] = a;
    });
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::Spring(SpringError::JointOrder(..)))
    ));
    // A joint node out of range.
    let m = edit(|v| spring(v)["springs"][0]["joints"][2]["node"] = json!(4_000_000_000u64));
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::IndexOutOfRange { .. })
    ));
    // A joint node that is no index (negative, a fraction, text, and a VRM 0.x bone as
    // text): the message says what an index is, not Rust's type names.
    for (what, bad) in [
        ("-1", json!(-1)),
        ("1.5", json!(1.5)),
        ("text", json!("hips")),
    ] {
        let m = edit(|v| spring(v)["springs"][0]["joints"][2]["node"] = bad.clone());
        let e = read_glb(&m).unwrap_err();
        let message = e.to_string();
        assert!(
            matches!(e, VrmError::BadExtension(..))
                && message.contains("a whole number from 0")
                && !message.contains("usize"),
            "{what}: {message}"
        );
    }
    let m = edit(|v| {
        v["extensions"] =
            json!({"VRM": {"secondaryAnimation": {"boneGroups": [{"bones": ["hips"]}]}}});
        v["extensionsUsed"] = json!(["VRM"]);
    });
    let message = read_glb(&m).unwrap_err().to_string();
    assert!(
        message.contains("a whole number") && !message.contains("i64"),
        "{message}"
    );
    // A collider group out of range; a collider node out of range.
    let m = edit(|v| spring(v)["springs"][0]["colliderGroups"] = json!([5]));
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::Spring(SpringError::IndexOutOfRange(..)))
    ));
    let m = edit(|v| spring(v)["colliders"][0]["node"] = json!(99));
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::IndexOutOfRange { .. })
    ));
    // A shape with both kinds, an extended shape with two kinds.
    let m = edit(|v| spring(v)["colliders"][0]["shape"]["sphere"] = json!({"radius": 1.0}));
    assert!(matches!(read_glb(&m), Err(VrmError::BadExtension(..))));
    let m = edit(|v| {
        spring(v)["colliders"][0]["extensions"] = json!({"VRMC_springBone_extended_collider": {
            "specVersion": "1.0", "shape": {"sphere": {"radius": 1}, "plane": {"normal": [0, 1, 0]}}}})
    });
    assert!(matches!(read_glb(&m), Err(VrmError::BadExtension(..))));
    // An extended collider of an unknown version falls back to the base shape, noted.
    let m = edit(|v| {
        spring(v)["colliders"][0]["extensions"] = json!({"VRMC_springBone_extended_collider": {
            "specVersion": "2.0", "shape": {"plane": {"normal": [0, 1, 0]}}}})
    });
    let back = read_glb(&m).unwrap();
    assert!(
        back.notes.iter().any(|n| n.contains("fallback")),
        "{:?}",
        back.notes
    );
    // Parameters out of range and non-finite.
    let m = edit(|v| spring(v)["springs"][0]["joints"][1]["dragForce"] = json!(1.5));
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::Spring(SpringError::BadParameter { .. }))
    ));
    let m = edit(|v| spring(v)["springs"][0]["joints"][1]["stiffness"] = json!(1e39));
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::Spring(SpringError::BadParameter { .. }))
    ));
    // The wrong specVersion.
    let m = edit(|v| spring(v)["specVersion"] = json!("0.9"));
    let e = read_glb(&m).unwrap_err();
    assert!(matches!(e, VrmError::UnsupportedVersion { .. }), "{e}");
    assert!(e.to_string().contains("0.9"));
    // Two springs sharing joints: the specification forbids it.
    let m = edit(|v| {
        let s = spring(v)["springs"][0].clone();
        spring(v)["springs"].as_array_mut().unwrap().push(s);
    });
    let e = read_glb(&m).unwrap_err();
    assert!(
        matches!(e, VrmError::Spring(SpringError::SharedJoint { .. })),
        "{e}"
    );
    // Even when the shared node is only passed over: a second spring from tail_1 to tail_3.
    let v = doc();
    let (t1, t3) = (node(&v, "tail_1"), node(&v, "tail_3"));
    let m = edit(|v| {
        spring(v)["springs"]
            .as_array_mut()
            .unwrap()
            .push(json!({"joints": [{"node": t1}, {"node": t3}]}));
        spring(v)["springs"][0]["joints"] =
            json!([{"node": node(&doc(), "tail_0")}, {"node": node(&doc(), "tail_2")}]);
    });
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::Spring(SpringError::SharedJoint { .. }))
    ));
    // A center below the chain's first joint breaks the specification's rule; three-vrm
    // runs it anyway, so it is kept, with a note.
    let m = edit(|v| spring(v)["springs"][0]["center"] = json!(t3));
    let back = read_glb(&m).unwrap();
    assert_eq!(back.springs.chains[0].center, Some(t3));
    assert!(
        back.notes.iter().any(|n| n.contains("center")),
        "{:?}",
        back.notes
    );
    // A spring of one joint swings nothing: skipped with a note.
    let m = edit(|v| spring(v)["springs"][0]["joints"] = json!([{"node": t1}]));
    let back = read_glb(&m).unwrap();
    assert!(back.springs.chains.is_empty());
    assert!(
        back.notes.iter().any(|n| n.contains("1 joint")),
        "{:?}",
        back.notes
    );
    // VRM 0.x: a bone or collider group index out of range, or negative (reported as
    // written, not as index 0).
    for bad in [
        json!({"boneGroups": [{"bones": [999]}]}),
        json!({"boneGroups": [{"bones": [1], "colliderGroups": [3]}]}),
        json!({"boneGroups": [{"bones": [-2]}]}),
    ] {
        let m = edit(|v| {
            v["extensions"] = json!({"VRM": {"secondaryAnimation": bad}});
            v["extensionsUsed"] = json!(["VRM"]);
        });
        match read_glb(&m) {
            Err(VrmError::IndexOutOfRange { .. }) => {}
            Err(e @ VrmError::BadExtension(..)) => assert!(e.to_string().contains("-2"), "{e}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
}

#[test]
fn absurd_counts_are_refused() {
    let m = edit(|v| {
        let s = spring(v)["springs"][0].clone();
        spring(v)["springs"] = Value::Array(vec![s; 5000]);
    });
    assert!(matches!(read_glb(&m), Err(VrmError::TooMany(..))));
    let m = edit(|v| {
        let j = spring(v)["springs"][0]["joints"][0].clone();
        spring(v)["springs"][0]["joints"] = Value::Array(vec![j; 5000]);
    });
    assert!(matches!(read_glb(&m), Err(VrmError::TooMany(..))));
    let m = edit(|v| v["nodes"] = Value::Array(vec![json!({}); 70_000]));
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::TooLarge(16) | VrmError::TooMany(..))
    ));
}

#[test]
fn random_damage_to_the_json_never_panics() {
    // Flip bytes inside the JSON chunk only (the binary buffer is never read), of the full
    // file and of a JSON-only one; most damage must be caught, none may panic.
    let g = good();
    let json_end = 20 + u32::from_le_bytes(g[12..16].try_into().unwrap()) as usize;
    let (j, _) = glb::unpack(&g).unwrap();
    let json_only = glb::pack(j, &[]);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
    for (file, end) in [(&g, json_end), (&json_only, json_only.len())] {
        let mut errors = 0;
        let tries = 1500;
        for _ in 0..tries {
            let mut m = file.clone();
            for _ in 0..rng.random_range(1..6usize) {
                let i = rng.random_range(20..end);
                m[i] = rng.random();
            }
            if read_glb(&m).is_err() {
                errors += 1;
            }
        }
        println!("{errors} of {tries} damaged files refused");
        // A flipped byte inside a number or a name can still be a valid file; most are not.
        assert!(
            errors > tries / 2,
            "only {errors} of {tries} damaged files refused"
        );
    }
}
