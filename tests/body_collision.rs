//! The body's distance field in both solvers: strands kept out of a skinned body (the
//! bending cylinder built in code and the Fox sample walking), measured by the exact
//! `fraction_inside` (it never reads the grid); the SIMD lanes give the scalar reference's
//! bits with the field on; the GPU agrees with the CPU as it does on the creature.

mod solver_common;

use glam::{Vec3, Vec4Swizzles};
use pelt::body::{
    BodyOptions, CylinderSpec, FieldOptions, LoadedBody, fraction_inside, skinned_cylinder,
};
use pelt::sim::{CpuPath, FurBody, FurConfig, FurSim};
use solver_common::{AGREE, bits, gpu, max_distance};
use std::sync::Arc;

/// The goal's depth (metres) and the share of points allowed deeper.
const DEPTH: f32 = 0.001;
const ALLOWED: f64 = 0.001;

/// The worst share of the walking Fox's points left more than [`DEPTH`] inside that the
/// step reaches now (the goal is [`ALLOWED`]; docs/architecture.md says what is left).
/// The groom's fur no longer than its part is thick took it from 0.483% to 0.601%: the
/// shorter strands of the legs keep all six points near the skin that folds as they walk.
const FOX_REACHED: f64 = 0.0065;

fn cylinder() -> FurBody {
    // Bent far enough that the inner side of the bend folds over its fur.
    let spec = CylinderSpec {
        bend: 1.4,
        ..CylinderSpec::default()
    };
    let (mesh, motion) = skinned_cylinder(&spec);
    FurBody {
        mesh: Arc::new(mesh),
        motion: Arc::new(motion),
        groom: None,
    }
}

fn fox() -> FurBody {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bodies/Fox.glb");
    let loaded = LoadedBody::read(&path, &BodyOptions { height: 0.6 }).unwrap();
    let motion = loaded.motion(Some("Walk")).unwrap();
    FurBody {
        mesh: Arc::new(loaded.mesh),
        motion: Arc::from(motion),
        groom: None,
    }
}

fn config(strands: usize, seed: u64, field: bool, body: &FurBody) -> FurConfig {
    let mut c = FurConfig::new(strands, seed);
    if !field {
        c.body_field = None;
    }
    if let Some(y) = body.lowest_point() {
        c.params.floor = y;
    }
    c
}

fn cpu_sim(body: &FurBody, strands: usize, seed: u64, field: bool, path: CpuPath) -> FurSim {
    cpu_sim_of(&config(strands, seed, field, body), body, path)
}

/// The CPU solver on `body` as `config` says, stepping by `path`.
fn cpu_sim_of(config: &FurConfig, body: &FurBody, path: CpuPath) -> FurSim {
    let mut sim = FurSim::new_cpu_on_body(config, body.clone()).unwrap();
    sim.cpu_mut().unwrap().set_path(path);
    sim
}

/// The share of simulated points (1..5 of every strand) more than [`DEPTH`] inside the
/// body as its own skinning poses it at the sim's time.
fn inside_now(sim: &mut FurSim) -> f64 {
    let body = sim.body().unwrap().clone();
    let pose = body.motion.pose_at(sim.time());
    let positions = sim.positions().unwrap();
    let points: Vec<Vec3> = positions
        .chunks(6)
        .flat_map(|s| s[1..].iter().map(|p| p.xyz()))
        .collect();
    fraction_inside(&body.mesh, &pose, &points, DEPTH)
}

/// The worst inside share over `samples` looks, `every` steps apart, after `settle` steps.
fn worst_inside(sim: &mut FurSim, settle: u32, every: u32, samples: u32) -> f64 {
    sim.step(settle).unwrap();
    let mut worst = inside_now(sim);
    for _ in 0..samples {
        sim.step(every).unwrap();
        worst = worst.max(inside_now(sim));
    }
    worst
}

#[test]
fn the_field_keeps_the_bending_cylinders_coat_out_of_it() {
    let body = cylinder();
    // Settled, then a whole bend (two seconds) looked at every sixth of a second.
    let with = worst_inside(
        &mut cpu_sim(&body, 2_048, 7, true, CpuPath::Simd),
        60,
        10,
        12,
    );
    let without = worst_inside(
        &mut cpu_sim(&body, 2_048, 7, false, CpuPath::Simd),
        60,
        10,
        12,
    );
    eprintln!("cylinder: inside with the field {with:.5}, without {without:.5}");
    assert!(
        with <= ALLOWED,
        "{with} of the points are inside the cylinder"
    );
    assert!(
        without >= 5.0 * ALLOWED,
        "without the field only {without} are inside: the bend no longer tests the field"
    );
}

#[test]
fn the_field_keeps_the_walking_foxs_coat_out_of_it() {
    let body = fox();
    let mut sim = cpu_sim(&body, 4_096, 3, true, CpuPath::Simd);
    let with = worst_inside(&mut sim, 60, 15, 6);
    let without = worst_inside(
        &mut cpu_sim(&body, 4_096, 3, false, CpuPath::Simd),
        60,
        15,
        6,
    );
    eprintln!("fox: inside with the field {with:.5}, without {without:.5}");
    // The field must at least halve what sinks; the goal's 0.1% is not reached on the
    // walking fox yet (see docs/architecture.md).
    assert!(
        with <= 0.5 * without,
        "with the field {with} of the points are inside the fox, without {without}"
    );
    // What the step reaches today, and what it loses without the push along the normal or
    // without the turn that keeps a segment's length (either alone leaves more inside):
    // the bound that says each is needed.
    assert!(
        with <= FOX_REACHED,
        "with the field {with} of the points are inside the fox, more than {FOX_REACHED}"
    );
    assert_eq!(sim.stats().unwrap().non_finite, 0);
}

/// The Fox standing still: once its coat has settled, no point keeps jumping. A field that
/// disagreed with itself by centimetres within millimetres (a neighbour's grid calling
/// the skin's outside deep inside) threw a few strands out and stiffness brought them back,
/// in three-step cycles that never ended (up to 8.7 mm a step).
#[test]
fn the_standing_foxs_coat_comes_to_rest() {
    let largest = settled_moves(&standing("Fox.glb"))
        .into_iter()
        .fold(0.0f32, f32::max);
    eprintln!("the standing Fox's coat: largest move in a step {largest} m");
    assert!(
        largest <= 0.002,
        "a point still moves {largest} m in a step"
    );
}

/// The VRM avatar standing still: its default coat comes to rest too. Fur grown as long as
/// the groom's cap under its chin and in the creases where its pieces meet lay pressed into
/// the other part, and the field and the strands' stiffness pushed it to and fro (76 points
/// more than 1 mm a step, up to 24 mm): the default groom now grows fur no longer than the
/// room in front of it (14 points left), nor than its part is thick (8 left).
#[test]
fn the_standing_avatars_coat_comes_to_rest() {
    let worst = settled_moves(&standing("cryptovoxels.vrm"));
    let moving = worst.iter().filter(|&&w| w > 0.001).count();
    let largest = worst.iter().copied().fold(0.0f32, f32::max);
    eprintln!(
        "the standing avatar's coat: {moving} points move more than 1 mm a step, the largest {largest} m"
    );
    assert!(
        moving <= 10 && largest <= 0.005,
        "{moving} points move more than 1 mm in a step, the largest {largest} m"
    );
}

/// A body of `tests/bodies/` at its default height, in its rest pose.
fn standing(file: &str) -> FurBody {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bodies")
        .join(file);
    let height = pelt::body::DEFAULT_BODY_HEIGHT;
    let loaded = LoadedBody::read(&path, &BodyOptions { height }).unwrap();
    let motion = loaded.motion(None).unwrap();
    FurBody {
        mesh: Arc::new(loaded.mesh),
        motion: Arc::from(motion),
        groom: None,
    }
}

/// Each point's largest move in a step over 30 steps, once 4,096 strands of the default
/// groom have settled for 300 on `body`.
fn settled_moves(body: &FurBody) -> Vec<f32> {
    let mut sim = cpu_sim(body, 4_096, 1, true, CpuPath::Simd);
    sim.step(300).unwrap();
    let mut before = sim.positions().unwrap();
    let mut worst = vec![0.0f32; before.len()];
    for _ in 0..30 {
        sim.step(1).unwrap();
        let now = sim.positions().unwrap();
        for ((w, a), b) in worst.iter_mut().zip(&now).zip(&before) {
            *w = w.max((a.xyz() - b.xyz()).length());
        }
        before = now;
    }
    worst
}

#[test]
fn simd_lanes_give_the_scalar_references_bits_with_the_field() {
    // The cylinder (two bones) and the walking Fox (many grids: neighbouring lanes ask
    // different candidates, points inside one box and outside another).
    for (name, body) in [("cylinder", cylinder()), ("fox", fox())] {
        // 1,003 strands: the last three step outside the lanes.
        let mut simd = cpu_sim(&body, 1_003, 9, true, CpuPath::Simd);
        let mut scalar = cpu_sim(&body, 1_003, 9, true, CpuPath::Reference);
        let mut plain = cpu_sim(&body, 1_003, 9, false, CpuPath::Simd);
        for _ in 0..6 {
            simd.step(10).unwrap();
            scalar.step(10).unwrap();
            plain.step(10).unwrap();
            assert_eq!(
                bits(&simd.positions().unwrap()),
                bits(&scalar.positions().unwrap()),
                "{name}: step {}",
                simd.steps()
            );
        }
        // The field acted: the coat differs from the one the skin planes alone keep.
        let moved = max_distance(&simd.positions().unwrap(), &plain.positions().unwrap());
        assert!(moved > 1e-3, "{name}: the field moved no point ({moved} m)");
    }
}

#[test]
fn gpu_and_cpu_agree_with_the_field() {
    let ctx = gpu();
    let body = cylinder();
    // The floor out of the coat's reach: a tip lying on the floor slides along it with
    // nothing pulling it back, so an adapter's last-bit differences from the CPU grow there
    // for as long as it slides (13 µm on llvmpipe's OpenGL) before the strand comes to
    // rest. What is measured here is the field's push and turn.
    let mut c = config(2_048, 3, true, &body);
    c.params.floor -= 1.0;
    let mut on_gpu = FurSim::new_gpu_on_body(&c, body.clone(), &ctx).unwrap();
    let mut on_cpu = cpu_sim_of(&c, &body, CpuPath::Reference);
    let plain_config = FurConfig {
        body_field: None,
        ..c.clone()
    };
    let mut plain = cpu_sim_of(&plain_config, &body, CpuPath::Reference);
    let mut worst = 0.0f32;
    for _ in 0..10 {
        on_gpu.step(6).unwrap();
        on_cpu.step(6).unwrap();
        plain.step(6).unwrap();
        worst = worst.max(max_distance(
            &on_gpu.positions().unwrap(),
            &on_cpu.positions().unwrap(),
        ));
    }
    assert!(worst <= AGREE, "GPU and CPU differ by {worst} m");
    let moved = max_distance(&on_cpu.positions().unwrap(), &plain.positions().unwrap());
    assert!(moved > 1e-3, "the field moved no point ({moved} m)");
    assert!(inside_now(&mut on_gpu) <= ALLOWED);
}

#[test]
fn a_body_too_large_for_the_field_grows_its_coat_on_the_skin_planes_alone() {
    // A node cap far below what the cylinder's grids need stands in for a body of very many
    // bones (which takes minutes to build): the coat still grows, with no field, and steps
    // exactly as with the field turned off.
    let body = cylinder();
    let mut capped = config(512, 4, true, &body);
    capped.body_field = Some(FieldOptions {
        max_nodes: 1_000,
        ..FieldOptions::default()
    });
    let mut sim = FurSim::new_cpu_on_body(&capped, body.clone()).unwrap();
    assert!(sim.body_field().is_none(), "a field was built over the cap");
    let mut plain = cpu_sim(&body, 512, 4, false, CpuPath::Simd);
    sim.step(30).unwrap();
    plain.step(30).unwrap();
    assert_eq!(
        bits(&sim.positions().unwrap()),
        bits(&plain.positions().unwrap())
    );
    assert_eq!(sim.stats().unwrap().non_finite, 0);
    // The same cap with room for the grids builds the field.
    let mut roomy = config(512, 4, true, &body);
    roomy.body_field = Some(FieldOptions {
        max_nodes: 1 << 20,
        ..FieldOptions::default()
    });
    let sim = FurSim::new_cpu_on_body(&roomy, body).unwrap();
    assert!(sim.body_field().is_some());
}
