//! The strand solver on both backends: invariants over a long run, GPU against CPU over a
//! short one, hand contact and combing, frame-rate independence, and bad input.

use glam::{Vec3, Vec4, Vec4Swizzles};
use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::sim::{
    Capsule, CapsuleKey, CapsuleScript, ContactMode, FurConfig, FurParams, FurSim, HandContact,
    MAX_CAPSULES, SimError, TimeMode,
};

fn gpu() -> GpuContext {
    GpuContext::new().expect("a wgpu adapter (CI installs lavapipe: mesa-vulkan-drivers)")
}

/// The library's back stroke between `from` and `to` steps.
fn stroke(from: f64, to: f64) -> CapsuleScript {
    CapsuleScript::back_stroke(from, to)
}

fn run_with(sim: &mut FurSim, script: Option<&CapsuleScript>, steps: u32) {
    for _ in 0..steps {
        let next = sim.steps() as f64 + 1.0;
        sim.set_contact(script.map(|s| s.contact_at(next))).unwrap();
        sim.step(1).unwrap();
    }
}

/// The largest distance between corresponding points of two states.
fn max_distance(a: &[Vec4], b: &[Vec4]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p.xyz() - q.xyz()).length())
        .fold(0.0f32, f32::max)
}

fn check_invariants(sim: &mut FurSim, label: &str) {
    let s = sim.stats().unwrap();
    eprintln!("{label}: {s:?}");
    assert_eq!(s.non_finite, 0, "{label}: non-finite numbers");
    assert!(
        s.max_stretch <= 1e-5,
        "{label}: a segment is {} m off its rest length",
        s.max_stretch
    );
    assert!(
        s.max_below_floor <= 1e-6,
        "{label}: a point is {} m below the floor",
        s.max_below_floor
    );
    assert!(
        s.max_below_skin <= 1e-5,
        "{label}: a point is {} m inside the skin clearance",
        s.max_below_skin
    );
    assert!(
        s.max_comb <= 1.3 + 1e-5,
        "{label}: comb magnitude {}",
        s.max_comb
    );
}

#[test]
fn invariants_hold_after_600_steps_on_both_solvers() {
    let config = FurConfig::new(2048, 3);
    let script = stroke(100.0, 300.0);
    let mut cpu = FurSim::new_cpu(&config, Creature::default()).unwrap();
    run_with(&mut cpu, Some(&script), 600);
    check_invariants(&mut cpu, "CPU");
    let ctx = gpu();
    let mut gpu = FurSim::new_gpu(&config, Creature::default(), &ctx).unwrap();
    run_with(&mut gpu, Some(&script), 600);
    check_invariants(&mut gpu, "GPU");
    // The stroke did comb something on both, and it has been decaying since.
    for comb in [cpu.comb().unwrap(), gpu.comb().unwrap()] {
        assert!(comb.iter().any(|c| c.xyz().length() > 0.05));
    }
}

#[test]
fn gpu_and_cpu_agree_over_a_short_horizon() {
    let config = FurConfig::new(4096, 11);
    let script = stroke(0.0, 40.0);
    let mut touched = 0;
    let mut cpu = FurSim::new_cpu(&config, Creature::default()).unwrap();
    let ctx = gpu();
    let mut gpu = FurSim::new_gpu(&config, Creature::default(), &ctx).unwrap();
    for steps in [1u32, 9, 20] {
        run_with(&mut cpu, Some(&script), steps);
        run_with(&mut gpu, Some(&script), steps);
        let a = cpu.positions().unwrap();
        let b = gpu.positions().unwrap();
        let worst = max_distance(&a, &b);
        let comb_worst = max_distance(&cpu.comb().unwrap(), &gpu.comb().unwrap());
        eprintln!(
            "after {} steps: positions differ by ≤ {worst:.2e} m, comb by ≤ {comb_worst:.2e}",
            cpu.steps()
        );
        assert!(
            worst < 2e-4,
            "GPU and CPU positions differ by {worst} m after {} steps",
            cpu.steps()
        );
        assert!(
            comb_worst < 2e-3,
            "GPU and CPU comb differ by {comb_worst} after {} steps",
            cpu.steps()
        );
        touched += a.iter().filter(|p| p.w > 0.5).count();
        // Contact flags are identical unless a point sits on a capsule's surface.
        let flags_differ = a
            .iter()
            .zip(&b)
            .filter(|(p, q)| (p.w > 0.5) != (q.w > 0.5))
            .count();
        assert!(flags_differ <= 2, "{flags_differ} contact flags differ");
    }
    assert!(
        touched > 10,
        "the hand touched only {touched} points: the comparison missed contact"
    );
}

#[test]
fn a_swept_capsule_leaves_no_point_inside_and_combs_along_its_motion() {
    let config = FurConfig::new(4096, 21);
    sweep(
        &mut FurSim::new_cpu(&config, Creature::default()).unwrap(),
        "CPU",
    );
    let ctx = gpu();
    sweep(
        &mut FurSim::new_gpu(&config, Creature::default(), &ctx).unwrap(),
        "GPU",
    );
}

fn sweep(sim: &mut FurSim, label: &str) {
    let strands = sim.groom().len();
    let script = stroke(30.0, 150.0);
    let velocity = Vec3::new(0.0, -0.095, -0.4) * (60.0 / 120.0);
    // The hand comes down from above onto the back, then strokes.
    let mut script = script;
    let first = script.capsules[0].keys[0];
    script.capsules[0].keys.insert(
        0,
        CapsuleKey {
            step: 0.0,
            a: first.a + Vec3::Y * 0.2,
            b: first.b + Vec3::Y * 0.2,
        },
    );
    let mut deepest = 0.0f32;
    let mut touched_any = vec![false; strands];
    for step in 1..=160u32 {
        let contact = script.contact_at(f64::from(step));
        sim.set_contact(Some(contact.clone())).unwrap();
        sim.step(1).unwrap();
        let positions = sim.positions().unwrap();
        for (s, points) in positions.chunks(6).enumerate() {
            for p in &points[1..] {
                for c in &contact.capsules {
                    deepest = deepest.max(-c.distance(p.xyz()));
                }
                if p.w > 0.5 {
                    touched_any[s] = true;
                }
            }
        }
    }
    eprintln!("{label}: deepest point inside the capsule during the sweep: {deepest:.2e} m");
    assert!(
        deepest < 2e-5,
        "{label}: a point sat {deepest} m inside the capsule"
    );
    let touched: Vec<usize> = (0..strands).filter(|&s| touched_any[s]).collect();
    assert!(
        touched.len() > 20,
        "the stroke touched only {} strands",
        touched.len()
    );
    // Combed along the stroke: the comb (body space, which is world space up to the
    // breathing sway) points down the back, with the capsule's motion.
    let comb = sim.comb().unwrap();
    let along = touched
        .iter()
        .filter(|&&s| comb[s].xyz().normalize_or_zero().dot(velocity.normalize()) > 0.5)
        .count();
    assert!(
        along as f32 > 0.8 * touched.len() as f32,
        "only {along} of {} touched strands are combed along the stroke",
        touched.len()
    );
    let untouched_max = (0..strands)
        .filter(|&s| !touched_any[s])
        .map(|s| comb[s].xyz().length())
        .fold(0.0f32, f32::max);
    assert_eq!(
        untouched_max, 0.0,
        "strands the hand never touched were combed"
    );
    // Then the comb decays by 0.994 a step once the hand is gone.
    let before: f32 = touched.iter().map(|&s| comb[s].xyz().length()).sum();
    sim.set_contact(None).unwrap();
    sim.step(200).unwrap();
    let comb = sim.comb().unwrap();
    let after: f32 = touched.iter().map(|&s| comb[s].xyz().length()).sum();
    let expected = before * 0.994f32.powi(200);
    assert!(
        (after - expected).abs() < 0.02 * expected,
        "comb sum {after}, expected {expected}"
    );
}

/// The state after `seconds` of frames at `fps`, the steps taken, and how far the coat
/// moved from where it started.
fn run_frames(mode: TimeMode, fps: f64, seconds: f64) -> (Vec<Vec4>, u64, f32) {
    let mut config = FurConfig::new(512, 8);
    config.time_mode = mode;
    let mut sim = FurSim::new_cpu(&config, Creature::default()).unwrap();
    let start = sim.positions().unwrap();
    let frames = (seconds * fps).round() as u32;
    for _ in 0..frames {
        sim.update(1.0 / fps).unwrap();
    }
    let end = sim.positions().unwrap();
    let moved = max_distance(&start, &end);
    (end, sim.steps(), moved)
}

#[test]
fn fixed_steps_do_not_depend_on_frame_rate_and_per_frame_steps_do() {
    let (a, steps_a, moved_a) = run_frames(TimeMode::Fixed, 30.0, 1.0);
    let (b, steps_b, _) = run_frames(TimeMode::Fixed, 144.0, 1.0);
    assert_eq!(
        (steps_a, steps_b),
        (60, 60),
        "fixed mode takes 60 steps a second"
    );
    assert!(
        moved_a > 1e-3,
        "the coat did not move ({moved_a} m): nothing was compared"
    );
    assert_eq!(
        bytemuck::cast_slice::<Vec4, u8>(&a),
        bytemuck::cast_slice::<Vec4, u8>(&b)
    );
    let (c, steps_c, _) = run_frames(TimeMode::PerFrame, 30.0, 1.0);
    let (d, steps_d, _) = run_frames(TimeMode::PerFrame, 144.0, 1.0);
    assert_eq!(
        (steps_c, steps_d),
        (30, 144),
        "per-frame mode takes a step a frame"
    );
    let worst = max_distance(&c, &d);
    eprintln!("per-frame mode, 30 vs 144 fps: points differ by up to {worst:.2e} m");
    assert!(
        worst > 2e-4,
        "per-frame mode moved the same at 30 and 144 fps ({worst})"
    );
}

#[test]
fn same_seed_same_state_bit_for_bit() {
    let run = || {
        let mut sim = FurSim::new_cpu(&FurConfig::new(256, 77), Creature::default()).unwrap();
        run_with(&mut sim, Some(&stroke(0.0, 30.0)), 40);
        sim.positions().unwrap()
    };
    assert_eq!(
        bytemuck::cast_slice::<Vec4, u8>(&run()),
        bytemuck::cast_slice::<Vec4, u8>(&run())
    );
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
    sim.set_contact(Some(good)).unwrap();
    let nan = HandContact {
        capsules: vec![Capsule::between(Vec3::ZERO, Vec3::NAN, 0.05, Vec3::ZERO)],
        mode: ContactMode::Pet,
    };
    assert!(matches!(
        sim.set_contact(Some(nan)),
        Err(SimError::BadCapsule { index: 0 })
    ));
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
    // The rejected hands left the state intact: stepping still works and stays finite.
    sim.step(5).unwrap();
    assert_eq!(sim.stats().unwrap().non_finite, 0);

    // More strands than the GPU can hold is an error before any allocation.
    let ctx = gpu();
    let max = pelt::sim::max_strands(&ctx.device.limits());
    let err = FurSim::new_gpu(&FurConfig::new(max + 64, 1), creature(), &ctx).unwrap_err();
    assert!(matches!(err, SimError::StrandCount { .. }), "{err}");

    // Scripts: malformed JSON and nonsense values.
    assert!(CapsuleScript::from_json("{").is_err());
    let err = CapsuleScript::from_json(
        r#"{"mode":"pet","capsules":[{"radius":-1,"keys":[{"step":0,"a":[0,0,0],"b":[0,0,1]}]}]}"#,
    )
    .unwrap_err();
    assert!(err.to_string().contains("radius"), "{err}");
}
