//! The whole hand: pointer events and fixed steps in; the contact, the draw list and the
//! response out; a scripted stroke through a camera; and the hand's capsules in the CPU
//! solver, pressing into the coat when petting and only brushing it when hovering.

use glam::{Vec2, Vec3};
use pelt::creature::{Creature, CreaturePose, Ray};
use pelt::hand::{GestureState, Hand, ModeStyles, PointerButton, PointerScript};
use pelt::sim::{ContactMode, FurConfig, FurSim};

const DT: f32 = 1.0 / 60.0;

/// A camera in front of the creature and above it, looking down and back along −z with
/// parallel rays: a pixel is a millimetre, the window's centre near (0, −0.4) on the back,
/// and +y on screen toward the tail.
fn ray_at(px: Vec2) -> Ray {
    let x = (px.x - 400.0) / 1000.0;
    let z = -(px.y - 300.0) / 1000.0 - 0.4;
    Ray::new(Vec3::new(x, 1.5, z + 0.75), Vec3::new(0.0, -1.0, -0.5))
}

fn steps(hand: &mut Hand, from: f64, seconds: f64, pose: &CreaturePose) -> f64 {
    let n = (seconds * 60.0).round() as usize;
    for i in 1..=n {
        hand.step(from + i as f64 / 60.0, DT, pose);
    }
    from + n as f64 / 60.0
}

#[test]
fn the_hand_appears_hovers_pets_and_goes() {
    let creature = Creature::default();
    let pose = CreaturePose::rest(&creature);
    let mut hand = Hand::new(creature, 1);
    let styles = ModeStyles::default();
    hand.step(0.0, DT, &pose);
    assert!(hand.contact().is_none() && hand.shapes().is_empty());
    assert_eq!(hand.occlusion(), 0.0);

    let px = Vec2::new(400.0, 300.0);
    hand.pointer_move(ray_at(px), px, 0.0);
    let t = steps(&mut hand, 0.0, 0.5, &pose);
    let contact = hand.contact().expect("hovering");
    assert_eq!(contact.mode, ContactMode::Hover);
    let hit = *hand.gesture().last_hit().unwrap();
    let palm = hand.rig().palm_point().unwrap();
    assert!((palm - (hit.point + hit.normal * styles.hover.palm_lift)).length() < 1e-3);
    assert!(!hand.shapes().is_empty());

    hand.pointer_down(ray_at(px), px, PointerButton::Primary, t);
    let t = steps(&mut hand, t, 0.1, &pose);
    assert_eq!(hand.state(), GestureState::Pet);
    assert!(!hand.orbit_enabled());
    let t = steps(&mut hand, t, 0.15, &pose);
    assert_eq!(hand.state(), GestureState::Scratch, "held still for 0.25 s");
    assert_eq!(hand.contact().unwrap().mode, ContactMode::Scratch);
    let palm = hand.rig().palm_point().unwrap();
    let lift = (palm - hit.point).dot(hit.normal);
    assert!(
        lift < styles.hover.palm_lift - 0.02,
        "pressed down to {lift}"
    );
    let (center, radius) = hand.bounds().unwrap();
    assert!((center - hit.point).length() < radius);

    hand.pointer_leave(t);
    hand.pointer_up(ray_at(px), px, PointerButton::Primary, t);
    hand.step(t + 1.0 / 60.0, DT, &pose);
    assert!(hand.orbit_enabled());
    assert!(hand.contact().is_none() && hand.shapes().is_empty());
    assert_eq!(hand.occlusion(), 0.0);
}

#[test]
fn a_scripted_stroke_ends_in_a_scratch_and_pleases() {
    // Onto the back, press, stroke 300 px (0.3 m) toward the tail at 600 px/s, hold still.
    let mut events = vec![
        r#"{"t": 0.0, "kind": "move", "x": 400, "y": 100}"#.to_string(),
        r#"{"t": 0.1, "kind": "down", "x": 400, "y": 100, "button": "primary"}"#.to_string(),
    ];
    for i in 1..=30 {
        let t = 0.1 + i as f64 / 60.0;
        events.push(format!(
            r#"{{"t": {t}, "kind": "move", "x": 400, "y": {}}}"#,
            100 + 10 * i
        ));
    }
    events.push(r#"{"t": 2.5, "kind": "up", "x": 400, "y": 400}"#.to_string());
    let script = PointerScript::from_json(&format!("[{}]", events.join(","))).unwrap();

    let creature = Creature::default();
    let pose = CreaturePose::rest(&creature);
    let mut hand = Hand::new(creature, 9);
    let mut states = Vec::new();
    let mut t0 = f64::NEG_INFINITY;
    let mut palms = Vec::new();
    for frame in 1..=180 {
        let t1 = frame as f64 / 60.0;
        for e in script.events_in(t0, t1) {
            hand.apply_event(e, ray_at);
        }
        hand.step(t1, DT, &pose);
        t0 = t1;
        states.push(hand.state());
        if let Some(p) = hand.rig().palm_point() {
            palms.push((t1, p, hand.orbit_enabled()));
        }
    }
    let at = |t: f64| states[(t * 60.0).round() as usize - 1];
    assert_eq!(at(0.05), GestureState::Hover);
    assert_eq!(at(0.3), GestureState::Pet, "stroking");
    // The last move is at 0.6 s.
    assert_eq!(at(0.8), GestureState::Pet, "still for 0.2 s");
    assert_eq!(at(0.85), GestureState::Scratch, "still for 0.25 s");
    assert_eq!(at(2.4), GestureState::Scratch);
    assert_eq!(at(2.6), GestureState::Hover, "released over the creature");
    assert!(hand.orbit_enabled());
    // The palm travelled toward the tail with the stroke, the fingers leading.
    let start = palms.iter().find(|p| p.0 > 0.12).unwrap().1;
    let end = palms.iter().find(|p| p.0 > 1.0).unwrap().1;
    assert!(end.z < start.z - 0.25, "{start} → {end}");
    let forward = hand.rig().frame().unwrap().forward;
    assert!(
        forward.z < -0.5 && forward.x.abs() < 0.05,
        "fingers point along the stroke: {forward}"
    );
    assert!(
        palms
            .iter()
            .filter(|p| p.0 > 0.12 && p.0 < 2.5)
            .all(|p| !p.2)
    );
    assert!(
        hand.response().pleasure() > 0.3,
        "pleasure {}",
        hand.response().pleasure()
    );
}

#[test]
fn petting_presses_into_the_coat_and_hovering_only_brushes_it() {
    let mut config = FurConfig::new(8192, 5);
    config.idle_motion = false;
    let styles = ModeStyles::default();
    let mut results = Vec::new();
    for gesture in [None, Some(false), Some(true)] {
        let mut fur = FurSim::new_cpu(&config, Creature::default()).unwrap();
        fur.step(30).unwrap();
        let mut hand = Hand::new(fur.creature().clone(), 2);
        let start = Vec2::new(400.0, 160.0);
        if let Some(press) = gesture {
            hand.pointer_move(ray_at(start), start, 0.0);
            if press {
                hand.pointer_down(ray_at(start), start, PointerButton::Primary, 0.0);
            }
        }
        let mut touched = 0usize;
        for i in 1..=45 {
            // A slow stroke toward the tail (240 px/s) keeps a pet from becoming a scratch.
            let px = Vec2::new(400.0, 160.0 + 4.0 * i as f32);
            let t = i as f64 / 60.0;
            if gesture.is_some() {
                hand.pointer_move(ray_at(px), px, t);
            }
            let pose = fur.pose_at(t as f32);
            hand.step(t, DT, &pose);
            fur.set_contact(hand.contact()).unwrap();
            fur.step(1).unwrap();
            touched += fur
                .positions()
                .unwrap()
                .iter()
                .filter(|p| p.w > 0.5)
                .count();
        }
        let stats = fur.stats().unwrap();
        assert!(stats.max_stretch < 1e-4 && stats.non_finite == 0);
        // How high the coat stands under the palm's centre now.
        let under = ray_at(Vec2::new(400.0, 160.0 + 4.0 * 45.0));
        let hit = hand.gesture().proxies().raycast(&under).unwrap();
        let mut heights: Vec<f32> = fur
            .positions()
            .unwrap()
            .iter()
            .map(|p| p.truncate() - hit.point)
            .filter(|d| (*d - hit.normal * d.dot(hit.normal)).length() < 0.04)
            .map(|d| d.dot(hit.normal))
            .collect();
        heights.sort_by(f32::total_cmp);
        let p90 = heights[heights.len() * 9 / 10];
        results.push((touched, p90));
    }
    let ((none, coat), (hover, hovered), (pet, petted)) = (results[0], results[1], results[2]);
    assert_eq!(none, 0);
    assert!(hover > 0, "hovering brushes the tips");
    assert!(pet > 3 * hover, "petting touches more: {hover} vs {pet}");
    assert!(
        hovered <= coat + 1e-3 && hovered < styles.hover.palm_lift,
        "hovering leaves the coat standing: {coat} → {hovered}"
    );
    assert!(
        petted < coat - 0.015,
        "petting presses the coat down: {coat} → {petted}"
    );
    assert!(
        petted < styles.pet.palm_lift + 0.005,
        "the coat under the palm ({petted}) stays below it"
    );
}

#[test]
fn a_hand_that_reappears_elsewhere_does_not_sweep_the_fur() {
    let creature = Creature::default();
    let pose = CreaturePose::rest(&creature);
    let mut hand = Hand::new(creature, 4);
    let back = Vec2::new(400.0, 300.0);
    hand.pointer_move(ray_at(back), back, 0.0);
    let t = steps(&mut hand, 0.0, 0.3, &pose);
    // Off the creature: the hand goes.
    let off = Vec2::new(2000.0, 300.0);
    hand.pointer_move(ray_at(off), off, t);
    let t = steps(&mut hand, t, 0.1, &pose);
    assert!(hand.contact().is_none());
    // A press far away on the head: the hand appears there at rest, then presses down.
    let head = Ray::new(Vec3::new(0.0, 1.5, 0.16), Vec3::NEG_Y);
    hand.pointer_down(head, Vec2::new(400.0, -300.0), PointerButton::Primary, t);
    hand.step(t + 1.0 / 60.0, DT, &pose);
    let contact = hand.contact().expect("petting the head");
    assert!(contact.capsules.iter().all(|c| c.velocity == Vec3::ZERO));
    let palm = hand.rig().palm_point().unwrap();
    assert!(palm.y > 0.3, "on the head, not on the back: {palm}");
    hand.step(t + 2.0 / 60.0, DT, &pose);
    let pressing = hand.contact().unwrap().capsules[0].velocity;
    assert!(
        pressing.y < -0.1 && pressing.length() < 2.0,
        "presses down at {pressing}"
    );
}

#[test]
fn the_same_seed_scratches_the_same_way() {
    let creature = Creature::default();
    let pose = CreaturePose::rest(&creature);
    let run = |seed: u64| {
        let mut hand = Hand::new(creature.clone(), seed);
        let px = Vec2::new(400.0, 300.0);
        hand.pointer_down(ray_at(px), px, PointerButton::Primary, 0.0);
        steps(&mut hand, 0.0, 1.0, &pose);
        assert_eq!(hand.state(), GestureState::Scratch);
        hand.contact().unwrap()
    };
    assert_eq!(run(3), run(3), "bit for bit");
    let (a, b) = (run(3), run(4));
    assert_eq!(
        a.capsules[0], b.capsules[0],
        "the palm does not depend on the seed"
    );
    assert_ne!(
        a.capsules[6], b.capsules[6],
        "each seed phases the fingers its own way"
    );
}
