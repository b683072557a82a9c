//! The petting creature as a library user drives it: the shipped pointer script, replayed
//! through a camera with a fixed frame time, moves the hand through the coat on the GPU.
//! Checked at every frame of contact: no point of fur is left inside the hand; the touched
//! strands are combed along the stroke and the combing decays after the hand lifts; strands
//! the hand never reached are bit for bit those of a run without the hand.

mod cli_common;

use cli_common::{replay_event, strands_differing};
use glam::{Vec2, Vec3, Vec4, Vec4Swizzles};
use pelt::creature::Space;
use pelt::gpu::GpuContext;
use pelt::hand::{GestureState, PointerScript};
use pelt::render::{Camera, CameraPreset, OFFSCREEN_FORMAT, TargetLayout};
use pelt::sim::HandContact;
use pelt::{SimulatedFur, SimulatedFurOptions};

const STRANDS: usize = 16_384;
const WINDOW: Vec2 = Vec2::new(1280.0, 720.0);
const FRAME: f64 = 1.0 / 60.0;

fn creature(gpu: &GpuContext) -> SimulatedFur {
    let layout = TargetLayout::new(&gpu.adapter, OFFSCREEN_FORMAT, false);
    // On the GPU solver whatever the adapter (`Auto` would step on the CPU beside lavapipe;
    // `host_stepped_coat.rs` checks that path draws the same).
    let options = SimulatedFurOptions {
        solver: pelt::sim::SolverKind::Gpu,
        ..SimulatedFurOptions::new(STRANDS, 5, layout)
    };
    SimulatedFur::new(gpu, &options).unwrap()
}

/// The deepest any simulated fur point (points 1 to 5: roots are fixed to the skin) sits
/// inside the hand's capsules, metres (0 when none does).
fn deepest_inside(positions: &[Vec4], hand: &HandContact) -> f32 {
    positions
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 6 != 0)
        .flat_map(|(_, p)| hand.capsules.iter().map(move |c| -c.distance(p.xyz())))
        .fold(0.0f32, f32::max)
}

#[test]
fn a_scripted_stroke_combs_the_fur_it_touches_and_nothing_else() {
    let gpu = GpuContext::new().expect("a wgpu adapter (CI installs lavapipe)");
    let script_path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/pet_scratch.json");
    let script = PointerScript::from_path(&script_path).unwrap();
    let camera = Camera::preset(CameraPreset::Front);
    let mut petted = creature(&gpu);
    let mut alone = creature(&gpu);

    let (mut time, mut previous) = (0.0, f64::NEG_INFINITY);
    let mut contact_frames = 0;
    let mut deepest = 0.0f32;
    let mut stroke = Vec3::ZERO;
    let mut comb_after_stroke = None;
    // Until a little after the script's last event (the release at 3 s).
    let release_frame = (script.duration() / FRAME).ceil() as usize + 1;
    for _ in 0..release_frame {
        time += FRAME;
        for event in script.events_in(previous, time) {
            replay_event(&mut petted, &camera, WINDOW, event);
        }
        previous = time;
        petted.update(FRAME).unwrap();
        alone.update(FRAME).unwrap();
        let state = petted.interaction().state;
        if let Some(hand) = petted.hand().contact() {
            contact_frames += 1;
            let positions = petted.hair_mut().positions().unwrap();
            deepest = deepest.max(deepest_inside(&positions, &hand));
            if state == GestureState::Pet {
                stroke += hand.capsules.iter().map(|c| c.velocity).sum::<Vec3>();
            }
        }
        if state == GestureState::Scratch && comb_after_stroke.is_none() {
            comb_after_stroke = Some(petted.hair_mut().comb().unwrap());
        }
    }
    eprintln!("{contact_frames} frames of contact, deepest point inside the hand {deepest:.2e} m");
    assert!(
        contact_frames > 60,
        "the hand touched the fur in only {contact_frames} frames"
    );
    assert!(
        deepest < 1e-4,
        "a fur point ended {deepest} m inside the hand"
    );

    // Combed along the stroke: when the stroke gives way to the scratch, the comb of each
    // touched strand, turned to world, points the way the hand moved across its root.
    let comb = comb_after_stroke.expect("the held pointer became a scratch");
    let pose = petted.pose();
    let roots = petted.hair().groom().roots.clone();
    let (mut along, mut combed) = (0.0, 0);
    for (root, c) in roots.iter().zip(&comb) {
        if c.xyz().length() > 0.05 {
            let to_world = match root.space() {
                Space::Head => pose.head,
                _ => pose.body,
            };
            let normal = to_world.transform_vector3(root.normal).normalize();
            let across = (stroke - normal * stroke.dot(normal)).normalize();
            along += to_world.transform_vector3(c.xyz()).normalize().dot(across);
            combed += 1;
        }
    }
    let mean_along = along / combed.max(1) as f32;
    eprintln!("{combed} strands combed by the stroke; mean cosine to it {mean_along:.2}");
    assert!(combed > 50, "only {combed} strands were combed");
    assert!(
        mean_along > 0.6,
        "the comb does not follow the stroke ({mean_along})"
    );

    // After the hand lifts and the pointer leaves (a pointer still over the creature
    // would keep a hovering hand brushing the fur), the combing relaxes as the decay per
    // step says.
    petted.pointer_leave();
    petted.update(FRAME).unwrap();
    alone.update(FRAME).unwrap();
    let comb_at_release = petted.hair_mut().comb().unwrap();
    let total = |comb: &[Vec4]| comb.iter().map(|c| c.xyz().length()).sum::<f32>();
    let before = total(&comb_at_release);
    let steps = 120;
    for _ in 0..steps {
        petted.update(FRAME).unwrap();
        alone.update(FRAME).unwrap();
    }
    let after = total(&petted.hair_mut().comb().unwrap());
    let expected = before * petted.hair().params().comb_decay.powi(steps);
    eprintln!(
        "comb total {before:.2} at release, {after:.2} after {steps} steps (decay alone: {expected:.2})"
    );
    assert!(petted.hand().contact().is_none(), "the hand is still down");
    assert!(
        (after - expected).abs() < 0.02 * before,
        "the comb relaxed to {after}, not {expected}"
    );

    // Strands the hand never reached (body and paws: the head leans and the tail wags in
    // the petted run) are exactly those of the run without a hand.
    let with_hand = petted.hair_mut().positions().unwrap();
    let without = alone.hair_mut().positions().unwrap();
    let untouched: Vec<usize> = (roots.iter().zip(&comb_at_release).enumerate())
        .filter(|(_, (root, c))| root.space() == Space::Body && c.xyz() == Vec3::ZERO)
        .map(|(s, _)| s)
        .collect();
    let compared = untouched.len();
    let differ = strands_differing(&with_hand, &without, untouched);
    eprintln!("{compared} untouched body strands compared, {differ} differ");
    assert!(compared > STRANDS / 3);
    assert_eq!(
        differ, 0,
        "strands the hand never touched moved differently"
    );
}
