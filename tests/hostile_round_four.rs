//! Hostile bodies, round four: a body's own springs, petting a body and the body's field,
//! attacked as a hostile user would. Each test is a finding that was fixed: it fails
//! without the fix.

mod cli_common;

use cli_common::{creature_vrm, edit_glb_json, pose_bits, s, stderr, still_motion};
use pelt::body::{BodyOptions, LoadedBody, MAX_CATCH_UP_WORK, SETTLE_STEPS};
use serde_json::{Value, json};

/// The creature's file with its JSON changed by `edit`, its tail undamped (no drag): the
/// tail swings under gravity for ever, so where it is depends on every step taken since it
/// started at rest (a damped tail settles to the same bits whenever it started).
fn edited_creature(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    edit_glb_json(&creature_vrm(), |json| {
        for joint in json["extensions"]["VRMC_springBone"]["springs"][0]["joints"]
            .as_array_mut()
            .unwrap()
        {
            joint["dragForce"] = json!(0.0);
        }
        edit(json);
    })
}

fn read(bytes: &[u8]) -> LoadedBody {
    LoadedBody::from_bytes(bytes, "creature.vrm", &BodyOptions::default()).unwrap()
}

/// Colliders the creature's tail chain tests every step.
const FAR_COLLIDERS: usize = 4_000;

/// The creature with `FAR_COLLIDERS` sphere colliders in one more group of its tail chain,
/// all a hundred metres away: they never touch the tail (it swings to the same bits as
/// without them), but each step of the tail tests every one of them.
fn costly_tail() -> Vec<u8> {
    edited_creature(|json| {
        let ext = &mut json["extensions"]["VRMC_springBone"];
        let colliders = ext["colliders"].as_array_mut().unwrap();
        let first = colliders.len();
        for _ in 0..FAR_COLLIDERS {
            colliders.push(json!({"node": 0, "shape": {"sphere":
                {"offset": [100.0, 0.0, 0.0], "radius": 0.01}}}));
        }
        let groups = ext["colliderGroups"].as_array_mut().unwrap();
        groups.push(json!({"colliders": (first..first + FAR_COLLIDERS).collect::<Vec<_>>()}));
        let group = groups.len() - 1;
        let chain = &mut ext["springs"][0]["colliderGroups"];
        let mut list = chain.as_array().cloned().unwrap_or_default();
        list.push(json!(group));
        *chain = json!(list);
    })
}

/// A pose far ahead of the last one (or before it) on springs whose steps are costly does
/// not step them the whole way: past the body's catch-up limit, which the work of a step
/// sets, the springs start at rest `SETTLE_STEPS` before the time asked for. Before the fix
/// only the hour-long step limit held, so one such pose stepped 20,000 steps of 20,000
/// collider tests (an hour ahead: minutes of work).
#[test]
fn a_far_pose_on_costly_springs_catches_up_within_the_work_limit() {
    let cheap = read(&edited_creature(|_| {}));
    let costly = read(&costly_tail());
    assert_eq!(
        costly.spring_joints, cheap.spring_joints,
        "{}",
        costly.summary
    );
    let tail_joints = cheap.spring_joints as u64;
    let tests_a_step = tail_joints * FAR_COLLIDERS as u64;
    // Far enough ahead that catching up the whole way is over the work limit.
    let steps = MAX_CATCH_UP_WORK / tests_a_step + 2 * SETTLE_STEPS;
    let seconds = steps as f64 / 60.0;
    let settled = SETTLE_STEPS as f64 / 60.0;

    // The body is still (no animation), so springs started at rest `SETTLE_STEPS` before
    // `steps` are where springs started at rest at 0 are after `SETTLE_STEPS`; the far
    // colliders change no bit of the swing.
    let want = pose_bits(&cheap.motion(None).unwrap().pose_at(settled));
    // And that is not where the springs stepped the whole way are: the comparison below
    // tells the two apart.
    let whole_way = pose_bits(&cheap.motion(None).unwrap().pose_at(seconds));
    assert_ne!(want, whole_way);

    let motion = costly.motion(None).unwrap();
    assert_eq!(pose_bits(&motion.pose_at(seconds)), want, "forward");
    // Back one step: from the start again, so the same limit holds.
    let back = pose_bits(&motion.pose_at(seconds - 1.0 / 60.0));
    let want_back = pose_bits(&cheap.motion(None).unwrap().pose_at(settled));
    assert_eq!(back, want_back, "backward");
    // Within the limit the springs are still stepped the whole way, as before.
    let near = SETTLE_STEPS as f64 * 1.5 / 60.0;
    assert_eq!(
        pose_bits(&costly.motion(None).unwrap().pose_at(near)),
        pose_bits(&cheap.motion(None).unwrap().pose_at(near)),
        "within the limit"
    );
}

/// The creature with its springs as a VRM 0.x record whose first bone group is `group`.
fn vrm0_creature(group: Value) -> Vec<u8> {
    edited_creature(|json| {
        let ext = json["extensions"].as_object_mut().unwrap();
        ext.remove("VRMC_springBone");
        ext.insert(
            "VRM".into(),
            json!({"secondaryAnimation": {"boneGroups": [group], "colliderGroups": []}}),
        );
        json["extensionsUsed"] = json!(["VRM"]);
    })
}

/// Spring records of the wrong shape leave the body usable and say, in the summary, what
/// the part should look like in the file's own terms. Before the fix the reason named the
/// reader's Rust types ("expected struct Vrm0Vec3").
#[test]
fn a_spring_record_of_the_wrong_shape_is_described_in_the_files_terms() {
    let cases = [
        (
            "a VRM 0.x gravityDir that is a number",
            vrm0_creature(json!({"bones": [1], "gravityDir": 5})),
            r#"expected an object {"x": number, "y": number, "z": number}"#,
        ),
        (
            "a VRM 0.x bone group that is a string",
            vrm0_creature(json!("tail")),
            r#"expected a bone group: {"bones": [node indices]"#,
        ),
        (
            "a VRMC_springBone spring that is a number",
            edited_creature(|json| {
                json["extensions"]["VRMC_springBone"]["springs"] = json!([5]);
            }),
            r#"expected a spring: {"joints": ["#,
        ),
        (
            "a VRMC_springBone joint that is a string",
            edited_creature(|json| {
                json["extensions"]["VRMC_springBone"]["springs"][0]["joints"][0] = json!("tail");
            }),
            r#"expected a joint: {"node": index"#,
        ),
        (
            "a VRMC_springBone collider shape that is a string",
            edited_creature(|json| {
                json["extensions"]["VRMC_springBone"]["colliders"] =
                    json!([{"node": 0, "shape": "sphere"}]);
            }),
            r#"expected a shape: {"sphere": {...}}"#,
        ),
    ];
    for (what, bytes, wanted) in cases {
        let body = read(&bytes);
        assert_eq!(body.spring_joints, 0, "{what}: {}", body.summary);
        let why = body.springs_ignored.clone().unwrap_or_default();
        assert!(why.contains(wanted), "{what}: {why}");
        assert!(!why.contains("struct"), "{what}: {why}");
        assert!(body.summary.contains(&why), "{what}: {}", body.summary);
    }
}

/// Spring chains added to the creature by [`collider_bomb`].
const BOMB_CHAINS: usize = 64;
/// How many times each of those chains names the big collider group.
const BOMB_GROUP_NAMES: usize = 4_000;

/// The creature with `BOMB_CHAINS` more two-node spring chains, each naming one group of
/// 4,000 colliders `BOMB_GROUP_NAMES` times: under a megabyte of JSON whose springs, built,
/// would list a billion joint colliders (8 GB of indices).
fn collider_bomb() -> Vec<u8> {
    edited_creature(|json| {
        let nodes = json["nodes"].as_array_mut().unwrap();
        let first = nodes.len();
        for k in 0..BOMB_CHAINS {
            nodes.push(
                json!({"name": format!("bomb_{k}"), "translation": [0.0, 0.01, 0.0],
                "children": [first + BOMB_CHAINS + k]}),
            );
        }
        for k in 0..BOMB_CHAINS {
            nodes.push(json!({"name": format!("bomb_tip_{k}"), "translation": [0.0, 0.01, 0.0]}));
        }
        let root = &mut json["nodes"][0];
        let mut children = root["children"].as_array().cloned().unwrap_or_default();
        children.extend((first..first + BOMB_CHAINS).map(|n| json!(n)));
        root["children"] = json!(children);
        let ext = &mut json["extensions"]["VRMC_springBone"];
        let colliders = ext["colliders"].as_array_mut().unwrap();
        let first_collider = colliders.len();
        for _ in 0..4_000 {
            colliders.push(json!({"node": 0, "shape": {"sphere":
                {"offset": [0.0, 0.0, 0.0], "radius": 0.01}}}));
        }
        let groups = ext["colliderGroups"].as_array_mut().unwrap();
        groups.push(
            json!({"colliders": (first_collider..first_collider + 4_000).collect::<Vec<_>>()}),
        );
        let group = groups.len() - 1;
        let springs = ext["springs"].as_array_mut().unwrap();
        for k in 0..BOMB_CHAINS {
            springs.push(json!({
                "joints": [{"node": first + k}, {"node": first + BOMB_CHAINS + k}],
                "colliderGroups": vec![group; BOMB_GROUP_NAMES]}));
        }
    })
}

/// Springs whose chains name a big collider group thousands of times are refused by their
/// count before anything is built: the body runs in a 4 GiB address space with its springs
/// at rest and the reason in its summary. Before the fix the springs were built first, and
/// the reader aborted on allocating the joints' collider lists.
#[test]
fn springs_naming_a_big_group_many_times_are_refused_before_they_are_built() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("bomb.vrm");
    std::fs::write(&body, collider_bomb()).unwrap();
    let out = dir.path().join("state.npy");
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4194304 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_pelt"))
        .args([
            "simulate",
            "--solver",
            "cpu",
            "--strands",
            "256",
            "--steps",
            "3",
        ])
        .args(["--body", s(&body), "--out", s(&out)])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("its springs are ignored"), "{err}");
    assert!(err.contains("joint-collider tests a step"), "{err}");
    assert!(out.exists(), "{err}");
}

/// `pelt tail-trace --file` refuses the same springs by their count, with the reason, in a
/// 4 GiB address space and with no output written. Before the fix it built them first and
/// aborted on the allocation.
#[test]
fn tail_trace_refuses_springs_naming_a_big_group_many_times_before_building_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bomb.vrm");
    std::fs::write(&file, collider_bomb()).unwrap();
    let motion = still_motion(&dir.path().join("m.json"));
    let out = dir.path().join("t.csv");
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 4194304 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_pelt"))
        .args(["tail-trace", "--frames", "1", "--motion", s(&motion)])
        .args(["--file", s(&file), "--out", s(&out)])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("joint–collider tests a step"), "{err}");
    assert!(!out.exists());
}
