//! A body's own springs swing on VRM's rule in its motion, and the fur on them rides them:
//! Pelt's creature written as a VRM and read back as a body swings its tail as the
//! creature's own tail does, with its tail fur on the skin; a cylinder built here with one
//! spring joint and an animation swings as `VrmSpring` stepped alone with the same inputs;
//! the same time gives the same bits however it is reached; bad spring data leaves the body
//! usable, its springs at rest and the reason said; the bodies made by others have none.

mod cli_common;
mod solver_common;

use cli_common::{creature_vrm, edit_glb_json, pelt, pose_bits, s, stderr};
use glam::{Affine3A, Mat4, Vec3, Vec4Swizzles};
use pelt::body::{BodyOptions, CylinderSpec, LoadedBody, SkinPose, skinned_cylinder};
use pelt::creature::{Creature, CreatureTail, TAIL_BONES, TailSettings, tail_joint_names};
use pelt::rigged::{RiggedBody, SkinnedMesh};
use pelt::sim::{FurBody, FurConfig, FurSim};
use pelt::spring::{
    ChainEnd, NodeTransform, Skeleton, SkeletonNode, VrmChain, VrmJoint, VrmSpring, VrmSpringRig,
};
use serde_json::{Value, json};
use std::sync::Arc;

fn read(bytes: &[u8], name: &str) -> LoadedBody {
    LoadedBody::from_bytes(bytes, name, &BodyOptions::default()).unwrap()
}

/// Where skin joint `j`'s bind position is carried by `pose` (fitted frame).
fn joint_at(body: &LoadedBody, pose: &SkinPose, j: usize) -> Vec3 {
    pose.joints[j].transform_point3(body.mesh.joint_positions[j])
}

/// The skin joint of the node named `name` (the writer lists every node as a joint, in
/// node order).
fn node_joint(bytes: &[u8], name: &str) -> usize {
    let springs = pelt::vrm::read_glb(bytes).unwrap().springs;
    springs.skeleton.index_of(name).unwrap()
}

#[test]
fn the_exported_creatures_tail_swings_as_the_creatures_own_tail_does() {
    let bytes = creature_vrm();
    let body = read(&bytes, "creature.vrm");
    assert_eq!(body.spring_joints, TAIL_BONES, "{}", body.summary);
    assert!(
        body.summary.contains(&format!(
            "{TAIL_BONES} spring joints (VRMC_springBone) swing"
        )),
        "{}",
        body.summary
    );
    let motion = body.motion(None).unwrap();
    let names = tail_joint_names();
    let end = node_joint(&bytes, &names[TAIL_BONES]);

    // The creature's own tail, its body still (at the identity), stepped 1/60 s at a time.
    let mut tail = CreatureTail::new(&Creature::default(), TailSettings::default()).unwrap();
    let fit = body.fit.matrix();
    let rest_tip = joint_at(&body, &motion.pose_at(0.0), end);
    let mut worst = 0.0f32;
    let mut moved = 0.0f32;
    for step in 1..=120u32 {
        assert_eq!(tail.advance(1.0 / 60.0, Affine3A::IDENTITY), 1);
        let pose = motion.pose_at(f64::from(step) / 60.0);
        let tip = joint_at(&body, &pose, end);
        // The spring's world after its last step (`positions` are drawn a step behind).
        let want = fit.transform_point3(tail.spring().world()[end].translation.into());
        worst = worst.max(tip.distance(want));
        moved = moved.max(tip.distance(rest_tip));
    }
    // Gravity sags the tail from its rest pose: the tip moves, by the creature's own rule.
    assert!(moved > 5e-3, "the tail tip moved only {moved} m");
    assert!(
        worst < 1e-5,
        "the body's tail tip strayed {worst} m from the creature's (moved {moved} m)"
    );
}

/// The largest distance from a root on a triangle that a tail joint moves to that
/// triangle's point in the motion's pose at the sim's time, and how many such roots.
fn tail_roots_off_skin(sim: &mut FurSim, tail_joints: &[usize]) -> (f32, usize, Vec<Vec3>) {
    let body = sim.body().unwrap().clone();
    let pose = body.motion.pose_at(sim.time());
    let groom = sim.body_groom().unwrap().clone();
    let positions = sim.positions().unwrap();
    let on_tail = |v: u32| {
        let (j, w) = (body.mesh.joints[v as usize], body.mesh.weights[v as usize]);
        j.iter()
            .zip(w)
            .any(|(j, w)| w > 0.0 && tail_joints.contains(&usize::from(*j)))
    };
    let (mut worst, mut count, mut roots) = (0.0f32, 0, Vec::new());
    for (root, strand) in groom.roots.iter().zip(positions.chunks(6)) {
        let t = body.mesh.triangles[root.triangle as usize];
        if !t.iter().any(|&v| on_tail(v)) {
            continue;
        }
        let [a, b, c] = t.map(|v| pose.skin_vertex(&body.mesh, v as usize).0);
        let want = a * root.barycentric.x + b * root.barycentric.y + c * root.barycentric.z;
        worst = worst.max(strand[0].xyz().distance(want));
        count += 1;
        roots.push(strand[0].xyz());
    }
    (worst, count, roots)
}

/// The exported creature read back as a body, in its rest motion, and its tail's skin
/// joints.
fn creature_body_and_tail() -> (FurBody, Vec<usize>) {
    let bytes = creature_vrm();
    let body = read(&bytes, "creature.vrm");
    let names = tail_joint_names();
    let tail = names[..TAIL_BONES]
        .iter()
        .map(|n| node_joint(&bytes, n))
        .collect();
    let fur_body = FurBody {
        mesh: Arc::new(body.mesh.clone()),
        motion: Arc::from(body.motion(None).unwrap()),
        groom: None,
    };
    (fur_body, tail)
}

/// Steps `sim` in `batches` batches of `steps` steps, each read back: the farthest any
/// tail root strayed from its skinned triangle at the end of a batch, how many roots grow
/// on the tail, and the farthest a tail root moved from where it started; metres.
fn ride_the_tail(sim: &mut FurSim, tail: &[usize], batches: u32, steps: u32) -> (f32, usize, f32) {
    let (_, _, before) = tail_roots_off_skin(sim, tail);
    let (mut worst, mut count, mut after) = (0.0f32, 0, Vec::new());
    for _ in 0..batches {
        sim.step(steps).unwrap();
        let (w, c, roots) = tail_roots_off_skin(sim, tail);
        worst = worst.max(w);
        count = c;
        after = roots;
    }
    let moved = before
        .iter()
        .zip(&after)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0f32, f32::max);
    (worst, count, moved)
}

#[test]
fn the_fur_on_the_exported_creatures_tail_rides_its_swing() {
    let (fur_body, tail) = creature_body_and_tail();
    let mut sim = FurSim::new_cpu_on_body(&FurConfig::new(4_096, 3), fur_body).unwrap();
    let (worst, count, moved) = ride_the_tail(&mut sim, &tail, 90, 1);
    assert!(count >= 20, "only {count} roots grow on the tail");
    assert!(moved > 5e-3, "the tail's roots moved only {moved} m");
    assert!(
        worst <= 0.5e-3,
        "a tail root strayed {worst} m from its skinned triangle"
    );
}

/// Node indices of the spring cylinder: its two bones and the upper bone's end.
const LOWER: usize = 0;
const UPPER: usize = 1;
const TIP: usize = 2;

/// The test's spring: the cylinder's upper bone, limp enough that gravity bends it.
fn upper_joint() -> VrmJoint {
    VrmJoint {
        stiffness: 1.0,
        gravity_power: 0.4,
        drag_force: 0.2,
        ..VrmJoint::new(UPPER)
    }
}

/// The rig of the spring cylinder: `lower` at the cylinder's base, `upper` (the spring
/// joint) at mid height, `tip` at its top, in the cylinder's own frame.
fn cylinder_rig(spec: &CylinderSpec) -> VrmSpringRig {
    let node = |name: &str, parent: Option<usize>, y: f32| SkeletonNode {
        name: name.into(),
        parent,
        rest: NodeTransform::from_translation(Vec3::new(0.0, y, 0.0)),
    };
    let skeleton = Skeleton::new(vec![
        node("lower", None, spec.base),
        node("upper", Some(LOWER), spec.height * 0.5),
        node("tip", Some(UPPER), spec.height * 0.5),
    ])
    .unwrap();
    VrmSpringRig {
        skeleton,
        chains: vec![VrmChain {
            name: "upper".into(),
            joints: vec![upper_joint()],
            end: ChainEnd::Node(TIP),
            collider_groups: vec![],
            center: None,
        }],
        ..Default::default()
    }
}

/// The sway the test animates the cylinder's root with: its X translation keyed LINEAR at
/// these times (seconds) and values, looped over a second.
const SWAY_TIMES: [f32; 3] = [0.0, 0.5, 1.0];
const SWAY_X: [f32; 3] = [0.0, 0.4, 0.0];

/// The sway's X at `seconds`, as glTF's LINEAR sampling gives it.
fn sway_at(seconds: f64) -> f32 {
    let t = seconds.rem_euclid(1.0) as f32;
    let k = SWAY_TIMES.partition_point(|&x| x <= t).clamp(1, 2);
    let u = ((t - SWAY_TIMES[k - 1]) / (SWAY_TIMES[k] - SWAY_TIMES[k - 1])).clamp(0.0, 1.0);
    SWAY_X[k - 1] + (SWAY_X[k] - SWAY_X[k - 1]) * u
}

/// `skinned_cylinder` with one spring joint on its upper bone, written as a GLB with
/// `VRMC_springBone`, plus an animation "sway" of its root.
fn spring_cylinder_glb(spec: &CylinderSpec) -> Vec<u8> {
    let (mesh, _) = skinned_cylinder(spec);
    let body = RiggedBody {
        springs: cylinder_rig(spec),
        chains: Default::default(),
        mesh: Some(SkinnedMesh {
            positions: mesh.positions.clone(),
            normals: mesh.normals.clone(),
            joints: mesh.joints.clone(),
            weights: mesh.weights.clone(),
            indices: mesh.triangles.iter().flatten().copied().collect(),
            color: [0.8, 0.5, 0.3, 1.0],
            colors: Vec::new(),
            parts: Vec::new(),
        }),
        avatar: None,
        generator: "body_springs test".into(),
    };
    let bytes = pelt::vrm::write_glb(&body).unwrap();
    let (json, bin) = pelt::vrm::glb::unpack(&bytes).unwrap();
    let mut json: Value = serde_json::from_slice(json).unwrap();
    let mut bin = bin.unwrap().to_vec();
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let mut push = |values: &[f32]| {
        let at = bin.len();
        for v in values {
            bin.extend_from_slice(&v.to_le_bytes());
        }
        (at, bin.len() - at)
    };
    let times = push(&SWAY_TIMES);
    let x: Vec<f32> = SWAY_X.iter().flat_map(|&x| [x, spec.base, 0.0]).collect();
    let values = push(&x);
    let views = json["bufferViews"].as_array_mut().unwrap();
    let first_view = views.len();
    for (at, len) in [times, values] {
        views.push(json!({"buffer": 0, "byteOffset": at, "byteLength": len}));
    }
    let accessors = json["accessors"].as_array_mut().unwrap();
    let first_accessor = accessors.len();
    accessors.push(
        json!({"bufferView": first_view, "componentType": 5126, "count": 3,
        "type": "SCALAR", "min": [0.0], "max": [1.0]}),
    );
    accessors.push(
        json!({"bufferView": first_view + 1, "componentType": 5126, "count": 3,
        "type": "VEC3"}),
    );
    json["animations"] = json!([{"name": "sway",
        "samplers": [{"input": first_accessor, "output": first_accessor + 1,
                      "interpolation": "LINEAR"}],
        "channels": [{"sampler": 0, "target": {"node": LOWER, "path": "translation"}}]}]);
    json["buffers"][0]["byteLength"] = json!(bin.len());
    pelt::vrm::glb::pack(&serde_json::to_vec(&json).unwrap(), &bin)
}

/// The largest difference between two matrices' entries.
fn matrix_gap(a: Mat4, b: Mat4) -> f32 {
    (a - b)
        .to_cols_array()
        .iter()
        .fold(0.0f32, |m, d| m.max(d.abs()))
}

/// The largest distance, over 150 steps of "sway", between the upper bone's end as `body`
/// poses it and as `rig` stepped alone with the same root motion puts it (fitted frame),
/// and the largest distance the spring swung that end from where the animation alone puts
/// it; metres.
fn swing_against_alone(body: &LoadedBody, rig: VrmSpringRig, spec: &CylinderSpec) -> (f32, f32) {
    let motion = body.motion(Some("sway")).unwrap();
    // The reference: the same rig run alone, the root set to the sway before each step.
    let mut alone = VrmSpring::new(rig, Affine3A::IDENTITY).unwrap();
    let root_at =
        |seconds: f64| NodeTransform::from_translation(Vec3::new(sway_at(seconds), spec.base, 0.0));
    alone.set_local(LOWER, root_at(0.0)).unwrap();
    alone.reset();
    let fit = body.fit.matrix();
    // The upper bone's end at bind, in the body's fitted frame.
    let tip_bind = fit.transform_point3(Vec3::new(0.0, spec.base + spec.height, 0.0));
    let (mut worst, mut swing) = (0.0f32, 0.0f32);
    for step in 1..=150u32 {
        let seconds = f64::from(step) / 60.0;
        alone.set_local(LOWER, root_at(seconds)).unwrap();
        alone.step(Affine3A::IDENTITY);
        let pose = motion.pose_at(seconds);
        let tip = pose.joints[UPPER].transform_point3(tip_bind);
        let want = fit.transform_point3(alone.world()[TIP].translation.into());
        worst = worst.max(tip.distance(want));
        let unswung = tip_bind + fit.transform_vector3(Vec3::X * sway_at(seconds));
        swing = swing.max(tip.distance(unswung));
    }
    (worst, swing)
}

#[test]
fn a_spring_cylinder_swings_as_its_spring_stepped_alone() {
    let spec = CylinderSpec::default();
    let bytes = spring_cylinder_glb(&spec);
    let body = read(&bytes, "spring-cylinder.glb");
    assert_eq!(body.spring_joints, 1, "{}", body.summary);
    let (worst, swing) = swing_against_alone(&body, cylinder_rig(&spec), &spec);
    assert!(swing > 0.05, "the spring swung the tip only {swing} m");
    assert!(
        worst < 1e-5,
        "the body's spring tip is {worst} m from the spring's stepped alone (swing {swing} m)"
    );
    // The animation moves the lower bone as it is keyed, untouched by the spring.
    let (fit, fit_inverse) = (body.fit.matrix(), body.fit.inverse());
    let pose = body.motion(Some("sway")).unwrap().pose_at(0.25);
    let lower = Mat4::from_translation(Vec3::new(sway_at(0.25), 0.0, 0.0));
    let want = fit * lower * fit_inverse;
    assert!(matrix_gap(pose.joints[LOWER], want) < 1e-5);
}

/// The spring cylinder with its spring as a VRM 0.x bone group instead.
fn as_vrm0(bytes: &[u8]) -> Vec<u8> {
    let (json, bin) = pelt::vrm::glb::unpack(bytes).unwrap();
    let mut json: Value = serde_json::from_slice(json).unwrap();
    let bin = bin.unwrap().to_vec();
    let extensions = json["extensions"].as_object_mut().unwrap();
    extensions.remove("VRMC_springBone");
    let joint = upper_joint();
    extensions.insert(
        "VRM".into(),
        json!({"secondaryAnimation": {"boneGroups": [{
            "comment": "upper", "stiffiness": joint.stiffness,
            "gravityPower": joint.gravity_power, "gravityDir": {"x": 0.0, "y": -1.0, "z": 0.0},
            "dragForce": joint.drag_force, "hitRadius": 0.0, "bones": [UPPER],
            "colliderGroups": []}], "colliderGroups": []}}),
    );
    json["extensionsUsed"] = json!(["VRM"]);
    pelt::vrm::glb::pack(&serde_json::to_vec(&json).unwrap(), &bin)
}

#[test]
fn a_vrm0_bone_group_swings_as_the_vrm_reader_converts_it() {
    let spec = CylinderSpec::default();
    let bytes = as_vrm0(&spring_cylinder_glb(&spec));
    let body = read(&bytes, "spring-cylinder.vrm");
    // Every node below the group's bone swings (the upper bone and its end, which points
    // at VRM 0.x's 7 cm tail), and the avatar is turned to face +Z.
    assert_eq!(body.spring_joints, 2, "{}", body.summary);
    assert!(
        body.summary
            .contains("2 spring joints (VRM 0.x secondaryAnimation) swing"),
        "{}",
        body.summary
    );
    assert!(body.fit.turned);
    let converted = pelt::vrm::read_glb(&bytes).unwrap().springs;
    let (worst, swing) = swing_against_alone(&body, converted, &spec);
    assert!(swing > 0.05, "the spring swung the tip only {swing} m");
    assert!(
        worst < 1e-5,
        "the body's spring tip is {worst} m from the spring's stepped alone (swing {swing} m)"
    );
}

#[test]
fn the_same_time_gives_the_same_bits_however_it_is_reached() {
    let bytes = spring_cylinder_glb(&CylinderSpec::default());
    let body = read(&bytes, "spring-cylinder.glb");
    let stepped = body.motion(Some("sway")).unwrap();
    let mut at_40 = None;
    for step in 1..=90u32 {
        let pose = stepped.pose_at(f64::from(step) / 60.0);
        if step == 40 {
            at_40 = Some(pose);
        }
    }
    // Back to an earlier time, and a fresh motion jumping straight there.
    let again = stepped.pose_at(40.0 / 60.0);
    let jumped = body.motion(Some("sway")).unwrap().pose_at(40.0 / 60.0);
    let at_40 = at_40.unwrap();
    assert_eq!(pose_bits(&again), pose_bits(&at_40));
    assert_eq!(pose_bits(&jumped), pose_bits(&at_40));
    // The pose changes from one step to the next: the bits compared above are not a still
    // body's.
    let later = stepped.pose_at(41.0 / 60.0);
    assert_ne!(pose_bits(&later), pose_bits(&at_40));
}

/// The creature's file with its JSON changed by `edit`.
fn edited_creature(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    edit_glb_json(&creature_vrm(), edit)
}

#[test]
fn bad_spring_data_leaves_the_body_usable_and_says_why() {
    let springs = |json: &mut Value| json["extensions"]["VRMC_springBone"]["springs"][0].clone();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "a joint on a node that does not exist",
            edited_creature(|json| {
                let mut s = springs(json);
                s["joints"][1]["node"] = json!(100_000);
                json["extensions"]["VRMC_springBone"]["springs"][0] = s;
            }),
            "out of range",
        ),
        (
            "a negative stiffness",
            edited_creature(|json| {
                let mut s = springs(json);
                s["joints"][0]["stiffness"] = json!(-3.0);
                json["extensions"]["VRMC_springBone"]["springs"][0] = s;
            }),
            "stiffness",
        ),
        (
            "a spring extension that is not an object",
            edited_creature(|json| {
                json["extensions"]["VRMC_springBone"] = json!("tail");
            }),
            "VRMC_springBone",
        ),
        (
            "a spring of 80 joints against 4,000 colliders",
            edited_creature(|json| {
                let nodes = json["nodes"].as_array_mut().unwrap();
                let first = nodes.len();
                for k in 0..80 {
                    let mut node =
                        json!({"name": format!("strand_{k}"), "translation": [0.0, 0.01, 0.0]});
                    if k + 1 < 80 {
                        node["children"] = json!([first + k + 1]);
                    }
                    nodes.push(node);
                }
                let root = &mut json["nodes"][0];
                let mut children = root["children"].as_array().cloned().unwrap_or_default();
                children.push(json!(first));
                root["children"] = json!(children);
                let ext = &mut json["extensions"]["VRMC_springBone"];
                let colliders = ext["colliders"].as_array_mut().unwrap();
                let first_collider = colliders.len();
                for _ in 0..4_000 {
                    colliders.push(json!({"node": 0, "shape": {"sphere": {"offset": [0.0, 0.0, 0.0], "radius": 0.01}}}));
                }
                let groups = ext["colliderGroups"].as_array_mut().unwrap();
                groups.push(json!({"colliders": (first_collider..first_collider + 4_000).collect::<Vec<_>>()}));
                let group = groups.len() - 1;
                let joints: Vec<Value> = (first..first + 80).map(|n| json!({"node": n})).collect();
                ext["springs"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"joints": joints, "colliderGroups": [group]}));
            }),
            "joint-collider tests a step",
        ),
    ];
    for (what, bytes, named) in cases {
        let body = LoadedBody::from_bytes(&bytes, "creature.vrm", &BodyOptions::default())
            .unwrap_or_else(|e| panic!("{what}: the body was refused: {e}"));
        assert_eq!(body.spring_joints, 0, "{what}");
        let why = body.springs_ignored.clone().unwrap_or_default();
        assert!(why.contains(named), "{what}: {why}");
        assert!(
            body.summary.contains("springs are ignored"),
            "{what}: {}",
            body.summary
        );
        // The body is used, its tail at rest.
        let motion = body.motion(None).unwrap();
        assert_eq!(
            pose_bits(&motion.pose_at(2.0)),
            pose_bits(&body.rest_pose),
            "{what}"
        );
    }
}

fn asset(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bodies")
        .join(name)
}

#[test]
fn the_bodies_made_by_others_have_no_springs() {
    for name in ["cryptovoxels.vrm", "Fox.glb"] {
        let body = LoadedBody::read(&asset(name), &BodyOptions::default()).unwrap();
        assert_eq!(body.spring_joints, 0, "{name}");
        assert_eq!(body.springs_ignored, None, "{name}");
        assert!(
            body.summary.contains("no springs"),
            "{name}: {}",
            body.summary
        );
    }
    // The VRM reader agrees: the avatar's VRM 0.x record has no spring joint.
    let bytes = std::fs::read(asset("cryptovoxels.vrm")).unwrap();
    let springs = pelt::vrm::read_glb(&bytes).unwrap();
    assert_eq!(springs.source, pelt::vrm::SpringSource::Vrm0);
    assert_eq!(springs.springs.joint_count(), 0);
}

#[test]
fn simulate_on_the_exported_creature_says_its_tail_springs_swing() {
    let dir = tempfile::tempdir().unwrap();
    let vrm = dir.path().join("creature.vrm");
    let o = pelt()
        .args(["export", "--vrm", "--out", s(&vrm)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("state.npy");
    let o = pelt()
        .args([
            "simulate",
            "--solver",
            "cpu",
            "--strands",
            "256",
            "--steps",
            "3",
        ])
        .args(["--body", s(&vrm), "--out", s(&out)])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "{TAIL_BONES} spring joints (VRMC_springBone) swing on VRM's spring rule"
        )),
        "{err}"
    );
}

#[test]
fn the_fur_on_the_exported_creatures_tail_rides_its_swing_on_the_gpu() {
    let (fur_body, tail) = creature_body_and_tail();
    let ctx = solver_common::gpu();
    let mut sim = FurSim::new_gpu_on_body(&FurConfig::new(2_048, 3), fur_body, &ctx).unwrap();
    // Batches of several steps per dispatch, each read back: the pose of every step in a
    // batch comes from the host's springs.
    let (worst, count, moved) = ride_the_tail(&mut sim, &tail, 18, 5);
    assert!(count >= 10, "only {count} roots grow on the tail");
    assert!(moved > 5e-3, "the tail's roots moved only {moved} m");
    assert!(
        worst <= 0.5e-3,
        "a tail root strayed {worst} m from its skinned triangle on the GPU"
    );
}
