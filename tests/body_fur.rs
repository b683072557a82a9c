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
        groom: None,
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

/// The cylinder's coat drawn from the front, framed on its fur, with an ID target.
fn furred_cylinder_picture(
    preset: pelt::render::CameraPreset,
    bend_steps: u32,
) -> pelt::render::Image {
    use pelt::render::{
        Camera, FurRenderer, OFFSCREEN_FORMAT, RenderSettings, Scene, TargetLayout,
    };
    let ctx = gpu();
    let body = cylinder();
    let mut sim = FurSim::new_gpu_on_body(&config(8_192, 4), body.clone(), &ctx).unwrap();
    sim.step(bend_steps).unwrap();
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, true);
    let mut renderer = FurRenderer::new(
        &ctx.device,
        &ctx.queue,
        layout,
        sim.creature(),
        RenderSettings::default(),
    )
    .unwrap();
    renderer.set_strands_from_sim(&sim).unwrap();
    let pose = body.motion.pose_at(sim.time());
    renderer.set_body_surface(Some(&pelt::render::mesh::body_surface(&body.mesh, &pose)));
    let positions = sim.positions().unwrap();
    let (lo, hi) = positions.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(p.xyz()), hi.max(p.xyz())),
    );
    let camera = Camera::framing(preset, lo, hi);
    let mut scene = Scene::new(camera, sim.pose_at(sim.time()));
    scene.positions_index = sim.gpu().unwrap().current_index();
    let image = renderer.render_image(&scene, 320, 320).unwrap();
    if let Some(dir) = std::env::var_os("PELT_TEST_PICTURES") {
        let name = format!("body_cylinder_{}_{bend_steps}.png", preset.name());
        image
            .save_png(&std::path::Path::new(&dir).join(name))
            .unwrap();
    }
    image
}

/// Hair's share of the middle of the hair's own box in the picture, and the mean colour of
/// the hair in its top and bottom fifths.
fn coverage_and_colours(image: &pelt::render::Image) -> (f64, [f64; 3], [f64; 3]) {
    let hair = pelt::render::ids::HAIR;
    let is_hair = |x, y| image.id(x, y) == Some(hair);
    let (mut x0, mut x1, mut y0, mut y1) = (u32::MAX, 0, u32::MAX, 0);
    for y in 0..image.height {
        for x in 0..image.width {
            if is_hair(x, y) {
                (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
            }
        }
    }
    assert!(x1 > x0 && y1 > y0, "no hair in the picture");
    let (w, h) = (x1 - x0, y1 - y0);
    let (mut inside, mut covered) = (0u32, 0u32);
    for y in y0 + h / 5..y1 - h / 5 {
        for x in x0 + w * 2 / 5..x1 - w * 2 / 5 {
            inside += 1;
            covered += u32::from(is_hair(x, y));
        }
    }
    let mean = |rows: std::ops::Range<u32>| {
        let (mut sum, mut n) = ([0.0f64; 3], 0.0f64);
        for y in rows {
            for x in x0..=x1 {
                if is_hair(x, y) {
                    let p = image.pixel(x, y).unwrap();
                    for c in 0..3 {
                        sum[c] += f64::from(p[c]);
                    }
                    n += 1.0;
                }
            }
        }
        sum.map(|s| s / n.max(1.0))
    };
    (
        f64::from(covered) / f64::from(inside.max(1)),
        mean(y0..y0 + h / 5),
        mean(y1 - h / 5..y1),
    )
}

#[test]
fn a_render_of_the_furred_cylinder_is_covered_in_hair_coloured_by_its_texture() {
    for preset in [
        pelt::render::CameraPreset::Front,
        pelt::render::CameraPreset::Side,
    ] {
        let image = furred_cylinder_picture(preset, 45);
        let (coverage, top, bottom) = coverage_and_colours(&image);
        assert!(
            coverage >= 0.6,
            "{}: hair covers {coverage:.3} of the body's middle",
            preset.name()
        );
        // The texture's upper half is orange (red over blue), its lower half blue.
        assert!(top[0] > top[2] * 1.3, "{}: top {top:?}", preset.name());
        assert!(
            bottom[2] > bottom[0] * 1.3,
            "{}: bottom {bottom:?}",
            preset.name()
        );
    }
}

#[test]
fn the_petting_scene_grows_its_coat_on_a_body_and_draws_the_body_as_it_moves() {
    use pelt::render::{Camera, CameraPreset, DebugMode, OFFSCREEN_FORMAT, TargetLayout};
    use pelt::{SimulatedFur, SimulatedFurOptions};
    let ctx = gpu();
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, true);
    let mut options = SimulatedFurOptions::new(2_048, 2, layout);
    options.body = Some(cylinder());
    let mut fur = SimulatedFur::new(&ctx, &options).unwrap();
    // A quarter of the bend: the body drawn must be the posed one.
    for _ in 0..30 {
        fur.update(1.0 / 60.0).unwrap();
    }
    let spec = CylinderSpec::default();
    // The body stands on the floor: the solver's floor is at its lowest point.
    assert!((fur.hair().params().floor - spec.base).abs() < 1e-6);
    let reach = Vec3::new(0.6, 0.0, 0.6);
    let lo = Vec3::new(0.0, spec.base, 0.0) - reach;
    let hi = Vec3::new(0.0, spec.base + spec.height, 0.0) + reach;
    let camera = Camera::framing(CameraPreset::Side, lo, hi);
    fur.set_debug_mode(DebugMode::Skin);
    let image = fur.render_image(&camera, 240, 240).unwrap();
    if let Some(dir) = std::env::var_os("PELT_TEST_PICTURES") {
        let path = std::path::Path::new(&dir).join("body_cylinder_scene_skin.png");
        image.save_png(&path).unwrap();
    }
    // The body alone (hair hidden): its lower half blue, its upper half orange, and the
    // upper half leaning off the vertical the bend gives it.
    let skin = pelt::render::ids::SKIN;
    let mut rows: Vec<(u32, f64, f64)> = Vec::new(); // (y, mean x, blue minus red)
    for y in 0..image.height {
        let (mut n, mut sx, mut tint) = (0.0, 0.0, 0.0);
        for x in 0..image.width {
            if image.id(x, y) == Some(skin) {
                let p = image.pixel(x, y).unwrap();
                n += 1.0;
                sx += f64::from(x);
                tint += f64::from(p[2]) - f64::from(p[0]);
            }
        }
        if n > 3.0 {
            rows.push((y, sx / n, tint / n));
        }
    }
    assert!(rows.len() > 60, "the body covers only {} rows", rows.len());
    let k = rows.len() / 5;
    let top = &rows[..k];
    let bottom = &rows[rows.len() - k..];
    let mean = |r: &[(u32, f64, f64)], f: fn(&(u32, f64, f64)) -> f64| {
        r.iter().map(f).sum::<f64>() / r.len() as f64
    };
    assert!(mean(top, |r| r.2) < -20.0, "the top is not orange");
    assert!(mean(bottom, |r| r.2) > 20.0, "the bottom is not blue");
    let lean = (mean(top, |r| r.1) - mean(bottom, |r| r.1)).abs();
    assert!(lean > 15.0, "the top leans only {lean} px off the bottom");
}
