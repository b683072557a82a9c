//! The strand solver on both backends against the scalar reference: per-step agreement over
//! a long horizon with a several-capsule hand, invariants at every step of contact, batched
//! dispatches, frame-rate independence with a moving hand, the comb's behaviour, NaN
//! recovery, ten-hour clocks, and bad input.

mod solver_common;

use glam::{Vec3, Vec4, Vec4Swizzles};
use pelt::creature::Creature;
use pelt::hand::{CapsuleKey, CapsuleScript};
use pelt::sim::{
    Capsule, ContactMode, FurConfig, FurParams, FurSim, GUST_RATES, HandContact, MAX_CAPSULES,
    SimError, StepInput, TimeMode, rest_positions,
};
use solver_common::{AGREE, bits, gpu, max_distance, reference_cpu};

/// A hand of three overlapping capsules (a palm and two fingers) stroking down the back
/// between steps `from` and `to`, coming down from above first.
fn three_capsule_stroke(from: f64, to: f64, mode: ContactMode) -> CapsuleScript {
    let mut script = CapsuleScript::back_stroke(from, to);
    script.mode = mode;
    let palm = script.capsules[0].clone();
    let finger = |dx: f32, dz: f32, radius: f32| {
        let mut c = palm.clone();
        c.radius = radius;
        for k in &mut c.keys {
            k.a = Vec3::new(dx - 0.02, k.a.y - 0.015, k.a.z + dz);
            k.b = Vec3::new(dx + 0.02, k.b.y - 0.015, k.b.z + dz + 0.09);
        }
        c
    };
    script.capsules.push(finger(-0.05, 0.03, 0.018));
    script.capsules.push(finger(0.05, 0.03, 0.018));
    for c in &mut script.capsules {
        let first = c.keys[0];
        c.keys.insert(
            0,
            CapsuleKey {
                step: from - 20.0,
                a: first.a + Vec3::Y * 0.2,
                b: first.b + Vec3::Y * 0.2,
            },
        );
    }
    script
}

fn contact_input(script: &CapsuleScript) -> impl FnMut(u64) -> StepInput + '_ {
    |step| StepInput {
        contact: Some(script.contact_at(step as f64)),
        tail: None,
    }
}

/// Deepest point of `positions` inside any capsule of `contact`, metres.
fn deepest_inside(positions: &[Vec4], contact: &HandContact) -> f32 {
    positions
        .chunks(6)
        .flat_map(|s| &s[1..])
        .flat_map(|p| contact.capsules.iter().map(|c| -c.distance(p.xyz())))
        .fold(0.0f32, f32::max)
}

/// Checks the invariants of one state during contact; returns the points touched.
fn check_contact_step(sim: &mut FurSim, contact: &HandContact, label: &str) -> usize {
    let s = sim.stats().unwrap();
    let step = sim.steps();
    assert_eq!(s.non_finite, 0, "{label} step {step}: non-finite numbers");
    assert!(
        s.max_stretch <= 1e-5,
        "{label} step {step}: stretch {}",
        s.max_stretch
    );
    assert!(
        s.max_below_floor <= 1e-6,
        "{label} step {step}: below floor"
    );
    let positions = sim.positions().unwrap();
    let depth = deepest_inside(&positions, contact);
    assert!(
        depth <= 2e-5,
        "{label} step {step}: a point {depth} m inside the hand"
    );
    // The hand may squeeze fur under the skin plane; every strand it did not touch keeps
    // its clearance.
    let roots = sim.gpu_roots().to_vec();
    let params = *sim.params();
    let pose = sim.pose_at(sim.time());
    let untouched: Vec<usize> = (0..roots.len())
        .filter(|&i| positions[i * 6..i * 6 + 6].iter().all(|p| p.w < 0.5))
        .collect();
    let pick = |v: &[Vec4], i: usize| v[i * 6..i * 6 + 6].to_vec();
    let free_positions: Vec<Vec4> = untouched
        .iter()
        .flat_map(|&i| pick(&positions, i))
        .collect();
    let free_roots: Vec<_> = untouched.iter().map(|&i| roots[i]).collect();
    let comb = vec![Vec4::ZERO; free_roots.len()];
    let free = pelt::sim::StrandStats::measure(&free_roots, &free_positions, &comb, &params, &pose);
    assert!(
        free.max_below_skin <= 1e-5,
        "{label} step {step}: an untouched point {} m inside its skin clearance",
        free.max_below_skin
    );
    s.touched_points
}

#[test]
fn gpu_follows_the_scalar_reference_for_600_steps_with_every_invariant_kept_in_contact() {
    let config = FurConfig::new(1024, 11);
    let script = three_capsule_stroke(120.0, 330.0, ContactMode::Scratch);
    let mut cpu = reference_cpu(&config);
    let ctx = gpu();
    let mut gpu = FurSim::new_gpu(&config, Creature::default(), &ctx).unwrap();
    let (mut worst, mut worst_step) = (0.0f32, 0);
    let (mut touched_steps, mut flags_differ) = (0, 0);
    for step in 1..=600u64 {
        cpu.step_with(1, contact_input(&script)).unwrap();
        gpu.step_with(1, contact_input(&script)).unwrap();
        let (a, b) = (cpu.positions().unwrap(), gpu.positions().unwrap());
        let d = max_distance(&a, &b);
        if d > worst {
            (worst, worst_step) = (d, step);
        }
        assert!(d <= AGREE, "step {step}: GPU and reference differ by {d} m");
        let comb_d = max_distance(&cpu.comb().unwrap(), &gpu.comb().unwrap());
        assert!(comb_d <= 1e-4, "step {step}: combs differ by {comb_d}");
        flags_differ += a
            .iter()
            .zip(&b)
            .filter(|(p, q)| (p.w > 0.5) != (q.w > 0.5))
            .count();
        let contact = script.contact_at(step as f64);
        if !contact.capsules.is_empty() {
            let c = check_contact_step(&mut cpu, &contact, "reference");
            let g = check_contact_step(&mut gpu, &contact, "GPU");
            touched_steps += usize::from(c > 0 && g > 0);
        }
    }
    eprintln!(
        "GPU vs reference over 600 steps: largest difference {worst:.3e} m (step {worst_step}), \
         tolerance {AGREE:.2e} m; {touched_steps} steps with contact; {flags_differ} contact \
         flags differed"
    );
    assert!(
        touched_steps > 150,
        "the hand touched fur on only {touched_steps} steps"
    );
    // A flag differs only where a point sits on a capsule's surface to rounding.
    assert!(flags_differ <= 20, "{flags_differ} contact flags differ");
    for sim in [&mut cpu, &mut gpu] {
        let s = sim.stats().unwrap();
        assert!(
            s.max_comb > 0.05 && s.max_comb <= sim.params().comb_max + 1e-6,
            "{s:?}"
        );
    }
}

/// The first point at which two states differ in any bit, with both values.
fn first_difference(a: &[Vec4], b: &[Vec4]) -> Option<(usize, Vec4, Vec4)> {
    a.iter()
        .zip(b)
        .enumerate()
        .find(|(_, (p, q))| bits(&[**p]) != bits(&[**q]))
        .map(|(i, (p, q))| (i, *p, *q))
}

#[test]
fn simd_matches_the_reference_bit_for_bit_through_the_600_step_three_capsule_scratch() {
    // The GPU test's scratch (three capsules, 210 steps of contact), on the CPU only (it
    // takes a few seconds): where the wedge between overlapping capsules must be escaped
    // and where the SIMD path's capsule cull decides which groups test which capsules.
    // Twice the GPU test's strands, so that more of them lie under the hand.
    let config = FurConfig::new(2048, 11);
    let script = three_capsule_stroke(120.0, 330.0, ContactMode::Scratch);
    let mut reference = reference_cpu(&config);
    let mut simd = FurSim::new_cpu(&config, Creature::default()).unwrap();
    let strands = reference.groom().len();
    let mut ever_touched = vec![false; strands];
    let mut touched_steps = 0;
    for step in 1..=600u64 {
        reference.step_with(1, contact_input(&script)).unwrap();
        simd.step_with(1, contact_input(&script)).unwrap();
        let (r, s) = (reference.positions().unwrap(), simd.positions().unwrap());
        if let Some((i, p, q)) = first_difference(&r, &s) {
            panic!(
                "step {step}: strand {} point {} is {p} on the reference, {q} on SIMD",
                i / 6,
                i % 6
            );
        }
        let (rc, sc) = (reference.comb().unwrap(), simd.comb().unwrap());
        if let Some((i, p, q)) = first_difference(&rc, &sc) {
            panic!("step {step}: strand {i}'s comb is {p} on the reference, {q} on SIMD");
        }
        let mut touched_now = false;
        for (i, strand) in r.chunks(6).enumerate() {
            if strand.iter().any(|p| p.w > 0.5) {
                ever_touched[i] = true;
                touched_now = true;
            }
        }
        touched_steps += usize::from(touched_now);
    }
    let touched = ever_touched.iter().filter(|&&t| t).count();
    eprintln!(
        "SIMD = reference for 600 steps; {touched} of {strands} strands touched, on \
         {touched_steps} steps"
    );
    // The floor: the scratch must reach enough fur for bit-for-bit agreement to mean
    // something (measured: 114 strands on 231 steps).
    assert!(touched >= 90, "the hand touched only {touched} strands");
    assert!(
        touched_steps > 150,
        "the hand touched fur on only {touched_steps} steps"
    );
}

#[test]
fn a_batch_of_steps_in_one_dispatch_equals_single_steps_bit_for_bit() {
    let config = FurConfig::new(512, 5);
    let script = three_capsule_stroke(20.0, 60.0, ContactMode::Pet);
    let ctx = gpu();
    let mut single = FurSim::new_gpu(&config, Creature::default(), &ctx).unwrap();
    let mut batched = FurSim::new_gpu(&config, Creature::default(), &ctx).unwrap();
    let mut cpu_single = reference_cpu(&config);
    let mut cpu_batched = reference_cpu(&config);
    let mut simd_batched = FurSim::new_cpu(&config, Creature::default()).unwrap();
    // 3, 8, 5, 7 and 8 steps: odd and even batches, so the buffers swap roles and back.
    for n in [3u32, 8, 5, 7, 8] {
        for _ in 0..n {
            single.step_with(1, contact_input(&script)).unwrap();
            cpu_single.step_with(1, contact_input(&script)).unwrap();
        }
        batched.step_with(n, contact_input(&script)).unwrap();
        cpu_batched.step_with(n, contact_input(&script)).unwrap();
        simd_batched.step_with(n, contact_input(&script)).unwrap();
        let step = single.steps();
        let reference = cpu_single.positions().unwrap();
        assert_eq!(
            bits(&single.positions().unwrap()),
            bits(&batched.positions().unwrap()),
            "GPU at step {step}"
        );
        assert_eq!(
            bits(&reference),
            bits(&cpu_batched.positions().unwrap()),
            "CPU at step {step}"
        );
        assert_eq!(
            bits(&reference),
            bits(&simd_batched.positions().unwrap()),
            "SIMD at step {step}"
        );
        assert_eq!(
            bits(&single.comb().unwrap()),
            bits(&batched.comb().unwrap())
        );
        assert!(max_distance(&reference, &batched.positions().unwrap()) <= AGREE);
    }
    let touched = single
        .positions()
        .unwrap()
        .iter()
        .filter(|p| p.w > 0.5)
        .count();
    assert!(
        touched > 0 || single.stats().unwrap().max_comb > 0.0,
        "the hand never touched"
    );
}

/// The state after one simulated second at `fps` with the hand moving on simulated time.
fn one_second_at(fps: f64, script: &CapsuleScript) -> (Vec<Vec4>, u64) {
    let mut sim = FurSim::new_cpu(&FurConfig::new(512, 8), Creature::default()).unwrap();
    let frames = fps.round() as u32;
    for _ in 0..frames {
        sim.update_with(1.0 / fps, contact_input(script)).unwrap();
    }
    (sim.positions().unwrap(), sim.steps())
}

#[test]
fn the_same_second_with_a_moving_hand_gives_the_same_state_at_30_60_and_144_fps() {
    let script = three_capsule_stroke(25.0, 60.0, ContactMode::Pet);
    let (at60, steps60) = one_second_at(60.0, &script);
    let start = FurSim::new_cpu(&FurConfig::new(512, 8), Creature::default())
        .unwrap()
        .positions()
        .unwrap();
    assert!(max_distance(&start, &at60) > 1e-3, "the coat did not move");
    assert!(at60.iter().any(|p| p.w > 0.5), "the hand touched nothing");
    for fps in [30.0, 144.0] {
        let (state, steps) = one_second_at(fps, &script);
        assert_eq!(
            (steps, steps60),
            (60, 60),
            "{fps} fps took {steps} steps in a second"
        );
        assert_eq!(bits(&state), bits(&at60), "{fps} fps differs from 60 fps");
    }
    // A frame longer than the cap counts as the cap: time slows rather than jumps.
    let mut sim = FurSim::new_cpu(&FurConfig::new(64, 8), Creature::default()).unwrap();
    assert_eq!(
        sim.update(0.5).unwrap(),
        (pelt::sim::MAX_FRAME_SECONDS * 60.0).round() as u32
    );
    assert!((sim.time() - pelt::sim::MAX_FRAME_SECONDS).abs() < 1e-12);
    // Per-frame mode takes one step a frame whatever its length.
    let mut config = FurConfig::new(64, 8);
    config.time_mode = TimeMode::PerFrame;
    let mut sim = FurSim::new_cpu(&config, Creature::default()).unwrap();
    for _ in 0..144 {
        assert_eq!(sim.update(1.0 / 144.0).unwrap(), 1);
    }
    assert_eq!(sim.steps(), 144);
}

#[test]
fn a_stroke_combs_along_its_motion_and_the_comb_decays_at_the_configured_rate() {
    let config = FurConfig::new(4096, 21);
    let ctx = gpu();
    for (label, mut sim) in [
        (
            "CPU",
            FurSim::new_cpu(&config, Creature::default()).unwrap(),
        ),
        (
            "GPU",
            FurSim::new_gpu(&config, Creature::default(), &ctx).unwrap(),
        ),
    ] {
        comb_behaviour(&mut sim, label);
    }
}

fn comb_behaviour(sim: &mut FurSim, label: &str) {
    let strands = sim.groom().len();
    let script = three_capsule_stroke(30.0, 150.0, ContactMode::Pet);
    // The stroke's direction, from its keys.
    let keys = &script.capsules[0].keys;
    let (k0, k1) = (keys[1], keys[2]);
    let along = (((k1.a + k1.b) - (k0.a + k0.b)) * 0.5).normalize();
    let mut touched_any = vec![false; strands];
    for _ in 0..160 {
        sim.step_with(1, contact_input(&script)).unwrap();
        for (s, points) in sim.positions().unwrap().chunks(6).enumerate() {
            touched_any[s] |= points.iter().any(|p| p.w > 0.5);
        }
    }
    let touched: Vec<usize> = (0..strands).filter(|&s| touched_any[s]).collect();
    assert!(
        touched.len() > 20,
        "{label}: the stroke touched {} strands",
        touched.len()
    );
    let comb = sim.comb().unwrap();
    let combed_along = touched
        .iter()
        .filter(|&&s| comb[s].xyz().normalize_or_zero().dot(along) > 0.5)
        .count();
    assert!(
        combed_along as f32 > 0.8 * touched.len() as f32,
        "{label}: only {combed_along} of {} touched strands are combed along the stroke",
        touched.len()
    );
    let untouched_max = (0..strands)
        .filter(|&s| !touched_any[s])
        .map(|s| comb[s].xyz().length())
        .fold(0.0f32, f32::max);
    assert_eq!(
        untouched_max, 0.0,
        "{label}: strands the hand never touched were combed"
    );
    // Once the hand is gone the comb decays geometrically at the configured rate.
    let decay = sim.params().comb_decay;
    let sum = |sim: &mut FurSim| -> f32 {
        let comb = sim.comb().unwrap();
        touched.iter().map(|&s| comb[s].xyz().length()).sum()
    };
    sim.set_contact(None).unwrap();
    let before = sum(sim);
    sim.step(100).unwrap();
    let middle = sum(sim);
    sim.step(100).unwrap();
    let after = sum(sim);
    let (r1, r2) = (middle / before, after / middle);
    eprintln!("{label}: comb kept {r1:.4} then {r2:.4} per 100 steps");
    let expected = decay.powi(100);
    assert!(
        (r1 - expected).abs() < 0.01 * expected,
        "{label}: {r1} vs {expected}"
    );
    assert!(
        (r2 - expected).abs() < 0.01 * expected,
        "{label}: {r2} vs {expected}"
    );
}

#[test]
fn a_fast_scratch_combs_up_to_the_limit_and_never_past_it() {
    let mut sim = FurSim::new_cpu(&FurConfig::new(2048, 4), Creature::default()).unwrap();
    // The same stroke in a quarter of the time.
    let script = three_capsule_stroke(30.0, 60.0, ContactMode::Scratch);
    let limit = sim.params().comb_max;
    let mut most = 0.0f32;
    for _ in 0..10 {
        sim.step_with(8, contact_input(&script)).unwrap();
        most = most.max(sim.stats().unwrap().max_comb);
        assert!(
            most <= limit * (1.0 + 1e-6),
            "comb {most} past the limit {limit}"
        );
    }
    assert!(
        most >= 0.999 * limit,
        "the fastest stroke combed only to {most} of {limit}"
    );
}

#[test]
fn a_strand_gone_bad_is_reset_to_rest_counted_and_touches_no_other() {
    let ctx = gpu();
    let config = FurConfig::new(512, 6);
    let script = three_capsule_stroke(0.0, 40.0, ContactMode::Pet);
    type Make<'a> = Box<dyn Fn() -> FurSim + 'a>;
    let makers: [(&str, Make); 3] = [
        ("reference", Box::new(|| reference_cpu(&config))),
        (
            "SIMD",
            Box::new(|| FurSim::new_cpu(&config, Creature::default()).unwrap()),
        ),
        (
            "GPU",
            Box::new(|| FurSim::new_gpu(&config, Creature::default(), &ctx).unwrap()),
        ),
    ];
    for (label, make) in makers {
        let (mut hurt, mut control) = (make(), make());
        for sim in [&mut hurt, &mut control] {
            sim.step_with(12, contact_input(&script)).unwrap();
        }
        let before = hurt.positions().unwrap();
        let mut nan = before[7 * 6..8 * 6].to_vec();
        nan[3].y = f32::NAN;
        let mut inf = before[300 * 6..301 * 6].to_vec();
        inf[5].x = f32::INFINITY;
        hurt.set_strand(7, &nan).unwrap();
        hurt.set_strand(300, &inf).unwrap();
        for sim in [&mut hurt, &mut control] {
            sim.step_with(1, contact_input(&script)).unwrap();
        }
        let stats = hurt.stats().unwrap();
        assert_eq!(stats.recovered_strands, 2, "{label}: {stats:?}");
        assert_eq!(stats.non_finite, 0, "{label}");
        assert_eq!(control.stats().unwrap().recovered_strands, 0, "{label}");
        // The two strands are at rest under this step's pose ...
        let u = hurt.uniforms_at(hurt.time(), 1.0 / 60.0);
        let rest = rest_positions(&u, hurt.gpu_roots());
        let got = hurt.positions().unwrap();
        for s in [7, 300] {
            let d = max_distance(&got[s * 6..s * 6 + 6], &rest[s * 6..s * 6 + 6]);
            assert!(d < 1e-5, "{label}: strand {s} is {d} m from its rest shape");
        }
        // ... and every other strand is exactly where it is without the injection.
        let clean = control.positions().unwrap();
        for s in (0..512).filter(|&s| s != 7 && s != 300) {
            assert_eq!(
                bits(&got[s * 6..s * 6 + 6]),
                bits(&clean[s * 6..s * 6 + 6]),
                "{label}: strand {s} changed"
            );
        }
        // Stepping on stays clean.
        hurt.step_with(9, contact_input(&script)).unwrap();
        assert_eq!(hurt.stats().unwrap().recovered_strands, 2, "{label}");
    }
}

#[test]
fn ten_hours_in_gpu_and_reference_agree_and_the_gust_advances_smoothly() {
    let mut config = FurConfig::new(1024, 12);
    config.start_time = 36_000.0;
    let ctx = gpu();
    let mut cpu = reference_cpu(&config);
    let mut gpu = FurSim::new_gpu(&config, Creature::default(), &ctx).unwrap();
    // Step numbers count from the start of the run, whatever the clock says.
    let script = three_capsule_stroke(30.0, 100.0, ContactMode::Pet);
    let mut worst = 0.0f32;
    for _ in 0..15 {
        cpu.step_with(8, contact_input(&script)).unwrap();
        gpu.step_with(8, contact_input(&script)).unwrap();
        let d = max_distance(&cpu.positions().unwrap(), &gpu.positions().unwrap());
        worst = worst.max(d);
        assert!(d <= AGREE, "at 10 h GPU and reference differ by {d} m");
    }
    eprintln!("at 10 h: GPU vs reference ≤ {worst:.3e} m over 120 steps");
    assert!(
        gpu.stats().unwrap().max_comb > 0.0,
        "the hand touched nothing at 10 h"
    );
    // Each step advances every gust phase by its rate / 60, at one hour as at ten: the
    // phases are wrapped in f64 before they become f32.
    for start in [3_600.0, 36_000.0] {
        let phase = |time: f64| {
            let u = cpu.uniforms_at(time, 1.0 / 60.0);
            let p = [u.gust_time_01, u.gust_time_23];
            [
                p[0].y.atan2(p[0].x),
                p[0].w.atan2(p[0].z),
                p[1].y.atan2(p[1].x),
                p[1].w.atan2(p[1].z),
            ]
        };
        for k in 0..30 {
            let t = start + f64::from(k) / 60.0;
            let (a, b) = (phase(t), phase(t + 1.0 / 60.0));
            for (i, rate) in GUST_RATES.iter().enumerate() {
                let mut advance = f64::from(b[i] - a[i]);
                if advance < -std::f64::consts::PI {
                    advance += std::f64::consts::TAU;
                }
                let expected = rate / 60.0;
                assert!(
                    (advance - expected).abs() < 2e-6,
                    "at {t} s the gust phase {i} advanced {advance}, expected {expected}"
                );
            }
        }
    }
}

#[test]
fn same_seed_same_state_bit_for_bit() {
    let script = three_capsule_stroke(0.0, 30.0, ContactMode::Pet);
    let run = || {
        let mut sim = FurSim::new_cpu(&FurConfig::new(256, 77), Creature::default()).unwrap();
        sim.step_with(40, contact_input(&script)).unwrap();
        sim.positions().unwrap()
    };
    assert_eq!(bits(&run()), bits(&run()));
}

#[test]
fn bad_input_is_a_clear_error() {
    let creature = Creature::default;
    let err = FurSim::new_cpu(&FurConfig::new(0, 1), creature()).unwrap_err();
    assert!(err.to_string().contains("strand count 0"), "{err}");
    let err = FurSim::new_cpu(&FurConfig::new(usize::MAX, 1), creature()).unwrap_err();
    assert!(err.to_string().contains("out of range"), "{err}");

    let mut config = FurConfig::new(64, 1);
    config.params = FurParams {
        damping: f32::NAN,
        ..FurParams::default()
    };
    let err = FurSim::new_cpu(&config, creature()).unwrap_err();
    assert!(
        matches!(
            err,
            SimError::Parameter {
                name: "damping",
                ..
            }
        ),
        "{err}"
    );
    config.params = FurParams {
        floor: f32::INFINITY,
        ..FurParams::default()
    };
    assert!(matches!(
        FurSim::new_cpu(&config, creature()),
        Err(SimError::Parameter { name: "floor", .. })
    ));

    let mut sim = FurSim::new_cpu(&FurConfig::new(64, 1), creature()).unwrap();
    assert!(matches!(sim.update(f64::NAN), Err(SimError::FrameTime(_))));
    assert_eq!(sim.update(-1.0).unwrap(), 0);
    let good = HandContact {
        capsules: vec![Capsule::between(Vec3::ZERO, Vec3::X, 0.05, Vec3::ZERO)],
        mode: ContactMode::Pet,
    };
    sim.set_contact(Some(good.clone())).unwrap();
    let nan = HandContact {
        capsules: vec![Capsule::between(Vec3::ZERO, Vec3::NAN, 0.05, Vec3::ZERO)],
        mode: ContactMode::Pet,
    };
    assert!(matches!(
        sim.set_contact(Some(nan.clone())),
        Err(SimError::BadCapsule { index: 0 })
    ));
    // A capsule of radius 1e38 (its square is infinite in f32) took in every strand; one
    // far out is no hand either. Both are refused, naming the capsule; one a thousand
    // metres across at the origin is still a capsule.
    let capsule = |center: Vec3, radius: f32| HandContact {
        capsules: vec![
            Capsule::between(Vec3::ZERO, Vec3::X, 0.05, Vec3::ZERO),
            Capsule::between(center, center + Vec3::X, radius, Vec3::ZERO),
        ],
        mode: ContactMode::Pet,
    };
    for (center, radius) in [(Vec3::ZERO, 1e38), (Vec3::new(0.0, 2e6, 0.0), 0.05)] {
        let err = sim.set_contact(Some(capsule(center, radius))).unwrap_err();
        assert!(
            matches!(err, SimError::CapsuleOutOfReach { index: 1, .. }),
            "{err}"
        );
    }
    sim.set_contact(Some(capsule(Vec3::ZERO, 500.0))).unwrap();
    // A script checked as read (its ends within the limit) runs to its end: the solver's
    // check of the same capsules, as centre and half-axis between interpolated keys,
    // rounds differently and refused these two mid-run.
    for script in [
        r#"{"mode":"pet","capsules":[{"radius":1,"keys":[
            {"step":1,"a":[999999,0,0],"b":[-999999,0,0]},
            {"step":18,"a":[999999,0,0],"b":[-999999,0,0]}]}]}"#,
        r#"{"mode":"pet","capsules":[{"radius":94044.6875,"keys":[
            {"step":5,"a":[905955.3125,0,0],"b":[552922.875,0,0]}]}]}"#,
    ] {
        let script = pelt::hand::CapsuleScript::from_json(script).unwrap();
        for tenth in 0..=200 {
            let step = f64::from(tenth) / 10.0;
            let contact = script.contact_at(step);
            assert!(
                contact.validate().is_ok(),
                "step {step}: {:?}",
                contact.validate()
            );
        }
    }
    sim.set_contact(Some(good.clone())).unwrap();
    let steps = sim.steps();
    assert!(
        sim.step_with(3, |_| StepInput {
            contact: Some(nan.clone()),
            tail: None
        })
        .is_err()
    );
    assert_eq!(sim.steps(), steps, "a rejected hand took steps");
    let zero_radius = HandContact {
        capsules: vec![Capsule::between(Vec3::ZERO, Vec3::X, 0.0, Vec3::ZERO)],
        mode: ContactMode::Hover,
    };
    assert!(sim.set_contact(Some(zero_radius)).is_err());
    let too_many = HandContact {
        capsules: vec![Capsule::between(Vec3::ZERO, Vec3::X, 0.05, Vec3::ZERO); MAX_CAPSULES + 1],
        mode: ContactMode::Pet,
    };
    assert!(matches!(
        sim.set_contact(Some(too_many)),
        Err(SimError::TooManyCapsules { .. })
    ));
    let mut tail = [glam::Affine3A::IDENTITY; pelt::creature::TAIL_BONES];
    tail[2].translation.x = f32::NAN;
    assert!(sim.set_tail_pose(Some(tail)).is_err());
    assert!(matches!(
        sim.set_strand(64, &[Vec4::ZERO; 6]),
        Err(SimError::NoSuchStrand {
            strand: 64,
            count: 64
        })
    ));
    assert!(matches!(
        sim.set_strand(0, &[Vec4::ZERO; 5]),
        Err(SimError::StateSize { .. })
    ));
    // The rejected input left the state intact: stepping still works and stays finite.
    sim.step(5).unwrap();
    assert_eq!(sim.stats().unwrap().non_finite, 0);
    let mut config = FurConfig::new(64, 1);
    config.start_time = f64::INFINITY;
    assert!(FurSim::new_cpu(&config, creature()).is_err());

    // More strands than the GPU can hold is an error before any allocation.
    let ctx = gpu();
    let max = pelt::sim::max_strands(&ctx.device.limits());
    let err = FurSim::new_gpu(&FurConfig::new(max + 64, 1), creature(), &ctx).unwrap_err();
    assert!(matches!(err, SimError::StrandCount { .. }), "{err}");
}
