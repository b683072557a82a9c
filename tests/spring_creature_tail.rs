//! The creature's tail under VRM's rule: built along the tail's centreline, skinning that
//! is the identity at rest and carries fur with the bones, a lively swing that settles, a
//! swish that wags it.

use glam::{Affine3A, Quat, Vec3};
use pelt::creature::{
    Creature, CreatureTail, TAIL_BONES, TailSettings, creature_skeleton, creature_spring_rig,
    tail_joint_names,
};
use pelt::spring::ChainEnd;

const DT: f32 = 1.0 / 60.0;

#[test]
fn the_tail_spring_follows_the_centerline_with_per_bone_parameters() {
    let c = Creature::default();
    let settings = TailSettings::default();
    let rig = creature_spring_rig(&c, &settings).unwrap();
    let chain = &rig.chains[0];
    assert_eq!(chain.joints.len(), TAIL_BONES);
    let rest = rig.skeleton.rest_world(Affine3A::IDENTITY);
    let names = tail_joint_names();
    for (i, name) in names.iter().enumerate() {
        let n = rig.skeleton.index_of(name).unwrap();
        let want = c.tail.centerline(i as f32 / TAIL_BONES as f32);
        assert!(
            (Vec3::from(rest[n].translation) - want).length() < 1.0e-5,
            "{name}"
        );
        if i < TAIL_BONES {
            assert_eq!(chain.joints[i].node, n);
            assert_eq!(chain.joints[i].stiffness, settings.stiffness[i]);
        } else {
            assert_eq!(chain.end, ChainEnd::Node(n));
        }
    }
    // The skeleton a VRM humanoid needs is there too.
    let sk = creature_skeleton(&c).unwrap();
    for bone in [
        "hips",
        "spine",
        "chest",
        "neck",
        "head",
        "leftHand",
        "rightFoot",
    ] {
        assert!(sk.index_of(bone).is_some(), "{bone}");
    }
}

#[test]
fn skinning_is_the_identity_at_rest_and_carries_points_with_the_bones() {
    let c = Creature::default();
    let mut tail = CreatureTail::new(&c, TailSettings::default()).unwrap();
    for m in tail.skinning() {
        assert!(m.abs_diff_eq(Affine3A::IDENTITY, 1.0e-6), "{m:?}");
    }
    for i in 0..=20 {
        let t = i as f32 / 20.0;
        let p = c.tail.centerline(t) + Vec3::new(0.0, c.tail.radius(t), 0.0);
        assert!((tail.deform(p, t) - p).length() < 1.0e-5);
    }
    // Swing the body about; the rest joints skinned by their bones land on the live joints,
    // and deform is exactly the blend of the skinning matrices.
    let (mut worst, mut spread) = (0.0f32, 0.0f32);
    for f in 0..200 {
        let x = (f as f32 * 0.1).sin() * 0.4;
        let body = Affine3A::from_rotation_translation(
            Quat::from_rotation_y(x * 0.5),
            Vec3::new(x, 0.0, 0.0),
        );
        tail.advance(DT, body);
        let skin = tail.skinning();
        for (b, m) in skin.iter().enumerate() {
            let rest = c.tail.centerline(b as f32 / TAIL_BONES as f32);
            worst = worst.max((m.transform_point3(rest) - tail.positions()[b]).length());
        }
        let end = skin[TAIL_BONES - 1].transform_point3(c.tail.centerline(1.0));
        worst = worst.max((end - tail.positions()[TAIL_BONES]).length());
        // Everywhere along the tail, blended weights included: each bone weighs in by a
        // hat of width one bone around its middle, `max(0, 1 − |t·5 − ½ − b|)`, the end
        // bones taking all of it beyond their middles.
        for k in 0..=40 {
            let t = k as f32 / 40.0;
            let p = c.tail.centerline(t) + Vec3::new(0.03, 0.04, -0.02);
            let u = (t * TAIL_BONES as f32 - 0.5).clamp(0.0, (TAIL_BONES - 1) as f32);
            let weights: Vec<f32> = (0..TAIL_BONES)
                .map(|b| (1.0 - (u - b as f32).abs()).max(0.0))
                .collect();
            assert!((weights.iter().sum::<f32>() - 1.0).abs() < 1e-6, "t = {t}");
            let blend: Vec3 = (0..TAIL_BONES)
                .map(|b| skin[b].transform_point3(p) * weights[b])
                .sum();
            let got = tail.deform(p, t);
            // (The check means something where neighbouring bones disagree.)
            for b in 0..TAIL_BONES - 1 {
                if weights[b] > 0.2 && weights[b + 1] > 0.2 {
                    spread = spread.max(
                        (skin[b].transform_point3(p) - skin[b + 1].transform_point3(p)).length(),
                    );
                }
            }
            assert!(
                (got - blend).length() < 1.0e-5,
                "frame {f}, t = {t}: deform {got}, the weights' blend {blend}"
            );
        }
    }
    assert!(
        worst < 1.0e-4,
        "skinned rest joints miss the live ones by {worst} m"
    );
    assert!(
        spread > 0.01,
        "neighbouring bones placed a blended point at most {spread} m apart"
    );
    // Moved rigidly with no swing (no gravity, settled), every entry is the body transform.
    let still = TailSettings {
        gravity_power: [0.0; TAIL_BONES],
        ..TailSettings::default()
    };
    let mut tail = CreatureTail::new(&c, still).unwrap();
    let body =
        Affine3A::from_rotation_translation(Quat::from_rotation_y(0.7), Vec3::new(0.3, 0.1, -0.2));
    tail.reset(body);
    for m in tail.skinning() {
        assert!(m.abs_diff_eq(body, 1.0e-5), "{m:?}");
    }
}

/// Stands still 10 s, then runs sideways at 3 m/s for half a second and stops; returns the
/// standing droop of the tip and the tip's sideways offset relative to the body per frame
/// after the stop.
fn run_and_stop(settings: TailSettings) -> (f32, Vec<f32>) {
    let c = Creature::default();
    let mut tail = CreatureTail::new(&c, settings).unwrap();
    let tip0 = tail.positions()[TAIL_BONES];
    for _ in 0..600 {
        tail.advance(DT, Affine3A::IDENTITY);
    }
    let droop = tip0.y - tail.positions()[TAIL_BONES].y;
    let mut x = 0.0;
    let mut after = Vec::new();
    for f in 1..=30 + 300 {
        if f <= 30 {
            x += 3.0 * DT;
        }
        tail.advance(DT, Affine3A::from_translation(Vec3::new(x, 0.0, 0.0)));
        if f > 30 {
            after.push(tail.positions()[TAIL_BONES].x - x);
        }
    }
    (droop, after)
}

#[test]
fn the_default_tail_is_lively_it_droops_a_little_swings_and_settles() {
    let (droop, after) = run_and_stop(TailSettings::default());
    let swing = after.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    // Half swings past 1 cm, and when the last one ended.
    let mut half_swings = 0;
    let mut sign = 0.0f32;
    let mut settled_at = 0;
    for (f, x) in after.iter().enumerate() {
        if x.abs() > 0.01 {
            settled_at = f + 1;
            if x.signum() != sign {
                half_swings += 1;
                sign = x.signum();
            }
        }
    }
    println!(
        "default tail: droop {droop:.4} m, swing after a 3 m/s stop {swing:.3} m, {half_swings} half swings over 1 cm, settled within 1 cm after {:.2} s",
        settled_at as f32 / 60.0
    );
    assert!((0.02..0.08).contains(&droop), "droop {droop}");
    assert!(swing > 0.2 && swing < 0.6, "swing {swing}");
    assert!(
        half_swings >= 4,
        "a lively tail rings a few times ({half_swings})"
    );
    assert!(
        settled_at < 150,
        "it settles within 2.5 s ({settled_at} frames)"
    );
    // A stiffer, draggier tail swings less: the parameters are what moves it.
    let stiff = TailSettings::uniform(20.0, 0.2, 0.5, 0.04);
    let (_, after) = run_and_stop(stiff);
    let stiff_swing = after.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    assert!(
        stiff_swing < 0.6 * swing,
        "stiff {stiff_swing} vs default {swing}"
    );
}

#[test]
fn swish_wags_the_tail_side_to_side_and_stops() {
    let c = Creature::default();
    let mut tail = CreatureTail::new(&c, TailSettings::default()).unwrap();
    for _ in 0..300 {
        tail.advance(DT, Affine3A::IDENTITY);
    }
    let still = tail.positions()[TAIL_BONES].x;
    assert!(still.abs() < 1.0e-4);
    tail.set_swish(0.35);
    assert_eq!(tail.swish_target(), 0.35);
    let mut xs = Vec::new();
    for _ in 0..240 {
        tail.advance(DT, Affine3A::IDENTITY);
        xs.push(tail.positions()[TAIL_BONES].x);
    }
    let late = &xs[120..]; // the last two seconds: eased in
    let amp = late.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let crossings = late
        .windows(2)
        .filter(|w| w[0].signum() != w[1].signum())
        .count();
    println!("swish 0.35 rad: tip amplitude {amp:.3} m, {crossings} zero crossings in 2 s");
    assert!(amp > 0.15, "the tip wags ({amp} m)");
    // 1.5 Hz: three periods in two seconds, two crossings each.
    assert!((5..=7).contains(&crossings), "{crossings} crossings");
    tail.set_swish(0.0);
    for _ in 0..300 {
        tail.advance(DT, Affine3A::IDENTITY);
    }
    let end = tail.positions()[TAIL_BONES].x;
    assert!(
        end.abs() < 0.01,
        "it comes to rest after the swish stops ({end})"
    );
}

#[test]
fn bone_frames_and_local_rotations_follow_the_swing() {
    let c = Creature::default();
    let mut tail = CreatureTail::new(&c, TailSettings::default()).unwrap();
    for f in 0..=60 {
        let body = Affine3A::from_translation(Vec3::new((f as f32 * 0.2).sin() * 0.3, 0.0, 0.0));
        tail.advance(DT, body);
    }
    let frames = tail.bone_frames();
    assert_eq!(frames.len(), TAIL_BONES);
    for (f, p) in frames.iter().zip(tail.positions()) {
        assert!((f.translation - *p).length() < 1.0e-5);
    }
    assert!(
        frames
            .iter()
            .any(|f| f.rotation.angle_between(Quat::IDENTITY) > 0.05)
    );
    let rots = tail.local_rotations();
    assert_eq!(rots.len(), TAIL_BONES + 1);
    assert!(rots.iter().any(|q| q.angle_between(Quat::IDENTITY) > 0.05));
}
