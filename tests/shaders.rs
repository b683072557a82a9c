//! Every WGSL shader parses and validates with naga, and every struct shared with WGSL has
//! the size and field offsets naga gives its twin, so the two cannot drift apart silently.

use pelt::creature::{CREATURE_POSE_WGSL, GpuCreaturePose};
use pelt::sim::{GpuCapsule, GpuRoot, STRAND_STEP_WGSL, StepBatch, StepUniforms};
use std::mem::{offset_of, size_of};

fn parse_and_validate(name: &str, source: &str) -> naga::Module {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name} does not parse:\n{}", e.emit_to_string(source)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{name} does not validate: {e:?}"));
    module
}

#[test]
fn every_shader_parses_and_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("shaders/ exists") {
        let path = entry.expect("readable entry").path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            let mut source = std::fs::read_to_string(&path).expect("readable shader");
            // A shader that places roots is built with the creature-pose snippet first.
            if source.contains("CreaturePose") && !source.contains("struct CreaturePose") {
                source = format!("{CREATURE_POSE_WGSL}{source}");
            }
            parse_and_validate(&path.display().to_string(), &source);
            count += 1;
        }
    }
    assert!(count >= 1, "no shaders found in {}", dir.display());
}

/// The size and member offsets naga lays out for WGSL struct `name`.
fn wgsl_layout(module: &naga::Module, name: &str) -> (u32, Vec<(String, u32)>) {
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).expect("layout");
    let (handle, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("struct {name} not in the shader"));
    match &ty.inner {
        naga::TypeInner::Struct { members, .. } => (
            layouter[handle].size,
            members
                .iter()
                .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                .collect(),
        ),
        other => panic!("{name} is not a struct: {other:?}"),
    }
}

fn check(module: &naga::Module, name: &str, rust_size: usize, rust_offsets: &[(&str, usize)]) {
    let (size, members) = wgsl_layout(module, name);
    assert_eq!(size as usize, rust_size, "size of {name}");
    assert_eq!(members.len(), rust_offsets.len(), "member count of {name}");
    for ((wgsl_name, wgsl_offset), (rust_name, rust_offset)) in members.iter().zip(rust_offsets) {
        assert_eq!(wgsl_name, rust_name, "member order of {name}");
        assert_eq!(
            *wgsl_offset as usize, *rust_offset,
            "offset of {name}.{rust_name}"
        );
    }
}

#[test]
fn strand_step_structs_match_their_rust_twins() {
    let module = parse_and_validate("strand_step.wgsl", STRAND_STEP_WGSL);
    check(
        &module,
        "Root",
        size_of::<GpuRoot>(),
        &[
            ("position_segment", offset_of!(GpuRoot, position_segment)),
            ("normal_space", offset_of!(GpuRoot, normal_space)),
            ("flow_tail", offset_of!(GpuRoot, flow_tail)),
            ("rest_01", offset_of!(GpuRoot, rest_01)),
            ("rest_23", offset_of!(GpuRoot, rest_23)),
            ("rest_4", offset_of!(GpuRoot, rest_4)),
            ("gust_01", offset_of!(GpuRoot, gust_01)),
            ("gust_23", offset_of!(GpuRoot, gust_23)),
        ],
    );
    check(
        &module,
        "CreaturePose",
        size_of::<GpuCreaturePose>(),
        &[
            ("head", offset_of!(GpuCreaturePose, head)),
            ("body", offset_of!(GpuCreaturePose, body)),
            ("tail", offset_of!(GpuCreaturePose, tail)),
        ],
    );
    check(
        &module,
        "StepBatch",
        size_of::<StepBatch>(),
        &[
            ("counts", offset_of!(StepBatch, counts)),
            ("steps", offset_of!(StepBatch, steps)),
        ],
    );
    check(
        &module,
        "Capsule",
        size_of::<GpuCapsule>(),
        &[
            ("a_radius", offset_of!(GpuCapsule, a_radius)),
            ("b", offset_of!(GpuCapsule, b)),
            ("motion", offset_of!(GpuCapsule, motion)),
        ],
    );
    check(
        &module,
        "StepUniforms",
        size_of::<StepUniforms>(),
        &[
            ("pose", offset_of!(StepUniforms, pose)),
            ("gravity_damping", offset_of!(StepUniforms, gravity_damping)),
            ("gust_time_01", offset_of!(StepUniforms, gust_time_01)),
            ("gust_time_23", offset_of!(StepUniforms, gust_time_23)),
            ("wind", offset_of!(StepUniforms, wind)),
            ("stiffness", offset_of!(StepUniforms, stiffness)),
            ("limits", offset_of!(StepUniforms, limits)),
            ("contact", offset_of!(StepUniforms, contact)),
            ("bound", offset_of!(StepUniforms, bound)),
            ("counts", offset_of!(StepUniforms, counts)),
            ("capsules", offset_of!(StepUniforms, capsules)),
        ],
    );
}

#[test]
fn the_pose_snippet_stands_alone_and_is_the_step_shaders_prefix() {
    parse_and_validate("creature_pose.wgsl", CREATURE_POSE_WGSL);
    assert!(
        STRAND_STEP_WGSL.starts_with(CREATURE_POSE_WGSL),
        "the step shader must be built on the shared pose snippet"
    );
}
