//! SpringChain: droop against VRM's closed form, the conversion at 60 fps, energy, lengths,
//! colliders, bad input.

use glam::{Quat, Vec3};
use pelt::spring::{
    ChainSpec, Frame, JointSpec, SpringChain, SpringError, SpringSettings, WorldCollider,
};
use pelt::vrm::convert::{
    damping_from_drag_force, drag_force_from_damping, from_vrm, our_level_droop, to_vrm,
    vrm_level_droop,
};
use rand::{RngExt, SeedableRng};

fn chain(offsets: &[Vec3], settings: SpringSettings) -> ChainSpec {
    ChainSpec {
        name: "test".into(),
        anchor: "root".into(),
        joints: offsets
            .iter()
            .enumerate()
            .map(|(i, &offset)| JointSpec {
                name: format!("j{i}"),
                offset,
            })
            .collect(),
        settings,
        collider_groups: vec![],
    }
}

fn level_segment(settings: SpringSettings, len: f32) -> SpringChain {
    SpringChain::new(
        chain(&[Vec3::ZERO, Vec3::new(len, 0.0, 0.0)], settings),
        Frame::IDENTITY,
    )
    .expect("valid chain")
}

/// Settled angle below level of a simulated level segment.
fn simulated_droop(settings: SpringSettings, len: f32) -> f32 {
    let mut c = level_segment(settings, len);
    for _ in 0..120 * 60 {
        c.step(Frame::IDENTITY, &[]);
    }
    let d = c.positions()[1] - c.positions()[0];
    (-d.y).atan2(d.x)
}

/// The converted parameters on a level VRM bone of `len` metres, run by `VrmSpring` (VRM's
/// own rule) for `steps` frames; returns its angle below level.
fn vrm_settled_droop(p: &pelt::vrm::convert::VrmJointParams, len: f32, steps: usize) -> f32 {
    use glam::Affine3A;
    use pelt::spring::{
        ChainEnd, NodeTransform, Skeleton, SkeletonNode, VrmChain, VrmJoint, VrmSpring,
        VrmSpringRig,
    };
    let node = |name: &str, parent, x| SkeletonNode {
        name: name.into(),
        parent,
        rest: NodeTransform::from_translation(Vec3::new(x, 0.0, 0.0)),
    };
    let rig = VrmSpringRig {
        skeleton: Skeleton::new(vec![node("head", None, 0.0), node("tail", Some(0), len)]).unwrap(),
        chains: vec![VrmChain {
            name: "level".into(),
            joints: vec![VrmJoint {
                node: 0,
                stiffness: p.stiffness,
                gravity_power: p.gravity_power,
                gravity_dir: p.gravity_dir,
                drag_force: p.drag_force,
                hit_radius: 0.0,
            }],
            end: ChainEnd::Node(1),
            collider_groups: vec![],
            center: None,
        }],
        ..Default::default()
    };
    let mut s = VrmSpring::new(rig, Affine3A::IDENTITY).unwrap();
    for _ in 0..steps {
        s.step(Affine3A::IDENTITY);
    }
    let d = s.joint_positions()[0][1];
    (-d.y).atan2(d.x)
}

#[test]
fn level_droop_matches_vrm_closed_form_after_conversion() {
    for &(stiffness, len) in &[
        (6.0, 0.1),
        (2.0, 0.3),
        (20.0, 0.05),
        (60.0, 0.2),
        (0.5, 0.15),
    ] {
        let s = SpringSettings {
            stiffness,
            damping: 0.8,
            ..Default::default()
        };
        let simulated = simulated_droop(s, len);
        let predicted = our_level_droop(&s, len);
        assert!(
            (simulated - predicted).abs() < 2.0e-3,
            "stiffness {stiffness}, length {len}: simulated {simulated} vs fixed point {predicted}"
        );
        let v = to_vrm(&s, len);
        let closed = vrm_level_droop(v.stiffness, v.gravity_power);
        assert!(
            (closed - simulated).abs() < 2.0e-3,
            "VRM closed form {closed} vs ours {simulated}"
        );
        // VRM's own rule at 60 fps settles on its closed form.
        let vrm_settled = vrm_settled_droop(&v, len, 60 * 60);
        assert!(
            (vrm_settled - closed).abs() < 1.0e-3,
            "VRM reference settles at {vrm_settled}, closed form {closed}"
        );
        println!(
            "stiffness {stiffness:5} len {len:4}: ours {:.3}°, VRM stiffness {:.4} closed form {:.3}°, VRM sim {:.3}°",
            simulated.to_degrees(),
            v.stiffness,
            closed.to_degrees(),
            vrm_settled.to_degrees()
        );
        // The inverse conversion gives our stiffness back.
        let back = from_vrm(&v, len);
        assert!((back.stiffness - stiffness).abs() < 1.0e-3 * stiffness.max(1.0));
        assert!((back.damping - 0.8).abs() < 1.0e-4);
        assert!((back.gravity - s.gravity).length() < 1.0e-4);
    }
}

#[test]
fn conversion_formulas_hold_at_60_fps() {
    for damping in [0.1f32, 0.5, 0.8, 0.99] {
        let drag = drag_force_from_damping(damping);
        // VRM keeps 1 − drag of the motion per frame: after 60 frames, 1 − damping.
        assert!(((1.0 - drag).powi(60) - (1.0 - damping)).abs() < 1.0e-5);
        assert!((damping_from_drag_force(drag) - damping).abs() < 1.0e-5);
        // Ours: a free point (no gravity, no pull) keeps 1 − damping per second.
        let s = SpringSettings {
            stiffness: 0.0,
            damping,
            gravity: Vec3::ZERO,
            radius: 0.0,
        };
        let keep = s.velocity_keep(1.0 / 120.0).powi(120);
        assert!((keep - (1.0 - damping)).abs() < 1.0e-5);
    }
    // Gravity: VRM adds gravityPower·dt per frame to the motion, so a free point falls like
    // an acceleration of gravityPower·60: after one second at 60 fps, ½·g·t² (discretely
    // g·dt²·n(n+1)/2), the same as ours at 120 Hz within the discretisation.
    let g = 9.81f32;
    let v = to_vrm(
        &SpringSettings {
            gravity: Vec3::new(0.0, -g, 0.0),
            ..Default::default()
        },
        0.1,
    );
    assert!((v.gravity_power - g / 60.0).abs() < 1.0e-6);
    let dt = 1.0 / 60.0;
    let (mut y, mut prev) = (0.0f32, 0.0f32);
    for _ in 0..60 {
        let next = y + (y - prev) + (-v.gravity_power) * dt;
        prev = y;
        y = next;
    }
    let h = 1.0 / 120.0;
    let (mut oy, mut oprev) = (0.0f32, 0.0f32);
    for _ in 0..120 {
        let next = oy + (oy - oprev) - g * h * h;
        oprev = oy;
        oy = next;
    }
    let exact = -0.5 * g;
    assert!((y - exact).abs() / g < 0.02, "VRM fall {y} vs {exact}");
    assert!((oy - exact).abs() / g < 0.01, "our fall {oy} vs {exact}");
}

fn energy(c: &SpringChain) -> f32 {
    // Kinetic + gravitational + the pull's potential (stiffness k/h² per unit mass).
    let s = c.spec().settings;
    let h = SpringChain::STEP;
    let k = s.pull_fraction(h) / (h * h);
    let rest = c.rest_world();
    c.positions()
        .iter()
        .zip(c.velocities())
        .zip(rest)
        .skip(1)
        .map(|((p, v), r)| {
            0.5 * v.length_squared() - s.gravity.dot(*p) + 0.5 * k * (*p - r).length_squared()
        })
        .sum()
}

#[test]
fn energy_does_not_grow_with_dt_spikes() {
    let s = SpringSettings {
        stiffness: 4.0,
        damping: 0.05,
        ..Default::default()
    };
    let offsets: Vec<Vec3> = std::iter::once(Vec3::ZERO)
        .chain(std::iter::repeat_n(Vec3::new(0.1, 0.0, 0.0), 6))
        .collect();
    let mut c = SpringChain::new(chain(&offsets, s), Frame::IDENTITY).unwrap();
    let e0 = energy(&c);
    let scale = 9.81 * 0.6 * 6.0; // g × length × points
    let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    let mut max_e = f32::MIN;
    let mut steps = 0;
    for frame in 0..20_000 {
        // Mostly 60 fps frames, with spikes up to half a second.
        let dt = if frame % 37 == 0 {
            rng.random_range(0.1f32..0.5)
        } else {
            rng.random_range(0.0f32..0.034)
        };
        steps += c.advance(dt, Frame::IDENTITY, &[]);
        let e = energy(&c);
        assert!(e.is_finite());
        max_e = max_e.max(e);
        for w in c.positions().windows(2) {
            assert!(
                ((w[1] - w[0]).length() - 0.1).abs() < 1.0e-4,
                "a segment stretched"
            );
        }
    }
    assert!(steps > 0);
    println!("energy: start {e0}, max {max_e}, end {}", energy(&c));
    assert!(max_e <= e0 + 0.01 * scale, "energy grew: {e0} -> {max_e}");
    // And it settles: the tip barely moves at the end.
    let v = c.velocities();
    assert!(
        v.last().unwrap().length() < 0.05,
        "still moving at {:?}",
        v.last()
    );
}

#[test]
fn anchor_drives_the_root_and_lengths_stay_exact_under_motion() {
    let s = SpringSettings::default();
    let offsets = [
        Vec3::new(0.0, 0.0, -0.1),
        Vec3::new(0.0, 0.0, -0.2),
        Vec3::new(0.0, 0.0, -0.2),
    ];
    let mut c = SpringChain::new(chain(&offsets, s), Frame::IDENTITY).unwrap();
    for i in 0..600 {
        let t = i as f32 / 60.0;
        let anchor = Frame {
            rotation: Quat::from_rotation_y((t * 3.0).sin()),
            translation: Vec3::new((t * 5.0).sin() * 0.5, 0.0, 0.0),
        };
        c.advance(1.0 / 60.0, anchor, &[]);
        let p = c.positions();
        assert!((p[0] - anchor.point(offsets[0])).length() < 1.0e-5);
        assert!(((p[1] - p[0]).length() - 0.2).abs() < 1.0e-4);
        assert!(((p[2] - p[1]).length() - 0.2).abs() < 1.0e-4);
    }
    // Swinging the anchor sideways makes the tip lag behind the rest pose.
    let rest_tip = c.rest_world()[2];
    assert!((c.positions()[2] - rest_tip).length() > 0.01);
}

#[test]
fn chain_does_not_enter_a_sphere_collider() {
    let s = SpringSettings {
        stiffness: 0.5,
        radius: 0.02,
        ..Default::default()
    };
    // A level chain hanging over a ball just below it.
    let offsets: Vec<Vec3> = std::iter::once(Vec3::ZERO)
        .chain(std::iter::repeat_n(Vec3::new(0.1, 0.0, 0.0), 5))
        .collect();
    let mut c = SpringChain::new(chain(&offsets, s), Frame::IDENTITY).unwrap();
    let ball = WorldCollider::Sphere {
        center: Vec3::new(0.25, -0.2, 0.0),
        radius: 0.15,
    };
    let capsule = WorldCollider::Capsule {
        a: Vec3::new(0.45, -0.1, -0.3),
        b: Vec3::new(0.45, -0.1, 0.3),
        radius: 0.05,
    };
    for _ in 0..1200 {
        c.advance(1.0 / 60.0, Frame::IDENTITY, &[ball, capsule]);
    }
    for p in &c.positions()[1..] {
        for col in [ball, capsule] {
            let d = (*p - col.core_point(*p)).length();
            assert!(
                d >= col.radius() + 0.02 - 2.0e-3,
                "point {p} inside a collider ({d})"
            );
        }
    }
    // Without colliders the same chain droops through where the ball is.
    let mut free = SpringChain::new(chain(&offsets, s), Frame::IDENTITY).unwrap();
    for _ in 0..1200 {
        free.advance(1.0 / 60.0, Frame::IDENTITY, &[]);
    }
    let inside = free.positions()[1..]
        .iter()
        .any(|p| (*p - Vec3::new(0.25, -0.2, 0.0)).length() < 0.17);
    assert!(inside, "the test's ball should be in the free chain's way");
}

#[test]
fn bad_parameters_are_errors() {
    let good = [Vec3::ZERO, Vec3::X * 0.1];
    let nan = SpringSettings {
        stiffness: f32::NAN,
        ..Default::default()
    };
    assert!(matches!(
        SpringChain::new(chain(&good, nan), Frame::IDENTITY),
        Err(SpringError::BadParameter { .. })
    ));
    let damping = SpringSettings {
        damping: 1.5,
        ..Default::default()
    };
    assert!(SpringChain::new(chain(&good, damping), Frame::IDENTITY).is_err());
    assert!(matches!(
        SpringChain::new(
            chain(&[Vec3::ZERO], SpringSettings::default()),
            Frame::IDENTITY
        ),
        Err(SpringError::TooFewJoints(_, 1))
    ));
    assert!(matches!(
        SpringChain::new(
            chain(&[Vec3::ZERO, Vec3::ZERO], SpringSettings::default()),
            Frame::IDENTITY
        ),
        Err(SpringError::ZeroSegment(_, 1))
    ));
    // NaN frames and dt are ignored, not propagated.
    let mut c = SpringChain::new(chain(&good, SpringSettings::default()), Frame::IDENTITY).unwrap();
    c.advance(f32::NAN, Frame::IDENTITY, &[]);
    c.advance(
        0.1,
        Frame::from_translation(Vec3::new(f32::NAN, 0.0, 0.0)),
        &[],
    );
    assert!(c.positions().iter().all(|p| p.is_finite()));
}

#[test]
fn energy_after_a_shaken_anchor_stops_never_exceeds_the_energy_at_the_stop() {
    let s = SpringSettings {
        stiffness: 3.0,
        damping: 0.3,
        ..Default::default()
    };
    let offsets: Vec<Vec3> = std::iter::once(Vec3::ZERO)
        .chain(std::iter::repeat_n(Vec3::new(0.0, 0.0, -0.1), 5))
        .collect();
    let mut c = SpringChain::new(chain(&offsets, s), Frame::IDENTITY).unwrap();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
    // Shake with random teleports and frame-time spikes.
    for _ in 0..300 {
        let anchor = Frame {
            rotation: Quat::from_rotation_y(rng.random_range(-1.0f32..1.0)),
            translation: Vec3::new(rng.random_range(-0.5f32..0.5), 0.0, 0.0),
        };
        c.advance(rng.random_range(0.0f32..0.3), anchor, &[]);
        assert!(c.positions().iter().all(|p| p.is_finite()));
    }
    let still = c.anchor();
    c.advance(1.0 / 120.0, still, &[]);
    let e_stop = energy(&c);
    let mut max_after = f32::MIN;
    // Our energy measure is approximate in the first steps after a violent stop (the pull
    // is a blend, not an exact spring); from half a second on it must only fall.
    for frame in 0..6000 {
        c.advance(1.0 / 60.0, still, &[]);
        if frame >= 30 {
            max_after = max_after.max(energy(&c));
        }
    }
    let e_end = energy(&c);
    println!("energy at stop {e_stop}, max from 0.5 s on {max_after}, after 100 s {e_end}");
    assert!(max_after < e_stop, "{e_stop} -> {max_after}");
    assert!(
        e_end < 0.01 * e_stop.abs() + 1.0,
        "it should settle: {e_end}"
    );
}
