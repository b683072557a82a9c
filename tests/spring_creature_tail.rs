//! The creature's tail chain: built from the tail's centerline, driven by the body, and the
//! skinning that lets tail fur follow it.

use glam::Vec3;
use pelt::creature::Creature;
use pelt::spring::creature_tail::{
    CreatureTail, TAIL_BONES, body_rest_frame, creature_spring_rig, tail_chain_spec,
};
use pelt::spring::{Frame, SpringSettings};

#[test]
fn chain_follows_the_centerline_and_the_rig_is_valid() {
    let c = Creature::default();
    let spec = tail_chain_spec(&c, SpringSettings::default());
    assert_eq!(spec.joints.len(), TAIL_BONES + 1);
    let rest = spec.rest_positions();
    let anchor = body_rest_frame(&c);
    for (i, r) in rest.iter().enumerate() {
        let want = c.tail.centerline(i as f32 / TAIL_BONES as f32);
        assert!((anchor.point(*r) - want).length() < 1.0e-5);
    }
    assert!(
        creature_spring_rig(&c, SpringSettings::default())
            .validate()
            .is_ok()
    );
}

#[test]
fn skinning_is_identity_at_rest_and_tracks_the_tip() {
    let c = Creature::default();
    let mut tail = CreatureTail::new(&c, SpringSettings::default()).unwrap();
    for i in 0..=20 {
        let t = i as f32 / 20.0;
        let p = c.tail.centerline(t) + Vec3::new(0.0, c.tail.radius(t), 0.0);
        assert!((tail.deform(p, t) - p).length() < 1.0e-5);
    }
    // Swing the body; the rest tip skinned by the last bone lands on the chain's end point.
    for f in 0..200 {
        let x = (f as f32 * 0.1).sin() * 0.4;
        tail.advance(
            1.0 / 60.0,
            Frame::from_translation(c.body.center + Vec3::X * x),
        );
        let tip = tail.deform(c.tail.centerline(1.0), 1.0);
        assert!(
            (tip - *tail.positions().last().unwrap()).length() < 1.0e-3,
            "frame {f}: {tip} vs {}",
            tail.positions().last().unwrap()
        );
        let root = tail.deform(c.tail.centerline(0.0), 0.0);
        assert!((root - tail.positions()[0]).length() < 1.0e-3);
    }
}

#[test]
fn weightless_tail_moves_rigidly_with_the_body() {
    let c = Creature::default();
    let s = SpringSettings {
        gravity: Vec3::ZERO,
        ..SpringSettings::default()
    };
    let mut tail = CreatureTail::new(&c, s).unwrap();
    let shift = Vec3::new(0.3, 0.1, -0.2);
    for _ in 0..900 {
        tail.advance(1.0 / 60.0, Frame::from_translation(c.body.center + shift));
    }
    for i in 0..=10 {
        let t = i as f32 / 10.0;
        let p = c.tail.centerline(t);
        assert!(
            (tail.deform(p, t) - (p + shift)).length() < 2.0e-3,
            "t = {t}"
        );
    }
}

#[test]
fn sideways_run_swings_the_tail_and_it_calms_down() {
    // The seed's comparison: run sideways at 3 m/s for half a second and stop.
    let c = Creature::default();
    let mut tail = CreatureTail::new(&c, SpringSettings::default()).unwrap();
    let mut body = c.body.center;
    for _ in 0..600 {
        tail.advance(1.0 / 60.0, Frame::from_translation(body));
    }
    let x0 = tail.positions().last().unwrap().x - body.x;
    let (mut max_swing, mut around_2s, mut late) = (0.0f32, 0.0f32, 0.0f32);
    for frame in 1..=30 + 600 {
        if frame <= 30 {
            body.x += 3.0 / 60.0;
        }
        tail.advance(1.0 / 60.0, Frame::from_translation(body));
        let rel = (tail.positions().last().unwrap().x - body.x - x0).abs();
        if frame > 30 {
            max_swing = max_swing.max(rel);
        }
        if (30 + 90..=30 + 150).contains(&frame) {
            around_2s = around_2s.max(rel);
        }
        if frame > 30 + 540 {
            late = late.max(rel);
        }
    }
    println!(
        "ours: max swing after the stop {max_swing:.4} m, around 2 s {around_2s:.4} m, 9-10 s {late:.4} m"
    );
    assert!(
        max_swing > 0.05,
        "the run should swing the tail ({max_swing})"
    );
    assert!(
        late < 0.5 * max_swing,
        "the swing should die down ({late} vs {max_swing})"
    );
}

#[test]
fn rig_gives_each_chain_the_colliders_of_its_groups_in_world_space() {
    use pelt::spring::{Collider, ColliderGroup, ColliderShape, WorldCollider};
    let c = Creature::default();
    let mut rig = creature_spring_rig(&c, SpringSettings::default());
    rig.colliders.push(Collider {
        bone: "head".into(),
        shape: ColliderShape::Sphere {
            offset: Vec3::new(0.0, 0.1, 0.0),
            radius: 0.2,
        },
    });
    rig.groups.push(ColliderGroup {
        name: "head".into(),
        colliders: vec![1],
    });
    assert!(rig.validate().is_ok());
    let body_frame = Frame {
        rotation: glam::Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        translation: Vec3::new(1.0, 0.0, 0.0),
    };
    let frames = |name: &str| (name == "body").then_some(body_frame);
    let world = rig.world_colliders_for(0, frames);
    assert_eq!(world.len(), 1, "the tail meets the body group only");
    let WorldCollider::Capsule { a, b, .. } = world[0] else {
        panic!("the body collider is a capsule")
    };
    // The capsule's axis (body-local Z) turns to world X under a quarter turn about Y.
    assert!((a - b).normalize().abs().abs_diff_eq(Vec3::X, 1.0e-5));
    assert!(((a + b) * 0.5 - Vec3::new(1.0, 0.0, 0.0)).length() < 1.0e-5);
    // A group index past the end is an error.
    rig.chains[0].collider_groups.push(9);
    assert!(rig.validate().is_err());
}
