//! The hand on a body of the user's ([`Hand::set_body`]), here the skinned cylinder: a
//! pointer over it hovers the hand on its surface, a press pets with the palm along the
//! surface's normal and the capsules outside the skin, a still pointer scratches; the spot
//! rides the body's animation; the creature's response stays at rest (a body has no face).

use glam::{Mat3, Quat, Vec2, Vec3};
use pelt::body::{CylinderSpec, skinned_cylinder};
use pelt::creature::{Creature, CreaturePose, Ray};
use pelt::hand::{GestureState, Hand, ModeStyles, PointerButton};
use pelt::sim::{ContactMode, FurBody};
use std::sync::Arc;

const DT: f32 = 1.0 / 60.0;

fn cylinder(spec: &CylinderSpec) -> FurBody {
    let (mesh, motion) = skinned_cylinder(spec);
    FurBody {
        mesh: Arc::new(mesh),
        motion: Arc::new(motion),
        groom: None,
    }
}

/// Parallel rays from +z toward the tube, a pixel a millimetre, the window's centre at
/// height `y`.
fn ray_at(px: Vec2, y: f32) -> Ray {
    Ray::new(
        Vec3::new((px.x - 400.0) / 1000.0, y - (px.y - 300.0) / 1000.0, 1.5),
        Vec3::NEG_Z,
    )
}

/// Steps the hand for `seconds` from `from`, the body posed at each step's time.
fn steps(hand: &mut Hand, from: f64, seconds: f64) -> f64 {
    let pose = CreaturePose::rest(&Creature::default());
    let n = (seconds * 60.0).round() as usize;
    for i in 1..=n {
        let t = from + i as f64 / 60.0;
        hand.set_body_time(t);
        hand.step(t, DT, &pose);
    }
    from + n as f64 / 60.0
}

/// How far the deepest capsule of the hand reaches inside the lower tube (radius `r`
/// about the y axis), metres (negative: all of them outside).
fn deepest_into_tube(hand: &Hand, r: f32) -> f32 {
    let contact = hand.contact().expect("the hand is shown");
    contact
        .capsules
        .iter()
        .flat_map(|c| {
            let (a, b) = c.ends();
            (0..=8).map(move |k| {
                let p = a.lerp(b, k as f32 / 8.0);
                r - (Vec3::new(p.x, 0.0, p.z).length() - c.radius)
            })
        })
        .fold(f32::NEG_INFINITY, f32::max)
}

#[test]
fn the_hand_hovers_pets_and_scratches_on_a_body_without_the_creatures_response() {
    // Unbent, so the lower tube stays where the rays and the checks expect it.
    let spec = CylinderSpec {
        bend: 0.0,
        ..CylinderSpec::default()
    };
    let mut hand = Hand::new(Creature::default(), 3);
    hand.set_body(Some(cylinder(&spec)));
    let styles = ModeStyles::default();
    let centre = Vec2::new(400.0, 300.0);
    let ray = |px| ray_at(px, -0.45);

    hand.pointer_move(ray(centre), centre, 0.0);
    assert_eq!(hand.state(), GestureState::Hover);
    assert!(hand.gesture().last_hit().is_none(), "no creature hit");
    let hit = *hand.gesture().last_body_hit().expect("the tube was hit");
    assert!(
        (hit.point - Vec3::new(0.0, -0.45, spec.radius)).length() < 2e-3,
        "{}",
        hit.point
    );
    let t = steps(&mut hand, 0.0, 0.5);
    assert_eq!(hand.contact().expect("hovering").mode, ContactMode::Hover);
    let palm = hand.rig().palm_point().unwrap();
    let hover = hit.point + hit.normal * styles.hover.palm_lift;
    assert!(
        (palm - hover).length() < 1e-3,
        "the palm hovers at {palm}, not {hover}"
    );

    hand.pointer_down(ray(centre), centre, PointerButton::Primary, t);
    let t = steps(&mut hand, t, 0.1);
    assert_eq!(hand.state(), GestureState::Pet);
    assert!(!hand.orbit_enabled());
    let t = steps(&mut hand, t, 0.4);
    assert_eq!(hand.state(), GestureState::Scratch, "held still for 0.4 s");
    // Pressed toward the skin along its normal, and no capsule inside the body.
    let palm = hand.rig().palm_point().unwrap();
    let lift = (palm - hit.point).dot(hit.normal);
    let aside = (palm - hit.point - hit.normal * lift).length();
    assert!(
        lift > 0.0 && lift < styles.hover.palm_lift - 0.02,
        "pressed down to {lift}"
    );
    assert!(aside < 1e-3, "the palm is {aside} m off the normal");
    let deepest = deepest_into_tube(&hand, spec.radius);
    eprintln!("palm {lift:.4} m above the skin; deepest capsule {deepest:.4} m into the tube");
    assert!(deepest < 1e-3, "a capsule is {deepest} m inside the body");
    let (sphere, radius) = hand.bounds().unwrap();
    assert!((sphere - hit.point).length() < radius);

    // The creature's response stays at rest: no pleasure, no narrowed eyes, no lean.
    let t = steps(&mut hand, t, 1.0);
    assert_eq!(hand.state(), GestureState::Scratch);
    let response = hand.response();
    assert_eq!(response.pleasure(), 0.0);
    assert_eq!(response.eye_narrowing(), 0.0);
    assert_eq!(response.head_lean(), Quat::IDENTITY);

    // A release over the body hovers on; a move off it hides the hand.
    hand.pointer_up(ray(centre), centre, PointerButton::Primary, t);
    assert_eq!(hand.state(), GestureState::Hover);
    assert!(hand.orbit_enabled());
    let beside = Vec2::new(400.0 + 1000.0 * (spec.radius + 0.05), 300.0);
    hand.pointer_move(ray(beside), beside, t);
    assert!(hand.gesture().last_body_hit().is_none());
    steps(&mut hand, t, 0.1);
    assert!(hand.contact().is_none() && hand.shapes().is_empty());
}

#[test]
fn the_hands_spot_rides_the_bodys_animation() {
    let spec = CylinderSpec::default();
    let body = cylinder(&spec);
    let motion = body.motion.clone();
    let mut hand = Hand::new(Creature::default(), 4);
    hand.set_body(Some(body));
    // On the upper tube, which the animation turns about the joint.
    let centre = Vec2::new(400.0, 300.0);
    hand.pointer_down(ray_at(centre, 0.3), centre, PointerButton::Primary, 0.0);
    let hit = *hand
        .gesture()
        .body_anchor()
        .expect("a pet on the upper tube");
    let pivot = Vec3::new(0.0, spec.base + 0.5 * spec.height, 0.0);
    for t in [0.1, spec.period / 4.0, 0.9] {
        hand.set_body_time(t);
        let (point, normal) = hand.gesture().target().unwrap();
        // The spot moves as the upper bone turns (all of the upper tube's weight is on it).
        let angle = motion.pose_at(t).joints[1]
            .to_scale_rotation_translation()
            .1;
        let turn = Mat3::from_quat(angle);
        let expected = pivot + turn * (hit.point - pivot);
        assert!(
            (point - expected).length() < 1e-4,
            "at {t} s the spot is at {point}, not {expected}"
        );
        assert!((normal - turn * hit.normal).length() < 1e-3);
    }
    assert!(
        hand.gesture().target().unwrap().0.distance(hit.point) > 0.05,
        "the animation barely moved the spot"
    );
}

#[test]
fn the_creature_is_petted_again_when_the_body_goes() {
    let mut hand = Hand::new(Creature::default(), 5);
    hand.set_body(Some(cylinder(&CylinderSpec::default())));
    let down = Ray::new(Vec3::new(0.0, 1.0, -0.3), Vec3::NEG_Y);
    hand.pointer_down(down, Vec2::ZERO, PointerButton::Primary, 0.0);
    assert!(hand.gesture().anchor().is_none());
    hand.pointer_up(down, Vec2::ZERO, PointerButton::Primary, 0.0);
    hand.set_body(None);
    hand.pointer_down(down, Vec2::ZERO, PointerButton::Primary, 0.1);
    assert_eq!(hand.state(), GestureState::Pet);
    assert!(hand.gesture().anchor().is_some() && hand.gesture().body_anchor().is_none());
}
