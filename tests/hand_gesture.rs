//! The gesture machine: what starts a pet, the scratch thresholds and timings, every path
//! back to orbit, hover, and rays against the posed creature.

use glam::{Affine3A, Quat, Vec2, Vec3};
use pelt::creature::{
    Creature, CreaturePose, CreatureProxies, GpuCreaturePose, Part, Ray, Space, TAIL_BONES,
    root_transform, tail_whip,
};
use pelt::hand::{
    GestureMachine, GestureState, PointerButton, SCRATCH_DWELL_SECONDS, SCRATCH_SPEED_PX_PER_S,
};

const STEP: f64 = 1.0 / 60.0;

/// A ray straight down onto the creature's back at `x`, `z`.
fn down_at(x: f32, z: f32) -> Ray {
    Ray::new(Vec3::new(x, 1.5, z), Vec3::NEG_Y)
}

fn on_back() -> Ray {
    down_at(0.0, -0.4)
}

fn beside() -> Ray {
    down_at(2.0, 0.0)
}

fn machine() -> GestureMachine {
    GestureMachine::new(Creature::default())
}

/// A machine petting since `t0` with the pointer at `px`.
fn petting(t0: f64, px: Vec2) -> GestureMachine {
    let mut g = machine();
    g.pointer_move(on_back(), px, t0);
    g.pointer_down(on_back(), px, PointerButton::Primary, t0);
    assert_eq!(g.state(), GestureState::Pet);
    g
}

/// Moves the held pointer along +x at `speed` px/s from `t0` for `seconds`, an event
/// every 1/60 s, staying on the creature; returns the last state seen.
fn drag(g: &mut GestureMachine, t0: f64, speed: f64, seconds: f64) -> Vec<GestureState> {
    let steps = (seconds / STEP).round() as usize;
    (1..=steps)
        .map(|i| {
            let t = t0 + i as f64 * STEP;
            let px = Vec2::new((100.0 + speed * (t - t0)) as f32, 200.0);
            g.pointer_move(on_back(), px, t);
            g.state()
        })
        .collect()
}

#[test]
fn primary_press_on_the_creature_pets_and_stops_orbit() {
    let mut g = machine();
    assert!(g.orbit_enabled());
    g.pointer_down(
        on_back(),
        Vec2::new(10.0, 10.0),
        PointerButton::Primary,
        0.0,
    );
    assert_eq!(g.state(), GestureState::Pet);
    assert!(!g.orbit_enabled());
    let hit = g.last_hit().expect("the back was hit");
    assert_eq!(hit.part, Part::Body);
    let (point, normal) = g.target().expect("the hand has a spot");
    assert!((point - hit.point).length() < 1e-6);
    assert!(normal.y > 0.9, "the back faces up: {normal}");
}

#[test]
fn a_miss_keeps_orbit_and_shows_no_hand_while_dragging() {
    let mut g = machine();
    g.pointer_down(beside(), Vec2::ZERO, PointerButton::Primary, 0.0);
    assert_eq!(g.state(), GestureState::Idle);
    assert!(g.orbit_enabled());
    assert!(g.last_hit().is_none());
    // The orbit drag passes over the creature: no hover, no pet, orbit stays on.
    g.pointer_move(on_back(), Vec2::new(50.0, 0.0), 0.1);
    assert_eq!(g.state(), GestureState::Idle);
    assert!(g.orbit_enabled());
    g.update(1.0);
    assert_eq!(g.state(), GestureState::Idle);
    // Released over the creature: now it hovers.
    g.pointer_up(on_back(), Vec2::new(50.0, 0.0), PointerButton::Primary, 1.1);
    assert_eq!(g.state(), GestureState::Hover);
    assert!(g.orbit_enabled());
}

#[test]
fn other_buttons_never_pet() {
    for button in [PointerButton::Secondary, PointerButton::Middle] {
        let mut g = machine();
        g.pointer_move(on_back(), Vec2::ZERO, 0.0);
        assert_eq!(g.state(), GestureState::Hover);
        g.pointer_down(on_back(), Vec2::ZERO, button, 0.1);
        assert!(g.orbit_enabled(), "{button:?}");
        assert_eq!(
            g.state(),
            GestureState::Idle,
            "{button:?} hides the hover hand"
        );
        g.pointer_move(on_back(), Vec2::new(1.0, 0.0), 0.2);
        g.update(2.0);
        assert!(!g.state().is_petting(), "{button:?}");
        assert!(g.orbit_enabled());
        g.pointer_up(on_back(), Vec2::new(1.0, 0.0), button, 2.1);
        assert_eq!(g.state(), GestureState::Hover);
    }
}

#[test]
fn scratch_needs_the_pointer_below_90_px_per_s() {
    assert_eq!(SCRATCH_SPEED_PX_PER_S, 90.0);
    let mut slow = petting(0.0, Vec2::new(100.0, 200.0));
    let states = drag(&mut slow, 0.0, 89.0, 1.0);
    let first = states
        .iter()
        .position(|&s| s == GestureState::Scratch)
        .expect("89 px/s scratches");
    // Events every 1/60 s: the first one more than 0.22 s after the press is the 14th.
    assert_eq!(first + 1, 14, "scratch began at event {}", first + 1);

    let mut fast = petting(0.0, Vec2::new(100.0, 200.0));
    let states = drag(&mut fast, 0.0, 91.0, 2.0);
    assert!(
        states.iter().all(|&s| s == GestureState::Pet),
        "91 px/s pets"
    );
    fast.update(2.0 + SCRATCH_DWELL_SECONDS * 0.9);
    assert_eq!(fast.state(), GestureState::Pet);
}

#[test]
fn scratch_needs_more_than_0_22_s_of_stillness() {
    assert_eq!(SCRATCH_DWELL_SECONDS, 0.22);
    let mut g = petting(5.0, Vec2::new(300.0, 300.0));
    g.update(5.21);
    assert_eq!(g.state(), GestureState::Pet, "0.21 s still");
    g.update(5.23);
    assert_eq!(g.state(), GestureState::Scratch, "0.23 s still");
}

#[test]
fn a_fast_move_restarts_the_scratch_clock_and_ends_a_scratch() {
    let mut g = petting(0.0, Vec2::new(100.0, 100.0));
    g.update(0.5);
    assert_eq!(g.state(), GestureState::Scratch);
    // Still until 1 s less a frame, then 30 px in 1/60 s: 1800 px/s.
    g.pointer_move(on_back(), Vec2::new(100.0, 100.0), 1.0 - STEP);
    assert_eq!(g.state(), GestureState::Scratch);
    g.pointer_move(on_back(), Vec2::new(130.0, 100.0), 1.0);
    assert_eq!(g.state(), GestureState::Pet);
    assert!(!g.orbit_enabled());
    g.update(1.21);
    assert_eq!(g.state(), GestureState::Pet, "0.21 s after the fast move");
    g.update(1.23);
    assert_eq!(
        g.state(),
        GestureState::Scratch,
        "0.23 s after the fast move"
    );
    // Slow moves do not restart it.
    let mut g = petting(0.0, Vec2::new(100.0, 100.0));
    g.pointer_move(on_back(), Vec2::new(101.0, 100.0), 0.1); // 10 px/s
    g.update(0.23);
    assert_eq!(g.state(), GestureState::Scratch);
}

#[test]
fn release_restores_orbit() {
    let mut g = petting(0.0, Vec2::ZERO);
    g.update(1.0);
    assert_eq!(g.state(), GestureState::Scratch);
    g.pointer_up(on_back(), Vec2::ZERO, PointerButton::Primary, 1.1);
    assert!(g.orbit_enabled());
    assert_eq!(g.state(), GestureState::Hover, "still over the creature");
    // Released off the creature: the hand goes.
    let mut g = petting(0.0, Vec2::ZERO);
    g.pointer_up(beside(), Vec2::ZERO, PointerButton::Primary, 0.1);
    assert!(g.orbit_enabled());
    assert_eq!(g.state(), GestureState::Idle);
}

#[test]
fn releasing_another_button_does_not_end_the_pet() {
    let mut g = petting(0.0, Vec2::ZERO);
    g.pointer_down(on_back(), Vec2::ZERO, PointerButton::Secondary, 0.1);
    g.pointer_up(on_back(), Vec2::ZERO, PointerButton::Secondary, 0.15);
    assert!(g.state().is_petting());
    assert!(!g.orbit_enabled());
    g.pointer_up(on_back(), Vec2::ZERO, PointerButton::Primary, 0.2);
    assert!(g.orbit_enabled());
}

#[test]
fn cancel_and_focus_loss_restore_orbit_and_hide_the_hand() {
    for how in ["cancel", "focus"] {
        let mut g = petting(0.0, Vec2::ZERO);
        g.update(0.5);
        assert_eq!(g.state(), GestureState::Scratch);
        match how {
            "cancel" => g.pointer_cancel(0.6),
            _ => g.focus_lost(0.6),
        }
        assert!(g.orbit_enabled(), "{how}");
        assert_eq!(g.state(), GestureState::Idle, "{how}");
        assert!(g.target().is_none(), "{how}");
        // No button counts as held any more: the next move over the creature hovers.
        g.pointer_move(on_back(), Vec2::ZERO, 0.7);
        assert_eq!(g.state(), GestureState::Hover, "{how}");
    }
}

#[test]
fn leaving_during_a_pet_keeps_the_hand_until_the_release() {
    let mut g = petting(0.0, Vec2::ZERO);
    g.pointer_leave(0.1);
    assert_eq!(
        g.state(),
        GestureState::Pet,
        "a pet carries on outside the window"
    );
    assert!(!g.orbit_enabled());
    assert!(g.target().is_some(), "the hand stays");
    g.update(0.5);
    assert_eq!(g.state(), GestureState::Scratch);
    // The release arrives outside the window (its ray still passes over the creature).
    g.pointer_up(on_back(), Vec2::new(-5.0, 0.0), PointerButton::Primary, 0.6);
    assert!(g.orbit_enabled());
    assert_eq!(g.state(), GestureState::Idle, "outside: no hover");
    assert!(g.target().is_none());
}

#[test]
fn hover_follows_the_pointer_and_leave_hides_it() {
    let mut g = machine();
    g.pointer_move(beside(), Vec2::ZERO, 0.0);
    assert_eq!(g.state(), GestureState::Idle);
    g.pointer_move(on_back(), Vec2::ZERO, 0.1);
    assert_eq!(g.state(), GestureState::Hover);
    assert!(g.orbit_enabled());
    g.pointer_move(beside(), Vec2::ZERO, 0.2);
    assert_eq!(g.state(), GestureState::Idle);
    g.pointer_move(on_back(), Vec2::ZERO, 0.3);
    g.pointer_leave(0.4);
    assert_eq!(g.state(), GestureState::Idle);
    assert!(g.target().is_none());
    // Hover never scratches, however still.
    g.pointer_move(on_back(), Vec2::ZERO, 0.5);
    g.update(5.0);
    assert_eq!(g.state(), GestureState::Hover);
}

#[test]
fn a_held_pet_follows_hits_and_stays_put_over_misses() {
    let mut g = petting(0.0, Vec2::ZERO);
    let (first, _) = g.target().unwrap();
    g.pointer_move(down_at(0.1, -0.5), Vec2::new(40.0, 0.0), 0.05);
    let (second, _) = g.target().unwrap();
    assert!((second.x - 0.1).abs() < 1e-5 && (second.z + 0.5).abs() < 1e-5);
    assert!((second - first).length() > 0.1);
    g.pointer_move(beside(), Vec2::new(400.0, 0.0), 0.1);
    assert!(g.last_hit().is_none());
    assert_eq!(
        g.target().unwrap().0,
        second,
        "a miss leaves the hand where it was"
    );
    assert!(g.state().is_petting());
}

#[test]
fn the_hand_spot_rides_with_the_creature() {
    let creature = Creature::default();
    let mut g = GestureMachine::new(creature.clone());
    // On the head, then the head turns under the still pointer.
    let ray = Ray::new(Vec3::new(0.0, 1.5, 0.16), Vec3::NEG_Y);
    g.pointer_down(ray, Vec2::ZERO, PointerButton::Primary, 0.0);
    assert_eq!(g.last_hit().unwrap().part, Part::Head);
    let (before, _) = g.target().unwrap();
    let mut pose = CreaturePose::rest(&creature);
    let lift = Affine3A::from_translation(Vec3::new(0.0, 0.05, 0.0));
    pose.head = lift * pose.head;
    g.set_pose(pose);
    let (after, _) = g.target().unwrap();
    assert!(((after - before) - Vec3::new(0.0, 0.05, 0.0)).length() < 1e-5);
}

#[test]
fn rays_find_the_tail_where_it_has_swung() {
    let creature = Creature::default();
    let mut pose = CreaturePose::rest(&creature);
    pose.tail = tail_whip(&creature, 0.3, 0.5, 1.0);
    let proxies = CreatureProxies::new(creature.clone(), pose);
    let gpu_pose = GpuCreaturePose::from(&pose);
    let mut checked = 0;
    // At the middle of each swung bone's stretch, that bone alone carries the skin: where
    // the spot is comes from the bone's own transform, not from the blend the proxies use.
    for bone in 1..TAIL_BONES {
        let t = (bone as f32 + 0.5) / TAIL_BONES as f32;
        for k in 0..8 {
            let angle = k as f32 / 8.0 * std::f32::consts::TAU;
            let rest = creature.tail.surface(Vec2::new(t, angle));
            let skin = pose.tail[bone];
            let point = skin.transform_point3(rest.position);
            let normal = skin.transform_vector3(rest.normal).normalize();
            assert!(
                (point - rest.position).length() > 0.05,
                "the whip moves t = {t} by more than 5 cm"
            );
            // A pointer 2 cm off the swung skin, aimed at the spot (t, angle).
            let ray = Ray::new(point + normal * 0.02, -normal);
            let hit = proxies
                .raycast(&ray)
                .unwrap_or_else(|| panic!("t = {t}, angle {angle}: the swung tail is missed"));
            assert_eq!(hit.part, Part::Tail, "t = {t}, angle {angle}");
            // The hit is the spot aimed at, judged by what the ray knows, not by the
            // proxies' own placing: on the ray, 2 cm along it, and the same spot of the
            // tail (its rest place and its parameter along the tail).
            let off_ray = (hit.point - ray.at(hit.distance)).length();
            assert!(
                off_ray < 1e-4,
                "t = {t}, angle {angle}: the hit is {} mm off the ray",
                off_ray * 1e3
            );
            assert!(
                (hit.distance - 0.02).abs() < 1e-3,
                "t = {t}, angle {angle}: hit {} mm along the ray, aimed 20 mm",
                hit.distance * 1e3
            );
            assert!(
                (hit.local_point - rest.position).length() < 1e-3,
                "t = {t}, angle {angle}: hit the rest spot {} mm from the one aimed at",
                (hit.local_point - rest.position).length() * 1e3
            );
            assert!(
                (hit.tail_t - t).abs() < 5e-3,
                "t = {t}, angle {angle}: hit at t = {}",
                hit.tail_t
            );
            assert!(hit.normal.dot(normal) > 0.95, "t = {t}, angle {angle}");
            // The spot rides the tail: at the same pose it is where it was found.
            let (carried, _) = hit.at_pose(&pose);
            assert!((carried - hit.point).length() < 1e-5);
            // Where the spot was at rest there is no tail any more.
            let at_rest =
                proxies.raycast(&Ray::new(rest.position + rest.normal * 0.02, -rest.normal));
            assert!(
                at_rest.is_none_or(|h| h.distance > 0.03),
                "t = {t}, angle {angle}: the tail is still hit where it rested"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 32);
    // The spot follows the tail as it swings on.
    let ray = {
        let skin = Affine3A::from_mat4(root_transform(&gpu_pose, Space::Tail, 0.8));
        let rest = creature.tail.surface(Vec2::new(0.8, 0.0));
        let normal = skin.transform_vector3(rest.normal).normalize();
        Ray::new(
            skin.transform_point3(rest.position) + normal * 0.02,
            -normal,
        )
    };
    let hit = proxies.raycast(&ray).unwrap();
    let mut later = pose;
    later.tail = tail_whip(&creature, 0.55, 0.5, 1.0);
    let skin = Affine3A::from_mat4(root_transform(
        &GpuCreaturePose::from(&later),
        Space::Tail,
        hit.tail_t,
    ));
    let (carried, _) = hit.at_pose(&later);
    assert!((carried - skin.transform_point3(hit.local_point)).length() < 1e-5);
    assert!((carried - hit.point).length() > 0.05, "the tail swung on");
    assert_eq!(TAIL_BONES, later.tail.len());
}

#[test]
fn rays_test_each_part_at_its_pose() {
    let creature = Creature::default();
    let rest = CreatureProxies::at_rest(creature.clone());
    // At rest, world space is body space: the proxies agree with the creature's own ray test.
    let mut parts = Vec::new();
    for ray in [
        Ray::new(Vec3::new(0.0, 1.5, 0.16), Vec3::NEG_Y),
        Ray::new(Vec3::new(0.1, 0.0, 2.0), Vec3::NEG_Z),
        on_back(),
        // Across the middle of the tail.
        Ray::new(Vec3::new(1.0, -0.3, -1.006), Vec3::NEG_X),
    ] {
        let (part, expected) = creature.raycast(&ray).expect("every ray hits");
        let hit = rest.raycast(&ray).unwrap();
        assert_eq!(hit.part, part);
        assert!((hit.point - expected.point).length() < 1e-5, "{part:?}");
        assert!(hit.normal.dot(expected.normal) > 0.99999);
        parts.push(part);
    }
    assert_eq!(parts, [Part::Head, Part::Head, Part::Body, Part::Tail]);
    let m = Affine3A::from_rotation_translation(
        Quat::from_rotation_y(0.7) * Quat::from_rotation_x(0.2),
        Vec3::new(0.3, -0.2, 0.5),
    );
    let moved_pose = CreaturePose {
        head: m * creature.head_rest(),
        body: m,
        tail: [m; 5],
    };
    let moved = CreatureProxies::new(creature.clone(), moved_pose);
    let rays = [
        (Ray::new(Vec3::new(0.0, 1.5, 0.16), Vec3::NEG_Y), Part::Head),
        (Ray::new(Vec3::new(0.0, 0.0, 2.0), Vec3::NEG_Z), Part::Head),
        (on_back(), Part::Body),
        (
            Ray::new(Vec3::new(0.16, -0.68, 1.0), Vec3::NEG_Z),
            Part::Paw(0),
        ),
    ];
    for (ray, part) in rays {
        let at_rest = rest.raycast(&ray).expect("hits at rest");
        assert_eq!(at_rest.part, part);
        let moved_ray = Ray::new(
            m.transform_point3(ray.origin),
            m.transform_vector3(ray.direction),
        );
        let hit = moved.raycast(&moved_ray).expect("hits when moved");
        assert_eq!(hit.part, part);
        let expected = m.transform_point3(at_rest.point);
        assert!(
            (hit.point - expected).length() < 2e-4,
            "{part:?}: {} vs {expected}",
            hit.point
        );
        assert!(hit.normal.dot(m.transform_vector3(at_rest.normal)) > 0.9999);
        assert!((hit.distance - at_rest.distance).abs() < 2e-4);
    }
    // The head moves on its own: a head-only turn moves head hits, not body hits.
    let mut turned = CreaturePose::rest(&creature);
    turned.head = Affine3A::from_translation(Vec3::new(0.0, 0.0, 0.3)) * turned.head;
    let proxies = CreatureProxies::new(creature, turned);
    let ray = Ray::new(Vec3::new(0.0, 0.0, 2.0), Vec3::NEG_Z);
    let hit = proxies.raycast(&ray).unwrap();
    assert_eq!(hit.part, Part::Head);
    assert!((hit.point.z - (rest.raycast(&ray).unwrap().point.z + 0.3)).abs() < 2e-4);
    assert_eq!(
        proxies.raycast(&on_back()).unwrap().point,
        rest.raycast(&on_back()).unwrap().point
    );
}

#[test]
fn non_finite_input_never_pets_or_panics() {
    let mut g = machine();
    let bad = Ray {
        origin: Vec3::NAN,
        direction: Vec3::NEG_Y,
    };
    g.pointer_down(bad, Vec2::NAN, PointerButton::Primary, f64::NAN);
    assert_eq!(g.state(), GestureState::Idle);
    assert!(g.orbit_enabled());
    g.pointer_up(bad, Vec2::NAN, PointerButton::Primary, f64::NAN);
    let mut g = petting(1.0, Vec2::ZERO);
    g.pointer_move(on_back(), Vec2::NAN, f64::NAN);
    g.update(f64::INFINITY);
    assert_eq!(
        g.state(),
        GestureState::Pet,
        "a non-finite time is the latest time seen"
    );
    g.update(1.3);
    assert_eq!(g.state(), GestureState::Scratch);
}
