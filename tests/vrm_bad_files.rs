//! Bad files give errors, never panics: truncation, wrong magic, chunk lengths past the end,
//! absurd counts, indices out of range, cycles, joints out of ancestor order, random damage.

use pelt::creature::Creature;
use pelt::spring::SpringSettings;
use pelt::vrm::{VrmError, creature_body, glb, read_glb, write_glb};
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};

fn good() -> Vec<u8> {
    write_glb(&creature_body(
        &Creature::default(),
        SpringSettings::default(),
        1,
    ))
    .unwrap()
}

fn edit(f: impl FnOnce(&mut Value)) -> Vec<u8> {
    let bytes = good();
    let (j, bin) = glb::unpack(&bytes).unwrap();
    let mut v: Value = serde_json::from_slice(j).unwrap();
    f(&mut v);
    glb::pack(&serde_json::to_vec(&v).unwrap(), bin.unwrap_or(&[]))
}

/// Keeps only VRMC_springBone so the reader takes the VRM path.
fn vrmc_only(v: &mut Value) {
    v["extensions"]
        .as_object_mut()
        .unwrap()
        .remove("PELT_spring_chains");
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
    // Header length longer than the file.
    assert!(matches!(
        read_glb(&g[..g.len() - 4]),
        Err(VrmError::Truncated(_))
    ));
    // Absurd header length.
    let mut m = g.clone();
    m[8..12].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    assert!(matches!(read_glb(&m), Err(VrmError::TooMany(..))));
    // JSON chunk length past the end.
    let mut m = g.clone();
    m[12..16].copy_from_slice(&(g.len() as u32).to_le_bytes());
    assert!(matches!(read_glb(&m), Err(VrmError::BadChunk(_))));
    // Chunk length that overflows when added to its offset.
    let mut m = g.clone();
    m[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(read_glb(&m), Err(VrmError::BadChunk(_))));
    // First chunk not JSON.
    let mut m = g.clone();
    m[16..20].copy_from_slice(&0x004E_4942u32.to_le_bytes());
    assert!(matches!(read_glb(&m), Err(VrmError::BadChunk(_))));
    // Not JSON inside.
    let m = glb::pack(b"{ not json", &[]);
    assert!(matches!(read_glb(&m), Err(VrmError::Json(_))));
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
fn hierarchy_errors() {
    // A child index out of range.
    let m = edit(|v| v["nodes"][7]["children"] = json!([999]));
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::IndexOutOfRange { index: 999, .. })
    ));
    // A node with two parents.
    let m = edit(|v| v["nodes"][7]["children"] = json!([3]));
    assert!(matches!(read_glb(&m), Err(VrmError::Hierarchy(_))));
    // A cycle: the tail's root hangs from its own end instead of the body.
    let m = edit(|v| {
        v["nodes"][1]["children"] = json!([]);
        v["nodes"][7]["children"] = json!([2]);
    });
    assert!(matches!(read_glb(&m), Err(VrmError::Hierarchy(_))));
    // A node that is its own child.
    let m = edit(|v| v["nodes"][7]["children"] = json!([7]));
    assert!(matches!(read_glb(&m), Err(VrmError::Hierarchy(_))));
}

#[test]
fn joint_order_and_index_errors() {
    // Ours: two joints swapped.
    let m = edit(|v| {
        let j = &mut v["extensions"]["PELT_spring_chains"]["chains"][0]["joints"];
        let a = j[1].clone();
        j[1] = j[2].clone();
        j[2] = a;
    });
    assert!(matches!(read_glb(&m), Err(VrmError::JointOrder(..))));
    // Ours: a joint whose name does not match its node.
    let m = edit(|v| {
        v["extensions"]["PELT_spring_chains"]["chains"][0]["joints"][1]["name"] = json!("nose")
    });
    assert!(matches!(read_glb(&m), Err(VrmError::BadExtension(..))));
    // VRM: joints not in ancestor order.
    let m = edit(|v| {
        vrmc_only(v);
        let j = &mut v["extensions"]["VRMC_springBone"]["springs"][0]["joints"];
        let a = j[0].clone();
        j[0] = j[3].clone();
        j[3] = a;
    });
    assert!(matches!(read_glb(&m), Err(VrmError::JointOrder(..))));
    // VRM: joint node out of range.
    let m = edit(|v| {
        vrmc_only(v);
        v["extensions"]["VRMC_springBone"]["springs"][0]["joints"][2]["node"] =
            json!(4_000_000_000u64);
    });
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::IndexOutOfRange { .. })
    ));
    // VRM: collider group out of range.
    let m = edit(|v| {
        vrmc_only(v);
        v["extensions"]["VRMC_springBone"]["springs"][0]["colliderGroups"] = json!([5]);
    });
    assert!(matches!(read_glb(&m), Err(VrmError::Spring(_))));
    // VRM: collider node out of range, and a shape with both kinds.
    let m = edit(|v| {
        vrmc_only(v);
        v["extensions"]["VRMC_springBone"]["colliders"][0]["node"] = json!(99);
    });
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::IndexOutOfRange { .. })
    ));
    let m = edit(|v| {
        vrmc_only(v);
        v["extensions"]["VRMC_springBone"]["colliders"][0]["shape"]["sphere"] =
            json!({"radius": 1.0});
    });
    assert!(matches!(read_glb(&m), Err(VrmError::BadExtension(..))));
    // Ours: negative index (not a usize) and a non-finite parameter.
    let m = edit(|v| {
        v["extensions"]["PELT_spring_chains"]["chains"][0]["colliderGroups"] = json!([-1])
    });
    assert!(matches!(read_glb(&m), Err(VrmError::BadExtension(..))));
    let m = edit(|v| v["extensions"]["PELT_spring_chains"]["chains"][0]["stiffness"] = json!(1e39));
    assert!(matches!(
        read_glb(&m),
        Err(VrmError::Spring(_)) | Err(VrmError::BadExtension(..))
    ));
}

#[test]
fn absurd_counts_are_refused() {
    // A chain with more joints than the limit.
    let m = edit(|v| {
        let j = v["extensions"]["PELT_spring_chains"]["chains"][0]["joints"][0].clone();
        v["extensions"]["PELT_spring_chains"]["chains"][0]["joints"] = Value::Array(vec![j; 5000]);
    });
    assert!(matches!(read_glb(&m), Err(VrmError::TooMany(..))));
    let m = edit(|v| {
        vrmc_only(v);
        let s = v["extensions"]["VRMC_springBone"]["springs"][0].clone();
        v["extensions"]["VRMC_springBone"]["springs"] = Value::Array(vec![s; 5000]);
    });
    assert!(matches!(read_glb(&m), Err(VrmError::TooMany(..))));
}

#[test]
fn random_damage_never_panics() {
    let g = good();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
    let mut errors = 0;
    for _ in 0..3000 {
        let mut m = g.clone();
        for _ in 0..rng.random_range(1..8usize) {
            let i = rng.random_range(0..m.len());
            m[i] = rng.random();
        }
        if read_glb(&m).is_err() {
            errors += 1;
        }
    }
    // Most damage lands in the binary buffer, which springs do not read; some is caught.
    assert!(errors > 0);
}
