//! VrmSpring, VRM's own rule: its closed-form settle angle, rest rotations and scale kept,
//! `center` space, every collider kind, fixed 60 Hz steps at any frame rate, the rendered
//! pose between steps, the dependency order, and bad rigs refused.

use glam::{Affine3A, Quat, Vec3};
use pelt::spring::{
    ChainEnd, NodeTransform, Skeleton, SkeletonNode, SpringError, VrmChain, VrmCollider,
    VrmColliderGroup, VrmColliderShape, VrmJoint, VrmSpring, VrmSpringRig,
};

fn node(name: &str, parent: Option<usize>, rest: NodeTransform) -> SkeletonNode {
    SkeletonNode {
        name: name.into(),
        parent,
        rest,
    }
}

fn at(x: f32, y: f32, z: f32) -> NodeTransform {
    NodeTransform::from_translation(Vec3::new(x, y, z))
}

/// A root, an anchor and a chain of `bones` bones of `len` metres along `dir`, ending in a
/// node; the chain's joints are nodes 2.. .
fn straight(bones: usize, len: f32, dir: Vec3, joint: VrmJoint) -> VrmSpringRig {
    let mut nodes = vec![
        node("root", None, at(0.0, 0.0, 0.0)),
        node("anchor", Some(0), at(0.0, 1.0, 0.0)),
    ];
    for i in 0..=bones {
        let t = if i == 0 { Vec3::ZERO } else { dir * len };
        nodes.push(node(
            &format!("j{i}"),
            Some(i + 1),
            NodeTransform::from_translation(t),
        ));
    }
    VrmSpringRig {
        skeleton: Skeleton::new(nodes).unwrap(),
        chains: vec![VrmChain {
            name: "chain".into(),
            joints: (0..bones)
                .map(|i| VrmJoint {
                    node: i + 2,
                    ..joint
                })
                .collect(),
            end: ChainEnd::Node(bones + 2),
            collider_groups: vec![],
            center: None,
        }],
        ..Default::default()
    }
}

fn tip(s: &VrmSpring) -> Vec3 {
    *s.joint_positions()[0].last().unwrap()
}

#[test]
fn a_level_bone_settles_at_vrm_closed_form_angle() {
    // At rest the push `stiffness·axis + gravityPower·dir` must point along the bone, so a
    // level bone settles atan(gravityPower / stiffness) below level.
    for (k, g) in [(1.0f32, 0.3f32), (2.0, 1.0), (0.5, 1.5), (4.0, 0.2)] {
        let joint = VrmJoint {
            stiffness: k,
            gravity_power: g,
            drag_force: 0.4,
            ..VrmJoint::new(0)
        };
        let mut s = VrmSpring::new(straight(1, 0.3, Vec3::X, joint), Affine3A::IDENTITY).unwrap();
        for _ in 0..1200 {
            s.step(Affine3A::IDENTITY);
        }
        let d = tip(&s) - Vec3::new(0.0, 1.0, 0.0);
        let angle = (-d.y).atan2(d.x);
        let want = g.atan2(k);
        assert!(
            (angle - want).abs() < 1.0e-3,
            "k {k} g {g}: {angle} vs {want}"
        );
        assert!(
            (d.length() - 0.3).abs() < 1.0e-5,
            "the bone keeps its length"
        );
    }
}

#[test]
fn weightless_chain_with_rest_rotations_and_scale_stays_at_rest() {
    // Rotated and scaled rest transforms: with no gravity the rule must keep them exactly.
    let q = |axis: Vec3, deg: f32| Quat::from_axis_angle(axis.normalize(), deg.to_radians());
    let nodes = vec![
        node("root", None, NodeTransform::IDENTITY),
        node(
            "body",
            Some(0),
            NodeTransform {
                translation: Vec3::new(0.0, 1.0, 0.0),
                rotation: q(Vec3::Z, 25.0),
                scale: Vec3::splat(1.3),
            },
        ),
        node(
            "a",
            Some(1),
            NodeTransform {
                translation: Vec3::new(0.1, 0.0, 0.0),
                rotation: q(Vec3::new(1.0, 1.0, 0.0), 40.0),
                scale: Vec3::ONE,
            },
        ),
        node(
            "b",
            Some(2),
            NodeTransform {
                translation: Vec3::new(0.0, -0.2, 0.05),
                rotation: q(Vec3::X, -30.0),
                scale: Vec3::ONE,
            },
        ),
        node("c", Some(3), at(0.02, -0.15, 0.0)),
    ];
    let skeleton = Skeleton::new(nodes).unwrap();
    let rest = skeleton.rest_world(Affine3A::IDENTITY);
    let rig = VrmSpringRig {
        skeleton,
        chains: vec![VrmChain {
            name: "c".into(),
            joints: vec![VrmJoint::new(2), VrmJoint::new(3)],
            end: ChainEnd::Node(4),
            collider_groups: vec![],
            center: None,
        }],
        ..Default::default()
    };
    let mut s = VrmSpring::new(rig, Affine3A::IDENTITY).unwrap();
    for _ in 0..600 {
        s.step(Affine3A::IDENTITY);
    }
    for (i, w) in s.world().iter().enumerate() {
        let d = (w.translation - rest[i].translation).length();
        assert!(d < 1.0e-5, "node {i} moved {d} m from rest");
        assert!(
            w.matrix3.abs_diff_eq(rest[i].matrix3, 1.0e-5),
            "node {i} turned"
        );
    }
}

#[test]
fn center_space_makes_inertia_follow_the_center() {
    // The chain hangs from the anchor; the scene jumps sideways. In world space the chain
    // lags and swings; with `center` on the anchor it moves along rigidly.
    let joint = VrmJoint {
        stiffness: 1.0,
        gravity_power: 0.0,
        drag_force: 0.1,
        ..VrmJoint::new(0)
    };
    let swing = |center: Option<usize>| {
        let mut rig = straight(3, 0.1, Vec3::NEG_Y, joint);
        rig.chains[0].center = center;
        let mut s = VrmSpring::new(rig, Affine3A::IDENTITY).unwrap();
        let mut worst = 0.0f32;
        for f in 1..=60 {
            let root = Affine3A::from_translation(Vec3::new(0.05 * f.min(20) as f32, 0.0, 0.0));
            s.step(root);
            let rel = tip(&s) - Vec3::from(root.translation);
            worst = worst.max((rel - Vec3::new(0.0, 0.7, 0.0)).length());
        }
        worst
    };
    let world = swing(None);
    let centered = swing(Some(1));
    println!("tip deviation: world space {world:.4} m, center space {centered:.6} m");
    assert!(world > 0.02, "in world space the chain lags ({world})");
    assert!(
        centered < 1.0e-4,
        "with center on the anchor it follows rigidly ({centered})"
    );
}

fn one_bone_with(shape: VrmColliderShape, gravity: f32) -> VrmSpring {
    // A 0.3 m bone from (0, 1, 0) along +X falling under gravity toward a collider on the
    // root; hit radius 0.02.
    let joint = VrmJoint {
        stiffness: 0.0,
        gravity_power: gravity,
        drag_force: 0.5,
        hit_radius: 0.02,
        ..VrmJoint::new(0)
    };
    let mut rig = straight(1, 0.3, Vec3::X, joint);
    rig.colliders.push(VrmCollider { node: 0, shape });
    rig.groups.push(VrmColliderGroup {
        name: "g".into(),
        colliders: vec![0],
    });
    rig.chains[0].collider_groups = vec![0];
    let mut s = VrmSpring::new(rig, Affine3A::IDENTITY).unwrap();
    for _ in 0..600 {
        s.step(Affine3A::IDENTITY);
    }
    s
}

#[test]
fn every_collider_kind_holds_the_tail() {
    let head = Vec3::new(0.0, 1.0, 0.0);
    // A sphere below the bone's swing: the tail rests on it, outside radius + hit radius.
    let c = Vec3::new(0.25, 0.75, 0.0);
    let s = one_bone_with(VrmColliderShape::sphere(c, 0.1), 1.0);
    // (Putting the tail back at the bone length after the push lets it sink in a little:
    // that is VRM's rule, so the contact distance holds to a few millimetres.)
    let t = tip(&s);
    assert!(
        ((t - c).length() - 0.12).abs() < 5.0e-3,
        "sphere: {}",
        (t - c).length()
    );
    assert!(t.y < 0.99 && t.y > 0.75, "it fell onto the sphere: {t}");
    // A capsule across the swing.
    let s = one_bone_with(
        VrmColliderShape::capsule(Vec3::new(0.2, 0.8, -0.2), Vec3::new(0.2, 0.8, 0.2), 0.05),
        1.0,
    );
    let t = tip(&s);
    let axis_dist = Vec3::new(t.x - 0.2, t.y - 0.8, 0.0).length();
    assert!((axis_dist - 0.07).abs() < 5.0e-3, "capsule: {axis_dist}");
    // A plane 0.1 below the head facing up: the tail stays hit radius above it.
    let s = one_bone_with(
        VrmColliderShape::Plane {
            offset: Vec3::new(0.0, 0.9, 0.0),
            normal: Vec3::Y,
        },
        1.0,
    );
    let t = tip(&s);
    assert!((t.y - 0.92).abs() < 5.0e-3, "plane: {t}");
    // An inside sphere around the head: gravity pulls the tail out, the sphere keeps it in.
    let s = one_bone_with(
        VrmColliderShape::Sphere {
            offset: head + Vec3::new(0.1, 0.0, 0.0),
            radius: 0.25,
            inside: true,
        },
        1.0,
    );
    // (Inside shapes hold softly: the push in and the length put back pull against each
    // other each step, so the tail rests a little past the boundary, as in three-vrm.)
    let t = tip(&s);
    let centre = head + Vec3::new(0.1, 0.0, 0.0);
    let r = (t - centre).length();
    let free_r = (Vec3::new(0.0, 0.7, 0.0) - centre).length();
    assert!(
        (r - 0.23).abs() < 0.03 && r < free_r - 0.04,
        "inside sphere: {r} (free {free_r})"
    );
    // An inside capsule along the bone: the tail cannot drop out of its 5 cm tube.
    let s = one_bone_with(
        VrmColliderShape::Capsule {
            offset: head,
            tail: head + Vec3::new(0.4, 0.0, 0.0),
            radius: 0.07,
            inside: true,
        },
        1.0,
    );
    let t = tip(&s);
    // It rests on the tube's wall: pushed in, then put back at the bone length, it ends a
    // little past the wall (measured 0.54 mm), never out of the tube nor short of it.
    let off_axis = Vec3::new(0.0, t.y - 1.0, t.z).length();
    assert!(
        (0.049..0.052).contains(&off_axis),
        "inside capsule: the tip rests {:.2} mm off the axis of a 50 mm tube ({t})",
        off_axis * 1e3
    );
    // Without a collider the same bone hangs straight down.
    let free = one_bone_with(
        VrmColliderShape::sphere(Vec3::new(9.0, 9.0, 9.0), 0.01),
        1.0,
    );
    assert!(tip(&free).y < 0.71, "free fall hangs down: {}", tip(&free));
}

#[test]
fn steps_are_fixed_at_60_hz_whatever_the_frame_rate() {
    let joint = VrmJoint {
        stiffness: 0.8,
        gravity_power: 0.5,
        drag_force: 0.2,
        ..VrmJoint::new(0)
    };
    let rig = straight(4, 0.1, Vec3::new(1.0, -0.3, 0.2).normalize(), joint);
    let motion = |t: f32| Affine3A::from_translation(Vec3::new(0.6 * t, 0.0, 0.0));
    let run = |fps: u32| {
        let mut s = VrmSpring::new(rig.clone(), Affine3A::IDENTITY).unwrap();
        let mut steps = 0;
        for f in 1..=fps {
            steps += s.advance(1.0 / fps as f32, motion(f as f32 / fps as f32));
        }
        (steps, s.joint_positions()[0].clone())
    };
    let (n60, p60) = run(60);
    for fps in [30, 144, 24] {
        let (n, p) = run(fps);
        assert_eq!(n, 60, "{fps} fps took {n} steps in one second");
        let d = p
            .iter()
            .zip(&p60)
            .map(|(a, b)| (*a - *b).length())
            .fold(0.0, f32::max);
        assert!(d < 1.0e-4, "{fps} fps differs by {d} m from 60 fps");
    }
    assert_eq!(n60, 60);
    // A long hitch is clipped, not replayed.
    let mut s = VrmSpring::new(rig, Affine3A::IDENTITY).unwrap();
    assert_eq!(s.advance(5.0, Affine3A::IDENTITY), 6);
    assert_eq!(s.advance(f32::NAN, Affine3A::IDENTITY), 0);
}

#[test]
fn rendered_pose_lies_between_the_last_two_steps() {
    let joint = VrmJoint {
        stiffness: 0.2,
        gravity_power: 2.0,
        drag_force: 0.1,
        ..VrmJoint::new(0)
    };
    let mut s = VrmSpring::new(straight(1, 0.3, Vec3::X, joint), Affine3A::IDENTITY).unwrap();
    s.advance(1.0 / 60.0, Affine3A::IDENTITY);
    let before = tip(&s);
    s.advance(1.0 / 60.0, Affine3A::IDENTITY);
    let after = tip(&s);
    // Half a step more: no new step, the drawn tip halfway between the two.
    assert_eq!(s.advance(0.5 / 60.0, Affine3A::IDENTITY), 0);
    assert!((s.alpha() - 0.5).abs() < 1.0e-3);
    let drawn: Vec3 = s.rendered_world()[3].translation.into();
    let head = Vec3::new(0.0, 1.0, 0.0);
    let angle = |p: Vec3| (head.y - p.y).atan2(p.x);
    let mid = 0.5 * (angle(before) + angle(after));
    assert!(
        (angle(drawn) - mid).abs() < 1.0e-3,
        "{} vs {mid}",
        angle(drawn)
    );
    assert!(((drawn - head).length() - 0.3).abs() < 1.0e-5);
    assert!(angle(after) - angle(before) > 0.02, "the bone was falling");
}

#[test]
fn a_chain_hanging_from_another_updates_after_it_whatever_the_file_order() {
    // Chain B hangs from chain A's last joint. Listed B first, the dependency order must
    // still update A first, giving exactly what A-then-B gives.
    let nodes = vec![
        node("root", None, NodeTransform::IDENTITY),
        node("a0", Some(0), at(0.0, 1.0, 0.0)),
        node("a1", Some(1), at(0.1, 0.0, 0.0)),
        node("b0", Some(2), at(0.1, 0.0, 0.0)),
        node("b1", Some(3), at(0.1, 0.0, 0.0)),
        node("b_end", Some(4), at(0.1, 0.0, 0.0)),
    ];
    let joint = |n| VrmJoint {
        node: n,
        stiffness: 0.5,
        gravity_power: 1.0,
        drag_force: 0.3,
        ..VrmJoint::new(n)
    };
    let a = VrmChain {
        name: "a".into(),
        joints: vec![joint(1), joint(2)],
        end: ChainEnd::Node(3),
        collider_groups: vec![],
        center: None,
    };
    let b = VrmChain {
        name: "b".into(),
        joints: vec![joint(3), joint(4)],
        end: ChainEnd::Node(5),
        collider_groups: vec![],
        center: None,
    };
    let make = |chains: Vec<VrmChain>| VrmSpringRig {
        skeleton: Skeleton::new(nodes.clone()).unwrap(),
        chains,
        ..Default::default()
    };
    // b0 is a's end node and b's first joint: that is one node in two chains.
    assert!(matches!(
        make(vec![a.clone(), b.clone()]).validate(),
        Err(SpringError::SharedJoint { .. })
    ));
    let a = VrmChain {
        end: ChainEnd::Virtual,
        ..a
    };
    let run = |chains: Vec<VrmChain>| {
        let mut s = VrmSpring::new(make(chains), Affine3A::IDENTITY).unwrap();
        for f in 0..90 {
            s.step(Affine3A::from_rotation_y(0.02 * f as f32));
        }
        s.world()
            .iter()
            .map(|w| Vec3::from(w.translation))
            .collect::<Vec<_>>()
    };
    let ab = run(vec![a.clone(), b.clone()]);
    let ba = run(vec![b, a]);
    for (p, q) in ab.iter().zip(&ba) {
        assert!((*p - *q).length() < 1.0e-6, "{p} vs {q}");
    }
    assert!(
        (ab[5] - Vec3::new(0.4, 1.0, 0.0)).length() > 0.05,
        "the chains swung"
    );
}

#[test]
fn bad_rigs_are_refused_with_what_is_wrong() {
    let joint = VrmJoint::new(0);
    let good = straight(2, 0.1, Vec3::X, joint);
    assert!(good.validate().is_ok());
    // A joint that is not below the one before.
    let mut r = good.clone();
    r.chains[0].joints.swap(0, 1);
    assert!(matches!(r.validate(), Err(SpringError::JointOrder(..))));
    // Parameters out of range.
    for bad in [
        VrmJoint {
            drag_force: 1.5,
            ..joint
        },
        VrmJoint {
            stiffness: -1.0,
            ..joint
        },
        VrmJoint {
            gravity_dir: Vec3::new(f32::NAN, 0.0, 0.0),
            ..joint
        },
        VrmJoint {
            hit_radius: f32::INFINITY,
            ..joint
        },
    ] {
        let mut r = good.clone();
        r.chains[0].joints[0] = VrmJoint { node: 2, ..bad };
        let e = r.validate().unwrap_err();
        assert!(matches!(e, SpringError::BadParameter { .. }), "{e}");
    }
    // Indices past the end.
    let mut r = good.clone();
    r.chains[0].collider_groups = vec![3];
    assert!(matches!(
        r.validate(),
        Err(SpringError::IndexOutOfRange(..))
    ));
    let mut r = good.clone();
    r.chains[0].end = ChainEnd::Node(99);
    assert!(matches!(
        r.validate(),
        Err(SpringError::IndexOutOfRange(..))
    ));
    // Two chains sharing a node.
    let mut r = good.clone();
    let dup = r.chains[0].clone();
    r.chains.push(dup);
    let e = r.validate().unwrap_err();
    assert!(e.to_string().contains("belongs to both"), "{e}");
    // A zero scale on the chain's anchor.
    let mut nodes = good.skeleton.nodes().to_vec();
    nodes[1].rest.scale = Vec3::ZERO;
    let r = VrmSpringRig {
        skeleton: Skeleton::new(nodes).unwrap(),
        ..good.clone()
    };
    assert!(matches!(r.validate(), Err(SpringError::BadSkeleton(_))));
    // A skeleton with a cycle or a repeated name.
    let cyc = vec![
        node("a", Some(1), NodeTransform::IDENTITY),
        node("b", Some(0), NodeTransform::IDENTITY),
    ];
    assert!(matches!(
        Skeleton::new(cyc),
        Err(SpringError::BadSkeleton(_))
    ));
    let dup = vec![
        node("a", None, NodeTransform::IDENTITY),
        node("a", Some(0), NodeTransform::IDENTITY),
    ];
    assert!(matches!(
        Skeleton::new(dup),
        Err(SpringError::BadSkeleton(_))
    ));
    // Animating a spring joint is refused; a non-finite scene is not stepped.
    let mut s = VrmSpring::new(good, Affine3A::IDENTITY).unwrap();
    assert!(s.set_local(2, NodeTransform::IDENTITY).is_err());
    assert!(s.set_local(1, NodeTransform::IDENTITY).is_ok());
    let before = s.world().to_vec();
    s.step(Affine3A::from_translation(Vec3::splat(f32::NAN)));
    assert_eq!(s.world(), &before[..]);
}

/// One 0.2 m bone along +X from the anchor, stepped by VRM's rule written out plainly: the
/// tip after each of `steps` steps with the scene at `motion(step)`. `rest` keeps the bone
/// length at 0.2 m; otherwise it is measured against the tip's last place, as three-vrm
/// measures it against the child's last world position.
fn one_bone_by_hand(rest: bool, joint: &VrmJoint, motion: &dyn Fn(usize) -> Affine3A) -> Vec<Vec3> {
    let dt = 1.0 / 60.0;
    let start = motion(0);
    let mut tip = start.transform_point3(Vec3::new(0.2, 1.0, 0.0));
    let (mut current, mut previous) = (tip, tip);
    (1..=120)
        .map(|f| {
            let root = motion(f);
            let head = root.transform_point3(Vec3::Y);
            let length = if rest { 0.2 } else { (tip - head).length() };
            let axis = root.transform_vector3(Vec3::X).normalize();
            let mut next = current
                + (current - previous) * (1.0 - joint.drag_force)
                + axis * (joint.stiffness * dt)
                + joint.gravity_dir * (joint.gravity_power * dt);
            next = head + (next - head).normalize() * length;
            (previous, current) = (current, next);
            tip = head + (next - head).normalize() * 0.2;
            tip
        })
        .collect()
}

#[test]
fn both_bone_length_rules_follow_the_rule_written_out_and_differ_on_a_quick_move() {
    use pelt::spring::vrm_spring::BoneLength;
    let joint = VrmJoint {
        stiffness: 0.6,
        gravity_power: 0.4,
        drag_force: 0.3,
        ..VrmJoint::new(0)
    };
    let rig = straight(1, 0.2, Vec3::X, joint);
    // A quick hop and turn: 1 m swings at 1.5 Hz with the scene yawing half a turn.
    let motion = |f: usize| {
        let t = f as f32 / 60.0;
        Affine3A::from_rotation_translation(
            Quat::from_rotation_y(1.5 * (t * 9.4).sin()),
            Vec3::new((t * 9.4).sin(), 0.3 * (t * 5.0).cos(), 0.0),
        )
    };
    assert_eq!(
        VrmSpring::new(rig.clone(), motion(0))
            .unwrap()
            .bone_length(),
        BoneLength::ThreeVrm,
        "a new spring measures as three-vrm does"
    );
    let mut traces = Vec::new();
    for rule in [BoneLength::ThreeVrm, BoneLength::Rest] {
        let want = one_bone_by_hand(rule == BoneLength::Rest, &joint, &motion);
        let mut s = VrmSpring::new(rig.clone(), motion(0))
            .unwrap()
            .with_bone_length(rule);
        assert_eq!(s.bone_length(), rule);
        let mut worst = 0.0f32;
        let got: Vec<Vec3> = (1..=120)
            .map(|f| {
                s.step(motion(f));
                tip(&s)
            })
            .collect();
        for (g, w) in got.iter().zip(&want) {
            worst = worst.max(g.distance(*w));
        }
        eprintln!("{rule}: {worst:.2e} m from the rule written out");
        assert!(
            worst < 1e-5,
            "{rule}: the tip strays {worst} m from the rule"
        );
        traces.push(got);
    }
    let apart = traces[0]
        .iter()
        .zip(&traces[1])
        .map(|(a, b)| a.distance(*b))
        .fold(0.0f32, f32::max);
    eprintln!(
        "the two rules put the tip up to {:.1} mm apart",
        apart * 1e3
    );
    assert!(apart > 2e-3, "the rules differ by only {apart} m");
}

#[test]
fn collider_tests_per_step_count_every_joint_against_its_groups() {
    let mut rig = straight(3, 0.1, Vec3::X, VrmJoint::new(0));
    for k in 0..3 {
        rig.colliders.push(VrmCollider {
            node: 1,
            shape: VrmColliderShape::sphere(Vec3::new(k as f32, 0.0, 0.0), 0.1),
        });
    }
    rig.groups.push(VrmColliderGroup {
        name: "a".into(),
        colliders: vec![0, 1],
    });
    rig.groups.push(VrmColliderGroup {
        name: "b".into(),
        colliders: vec![1, 2],
    });
    rig.chains[0].collider_groups = vec![0, 1];
    let s = VrmSpring::new(rig, Affine3A::IDENTITY).unwrap();
    // 3 joints × 4 colliders (collider 1 counted in both groups, as it is tested twice).
    assert_eq!(s.collider_tests_per_step(), 12);
}
