//! A body of the user's petted as a library user pets the creature: a pointer script
//! replayed through a camera onto the skinned cylinder (bending under its own animation)
//! moves the hand onto the body, pets and scratches; strands near the spot pressed move,
//! and strands the hand never came near are bit for bit those of a run without the hand.

mod cli_common;

use cli_common::{replay_event, strands_differing};
use glam::{Vec2, Vec3, Vec4, Vec4Swizzles};
use pelt::body::{CylinderSpec, skinned_cylinder};
use pelt::gpu::GpuContext;
use pelt::hand::{GestureState, PointerEventKind, PointerScript};
use pelt::render::{Camera, OFFSCREEN_FORMAT, TargetLayout};
use pelt::sim::{FurBody, SolverKind};
use pelt::{SimulatedFur, SimulatedFurOptions};
use std::sync::Arc;

const STRANDS: usize = 4096;
const WINDOW: Vec2 = Vec2::new(1280.0, 720.0);
const FRAME: f64 = 1.0 / 60.0;

fn furred_cylinder(gpu: &GpuContext) -> SimulatedFur {
    let (mesh, motion) = skinned_cylinder(&CylinderSpec::default());
    let layout = TargetLayout::new(&gpu.adapter, OFFSCREEN_FORMAT, false);
    let options = SimulatedFurOptions {
        solver: SolverKind::Cpu,
        body: Some(FurBody {
            mesh: Arc::new(mesh),
            motion: Arc::new(motion),
            groom: None,
        }),
        ..SimulatedFurOptions::new(STRANDS, 11, layout)
    };
    SimulatedFur::new(gpu, &options).unwrap()
}

/// Onto the middle of the window, press, stroke 60 px up at 200 px/s, hold still (a
/// scratch), release and leave.
fn script() -> PointerScript {
    let mut events = vec![
        r#"{"t": 0.0, "kind": "move", "x": 640, "y": 380}"#.to_string(),
        r#"{"t": 0.1, "kind": "down", "x": 640, "y": 380, "button": "primary"}"#.to_string(),
    ];
    for i in 1..=18 {
        let t = 0.1 + i as f64 / 60.0;
        events.push(format!(
            r#"{{"t": {t}, "kind": "move", "x": 640, "y": {}}}"#,
            380 - 2 * i
        ));
    }
    events.push(r#"{"t": 1.6, "kind": "up", "x": 640, "y": 344, "button": "primary"}"#.into());
    events.push(r#"{"t": 1.65, "kind": "leave"}"#.into());
    PointerScript::from_json(&format!("[{}]", events.join(","))).unwrap()
}

#[test]
fn a_scripted_pet_on_a_body_moves_the_strands_near_it_and_no_others() {
    let gpu = GpuContext::new().expect("a wgpu adapter (CI installs lavapipe)");
    // Level with the lower tube (which its animation leaves where it is), looking along −z.
    let camera = Camera::look_at(Vec3::new(0.0, -0.45, 1.6), Vec3::new(0.0, -0.45, 0.0), 38.0);
    let script = script();
    let mut petted = furred_cylinder(&gpu);
    let mut alone = furred_cylinder(&gpu);

    let (mut time, mut previous) = (0.0, f64::NEG_INFINITY);
    let mut pressed: Option<Vec3> = None;
    let mut states = Vec::new();
    // Every sphere the hand's capsules filled, and the two coats just before the release.
    let mut spheres: Vec<(Vec3, f32)> = Vec::new();
    let mut during: Option<(Vec<Vec4>, Vec<Vec4>)> = None;
    for frame in 1..=120 {
        time += FRAME;
        for event in script.events_in(previous, time) {
            replay_event(&mut petted, &camera, WINDOW, event);
            if let PointerEventKind::Down { .. } = event.kind {
                let hit = petted
                    .hand()
                    .gesture()
                    .last_body_hit()
                    .expect("pressed on it");
                pressed = Some(hit.point);
            }
        }
        previous = time;
        petted.update(FRAME).unwrap();
        alone.update(FRAME).unwrap();
        states.push(petted.interaction().state);
        if let Some(sphere) = petted.hand().bounds() {
            spheres.push(sphere);
        }
        if frame == 95 {
            during = Some((
                petted.hair_mut().positions().unwrap(),
                alone.hair_mut().positions().unwrap(),
            ));
        }
    }
    let pressed = pressed.expect("the script pressed");
    assert!(
        (pressed - Vec3::new(0.0, -0.478, 0.15)).length() < 0.005,
        "pressed at {pressed}"
    );
    assert!(states.contains(&GestureState::Pet) && states[94] == GestureState::Scratch);
    assert!(!petted.interaction().hand_visible, "the pointer left");
    assert_eq!(petted.interaction().pleasure, 0.0, "a body has no response");

    // Mid-scratch: the strands rooted by the pressed spot moved.
    let (with_hand, without) = during.unwrap();
    let root = |s: usize| with_hand[s * 6].xyz();
    let moved = |s: usize| {
        (1..6)
            .map(|k| {
                with_hand[s * 6 + k]
                    .xyz()
                    .distance(without[s * 6 + k].xyz())
            })
            .fold(0.0f32, f32::max)
    };
    let near: Vec<f32> = (0..STRANDS)
        .filter(|&s| root(s).distance(pressed) < 0.06)
        .map(moved)
        .collect();
    let mean = near.iter().sum::<f32>() / near.len().max(1) as f32;
    eprintln!(
        "{} strands within 6 cm of the spot moved {mean:.4} m on average",
        near.len()
    );
    assert!(near.len() > 10, "only {} strands near the spot", near.len());
    assert!(mean > 0.003, "the strands under the hand moved {mean} m");

    // Strands rooted farther from every sphere the hand filled than a strand is long are
    // exactly those of the run without the hand, mid-scratch and at the end.
    let at_end = (
        petted.hair_mut().positions().unwrap(),
        alone.hair_mut().positions().unwrap(),
    );
    let reach = |s: usize| {
        (1..6)
            .map(|k| with_hand[s * 6 + k].xyz().distance(root(s)))
            .fold(0.0f32, f32::max)
    };
    let far: Vec<usize> = (0..STRANDS)
        .filter(|&s| {
            spheres
                .iter()
                .all(|(c, r)| root(s).distance(*c) > r + reach(s) + 0.02)
        })
        .collect();
    let differ = |(a, b): &(Vec<Vec4>, Vec<Vec4>)| strands_differing(a, b, far.iter().copied());
    let (mid, end) = (differ(&(with_hand.clone(), without)), differ(&at_end));
    eprintln!(
        "{} strands out of the hand's reach: {mid} differ mid-scratch, {end} at the end",
        far.len()
    );
    assert!(
        far.len() > STRANDS / 4,
        "only {} strands out of reach",
        far.len()
    );
    assert_eq!((mid, end), (0, 0), "strands out of the hand's reach moved");
}
