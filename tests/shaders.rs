//! Every WGSL shader parses and validates with naga, and every struct shared with WGSL has
//! the size and field offsets naga gives its twin, so the two cannot drift apart silently.

use pelt::creature::{CREATURE_POSE_WGSL, GpuCreaturePose};
use pelt::render::mesh::SkinVertex;
use pelt::render::proxies::LineVertex;
use pelt::render::shaders::render_modules;
use pelt::render::uniforms::{FrameUniforms, HandCapsuleUniform, PassView, uniform_bytes};
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

/// Every pipeline's module as it is compiled: the step shader alone, and each render
/// shader with the snippets it is composed from.
fn modules() -> Vec<(String, String)> {
    let mut all = vec![("strand_step".to_string(), STRAND_STEP_WGSL.to_string())];
    all.extend(
        render_modules()
            .into_iter()
            .map(|(n, s)| (n.to_string(), s)),
    );
    all
}

#[test]
fn every_shader_module_parses_and_validates() {
    for (name, source) in modules() {
        parse_and_validate(&name, &source);
    }
}

#[test]
fn every_shader_file_is_part_of_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let modules = modules();
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("shaders/ exists") {
        let path = entry.expect("readable entry").path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            let source = std::fs::read_to_string(&path).expect("readable shader");
            assert!(
                modules.iter().any(|(_, m)| m.contains(&source)),
                "{} is in no compiled module, so nothing validates it",
                path.display()
            );
            count += 1;
        }
    }
    assert!(
        count >= 9,
        "only {count} shaders found in {}",
        dir.display()
    );
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

/// Checks an encase-laid-out uniform against its WGSL twin: the size, and for every member
/// the first float at naga's offset equals the value `fill` put in that member.
fn check_encased(module: &naga::Module, name: &str, bytes: &[u8], first_floats: &[(&str, f32)]) {
    let (size, members) = wgsl_layout(module, name);
    assert_eq!(bytes.len(), size as usize, "size of {name}");
    assert_eq!(members.len(), first_floats.len(), "member count of {name}");
    for ((wgsl_name, offset), (rust_name, value)) in members.iter().zip(first_floats) {
        assert_eq!(wgsl_name, rust_name, "member order of {name}");
        let at = *offset as usize;
        let got = f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        assert_eq!(got, *value, "{name}.{rust_name} at offset {offset}");
    }
}

#[test]
fn render_uniforms_match_their_wgsl_twins() {
    use glam::{Mat4, UVec4, Vec4};
    let (_, source) = render_modules()
        .into_iter()
        .find(|(n, _)| *n == "lines")
        .unwrap();
    let module = parse_and_validate("lines", &source);
    // Every member starts with its own number, so a member at the wrong offset shows.
    let v = |k: f32| Vec4::splat(k);
    let m = |k: f32| Mat4::from_cols(v(k), v(k), v(k), v(k));
    let hand = [HandCapsuleUniform {
        a_radius: v(21.0),
        b: v(21.5),
    }; 24];
    let frame = FrameUniforms {
        view_proj: m(1.0),
        light_view_proj: m(2.0),
        eye: v(3.0),
        viewport: v(4.0),
        light_dir: v(5.0),
        light_color: v(6.0),
        fill_dir: v(7.0),
        sky: v(8.0),
        ground: v(9.0),
        shadow: v(10.0),
        slabs: v(11.0),
        coat_main: v(12.0),
        coat_cream: v(13.0),
        coat_stripe: v(14.0),
        coat_blush: v(15.0),
        head: m(16.0),
        body: m(17.0),
        tail: [m(18.0); 5],
        hand,
        hand_info: v(22.0),
        face: v(23.0),
        ribbon: v(24.0),
        look: v(25.0),
        background: v(26.0),
        counts: UVec4::splat(27.0f32.to_bits()),
    };
    let names_values = [
        ("view_proj", 1.0),
        ("light_view_proj", 2.0),
        ("eye", 3.0),
        ("viewport", 4.0),
        ("light_dir", 5.0),
        ("light_color", 6.0),
        ("fill_dir", 7.0),
        ("sky", 8.0),
        ("ground", 9.0),
        ("shadow", 10.0),
        ("slabs", 11.0),
        ("coat_main", 12.0),
        ("coat_cream", 13.0),
        ("coat_stripe", 14.0),
        ("coat_blush", 15.0),
        ("head", 16.0),
        ("body", 17.0),
        ("tail", 18.0),
        ("hand", 21.0),
        ("hand_info", 22.0),
        ("face", 23.0),
        ("ribbon", 24.0),
        ("look", 25.0),
        ("background", 26.0),
        ("counts", 27.0),
    ];
    check_encased(
        &module,
        "FrameUniforms",
        &uniform_bytes(&frame).unwrap(),
        &names_values,
    );
    let view = PassView {
        view_proj: m(1.0),
        eye: v(2.0),
        forward: v(3.0),
    };
    check_encased(
        &module,
        "PassView",
        &uniform_bytes(&view).unwrap(),
        &[("view_proj", 1.0), ("eye", 2.0), ("forward", 3.0)],
    );
    check_encased(
        &module,
        "HandCapsule",
        &uniform_bytes(&hand[0]).unwrap(),
        &[("a_radius", 21.0), ("b", 21.5)],
    );
}

#[test]
fn cull_uniforms_match_their_wgsl_twin() {
    use glam::{Mat4, UVec4, Vec4};
    use pelt::render::culling::CullUniforms;
    let (_, source) = render_modules()
        .into_iter()
        .find(|(n, _)| *n == "strand_cull")
        .unwrap();
    let module = parse_and_validate("strand_cull", &source);
    let v = |k: f32| Vec4::splat(k);
    let m = |k: f32| Mat4::from_cols(v(k), v(k), v(k), v(k));
    let cull = CullUniforms {
        view_proj: m(1.0),
        eye: v(2.0),
        forward: v(3.0),
        body_inverse: m(4.0),
        head_inverse: m(5.0),
        body_center: v(6.0),
        body_radii: v(7.0),
        head: v(8.0),
        params: v(9.0),
        counts: UVec4::splat(10.0f32.to_bits()),
    };
    check_encased(
        &module,
        "CullUniforms",
        &uniform_bytes(&cull).unwrap(),
        &[
            ("view_proj", 1.0),
            ("eye", 2.0),
            ("forward", 3.0),
            ("body_inverse", 4.0),
            ("head_inverse", 5.0),
            ("body_center", 6.0),
            ("body_radii", 7.0),
            ("head", 8.0),
            ("params", 9.0),
            ("counts", 10.0),
        ],
    );
}

/// The (location, offset) of each `@location` input of WGSL struct `name`.
fn wgsl_locations(module: &naga::Module, name: &str) -> Vec<u32> {
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("struct {name} not in the shader"));
    match &ty.inner {
        naga::TypeInner::Struct { members, .. } => members
            .iter()
            .map(|m| match m.binding {
                Some(naga::Binding::Location { location, .. }) => location,
                ref other => panic!("{name} member without a location: {other:?}"),
            })
            .collect(),
        other => panic!("{name} is not a struct: {other:?}"),
    }
}

#[test]
fn vertex_formats_match_their_wgsl_inputs() {
    let source = |n: &str| {
        render_modules()
            .into_iter()
            .find(|(m, _)| *m == n)
            .unwrap()
            .1
    };
    let skin = parse_and_validate("skin", &source("skin"));
    let lines = parse_and_validate("lines", &source("lines"));
    // Attribute offsets are the Rust struct's field offsets, in the shader's location order.
    let skin_offsets = [
        offset_of!(SkinVertex, position),
        offset_of!(SkinVertex, normal),
        offset_of!(SkinVertex, aux),
        offset_of!(SkinVertex, pattern),
        offset_of!(SkinVertex, tail_t),
        offset_of!(SkinVertex, space_material),
    ];
    let locations = wgsl_locations(&skin, "SkinVertex");
    assert_eq!(locations.len(), SkinVertex::ATTRIBUTES.len());
    for (attr, (&location, &offset)) in SkinVertex::ATTRIBUTES
        .iter()
        .zip(locations.iter().zip(&skin_offsets))
    {
        assert_eq!(attr.shader_location, location);
        assert_eq!(attr.offset as usize, offset, "location {location}");
    }
    let line_offsets = [
        offset_of!(LineVertex, position),
        offset_of!(LineVertex, tail_t),
        offset_of!(LineVertex, space),
        offset_of!(LineVertex, color),
    ];
    let locations = wgsl_locations(&lines, "LineVertex");
    assert_eq!(locations.len(), LineVertex::ATTRIBUTES.len());
    for (attr, (&location, &offset)) in LineVertex::ATTRIBUTES
        .iter()
        .zip(locations.iter().zip(&line_offsets))
    {
        assert_eq!(attr.shader_location, location);
        assert_eq!(attr.offset as usize, offset, "location {location}");
    }
}

#[test]
fn the_pose_snippet_stands_alone_and_is_the_step_shaders_prefix() {
    parse_and_validate("creature_pose.wgsl", CREATURE_POSE_WGSL);
    assert!(
        STRAND_STEP_WGSL.starts_with(CREATURE_POSE_WGSL),
        "the step shader must be built on the shared pose snippet"
    );
}
