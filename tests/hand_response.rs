//! The creature's response: pleasure rises faster for a scratch than a pet, decays when
//! left alone, at any frame rate; eyes, head lean and tail swish follow.

use glam::Vec3;
use pelt::creature::CreatureResponse;
use pelt::creature::{Creature, CreaturePose};
use pelt::hand::GestureState;

fn run(
    response: &mut CreatureResponse,
    state: GestureState,
    hand: Option<Vec3>,
    seconds: f32,
    hz: f32,
) {
    let pose = CreaturePose::rest(&Creature::default());
    let steps = (seconds * hz).round() as usize;
    for _ in 0..steps {
        response.update(1.0 / hz, state, hand, &pose);
    }
}

fn fresh() -> CreatureResponse {
    CreatureResponse::new(&Creature::default())
}

/// A hand on the creature's right cheek, a little out from the fur.
fn on_cheek() -> Vec3 {
    Vec3::new(-0.32, -0.05, 0.3)
}

#[test]
fn scratching_pleases_faster_than_petting() {
    let mut pet = fresh();
    let mut scratch = fresh();
    run(&mut pet, GestureState::Pet, Some(on_cheek()), 2.0, 60.0);
    run(
        &mut scratch,
        GestureState::Scratch,
        Some(on_cheek()),
        2.0,
        60.0,
    );
    let tuning = pet.tuning;
    let expect = |tau: f32| 1.0 - (-2.0 / tau).exp();
    assert!((pet.pleasure() - expect(tuning.pet_rise_seconds)).abs() < 1e-4);
    assert!((scratch.pleasure() - expect(tuning.scratch_rise_seconds)).abs() < 1e-4);
    assert!(
        scratch.pleasure() > pet.pleasure() + 0.2,
        "{} vs {}",
        scratch.pleasure(),
        pet.pleasure()
    );
    // Hovering pleases nobody.
    let mut hover = fresh();
    run(&mut hover, GestureState::Hover, Some(on_cheek()), 2.0, 60.0);
    assert_eq!(hover.pleasure(), 0.0);
    // Never past 1.
    run(
        &mut scratch,
        GestureState::Scratch,
        Some(on_cheek()),
        60.0,
        60.0,
    );
    assert!(scratch.pleasure() <= 1.0 && scratch.pleasure() > 0.999);
}

#[test]
fn pleasure_fades_when_left_alone() {
    let mut r = fresh();
    run(&mut r, GestureState::Scratch, Some(on_cheek()), 3.0, 60.0);
    let start = r.pleasure();
    let mut last = start;
    let pose = CreaturePose::rest(&Creature::default());
    for _ in 0..180 {
        r.update(1.0 / 60.0, GestureState::Idle, None, &pose);
        assert!(r.pleasure() < last);
        last = r.pleasure();
    }
    let expect = start * (-3.0 / r.tuning.decay_seconds).exp();
    assert!(
        (r.pleasure() - expect).abs() < 1e-4,
        "{} vs {expect}",
        r.pleasure()
    );
}

#[test]
fn the_response_is_the_same_at_any_frame_rate() {
    let mut slow = fresh();
    let mut fast = fresh();
    for (r, hz) in [(&mut slow, 30.0), (&mut fast, 144.0)] {
        run(r, GestureState::Pet, Some(on_cheek()), 2.0, hz);
        run(r, GestureState::Scratch, Some(on_cheek()), 1.0, hz);
        run(r, GestureState::Idle, None, 1.5, hz);
    }
    assert!((slow.pleasure() - fast.pleasure()).abs() < 1e-4);
    assert!((slow.head_lean_vector() - fast.head_lean_vector()).length() < 1e-4);
    assert!((slow.tail_swish_amplitude() - fast.tail_swish_amplitude()).abs() < 1e-4);
    assert!((slow.tail_swish_angle() - fast.tail_swish_angle()).abs() < 1e-4);
}

#[test]
fn eyes_narrow_with_pleasure() {
    let mut r = fresh();
    assert_eq!(r.eye_narrowing(), 0.0);
    let mut last = 0.0;
    for _ in 0..10 {
        run(&mut r, GestureState::Scratch, Some(on_cheek()), 0.5, 60.0);
        assert!(r.eye_narrowing() >= last);
        last = r.eye_narrowing();
    }
    assert!(r.pleasure() > 0.9);
    assert!(r.eye_narrowing() > 0.95, "{}", r.eye_narrowing());
    run(&mut r, GestureState::Idle, None, 30.0, 60.0);
    assert!(r.eye_narrowing() < 0.01);
}

#[test]
fn the_head_leans_toward_the_hand_a_few_degrees_eased() {
    let creature = Creature::default();
    let rest = CreaturePose::rest(&creature);
    let head_center = |pose: &CreaturePose| pose.head.transform_point3(creature.head.center);
    let mut r = fresh();
    r.update(1.0 / 60.0, GestureState::Pet, Some(on_cheek()), &rest);
    let first = r.head_lean_angle();
    assert!(
        first > 0.0 && first < 0.05 * r.tuning.max_lean,
        "eased, not instant: {first}"
    );
    run(&mut r, GestureState::Scratch, Some(on_cheek()), 5.0, 60.0);
    let angle = r.head_lean_angle();
    assert!(
        angle > 0.8 * r.tuning.max_lean && angle <= r.tuning.max_lean + 1e-5,
        "{angle}"
    );
    assert!(r.tuning.max_lean < 10f32.to_radians());
    let leaned = r.apply_to(&rest);
    // The head turns about its neck pivot, toward the hand.
    assert!(
        (Vec3::from(leaned.head.translation) - Vec3::from(rest.head.translation)).length() < 1e-6
    );
    let before = (head_center(&rest) - on_cheek()).length();
    let after = (head_center(&leaned) - on_cheek()).length();
    assert!(
        after < before - 0.01,
        "head centre {before} → {after} m from the hand"
    );
    assert_eq!(leaned.body, rest.body);
    // Left alone, it straightens up again.
    run(&mut r, GestureState::Idle, None, 5.0, 60.0);
    assert!(r.head_lean_angle() < 0.001 * r.tuning.max_lean);
}

#[test]
fn the_tail_swishes_more_when_pleased() {
    let mut r = fresh();
    let calm = r.tail_swish_amplitude();
    let mut peak = 0.0f32;
    let pose = CreaturePose::rest(&Creature::default());
    for _ in 0..600 {
        r.update(1.0 / 60.0, GestureState::Scratch, Some(on_cheek()), &pose);
        peak = peak.max(r.tail_swish_angle().abs());
    }
    assert!(
        r.tail_swish_amplitude() > 5.0 * calm,
        "{calm} → {}",
        r.tail_swish_amplitude()
    );
    assert!(peak > 0.8 * r.tail_swish_amplitude() && peak <= r.tail_swish_amplitude() + 1e-6);
}

#[test]
fn bad_time_steps_change_nothing() {
    let mut r = fresh();
    run(&mut r, GestureState::Pet, Some(on_cheek()), 1.0, 60.0);
    let before = r.clone();
    let pose = CreaturePose::rest(&Creature::default());
    for dt in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        r.update(dt, GestureState::Scratch, Some(on_cheek()), &pose);
        assert_eq!(r, before, "dt {dt}");
    }
    // A non-finite hand is no hand: no NaN creeps into the lean, which relaxes.
    r.update(1.0 / 60.0, GestureState::Scratch, Some(Vec3::NAN), &pose);
    assert!(r.head_lean_vector().is_finite() && r.pleasure().is_finite());
    assert!(r.head_lean_angle() < before.head_lean_angle());
}
