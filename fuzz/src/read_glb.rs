//! Fuzz check: `read_glb` must return Ok or Err for any bytes, never panic; whatever it
//! accepts must be a valid rig, must write back as a GLB, and that GLB must read back to the
//! same springs (nodes, chains per joint bit for bit, colliders and groups), and must run a
//! few steps without NaN.
use glam::Affine3A;
use pelt::rigged::RiggedBody;
use pelt::spring::{ChainEnd, VrmSpring, VrmSpringRig};
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

/// `a` and `b` are the same springs, as `assert_same_springs` in tests/vrm_roundtrip.rs
/// compares them: every node of `a` is in `b` by name with the same rest transform (bit
/// for bit, zero's sign aside) and parent, and the chains (joints by name, parameters by bits, ends by name,
/// a VRM 0.x virtual end becoming a written `_tail` node, centers, collider groups), the
/// colliders (nodes by name, shapes) and the collider groups agree.
fn same_springs(a: &VrmSpringRig, b: &VrmSpringRig) -> bool {
    let name = |r: &VrmSpringRig, n: usize| r.skeleton.nodes()[n].name.clone();
    let rest_bits = |t: &pelt::spring::NodeTransform| {
        let mut v = t.translation.to_array().to_vec();
        v.extend(t.rotation.to_array());
        v.extend(t.scale.to_array());
        // Zero's sign aside: a zero translation is left out as glTF's default, so a -0
        // written comes back as 0.
        v.into_iter()
            .map(|x| (x + 0.0).to_bits())
            .collect::<Vec<_>>()
    };
    let nodes = a.skeleton.nodes().iter().all(|node| {
        b.skeleton.index_of(&node.name).is_some_and(|i| {
            let other = &b.skeleton.nodes()[i];
            rest_bits(&other.rest) == rest_bits(&node.rest)
                && other.parent.map(|p| name(b, p)) == node.parent.map(|p| name(a, p))
        })
    });
    let chains = a.chains.len() == b.chains.len()
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
                && x.center.map(|n| name(a, n)) == y.center.map(|n| name(b, n))
                && x.collider_groups == y.collider_groups
        });
    let colliders = a.colliders.len() == b.colliders.len()
        && a.colliders
            .iter()
            .zip(&b.colliders)
            .all(|(c, d)| name(a, c.node) == name(b, d.node) && c.shape == d.shape);
    nodes && chains && colliders && a.groups == b.groups
}

/// The check, for any bytes: panics where the reader breaks its promise.
pub fn check(data: &[u8]) {
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
    assert!(same_springs(&rig, &exact(&again)));
    if rig.joint_count() <= 64 && rig.skeleton.len() <= 256 {
        let mut s = VrmSpring::new(rig, Affine3A::IDENTITY).expect("a valid rig runs");
        for _ in 0..4 {
            s.step(Affine3A::from_translation(glam::Vec3::X * 0.1));
        }
        assert!(s.world().iter().all(|w| w.is_finite()));
    }
}
