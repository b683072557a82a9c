//! Fuzz target: `read_glb` must return Ok or Err for any bytes, never panic; whatever it
//! accepts must be a valid rig, must write back as a GLB, and that GLB must read back to the
//! same springs (per joint, bit for bit), and must run a few steps without NaN.
#![no_main]

use glam::Affine3A;
use libfuzzer_sys::fuzz_target;
use pelt::spring::{ChainEnd, VrmSpring, VrmSpringRig};
use pelt::rigged::RiggedBody;
use pelt::vrm::{ImportedSprings, read_glb, write_glb};

/// The exact VRM springs of an import (its approximations of anchored chains dropped).
fn exact(found: &ImportedSprings) -> VrmSpringRig {
    let mut rig = found.springs.clone();
    rig.chains = rig
        .chains
        .iter()
        .enumerate()
        .filter(|(i, _)| !found.approximations.contains(i))
        .map(|(_, c)| c.clone())
        .collect();
    rig
}

/// The chains of `a` and `b` agree joint by joint (nodes by name, parameters by bits, ends
/// by name, a VRM 0.x virtual end becoming a written `_tail` node).
fn same_chains(a: &VrmSpringRig, b: &VrmSpringRig) -> bool {
    let name = |r: &VrmSpringRig, n: usize| r.skeleton.nodes()[n].name.clone();
    a.chains.len() == b.chains.len()
        && a.chains.iter().zip(&b.chains).all(|(x, y)| {
            x.name == y.name
                && x.joints.len() == y.joints.len()
                && x.joints.iter().zip(&y.joints).all(|(j, k)| {
                    name(a, j.node) == name(b, k.node)
                        && j.stiffness.to_bits() == k.stiffness.to_bits()
                        && j.gravity_power.to_bits() == k.gravity_power.to_bits()
                        && j.drag_force.to_bits() == k.drag_force.to_bits()
                        && j.hit_radius.to_bits() == k.hit_radius.to_bits()
                        && j.gravity_dir.to_array().map(f32::to_bits)
                            == k.gravity_dir.to_array().map(f32::to_bits)
                })
                && match (x.end, y.end) {
                    (ChainEnd::Node(p), ChainEnd::Node(q)) => name(a, p) == name(b, q),
                    (ChainEnd::Virtual, ChainEnd::Node(_)) => true,
                    _ => false,
                }
        })
}

fuzz_target!(|data: &[u8]| {
    let Ok(found) = pelt::vrm::read_glb(data) else {
        return;
    };
    assert!(found.springs.validate().is_ok());
    assert!(found.chains.validate().is_ok());
    let rig = exact(&found);
    let body = RiggedBody {
        springs: rig.clone(),
        chains: found.chains.clone(),
        mesh: None,
        avatar: None,
        generator: "fuzz".into(),
    };
    let bytes = write_glb(&body).expect("an accepted file writes back");
    let again = read_glb(&bytes).expect("Pelt reads its own export");
    assert_eq!(again.chains, found.chains);
    assert!(same_chains(&rig, &exact(&again)));
    if rig.joint_count() <= 64 && rig.skeleton.len() <= 256 {
        let mut s = VrmSpring::new(rig, Affine3A::IDENTITY).expect("a valid rig runs");
        for _ in 0..4 {
            s.step(Affine3A::from_translation(glam::Vec3::X * 0.1));
        }
        assert!(s.world().iter().all(|w| w.is_finite()));
    }
});
