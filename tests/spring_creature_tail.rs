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
