//! Tail fur rides the tail: with the tail bones whipped through large angles, fast, every
//! solver (the scalar reference, the SIMD mirror and the GPU) keeps segment lengths exact
//! and every tail root on the skinned tail surface, and they agree: SIMD with the reference
//! bit for bit, the GPU within f32 rounding.

mod solver_common;

use glam::Vec4Swizzles;
use pelt::creature::{Creature, Part, tail_whip};
use pelt::sim::{FurConfig, FurSim, StepInput};
use solver_common::{AGREE, bits, gpu, max_distance, reference_cpu};

fn whip(step: u64) -> StepInput {
    // 0.7 rad per bone (3.5 rad at the tip) at 2.5 Hz: a lash, not a sway.
    StepInput {
        contact: None,
        tail: Some(tail_whip(
            &Creature::default(),
            step as f64 / 60.0,
            0.7,
            2.5,
        )),
    }
}

#[test]
fn a_whipped_tail_keeps_its_fur_exact_on_its_surface_on_every_solver() {
    let mut config = FurConfig::new(1024, 31);
    config.idle_motion = false;
    let ctx = gpu();
    let mut reference = reference_cpu(&config);
    let mut simd = FurSim::new_cpu(&config, Creature::default()).unwrap();
    let mut gpu = FurSim::new_gpu(&config, Creature::default(), &ctx).unwrap();
    let tail: Vec<usize> = (0..reference.groom().len())
        .filter(|&i| reference.groom().roots[i].part == Part::Tail)
        .collect();
    assert!(tail.len() > 40, "only {} tail strands", tail.len());
    let start = reference.positions().unwrap();
    let (mut worst_gpu, mut farthest) = (0.0f32, 0.0f32);
    for step in 1..=90u64 {
        for sim in [&mut reference, &mut simd, &mut gpu] {
            sim.step_with(1, whip).unwrap();
            let s = sim.stats().unwrap();
            assert!(
                s.max_stretch <= 1e-5,
                "step {step}: stretch {}",
                s.max_stretch
            );
            assert!(
                s.max_root_offset <= 1e-6,
                "step {step}: a root sits {} m off its skinned place",
                s.max_root_offset
            );
            assert_eq!((s.non_finite, s.recovered_strands), (0, 0), "step {step}");
        }
        let r = reference.positions().unwrap();
        assert_eq!(
            bits(&r),
            bits(&simd.positions().unwrap()),
            "SIMD at step {step}"
        );
        let d = max_distance(&r, &gpu.positions().unwrap());
        worst_gpu = worst_gpu.max(d);
        assert!(d <= AGREE, "step {step}: GPU and reference differ by {d} m");
        for &s in &tail {
            farthest = farthest.max(r[s * 6 + 5].xyz().distance(start[s * 6 + 5].xyz()));
        }
    }
    eprintln!("whip: tail tips moved up to {farthest:.2} m; GPU vs reference ≤ {worst_gpu:.2e} m");
    assert!(farthest > 0.3, "the whip moved tail fur only {farthest} m");
    // The rest of the coat did not feel the tail: every strand off the tail is, bit for
    // bit, where the same steps without the whip put it.
    let mut unwhipped = reference_cpu(&config);
    unwhipped
        .step_with(90, |_| StepInput {
            contact: None,
            tail: None,
        })
        .unwrap();
    let whipped = reference.positions().unwrap();
    let calm = unwhipped.positions().unwrap();
    let off_tail: Vec<usize> = (0..reference.groom().len())
        .filter(|&i| reference.groom().roots[i].part != Part::Tail)
        .collect();
    assert!(
        off_tail.len() > 500,
        "only {} strands off the tail",
        off_tail.len()
    );
    let mut moved_by_time = 0;
    for &i in &off_tail {
        let (a, b) = (&whipped[i * 6..i * 6 + 6], &calm[i * 6..i * 6 + 6]);
        assert_eq!(
            bits(a),
            bits(b),
            "strand {i} ({:?}) felt the tail",
            reference.groom().roots[i].part
        );
        moved_by_time += usize::from(a[5].xyz().distance(start[i * 6 + 5].xyz()) > 1e-4);
    }
    // (Equal bits mean something only where those strands moved: measured, all of them.)
    eprintln!(
        "{moved_by_time} of {} strands off the tail moved on their own",
        off_tail.len()
    );
    assert!(
        moved_by_time * 2 > off_tail.len(),
        "only {moved_by_time} strands off the tail moved at all"
    );
}
