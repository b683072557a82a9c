//! Write → read round trips, one to one: the creature and a rig with every collider kind
//! and `center` through VRMC_springBone per joint; VRM 0.x with a branch, every branch and
//! leaf tail; Pelt's anchored chains through PELT_spring_chains bit for bit; the full VRM
//! avatar; refusals; the CLI.

use glam::{Affine3A, Quat, Vec3};
use pelt::creature::{Creature, CreatureExport, creature_body};
use pelt::rigged::RiggedBody;
use pelt::spring::{
    ChainEnd, ChainSpec, Collider, ColliderGroup, ColliderShape, JointSpec, NodeTransform,
    Skeleton, SkeletonNode, SpringRig, SpringSettings, VrmChain, VrmCollider, VrmColliderGroup,
    VrmColliderShape, VrmJoint, VrmSpring, VrmSpringRig,
};
use pelt::vrm::{SpringSource, VrmError, creature_glb, glb, read_glb, write_glb};
use serde_json::{Value, json};

fn json_of(bytes: &[u8]) -> Value {
    let (j, _) = glb::unpack(bytes).unwrap();
    serde_json::from_slice(j).unwrap()
}

/// Asserts two rigs hold the same springs node by node (by name, so a reader's extra nodes
/// do not matter): chains, every joint parameter bit for bit, ends, centers, colliders,
/// groups, and the rest transforms of every node of `a`.
fn assert_same_springs(a: &VrmSpringRig, b: &VrmSpringRig) {
    let name_a = |n: usize| a.skeleton.nodes()[n].name.as_str();
    let name_b = |n: usize| b.skeleton.nodes()[n].name.as_str();
    for node in a.skeleton.nodes() {
        let i = b.skeleton.index_of(&node.name).expect("node kept");
        assert_eq!(
            b.skeleton.nodes()[i].rest,
            node.rest,
            "rest of `{}`",
            node.name
        );
        let parent = |s: &Skeleton, p: Option<usize>| p.map(|p| s.nodes()[p].name.clone());
        assert_eq!(
            parent(&b.skeleton, b.skeleton.parent(i)),
            parent(&a.skeleton, node.parent)
        );
    }
    assert_eq!(a.chains.len(), b.chains.len());
    for (x, y) in a.chains.iter().zip(&b.chains) {
        assert_eq!(x.name, y.name);
        assert_eq!(x.joints.len(), y.joints.len(), "chain `{}`", x.name);
        for (j, k) in x.joints.iter().zip(&y.joints) {
            assert_eq!(name_a(j.node), name_b(k.node));
            let bits = |j: &VrmJoint| {
                [
                    j.stiffness,
                    j.gravity_power,
                    j.drag_force,
                    j.hit_radius,
                    j.gravity_dir.x,
                    j.gravity_dir.y,
                    j.gravity_dir.z,
                ]
                .map(f32::to_bits)
            };
            assert_eq!(bits(j), bits(k), "joint `{}`", name_a(j.node));
        }
        match (x.end, y.end) {
            (ChainEnd::Node(p), ChainEnd::Node(q)) => assert_eq!(name_a(p), name_b(q)),
            (e, f) => assert_eq!(e, f),
        }
        assert_eq!(x.center.map(name_a), y.center.map(name_b));
        assert_eq!(x.collider_groups, y.collider_groups);
    }
    assert_eq!(a.colliders.len(), b.colliders.len());
    for (c, d) in a.colliders.iter().zip(&b.colliders) {
        assert_eq!(name_a(c.node), name_b(d.node));
        assert_eq!(c.shape, d.shape);
    }
    assert_eq!(a.groups, b.groups);
}

#[test]
fn the_creature_comes_back_per_joint() {
    let options = CreatureExport {
        tail: pelt::creature::TailSettings {
            // Awkward numbers survive too.
            stiffness: [4.0, 1.0 / 3.0, 2.9, 1.0e-7, 0.123_456_79],
            ..Default::default()
        },
        ..Default::default()
    };
    let body = creature_body(&Creature::default(), &options).unwrap();
    let bytes = write_glb(&body).unwrap();
    let back = read_glb(&bytes).unwrap();
    assert_eq!(back.source, SpringSource::VrmcSpringBone);
    assert!(back.approximations.is_empty() && back.chains.chains.is_empty());
    assert!(back.notes.is_empty(), "{:?}", back.notes);
    assert_same_springs(&body.springs, &back.springs);
    // Each joint has its own stiffness, as written.
    let s: Vec<f32> = back.springs.chains[0]
        .joints
        .iter()
        .map(|j| j.stiffness)
        .collect();
    assert_eq!(s, options.tail.stiffness.to_vec());
}

fn every_collider_rig() -> VrmSpringRig {
    let q = |axis: Vec3, deg: f32| Quat::from_axis_angle(axis.normalize(), deg.to_radians());
    let n = |name: &str, parent: Option<usize>, t: Vec3, r: Quat, s: f32| SkeletonNode {
        name: name.into(),
        parent,
        rest: NodeTransform {
            translation: t,
            rotation: r,
            scale: Vec3::splat(s),
        },
    };
    let skeleton = Skeleton::new(vec![
        n("root", None, Vec3::ZERO, Quat::IDENTITY, 1.0),
        n("body", Some(0), Vec3::Y, q(Vec3::Z, 25.0), 1.1),
        n(
            "h0",
            Some(1),
            Vec3::new(0.15, -0.05, 0.0),
            q(Vec3::X, 20.0),
            1.0,
        ),
        n(
            "h1",
            Some(2),
            Vec3::new(0.0, -0.12, 0.02),
            Quat::IDENTITY,
            1.0,
        ),
        n(
            "skipped",
            Some(3),
            Vec3::new(0.0, -0.06, 0.0),
            Quat::IDENTITY,
            1.0,
        ),
        n(
            "h2",
            Some(4),
            Vec3::new(0.0, -0.06, 0.0),
            Quat::IDENTITY,
            1.0,
        ),
        n(
            "h_end",
            Some(5),
            Vec3::new(0.0, -0.1, 0.0),
            Quat::IDENTITY,
            1.0,
        ),
        n(
            "leaf",
            Some(1),
            Vec3::new(-0.1, -0.1, 0.0),
            Quat::IDENTITY,
            1.0,
        ),
    ])
    .unwrap();
    let j = |node: usize, k: f32| VrmJoint {
        node,
        stiffness: k,
        gravity_power: 0.5 + k,
        gravity_dir: Vec3::new(0.1, -1.0, 0.05),
        drag_force: 0.3,
        hit_radius: 0.02 * k,
    };
    VrmSpringRig {
        skeleton,
        chains: vec![
            VrmChain {
                name: "hair".into(),
                joints: vec![j(2, 1.0), j(3, 0.8), j(5, 0.6)],
                end: ChainEnd::Node(6),
                collider_groups: vec![0, 1],
                center: Some(1),
            },
            VrmChain {
                name: "leaf".into(),
                joints: vec![j(7, 0.4)],
                end: ChainEnd::Virtual,
                collider_groups: vec![1],
                center: None,
            },
        ],
        colliders: vec![
            VrmCollider {
                node: 1,
                shape: VrmColliderShape::sphere(Vec3::new(0.1, -0.3, 0.0), 0.08),
            },
            VrmCollider {
                node: 1,
                shape: VrmColliderShape::capsule(
                    Vec3::new(0.2, -0.2, -0.1),
                    Vec3::new(0.1, -0.4, -0.1),
                    0.05,
                ),
            },
            VrmCollider {
                node: 0,
                shape: VrmColliderShape::Plane {
                    offset: Vec3::new(0.0, 0.4, 0.0),
                    normal: Vec3::Y,
                },
            },
            VrmCollider {
                node: 1,
                shape: VrmColliderShape::Sphere {
                    offset: Vec3::new(0.0, -0.2, 0.0),
                    radius: 0.5,
                    inside: true,
                },
            },
            VrmCollider {
                node: 1,
                shape: VrmColliderShape::Capsule {
                    offset: Vec3::ZERO,
                    tail: Vec3::new(0.0, -0.5, 0.0),
                    radius: 0.4,
                    inside: true,
                },
            },
        ],
        groups: vec![
            VrmColliderGroup {
                name: "front".into(),
                colliders: vec![0, 1],
            },
            VrmColliderGroup {
                name: "bounds".into(),
                colliders: vec![2, 3, 4],
            },
        ],
    }
}

fn bare(springs: VrmSpringRig) -> RiggedBody {
    RiggedBody {
        springs,
        chains: SpringRig::default(),
        mesh: None,
        avatar: None,
        generator: "test".into(),
    }
}

/// World positions of every node after `frames` steps of a shaking scene.
fn simulate(rig: VrmSpringRig, frames: usize) -> Vec<(String, Vec3)> {
    let mut s = VrmSpring::new(rig, Affine3A::IDENTITY).unwrap();
    for f in 0..frames {
        let t = f as f32 / 60.0;
        s.step(Affine3A::from_rotation_translation(
            Quat::from_rotation_y((t * 5.0).sin() * 0.6),
            Vec3::new((t * 7.0).sin() * 0.3, 0.0, 0.0),
        ));
    }
    let sk = &s.rig().skeleton;
    s.world()
        .iter()
        .enumerate()
        .map(|(i, w)| (sk.nodes()[i].name.clone(), Vec3::from(w.translation)))
        .collect()
}

#[test]
fn every_collider_kind_and_center_come_back_and_swing_the_same() {
    let rig = every_collider_rig();
    let bytes = write_glb(&bare(rig.clone())).unwrap();
    let json = json_of(&bytes);
    let used = json["extensionsUsed"].to_string();
    assert!(used.contains("VRMC_springBone_extended_collider"), "{used}");
    // The plane's fallback is a 1 km sphere touching it from behind.
    let fallback = &json["extensions"]["VRMC_springBone"]["colliders"][2]["shape"]["sphere"];
    assert_eq!(fallback["radius"], 1000.0);
    let back = read_glb(&bytes).unwrap();
    // VRM 1.0 has no virtual tail: the leaf's 7 cm tail became a node.
    let leaf = &back.springs.chains[1];
    let ChainEnd::Node(end) = leaf.end else {
        panic!("the leaf chain has an end node")
    };
    assert_eq!(back.springs.skeleton.nodes()[end].name, "leaf_tail");
    let mut want = rig.clone();
    want.chains[1].end = ChainEnd::Node(end);
    let mut nodes = rig.skeleton.nodes().to_vec();
    nodes.push(SkeletonNode {
        name: "leaf_tail".into(),
        parent: Some(7),
        rest: NodeTransform::from_translation(Vec3::new(-0.1, -0.1, 0.0).normalize() * 0.07),
    });
    want.skeleton = Skeleton::new(nodes).unwrap();
    assert_same_springs(&want, &back.springs);
    // And it swings exactly as the original did.
    let a = simulate(rig, 120);
    let b = simulate(back.springs, 120);
    for (name, p) in &a {
        let q = b.iter().find(|(n, _)| n == name).unwrap().1;
        assert!((*p - q).length() < 1.0e-6, "`{name}`: {p} vs {q}");
    }
}

/// A VRM 0.x file: a root bone with a branch, a second group with a center, a sphere.
fn vrm0_file() -> Vec<u8> {
    let doc = json!({
        "asset": {"version": "2.0"},
        "nodes": [
            {"name": "root", "children": [1]},
            {"name": "head", "translation": [0, 1.5, 0], "children": [2, 7]},
            {"name": "a0", "translation": [0.05, 0.05, -0.05], "children": [3, 5]},
            {"name": "a1", "translation": [0, -0.1, -0.02], "children": [4]},
            {"name": "a2", "translation": [0, -0.1, 0]},
            {"name": "b1", "translation": [0.05, -0.08, 0], "children": [6, 9]},
            {"name": "b2", "translation": [0, -0.08, 0]},
            {"name": "c0", "translation": [-0.05, 0.05, -0.05], "children": [8]},
            {"name": "c1", "translation": [0, -0.12, 0]},
            {"name": "b3", "translation": [0.03, -0.05, 0]}
        ],
        "extensionsUsed": ["VRM"],
        "extensions": {"VRM": {"secondaryAnimation": {
            "boneGroups": [
                {"comment": "hair", "stiffiness": 0.8, "gravityPower": 0.3, "gravityDir": {"x": 0, "y": -1, "z": 0},
                 "dragForce": 0.4, "center": -1, "hitRadius": 0.02, "bones": [2], "colliderGroups": [0]},
                {"comment": "side", "stiffiness": 1.2, "gravityPower": 0.2, "dragForce": 0.5, "center": 1,
                 "hitRadius": 0.01, "bones": [7, 3], "colliderGroups": [0]}
            ],
            "colliderGroups": [{"node": 1, "colliders": [{"offset": {"x": 0.01, "y": -0.05, "z": 0.12}, "radius": 0.08}]}]
        }}}
    });
    glb::pack(&serde_json::to_vec(&doc).unwrap(), &[])
}

#[test]
fn vrm0_imports_every_branch_with_leaf_tails_and_centers() {
    let back = read_glb(&vrm0_file()).unwrap();
    assert_eq!(back.source, SpringSource::Vrm0);
    let rig = &back.springs;
    let names = |c: &VrmChain| -> Vec<String> {
        c.joints
            .iter()
            .map(|j| rig.skeleton.nodes()[j.node].name.clone())
            .collect()
    };
    let got: Vec<(String, Vec<String>, ChainEnd)> = rig
        .chains
        .iter()
        .map(|c| (c.name.clone(), names(c), c.end))
        .collect();
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // a0's first child line, then its branch b1 (first child b2, then b1's own branch b3),
    // then the second group's c0; a1, already swung by `hair`, is not taken twice.
    assert_eq!(
        got,
        vec![
            ("hair_0".into(), v(&["a0", "a1", "a2"]), ChainEnd::Virtual),
            ("hair_0.1".into(), v(&["b1", "b2"]), ChainEnd::Virtual),
            ("hair_0.2".into(), v(&["b3"]), ChainEnd::Virtual),
            ("side_0".into(), v(&["c0", "c1"]), ChainEnd::Virtual),
        ]
    );
    assert!(
        back.notes
            .iter()
            .any(|n| n.contains("more than one bone group")),
        "{:?}",
        back.notes
    );
    let hair = &rig.chains[0];
    assert_eq!(hair.center, None);
    assert_eq!(rig.chains[3].center, rig.skeleton.index_of("head"));
    let j = hair.joints[1];
    assert_eq!(
        (j.stiffness, j.gravity_power, j.drag_force, j.hit_radius),
        (0.8, 0.3, 0.4, 0.02)
    );
    assert_eq!(
        rig.chains[3].joints[0].gravity_dir,
        Vec3::NEG_Y,
        "0.x default gravity"
    );
    // The collider's z comes back mirrored from Unity's axes, as three-vrm reads it.
    assert_eq!(
        rig.colliders[0].shape,
        VrmColliderShape::sphere(Vec3::new(0.01, -0.05, -0.12), 0.08)
    );
    // A center that is not above its chain (the fuzzer's find): kept, written, read back.
    let mut odd = rig.clone();
    odd.chains[3].center = odd.skeleton.index_of("a0");
    let again = read_glb(&write_glb(&bare(odd.clone())).unwrap()).unwrap();
    assert_eq!(again.springs.chains[3].center, odd.chains[3].center);
    assert!(
        again.notes.iter().any(|n| n.contains("center")),
        "{:?}",
        again.notes
    );
    // Written as VRM 1.0 (leaf tails become nodes) and read back, it swings the same.
    let bytes = write_glb(&bare(rig.clone())).unwrap();
    let again = read_glb(&bytes).unwrap();
    assert_eq!(again.source, SpringSource::VrmcSpringBone);
    let a = simulate(rig.clone(), 120);
    let b = simulate(again.springs, 120);
    for (name, p) in &a {
        let q = b.iter().find(|(n, _)| n == name).unwrap().1;
        assert!((*p - q).length() < 1.0e-6, "`{name}`: {p} vs {q}");
    }
}

fn with_anchored_chain() -> RiggedBody {
    // The creature plus a ribbon of three joints hanging from the head: an anchored chain.
    let mut body = creature_body(&Creature::default(), &CreatureExport::default()).unwrap();
    let mut nodes = body.springs.skeleton.nodes().to_vec();
    let head = body.springs.skeleton.index_of("head").unwrap();
    let offsets = [
        Vec3::new(0.0, 0.1, -0.1),
        Vec3::new(0.0, -0.08, -0.03),
        Vec3::new(0.0, -0.08, 0.0),
    ];
    for (i, o) in offsets.iter().enumerate() {
        nodes.push(SkeletonNode {
            name: format!("ribbon_{i}"),
            parent: Some(if i == 0 { head } else { nodes.len() - 1 }),
            rest: NodeTransform::from_translation(*o),
        });
    }
    body.springs.skeleton = Skeleton::new(nodes).unwrap();
    body.chains = SpringRig {
        chains: vec![ChainSpec {
            name: "ribbon".into(),
            anchor: "head".into(),
            joints: offsets
                .iter()
                .enumerate()
                .map(|(i, o)| JointSpec {
                    name: format!("ribbon_{i}"),
                    offset: *o,
                })
                .collect(),
            settings: SpringSettings {
                stiffness: 1.0e-40,
                damping: 0.123_456_79,
                gravity: Vec3::new(-0.0, -9.806_65, 1.0 / 3.0),
                radius: 0.01,
            },
            collider_groups: vec![0],
        }],
        colliders: vec![Collider {
            bone: "head".into(),
            shape: ColliderShape::Sphere {
                offset: Vec3::new(0.0, 0.0, 0.1),
                radius: 0.1,
            },
        }],
        groups: vec![ColliderGroup {
            name: "face".into(),
            colliders: vec![0],
        }],
    };
    body
}

#[test]
fn anchored_chains_come_back_bit_for_bit_beside_the_vrm_springs() {
    let body = with_anchored_chain();
    let bytes = write_glb(&body).unwrap();
    let back = read_glb(&bytes).unwrap();
    assert_eq!(back.chains, body.chains);
    let g = back.chains.chains[0].settings;
    assert_eq!(g.stiffness.to_bits(), 1.0e-40f32.to_bits());
    assert_eq!(g.gravity.x.to_bits(), (-0.0f32).to_bits());
    assert_eq!(g.gravity.z.to_bits(), (1.0f32 / 3.0).to_bits());
    // VRMC_springBone has the tail exactly and the ribbon approximated, marked as such.
    assert_eq!(back.springs.chains.len(), 2);
    assert_eq!(back.approximations, vec![1]);
    assert_eq!(back.springs.chains[1].name, "ribbon");
    assert_eq!(
        back.springs.chains[1].joints.len(),
        2,
        "3 joints: 2 bones and an end"
    );
    let tail = VrmSpringRig {
        chains: vec![back.springs.chains[0].clone()],
        colliders: back.springs.colliders[..1].to_vec(),
        groups: back.springs.groups[..1].to_vec(),
        skeleton: back.springs.skeleton.clone(),
    };
    assert_same_springs(&body.springs, &tail);
}

#[test]
fn file_has_every_joint_parameter_and_the_vrm_avatar() {
    let bytes = creature_glb(
        &Creature::default(),
        &CreatureExport {
            vrm: true,
            ..Default::default()
        },
    )
    .unwrap();
    let json = json_of(&bytes);
    let spring = &json["extensions"]["VRMC_springBone"]["springs"][0];
    let joints = spring["joints"].as_array().unwrap();
    assert_eq!(joints.len(), pelt::creature::TAIL_BONES + 1);
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
    assert_eq!(json["extensions"]["VRMC_springBone"]["specVersion"], "1.0");
    let vrm = &json["extensions"]["VRMC_vrm"];
    assert_eq!(vrm["specVersion"], "1.0");
    for key in [
        "licenseUrl",
        "avatarPermission",
        "commercialUsage",
        "creditNotation",
        "allowRedistribution",
        "modification",
    ] {
        assert!(vrm["meta"].get(key).is_some(), "meta lacks {key}");
    }
    assert!(
        vrm["meta"]["authors"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    );
    let bones = vrm["humanoid"]["humanBones"].as_object().unwrap();
    let nodes = json["nodes"].as_array().unwrap();
    for (bone, node) in [
        ("hips", "hips"),
        ("leftUpperArm", "leftUpperArm"),
        ("rightFoot", "rightFoot"),
        ("head", "head"),
    ] {
        let i = bones[bone]["node"].as_u64().unwrap() as usize;
        assert_eq!(nodes[i]["name"], node);
    }
    let used = json["extensionsUsed"].to_string();
    assert!(
        used.contains("VRMC_vrm") && used.contains("VRMC_springBone"),
        "{used}"
    );
    let back = read_glb(&bytes).unwrap();
    assert!(back.is_vrm);
    // Without --vrm there is no VRMC_vrm.
    let plain = creature_glb(&Creature::default(), &CreatureExport::default()).unwrap();
    assert!(json_of(&plain)["extensions"].get("VRMC_vrm").is_none());
}

#[test]
fn an_unknown_bone_or_a_broken_humanoid_is_refused() {
    let mut body = with_anchored_chain();
    body.chains.colliders[0].bone = "nose".into();
    let e = write_glb(&body).unwrap_err();
    assert!(
        matches!(&e, VrmError::BadRig(m) if m.contains("`nose`")),
        "{e}"
    );
    let mut body = with_anchored_chain();
    body.chains.chains[0].anchor = "nowhere".into();
    assert!(matches!(write_glb(&body), Err(VrmError::BadRig(_))));
    let mut body = creature_body(
        &Creature::default(),
        &CreatureExport {
            vrm: true,
            ..Default::default()
        },
    )
    .unwrap();
    let avatar = body.avatar.as_mut().unwrap();
    avatar.humanoid.retain(|(b, _)| b != "leftHand");
    let e = write_glb(&body).unwrap_err();
    assert!(e.to_string().contains("leftHand"), "{e}");
    let mut body = creature_body(
        &Creature::default(),
        &CreatureExport {
            vrm: true,
            ..Default::default()
        },
    )
    .unwrap();
    let avatar = body.avatar.as_mut().unwrap();
    let tail = body.springs.skeleton.index_of("tail_3").unwrap();
    avatar
        .humanoid
        .iter_mut()
        .find(|(b, _)| b == "head")
        .unwrap()
        .1 = tail;
    let e = write_glb(&body).unwrap_err();
    assert!(e.to_string().contains("not below"), "{e}");
}

#[test]
fn cli_export_import_and_trace() {
    let dir = tempfile::tempdir().unwrap();
    let exe = env!("CARGO_BIN_EXE_pelt");
    let run = |args: &[&str]| std::process::Command::new(exe).args(args).output().unwrap();
    let out = dir.path().join("creature.vrm");
    let o = run(&[
        "export",
        "--vrm",
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "3",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["import", out.to_str().unwrap()]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("a VRM 1.0 avatar"), "{text}");
    // The header counts what follows, so a file with none says so.
    assert!(text.contains(": 1 spring chain, "), "{text}");
    assert!(
        text.contains("spring `tail`: 5 joints to tail_end"),
        "{text}"
    );
    assert!(text.contains("`tail_0`: stiffness 4,"), "{text}");
    // The trace: a header, then one row per frame of 6 joints × 3 numbers.
    let motion = dir.path().join("m.json");
    std::fs::write(&motion, r#"[{"t": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]}, {"t": 0.2, "position": [0.5, 0, 0], "rotation": [0, 0, 0, 1]}]"#).unwrap();
    let csv = dir.path().join("t.csv");
    let o = run(&[
        "tail-trace",
        "--motion",
        motion.to_str().unwrap(),
        "--frames",
        "30",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 31);
    assert!(
        lines[0].starts_with("frame,tail/tail_0.x,tail/tail_0.y,tail/tail_0.z,tail/tail_1.x"),
        "{}",
        lines[0]
    );
    let last: Vec<f32> = lines[30].split(',').map(|v| v.parse().unwrap()).collect();
    assert_eq!(last.len(), 1 + 6 * 3);
    assert_eq!(last[0], 29.0);
    // The root joint rides the motion: at rest x = 0, after the move x = 0.5.
    assert!((last[1] - 0.5).abs() < 1.0e-6, "{}", last[1]);
    // The same trace through the exported file gives the same numbers.
    let csv2 = dir.path().join("t2.csv");
    let o = run(&[
        "tail-trace",
        "--motion",
        motion.to_str().unwrap(),
        "--frames",
        "30",
        "--out",
        csv2.to_str().unwrap(),
        "--file",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(&csv2).unwrap(), text);
    // Bad input: a clear message, no panic, no file left half-written by a bad motion.
    std::fs::write(&motion, r#"[{"t": 1, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]}, {"t": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]}]"#).unwrap();
    let o = run(&[
        "tail-trace",
        "--motion",
        motion.to_str().unwrap(),
        "--frames",
        "3",
        "--out",
        dir.path().join("x.csv").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("time order"), "{err}");
    assert!(!dir.path().join("x.csv").exists());
    let bad = dir.path().join("bad.glb");
    std::fs::write(&bad, b"glTF\x02\0\0\0\xff\xff\xff\x7f").unwrap();
    let o = run(&["import", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("truncated"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // An endless input is an error at once, not a hang.
    let o = run(&["import", "/dev/zero"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("not a GLB"), "{err}");
}
