//! Fur on a body other than the creature: a skinned cylinder built in code that bends at
//! its middle. Roots stay on their skinned triangles at every step, on both solvers; the
//! same seed gives the same bits; the SIMD lanes give the scalar reference's bits; the GPU
//! agrees with the CPU as it does on the creature.

mod solver_common;

use glam::{Vec3, Vec4, Vec4Swizzles};
use pelt::body::{CylinderSpec, skinned_cylinder};
use pelt::sim::{CpuPath, FurBody, FurConfig, FurSim};
use solver_common::{AGREE, bits, gpu, max_distance};
use std::sync::Arc;

fn cylinder() -> FurBody {
    let (mesh, motion) = skinned_cylinder(&CylinderSpec::default());
    FurBody {
        mesh: Arc::new(mesh),
        motion: Arc::new(motion),
    }
}

fn config(strands: usize, seed: u64) -> FurConfig {
    FurConfig::new(strands, seed)
}

fn cpu_sim(strands: usize, seed: u64, path: CpuPath) -> FurSim {
    let mut sim = FurSim::new_cpu_on_body(&config(strands, seed), cylinder()).unwrap();
    sim.cpu_mut().unwrap().set_path(path);
    sim
}

/// The largest distance from a strand's root to the point of its triangle, posed
/// independently of the solver (the mesh's own skinning at the sim's time), metres.
fn worst_root_off_skin(sim: &mut FurSim) -> f32 {
    let body = sim.body().unwrap().clone();
    let pose = body.motion.pose_at(sim.time());
    let groom = sim.body_groom().unwrap().clone();
    let positions = sim.positions().unwrap();
    let mut worst = 0.0f32;
    for (root, strand) in groom.roots.iter().zip(positions.chunks(6)) {
        let t = body.mesh.triangles[root.triangle as usize];
        let [a, b, c] = t.map(|v| pose.skin_vertex(&body.mesh, v as usize).0);
        let want = a * root.barycentric.x + b * root.barycentric.y + c * root.barycentric.z;
        worst = worst.max(strand[0].xyz().distance(want));
    }
    worst
}

/// One bend of the cylinder (two seconds at 60 Hz), a step at a time.
const BEND_STEPS: u64 = 120;

#[test]
fn roots_stay_on_their_skinned_triangles_at_every_step_on_the_cpu() {
    let mut sim = cpu_sim(2_048, 5, CpuPath::Simd);
    let mut worst = 0.0f32;
    for _ in 0..BEND_STEPS {
        sim.step(1).unwrap();
        worst = worst.max(worst_root_off_skin(&mut sim));
    }
    assert!(
        worst <= 0.5e-3,
        "a root strayed {worst} m from its triangle"
    );
    // The bend moved the roots far: the check above is not about a still body.
    let stats = sim.stats().unwrap();
    assert_eq!(stats.non_finite, 0);
    assert!(stats.max_stretch <= 1e-5, "stretch {}", stats.max_stretch);
}

#[test]
fn roots_stay_on_their_skinned_triangles_at_every_step_on_the_gpu() {
    let ctx = gpu();
    let mut sim = FurSim::new_gpu_on_body(&config(2_048, 5), cylinder(), &ctx).unwrap();
    let mut worst = 0.0f32;
    // Batches of several steps per dispatch, each read back: every slot of the posed
    // vertices is used.
    for _ in 0..BEND_STEPS / 5 {
        sim.step(5).unwrap();
        worst = worst.max(worst_root_off_skin(&mut sim));
    }
    assert!(
        worst <= 0.5e-3,
        "a root strayed {worst} m from its triangle"
    );
}

#[test]
fn the_fur_moves_with_the_bend() {
    let mut sim = cpu_sim(1_024, 2, CpuPath::Simd);
    let before = sim.positions().unwrap();
    sim.step(30).unwrap(); // a quarter of the bend: the top is at its furthest
    let after = sim.positions().unwrap();
    let top_moved = before
        .chunks(6)
        .zip(after.chunks(6))
        .filter(|(b, _)| b[0].y > 0.3)
        .map(|(b, a)| b[5].xyz().distance(a[5].xyz()))
        .fold(0.0f32, f32::max);
    assert!(top_moved > 0.2, "the top's tips moved only {top_moved} m");
}

#[test]
fn the_same_seed_gives_the_same_bits_and_another_seed_another_coat() {
    let run = |seed| {
        let mut sim = cpu_sim(1_000, seed, CpuPath::Simd);
        sim.step(40).unwrap();
        sim.positions().unwrap()
    };
    let a = run(11);
    assert_eq!(bits(&a), bits(&run(11)));
    assert_ne!(bits(&a), bits(&run(12)));
}

#[test]
fn simd_lanes_give_the_scalar_references_bits_on_a_moving_body() {
    // 1,003 strands: the last three step outside the lanes.
    let mut simd = cpu_sim(1_003, 9, CpuPath::Simd);
    let mut scalar = cpu_sim(1_003, 9, CpuPath::Reference);
    for _ in 0..6 {
        simd.step(10).unwrap();
        scalar.step(10).unwrap();
        assert_eq!(
            bits(&simd.positions().unwrap()),
            bits(&scalar.positions().unwrap()),
            "step {}",
            simd.steps()
        );
        assert_eq!(bits(&simd.comb().unwrap()), bits(&scalar.comb().unwrap()));
    }
}

#[test]
fn gpu_and_cpu_agree_on_a_moving_body() {
    let ctx = gpu();
    let mut on_gpu = FurSim::new_gpu_on_body(&config(2_048, 3), cylinder(), &ctx).unwrap();
    let mut on_cpu = cpu_sim(2_048, 3, CpuPath::Reference);
    let mut worst = 0.0f32;
    for _ in 0..10 {
        on_gpu.step(6).unwrap();
        on_cpu.step(6).unwrap();
        worst = worst.max(max_distance(
            &on_gpu.positions().unwrap(),
            &on_cpu.positions().unwrap(),
        ));
    }
    assert!(worst <= AGREE, "GPU and CPU differ by {worst} m");
}

#[test]
fn a_body_coat_starts_groomed_out_of_the_skin() {
    let mut sim = cpu_sim(512, 1, CpuPath::Simd);
    let positions = sim.positions().unwrap();
    let groom = sim.body_groom().unwrap().clone();
    for (root, strand) in groom.roots.iter().zip(positions.chunks(6)) {
        let tip: Vec3 = strand[5].xyz();
        let height = (tip - root.position).dot(root.normal);
        assert!(height > 0.0, "a tip starts inside the body");
    }
    let _ = Vec4::ZERO;
}
