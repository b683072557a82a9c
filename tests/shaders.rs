//! Every WGSL shader parses and validates with naga, and every struct shared with WGSL has
//! the size and field offsets naga gives its twin, so the two cannot drift apart silently.

use pelt::sim::{GpuCapsule, GpuRoot, STRAND_STEP_WGSL, StepUniforms};
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
            let source = std::fs::read_to_string(&path).expect("readable shader");
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
            ("position_length", offset_of!(GpuRoot, position_length)),
            ("normal_space", offset_of!(GpuRoot, normal_space)),
            ("flow_random", offset_of!(GpuRoot, flow_random)),
            ("lift", offset_of!(GpuRoot, lift)),
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
            ("head", offset_of!(StepUniforms, head)),
            ("body", offset_of!(StepUniforms, body)),
            ("gravity_damping", offset_of!(StepUniforms, gravity_damping)),
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
