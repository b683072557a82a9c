//! The hand rig: capsule count and bounds, the palm's lift per gesture, finger curl easing
//! onto the surface, the 7 Hz scratch, capsule velocities, the draw list, and no NaN from
//! degenerate input.

use glam::Vec3;
use pelt::creature::{Creature, CreaturePose, CreatureProxies, Ray};
use pelt::hand::{
    CONTACT_CAPSULES, HandDimensions, HandMaterial, HandRig, HandTarget, ModeStyles, PlaneSurface,
    SCRATCH_HZ, SurfaceProbe, finger_capsule,
};
use pelt::sim::{ContactMode, MAX_CAPSULES};

const DT: f32 = 1.0 / 60.0;

fn floor() -> PlaneSurface {
    PlaneSurface::new(Vec3::ZERO, Vec3::Y)
}

fn on_floor(mode: ContactMode) -> HandTarget {
    HandTarget {
        point: Vec3::ZERO,
        normal: Vec3::Y,
        forward: Vec3::Z,
        mode,
    }
}

/// A rig after `steps` fixed steps at `target`.
fn settled(target: &HandTarget, surface: &dyn SurfaceProbe, steps: usize) -> HandRig {
    let mut rig = HandRig::new(HandDimensions::default(), 3);
    for i in 0..steps {
        rig.update(target, surface, (i + 1) as f64 * f64::from(DT), DT);
    }
    rig
}

/// The lowest point (height above the floor) of the given capsules.
fn lowest(rig: &HandRig, range: std::ops::Range<usize>) -> f32 {
    rig.capsules()[range]
        .iter()
        .map(|c| {
            let (a, b) = c.ends();
            a.y.min(b.y) - c.radius
        })
        .fold(f32::INFINITY, f32::min)
}

#[test]
fn capsules_fit_the_solver_and_lie_inside_the_bounding_sphere() {
    for mode in [ContactMode::Hover, ContactMode::Pet, ContactMode::Scratch] {
        let mut rig = HandRig::new(HandDimensions::default(), 1);
        for i in 0..90 {
            let t = i as f32 * DT;
            // Wander over a tilted plane so that every capsule moves.
            let target = HandTarget {
                point: Vec3::new(0.3 * t, 0.1 * t, 0.0),
                normal: Vec3::new(0.2, 1.0, 0.1),
                forward: Vec3::new(t.cos(), 0.0, t.sin()),
                mode,
            };
            let surface = PlaneSurface::new(Vec3::new(0.3 * t, 0.1 * t, 0.0), target.normal);
            rig.update(&target, &surface, f64::from(t), DT);
            let contact = rig.contact().expect("posed");
            contact.validate().expect("the solver accepts the hand");
            assert_eq!(contact.capsules.len(), CONTACT_CAPSULES);
            assert!(contact.capsules.len() <= MAX_CAPSULES);
            assert_eq!(contact.mode, mode);
            let (center, radius) = contact.bounding_sphere().unwrap();
            // A hand, not something blown up: palm plus fingers are under 20 cm long.
            assert!(radius < 0.13, "{mode:?}: bounding radius {radius}");
            for c in &contact.capsules {
                let (a, b) = c.ends();
                for end in [a, b] {
                    let reach = (end - center).length() + c.radius;
                    assert!(reach <= radius, "{mode:?}: {reach} > {radius}");
                }
            }
        }
    }
}

#[test]
fn each_gesture_floats_the_palm_at_its_own_lift() {
    let styles = ModeStyles::default();
    let mut lifts = Vec::new();
    for mode in [ContactMode::Hover, ContactMode::Pet, ContactMode::Scratch] {
        let rig = settled(&on_floor(mode), &floor(), 90);
        let palm = lowest(&rig, 0..4);
        let want = styles.of(mode).palm_lift;
        assert!(
            (palm - want).abs() < 1e-4,
            "{mode:?}: palm at {palm}, want {want}"
        );
        assert!((rig.occlusion() - styles.of(mode).occlusion).abs() < 1e-3);
        lifts.push(palm);
    }
    // Hover floats near the coat's top (about 7 cm); pet and scratch press well into it,
    // scratch a little higher as its fingertips dig down to the skin.
    assert!(lifts[0] > 0.08, "hover at {}", lifts[0]);
    assert!(
        lifts[1] < 0.05 && lifts[2] < 0.06 && lifts[2] > lifts[1],
        "{lifts:?}"
    );
    let occlusion: Vec<f32> = [styles.hover, styles.pet, styles.scratch]
        .iter()
        .map(|s| s.occlusion)
        .collect();
    assert!(occlusion[0] < occlusion[1] && occlusion[1] < occlusion[2]);
}

#[test]
fn fingers_curl_toward_the_fur_over_time() {
    let target = on_floor(ContactMode::Pet);
    let clearance = ModeStyles::default().pet.fingertip_clearance;
    // Settled over a surface too far below to reach: the fingers hang relaxed.
    let deep = PlaneSurface::new(Vec3::new(0.0, -1.0, 0.0), Vec3::Y);
    let mut rig = settled(&target, &deep, 60);
    let relaxed = rig.curls();
    assert!(rig.probe_hits().iter().all(|h| h.is_some()));
    // The fur comes up under the hand: every digit eases toward the curl that reaches it.
    let mut gaps = Vec::new();
    let mut tips = Vec::new();
    for i in 0..60 {
        rig.update(&target, &floor(), 1.0 + (i + 1) as f64 / 60.0, DT);
        let gap: f32 = rig
            .curls()
            .iter()
            .zip(rig.target_curls())
            .map(|(c, t)| (t - c).abs())
            .fold(0.0, f32::max);
        gaps.push(gap);
        tips.push(lowest(&rig, finger_capsule(1, 0)..finger_capsule(1, 2) + 1));
    }
    let initial: f32 = relaxed
        .iter()
        .zip(rig.target_curls())
        .map(|(c, t)| (t - c).abs())
        .fold(0.0, f32::max);
    assert!(initial > 0.1, "the target moved by {initial} rad");
    // Not instant: one step closes 1 − e^(−(1/60)/0.09) ≈ 17% of the gap …
    assert!(
        (gaps[0] / initial - 0.831).abs() < 0.01,
        "after one step {}",
        gaps[0] / initial
    );
    // … the gap only shrinks …
    assert!(gaps.windows(2).all(|w| w[1] < w[0]), "gaps {gaps:?}");
    // … and a second later the middle finger rests at the gesture's fingertip height.
    assert!(gaps[59] < 1e-3, "gap after 1 s: {}", gaps[59]);
    assert!(
        (tips[59] - clearance).abs() < 1e-3,
        "middle finger at {}",
        tips[59]
    );
    assert!(
        tips[0] > tips[59] + 0.004,
        "the finger sank onto the fur: {} → {}",
        tips[0],
        tips[59]
    );
}

#[test]
fn fingers_curl_further_over_a_rounded_head() {
    let creature = Creature::default();
    let proxies = CreatureProxies::at_rest(creature);
    let hit = proxies
        .raycast(&Ray::new(Vec3::new(0.0, 1.5, 0.05), Vec3::NEG_Y))
        .expect("the head top");
    let on_head = HandTarget {
        point: hit.point,
        normal: hit.normal,
        forward: Vec3::Z,
        mode: ContactMode::Pet,
    };
    let flat = PlaneSurface::new(hit.point, hit.normal);
    let round = settled(&on_head, &proxies, 60);
    let level = settled(&on_head, &flat, 60);
    let middle = 1;
    assert!(
        round.curls()[middle] > level.curls()[middle] + 0.1,
        "head {} vs plane {}",
        round.curls()[middle],
        level.curls()[middle]
    );
    // The fingertip still sits at the fingertip height above the head's surface.
    let tip = round.capsules()[finger_capsule(middle, 2)];
    let (_, b) = tip.ends();
    let below = proxies
        .raycast(&Ray::new(b + hit.normal * 0.3, -hit.normal))
        .unwrap();
    let height = (b - below.point).dot(hit.normal) - tip.radius;
    let want = ModeStyles::default().pet.fingertip_clearance;
    assert!(
        (height - want).abs() < 0.01,
        "fingertip {height} m above the head"
    );
}

/// The strongest frequency (Hz) of `samples` taken at `rate` Hz, scanning 1–20 Hz.
fn peak_frequency(samples: &[f32], rate: f32) -> (f32, f32) {
    let mean = samples.iter().sum::<f32>() / samples.len() as f32;
    let mut best = (0.0, 0.0);
    for k in 0..=380 {
        let f = 1.0 + k as f32 * 0.05;
        let (mut re, mut im) = (0.0f32, 0.0f32);
        for (i, s) in samples.iter().enumerate() {
            let phase = std::f32::consts::TAU * f * i as f32 / rate;
            re += (s - mean) * phase.cos();
            im += (s - mean) * phase.sin();
        }
        let power = re * re + im * im;
        if power > best.1 {
            best = (f, power);
        }
    }
    best
}

#[test]
fn scratching_fingers_swing_at_7_hz() {
    let mut heights = Vec::new();
    let mut pet_heights = Vec::new();
    for (mode, out) in [
        (ContactMode::Scratch, &mut heights),
        (ContactMode::Pet, &mut pet_heights),
    ] {
        let mut rig = HandRig::new(HandDimensions::default(), 11);
        for i in 0..240 {
            rig.update(&on_floor(mode), &floor(), (i + 1) as f64 / 60.0, DT);
            if i >= 60 {
                out.push(rig.capsules()[finger_capsule(2, 2)].center.y);
            }
        }
    }
    let (hz, _) = peak_frequency(&heights, 60.0);
    assert!((hz - 7.0).abs() <= 0.1, "scratch swings at {hz} Hz");
    assert_eq!(SCRATCH_HZ, 7.0);
    let swing = |v: &[f32]| {
        v.iter().copied().fold(f32::MIN, f32::max) - v.iter().copied().fold(f32::MAX, f32::min)
    };
    assert!(
        swing(&heights) > 0.005,
        "scratch swing {} m",
        swing(&heights)
    );
    assert!(
        swing(&pet_heights) < 1e-4,
        "a pet holds still: {} m",
        swing(&pet_heights)
    );
}

#[test]
fn velocity_is_the_capsules_motion_over_the_step() {
    let mut rig = HandRig::new(HandDimensions::default(), 2);
    let at = |x: f32| HandTarget {
        point: Vec3::new(x, 0.0, 0.0),
        ..on_floor(ContactMode::Pet)
    };
    rig.update(&at(0.0), &floor(), 0.0, DT);
    assert!(
        rig.capsules().iter().all(|c| c.velocity == Vec3::ZERO),
        "first pose"
    );
    for i in 1..60 {
        rig.update(&at(0.01 * i as f32), &floor(), f64::from(i as f32 * DT), DT);
    }
    for c in &rig.capsules()[0..4] {
        let v = c.velocity;
        assert!(
            (v - Vec3::new(0.6, 0.0, 0.0)).length() < 1e-3,
            "palm moves at {v}"
        );
    }
    let before: Vec<Vec3> = rig.capsules().iter().map(|c| c.center).collect();
    rig.update(&at(0.6), &floor(), 1.0, DT);
    for (c, b) in rig.capsules().iter().zip(before) {
        assert!(((c.center - b) / DT - c.velocity).length() < 1e-3);
    }
    // After a reset the hand appears with no velocity, wherever it appears.
    rig.reset();
    assert!(rig.contact().is_none());
    rig.update(&at(5.0), &floor(), 1.1, DT);
    assert!(rig.capsules().iter().all(|c| c.velocity == Vec3::ZERO));
}

#[test]
fn the_hand_points_along_the_stroke_with_the_thumb_on_its_side() {
    let dims = HandDimensions::default();
    for forward in [Vec3::Z, Vec3::X, Vec3::new(-1.0, 0.0, 1.0)] {
        let target = HandTarget {
            forward,
            ..on_floor(ContactMode::Pet)
        };
        let rig = settled(&target, &floor(), 30);
        let f = forward.normalize();
        let (heel, knuckle) = rig.capsules()[1].ends();
        assert!((knuckle - heel).normalize().dot(f) > 0.99);
        let (_, tip) = rig.capsules()[finger_capsule(1, 2)].ends();
        assert!((tip - heel).dot(f) > 0.12, "fingers reach ahead");
        // A right hand palm down: the thumb is on the left of the fingers.
        let left = Vec3::Y.cross(f);
        let (_, thumb_tip) = rig.capsules()[pelt::hand::thumb_capsule(2)].ends();
        assert!(thumb_tip.dot(left) > 0.04);
        // The palm is about 9 cm wide.
        let across: Vec<f32> = rig.capsules()[0..4]
            .iter()
            .flat_map(|c| {
                let (a, b) = c.ends();
                [
                    a.dot(left) + c.radius,
                    b.dot(left) + c.radius,
                    a.dot(left) - c.radius,
                    b.dot(left) - c.radius,
                ]
            })
            .collect();
        let width = across.iter().copied().fold(f32::MIN, f32::max)
            - across.iter().copied().fold(f32::MAX, f32::min);
        assert!((0.08..0.10).contains(&width), "palm {width} m wide");
        assert_eq!(dims, *rig.dimensions());
    }
}

#[test]
fn the_draw_list_has_skin_nails_forearm_and_sleeve() {
    let rig = settled(&on_floor(ContactMode::Pet), &floor(), 30);
    let shapes = rig.shapes();
    let count = |m| shapes.iter().filter(|s| s.material == m).count();
    assert_eq!(
        count(HandMaterial::Skin),
        CONTACT_CAPSULES + 1,
        "contact capsules and forearm"
    );
    assert_eq!(count(HandMaterial::Nail), 5);
    assert_eq!(count(HandMaterial::Sleeve), 1);
    // Each nail lies on the back of its digit's last bone, near the tip.
    let nails: Vec<_> = shapes
        .iter()
        .filter(|s| s.material == HandMaterial::Nail)
        .collect();
    for (d, nail) in nails.iter().enumerate() {
        let bone = rig.capsules()[if d < 4 {
            finger_capsule(d, 2)
        } else {
            pelt::hand::thumb_capsule(2)
        }];
        for end in [nail.a, nail.b] {
            let depth = bone.distance(end);
            assert!(
                depth < 0.0 && depth > -nail.radius * 1.5,
                "nail {d} end {depth} from the bone surface"
            );
        }
    }
    // The forearm rises steeply from the wrist, back away from the fingers, inside the
    // sleeve (a person reaching down to the fur).
    let arm = shapes[CONTACT_CAPSULES + 5];
    let sleeve = shapes[CONTACT_CAPSULES + 6];
    assert!(arm.b.y > arm.a.y + 0.15 && arm.b.z < arm.a.z - 0.08);
    assert!(sleeve.radius > arm.radius);
    assert!(
        shapes
            .iter()
            .all(|s| s.a.is_finite() && s.b.is_finite() && s.radius > 0.0)
    );
}

#[test]
fn degenerate_input_gives_no_nan() {
    let targets = [
        HandTarget {
            normal: Vec3::ZERO,
            ..on_floor(ContactMode::Pet)
        },
        HandTarget {
            forward: Vec3::ZERO,
            ..on_floor(ContactMode::Pet)
        },
        HandTarget {
            forward: Vec3::Y,
            ..on_floor(ContactMode::Scratch)
        },
        HandTarget {
            normal: Vec3::ZERO,
            forward: Vec3::ZERO,
            ..on_floor(ContactMode::Hover)
        },
        HandTarget {
            point: Vec3::NAN,
            ..on_floor(ContactMode::Pet)
        },
        HandTarget {
            normal: Vec3::NAN,
            forward: Vec3::INFINITY,
            ..on_floor(ContactMode::Pet)
        },
    ];
    let dts = [DT, 0.0, -1.0, f32::NAN, f32::INFINITY, 1e-9];
    for (i, target) in targets.iter().enumerate() {
        for fresh in [true, false] {
            let mut rig = HandRig::new(HandDimensions::default(), 5);
            if !fresh {
                rig.update(&on_floor(ContactMode::Pet), &floor(), 0.0, DT);
            }
            for (k, &dt) in dts.iter().enumerate() {
                rig.update(target, &floor(), 0.1 * k as f64, dt);
                let contact = rig.contact().unwrap();
                assert!(
                    contact.validate().is_ok(),
                    "target {i}, dt {dt}, fresh {fresh}"
                );
                assert!(
                    rig.shapes()
                        .iter()
                        .all(|s| s.a.is_finite() && s.b.is_finite())
                );
                assert!(rig.occlusion().is_finite() && rig.lift().is_finite());
            }
        }
    }
    // A target that is not a number leaves the hand where it was.
    let mut rig = settled(&on_floor(ContactMode::Pet), &floor(), 60);
    let palm = rig.palm_point().unwrap();
    for _ in 0..10 {
        rig.update(&targets[4], &floor(), 2.0, DT);
    }
    assert!((rig.palm_point().unwrap() - palm).length() < 1e-5);
    // A zero normal or stroke keeps the previous orientation rather than inventing one.
    let tilted = HandTarget {
        normal: Vec3::new(0.3, 1.0, 0.2),
        forward: Vec3::new(1.0, 0.0, -0.4),
        ..on_floor(ContactMode::Pet)
    };
    for (i, degenerate) in targets.iter().enumerate().take(4) {
        let mut rig = settled(&tilted, &floor(), 10);
        let frame = *rig.frame().unwrap();
        rig.update(degenerate, &floor(), 1.0, DT);
        let now = rig.frame().unwrap();
        if degenerate.normal == Vec3::ZERO {
            assert!(now.up.dot(frame.up) > 0.9999, "target {i}: up {}", now.up);
        }
        let f = degenerate.forward;
        if (f - now.up * f.dot(now.up)).length() < 1e-6 {
            // The previous forward, laid into the new tangent plane.
            let kept = (frame.forward - now.up * frame.forward.dot(now.up)).normalize();
            assert!(
                now.forward.dot(kept) > 0.9999,
                "target {i}: forward {}",
                now.forward
            );
        }
    }
}

#[test]
fn the_rig_works_on_the_posed_creature() {
    let creature = Creature::default();
    let pose = CreaturePose::rest(&creature);
    let proxies = CreatureProxies::new(creature, pose);
    let hit = proxies
        .raycast(&Ray::new(Vec3::new(0.0, 1.5, -0.4), Vec3::NEG_Y))
        .unwrap();
    let target = HandTarget {
        point: hit.point,
        normal: hit.normal,
        forward: Vec3::NEG_Z,
        mode: ContactMode::Scratch,
    };
    let rig = settled(&target, &proxies, 60);
    assert!(
        rig.probe_hits().iter().all(|h| h.is_some()),
        "every digit finds the back"
    );
    // No capsule dips below the skin.
    for c in rig.capsules() {
        let (a, b) = c.ends();
        for p in [a, b, c.center] {
            let below = proxies
                .raycast(&Ray::new(p + Vec3::Y, Vec3::NEG_Y))
                .unwrap();
            assert!(
                p.y - c.radius > below.point.y - 1e-3,
                "capsule below the skin"
            );
        }
    }
}

/// Runs `orientation` for `seconds` with the hand moving at `velocity` over the floor,
/// seen along `view`; returns the last forward direction.
fn orient(
    orientation: &mut pelt::hand::HandOrientation,
    start: Vec3,
    velocity: Vec3,
    view: Vec3,
    seconds: f32,
) -> (Vec3, Vec3) {
    let mut point = start;
    let mut forward = Vec3::ZERO;
    for _ in 0..(seconds * 60.0).round() as usize {
        point += velocity * DT;
        forward = orientation.update(point, Vec3::Y, view, DT).1;
    }
    (point, forward)
}

#[test]
fn fingers_point_away_from_the_viewer_and_turn_with_the_stroke() {
    use pelt::hand::HandOrientation;
    let oblique = Vec3::new(0.0, -1.0, -1.0);
    let mut o = HandOrientation::new();
    let (p, still) = orient(&mut o, Vec3::ZERO, Vec3::ZERO, oblique, 0.5);
    assert!(
        still.dot(Vec3::NEG_Z) > 0.9999,
        "away from the viewer: {still}"
    );
    // A sideways stroke turns the hand part of the way toward it.
    let (p, sideways) = orient(&mut o, p, Vec3::new(1.0, 0.0, 0.0), oblique, 1.0);
    let turned = sideways.x.atan2(-sideways.z).to_degrees();
    assert!((25.0..50.0).contains(&turned), "turned {turned}°");
    // Pulling the hand back toward the viewer never turns the fingers round, even seen
    // nearly from above, where the view's say is small.
    for view in [oblique, Vec3::new(0.0, -1.0, -0.3)] {
        let mut o = HandOrientation::new();
        orient(&mut o, p, Vec3::ZERO, view, 0.5);
        let (_, pulled) = orient(&mut o, p, Vec3::new(0.0, 0.0, 1.0), view, 1.0);
        assert!(pulled.dot(Vec3::NEG_Z) > 0.9999, "pulled back: {pulled}");
    }
    // Seen from straight above, the stroke alone decides, and it can turn the hand right
    // round (a blend of opposite directions would never turn at all).
    let mut o = HandOrientation::new();
    let (p, along) = orient(&mut o, Vec3::ZERO, Vec3::X, Vec3::NEG_Y, 1.0);
    assert!(along.dot(Vec3::X) > 0.999, "{along}");
    let (_, back) = orient(&mut o, p, Vec3::NEG_X, Vec3::NEG_Y, 1.5);
    assert!(back.dot(Vec3::NEG_X) > 0.99, "reversed: {back}");
    // Nothing to go by: no direction, and the frame keeps the previous one.
    let mut o = HandOrientation::new();
    let (_, none) = orient(&mut o, Vec3::ZERO, Vec3::ZERO, Vec3::NEG_Y, 0.2);
    assert_eq!(none, Vec3::ZERO);
}

/// How far the digits' capsules reach into the head, metres (0 when they stay out).
fn depth_in_head(rig: &HandRig, creature: &Creature) -> f32 {
    let to_head = creature.head_rest().inverse();
    (0..5)
        .flat_map(|d| {
            (0..3).map(move |bone| {
                if d == 4 {
                    pelt::hand::thumb_capsule(bone)
                } else {
                    finger_capsule(d, bone)
                }
            })
        })
        .flat_map(|i| {
            let c = rig.capsules()[i];
            let (a, b) = c.ends();
            (0..=8).map(move |k| {
                let q = a.lerp(b, k as f32 / 8.0);
                c.radius - creature.head.implicit(to_head.transform_point3(q))
            })
        })
        .fold(0.0, f32::max)
}

#[test]
fn no_digit_sinks_into_the_head_wherever_it_pets() {
    let creature = Creature::default();
    let proxies = CreatureProxies::at_rest(creature.clone());
    let centre = creature.head_rest().transform_point3(Vec3::ZERO);
    let (mut deepest, mut spots, mut risen, mut wobble) = (0.0f32, 0, 0, 0.0f32);
    for i in 0..12 {
        for j in 0..5 {
            let (azimuth, elevation) = (
                i as f32 / 12.0 * std::f32::consts::TAU,
                j as f32 / 5.0 * std::f32::consts::FRAC_PI_2,
            );
            let dir = Vec3::new(
                azimuth.cos() * elevation.cos(),
                elevation.sin(),
                azimuth.sin() * elevation.cos(),
            );
            let hit = match proxies.raycast(&Ray::new(centre + dir, -dir)) {
                Some(h) if h.part == pelt::creature::Part::Head => h,
                _ => continue,
            };
            for forward in [Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Z] {
                let target = HandTarget {
                    point: hit.point,
                    normal: hit.normal,
                    forward,
                    mode: ContactMode::Pet,
                };
                let mut rig = settled(&target, &proxies, 150);
                // Settled means still: the curls no longer move, and the digits stay out
                // of the head at every step.
                let before = rig.curls();
                for step in 150..160 {
                    rig.update(&target, &proxies, (step + 1) as f64 * f64::from(DT), DT);
                    deepest = deepest.max(depth_in_head(&rig, &creature));
                }
                for (a, b) in before.iter().zip(rig.curls()) {
                    wobble = wobble.max((a - b).abs());
                }
                let style = ModeStyles::default().pet;
                if rig.lift() > style.palm_lift + 1e-3 {
                    risen += 1;
                }
                spots += 1;
            }
        }
    }
    eprintln!(
        "{spots} hand placements on the head: deepest digit {:.1} mm inside, the palm rose at {risen}, curls moved up to {wobble:.1e} rad once settled",
        deepest * 1e3
    );
    assert!(spots > 150, "only {spots} placements hit the head");
    assert!(deepest < 1e-3, "a digit {deepest} m inside the head");
    assert!(wobble < 1e-3, "the curls still move by {wobble} rad");
}
