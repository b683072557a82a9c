//! The creature as `pelt export --vrm` writes it (a body whose tail is a VRM spring), its
//! JSON edited as a test needs, and a body's pose as bits to compare.

use pelt::body::SkinPose;
use pelt::creature::{Creature, CreatureExport};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The creature as `pelt export --vrm` writes it (the library's call, no process).
pub fn creature_vrm() -> Vec<u8> {
    let options = CreatureExport {
        vrm: true,
        ..CreatureExport::default()
    };
    pelt::vrm::creature_glb(&Creature::default(), &options).unwrap()
}

/// `pelt export --vrm` run into `dir` (the binary, as a user runs it); the file written.
pub fn export_creature_vrm(dir: &Path) -> PathBuf {
    let vrm = dir.join("creature.vrm");
    let o = super::pelt()
        .args(["export", "--vrm", "--out", super::s(&vrm)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", super::stderr(&o));
    vrm
}

/// The GLB `bytes` with its JSON changed by `edit` (the binary chunk as it was).
pub fn edit_glb_json(bytes: &[u8], edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let (json, bin) = pelt::vrm::glb::unpack(bytes).unwrap();
    let mut json: Value = serde_json::from_slice(json).unwrap();
    let bin = bin.unwrap().to_vec();
    edit(&mut json);
    pelt::vrm::glb::pack(&serde_json::to_vec(&json).unwrap(), &bin)
}

/// Every joint matrix of `pose`, as bits.
pub fn pose_bits(pose: &SkinPose) -> Vec<u32> {
    pose.joints
        .iter()
        .flat_map(|m| m.to_cols_array())
        .map(f32::to_bits)
        .collect()
}
