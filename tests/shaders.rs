//! Every WGSL module parses and validates with naga as `pelt::shaders` composes it; every
//! struct shared with WGSL has the size and field offsets naga gives its twin; and every
//! constant the two sides share comes from Rust once, so none of them can drift apart.

use pelt::body::GpuBoneGrid;
use pelt::creature::GpuCreaturePose;
use pelt::render::frame::{FrameUniforms, HandCapsuleUniform, PassView, uniform_bytes};
use pelt::render::mesh::SurfaceVertex;
use pelt::render::overlay::LineVertex;
use pelt::render::strand_cull::CullUniforms;
use pelt::shaders::{
    CREATURE_POSE_WGSL, PIPELINE_OVERRIDES, SHARED_CONSTANTS, SHARED_FLOATS, ShaderModule, prelude,
};
use pelt::sim::{GpuCapsule, GpuGridFrame, GpuRoot, GpuRootBinding, StepBatch, StepUniforms};
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

/// Every pipeline's module as it is compiled.
fn modules() -> Vec<(String, String)> {
    ShaderModule::ALL
        .iter()
        .map(|m| (m.name().to_string(), m.source()))
        .collect()
}

fn parsed(module: ShaderModule) -> naga::Module {
    parse_and_validate(module.name(), &module.source())
}

/// Every file of `shaders/`, by name, with its text.
fn shader_files() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("shaders/ exists") {
        let path = entry.expect("readable entry").path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            let source = std::fs::read_to_string(&path).expect("readable shader");
            files.push((path.display().to_string(), source));
        }
    }
    files
}

#[test]
fn every_shader_module_parses_and_validates() {
    for (name, source) in modules() {
        parse_and_validate(&name, &source);
    }
}

#[test]
fn every_shader_file_is_part_of_a_module() {
    let modules = modules();
    let files = shader_files();
    for (path, source) in &files {
        assert!(
            modules.iter().any(|(_, m)| m.contains(source.as_str())),
            "{path} is in no compiled module, so nothing validates it"
        );
    }
    assert!(files.len() >= 12, "only {} shaders found", files.len());
}

#[test]
fn every_module_is_paired_with_its_own_file() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    for module in ShaderModule::ALL {
        let path = dir.join(format!("{}.wgsl", module.name()));
        let file = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        assert_eq!(file, module.own_source(), "{path:?}");
        assert!(module.source().starts_with(&prelude()), "{}", module.name());
        assert!(module.source().ends_with(&file), "{}", module.name());
    }
}

/// The value of the constant `name` in `module`, once for each declaration.
fn constants(module: &naga::Module, name: &str) -> Vec<naga::Literal> {
    module
        .constants
        .iter()
        .filter(|(_, c)| c.name.as_deref() == Some(name))
        .map(|(_, c)| match module.global_expressions[c.init] {
            naga::Expression::Literal(v) => v,
            ref other => panic!("{name} is not a literal: {other:?}"),
        })
        .collect()
}

#[test]
fn every_shared_constant_comes_once_from_rust() {
    for module in ShaderModule::ALL {
        let parsed = parsed(module);
        for c in SHARED_CONSTANTS {
            assert_eq!(
                constants(&parsed, c.name),
                vec![naga::Literal::U32(c.value)],
                "{} in the {} module",
                c.name,
                module.name()
            );
        }
        for c in SHARED_FLOATS {
            assert_eq!(
                constants(&parsed, c.name),
                vec![naga::Literal::F32(c.value)],
                "{} in the {} module",
                c.name,
                module.name()
            );
        }
    }
    // The files declare no constant and no literal workgroup size of their own: every
    // shared number reaches them through the prelude. Only the overrides Rust sets when it
    // makes their pipelines (`PIPELINE_OVERRIDES`) are declared in a file.
    for (path, source) in shader_files() {
        for line in source.lines().map(str::trim) {
            let set_by_rust = line.strip_prefix("override ").is_some_and(|rest| {
                PIPELINE_OVERRIDES
                    .iter()
                    .any(|name| rest.starts_with(&format!("{name}:")))
            });
            assert!(
                set_by_rust || (!line.starts_with("const ") && !line.starts_with("override ")),
                "{path} declares its own `{line}`"
            );
            if let Some(rest) = line.split("@workgroup_size(").nth(1) {
                assert!(
                    !rest.starts_with(|ch: char| ch.is_ascii_digit()),
                    "{path} writes a workgroup size as a number: `{line}`"
                );
            }
        }
    }
}

#[test]
fn the_material_and_space_enums_carry_the_prelude_s_codes() {
    use pelt::render::Material;
    use pelt::render::mesh::VertexSpace;
    use pelt::shaders as wgsl;
    let materials = [
        (Material::Coat, wgsl::MATERIAL_COAT),
        (Material::Eye, wgsl::MATERIAL_EYE),
        (Material::Nose, wgsl::MATERIAL_NOSE),
        (Material::Hand, wgsl::MATERIAL_HAND),
        (Material::Nail, wgsl::MATERIAL_NAIL),
        (Material::Sleeve, wgsl::MATERIAL_SLEEVE),
        (Material::Floor, wgsl::MATERIAL_FLOOR),
        (Material::Body, wgsl::MATERIAL_BODY),
    ];
    for (material, code) in materials {
        assert_eq!(material as u32, code, "{material:?}");
    }
    let spaces = [
        (VertexSpace::Body, wgsl::SPACE_BODY),
        (VertexSpace::Head, wgsl::SPACE_HEAD),
        (VertexSpace::Tail, wgsl::SPACE_TAIL),
        (VertexSpace::World, wgsl::SPACE_WORLD),
    ];
    for (space, code) in spaces {
        assert_eq!(space as u32, code, "{space:?}");
    }
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
    let module = parsed(ShaderModule::StrandStep);
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
        "RootBinding",
        size_of::<GpuRootBinding>(),
        &[
            ("vertices", offset_of!(GpuRootBinding, vertices)),
            ("barycentric", offset_of!(GpuRootBinding, barycentric)),
            ("grids", offset_of!(GpuRootBinding, grids)),
        ],
    );
    check(
        &module,
        "BoneGrid",
        size_of::<GpuBoneGrid>(),
        &[
            ("origin_cell", offset_of!(GpuBoneGrid, origin_cell)),
            ("dims_joint", offset_of!(GpuBoneGrid, dims_joint)),
            ("offset", offset_of!(GpuBoneGrid, offset)),
        ],
    );
    check(
        &module,
        "GridFrame",
        size_of::<GpuGridFrame>(),
        &[
            ("to_bind", offset_of!(GpuGridFrame, to_bind)),
            ("normal_scale", offset_of!(GpuGridFrame, normal_scale)),
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
    // The step uniforms are laid out by encase: every member starts with its own number.
    use glam::{Mat4, Vec3, Vec4};
    let v = |k: f32| Vec4::splat(k);
    let m = |k: f32| Mat4::from_cols(v(k), v(k), v(k), v(k));
    let step = StepUniforms {
        pose: GpuCreaturePose {
            head: m(1.0),
            body: m(1.5),
            tail: [m(1.7); 5],
        },
        gravity: Vec3::splat(2.0),
        damping: 3.0,
        gust_time_01: v(4.0),
        gust_time_23: v(5.0),
        bound_center: Vec3::splat(6.0),
        bound_radius: 7.0,
        gust_strength: 8.0,
        root_stiffness: 9.0,
        tip_stiffness: 10.0,
        comb_gain: 11.0,
        comb_decay: 12.0,
        floor: 13.0,
        skin_clearance: 14.0,
        comb_limit: 15.0,
        friction: 16.0,
        comb_scale: 17.0,
        capsule_count: 18.0f32.to_bits(),
        capsules: [GpuCapsule {
            a: Vec3::splat(19.0),
            radius: 19.25,
            b: Vec3::splat(19.5),
            motion: Vec3::splat(19.75),
        }; 24],
    };
    check_encased(
        &module,
        "StepUniforms",
        &uniform_bytes(&step).unwrap(),
        &[
            ("pose", 1.0),
            ("gravity", 2.0),
            ("damping", 3.0),
            ("gust_time_01", 4.0),
            ("gust_time_23", 5.0),
            ("bound_center", 6.0),
            ("bound_radius", 7.0),
            ("gust_strength", 8.0),
            ("root_stiffness", 9.0),
            ("tip_stiffness", 10.0),
            ("comb_gain", 11.0),
            ("comb_decay", 12.0),
            ("floor", 13.0),
            ("skin_clearance", 14.0),
            ("comb_limit", 15.0),
            ("friction", 16.0),
            ("comb_scale", 17.0),
            ("capsule_count", 18.0),
            ("capsules", 19.0),
        ],
    );
    check_encased(
        &module,
        "Capsule",
        &uniform_bytes(&step.capsules[0]).unwrap(),
        &[
            ("a", 19.0),
            ("radius", 19.25),
            ("b", 19.5),
            ("motion", 19.75),
        ],
    );
    let batch = StepBatch {
        step_count: 20.0f32.to_bits(),
        strand_count: 21.0f32.to_bits(),
        steps: [step; 8],
    };
    check_encased(
        &module,
        "StepBatch",
        &uniform_bytes(&batch).unwrap(),
        &[("step_count", 20.0), ("strand_count", 21.0), ("steps", 1.0)],
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
    use glam::{Mat4, Vec3, Vec4};
    let module = parsed(ShaderModule::Overlay);
    // Every member starts with its own number, so a member at the wrong offset shows.
    let v3 = |k: f32| Vec3::splat(k);
    let v = |k: f32| Vec4::splat(k);
    let m = |k: f32| Mat4::from_cols(v(k), v(k), v(k), v(k));
    let bits = |k: f32| k.to_bits();
    let hand = [HandCapsuleUniform {
        a: v3(21.0),
        radius: 21.25,
        b: v3(21.5),
    }; 24];
    let frame = FrameUniforms {
        view_proj: m(1.0),
        light_view_proj: m(2.0),
        eye: v3(3.0),
        light_dir: v3(4.0),
        light_irradiance: 5.0,
        light_color: v3(6.0),
        fill_dir: v3(7.0),
        fill_irradiance: 8.0,
        sky: v3(9.0),
        ground: v3(10.0),
        light_depth_range: 11.0,
        hair_density: 12.0,
        shadow_bias: 13.0,
        slab_ends: v(14.0),
        coat_main: v3(15.0),
        coat_cream: v3(16.0),
        coat_stripe: v3(17.0),
        coat_blush: v3(18.0),
        head: m(19.0),
        body: m(20.0),
        tail: [m(20.5); 5],
        hand,
        hand_count: bits(22.0),
        hand_occlusion_strength: 23.0,
        hand_falloff: 24.0,
        eye_narrowing: 25.0,
        root_width: 26.0,
        tip_width: 27.0,
        tip_fade: 28.0,
        min_pixels: 29.0,
        exposure: 30.0,
        background: v3(31.0),
        strand_count: bits(32.0),
        msaa_samples: bits(33.0),
        hair_casts_shadows: bits(34.0),
        cull_hidden_strands: bits(35.0),
        lod_drawn: bits(36.0),
        lod_end: 37.0,
        lod_fade: 38.0,
        lod_width_scale: 39.0,
        ribbon_dither: bits(40.0),
    };
    let names_values = [
        ("view_proj", 1.0),
        ("light_view_proj", 2.0),
        ("eye", 3.0),
        ("light_dir", 4.0),
        ("light_irradiance", 5.0),
        ("light_color", 6.0),
        ("fill_dir", 7.0),
        ("fill_irradiance", 8.0),
        ("sky", 9.0),
        ("ground", 10.0),
        ("light_depth_range", 11.0),
        ("hair_density", 12.0),
        ("shadow_bias", 13.0),
        ("slab_ends", 14.0),
        ("coat_main", 15.0),
        ("coat_cream", 16.0),
        ("coat_stripe", 17.0),
        ("coat_blush", 18.0),
        ("head", 19.0),
        ("body", 20.0),
        ("tail", 20.5),
        ("hand", 21.0),
        ("hand_count", 22.0),
        ("hand_occlusion_strength", 23.0),
        ("hand_falloff", 24.0),
        ("eye_narrowing", 25.0),
        ("root_width", 26.0),
        ("tip_width", 27.0),
        ("tip_fade", 28.0),
        ("min_pixels", 29.0),
        ("exposure", 30.0),
        ("background", 31.0),
        ("strand_count", 32.0),
        ("msaa_samples", 33.0),
        ("hair_casts_shadows", 34.0),
        ("cull_hidden_strands", 35.0),
        ("lod_drawn", 36.0),
        ("lod_end", 37.0),
        ("lod_fade", 38.0),
        ("lod_width_scale", 39.0),
        ("ribbon_dither", 40.0),
    ];
    check_encased(
        &module,
        "FrameUniforms",
        &uniform_bytes(&frame).unwrap(),
        &names_values,
    );
    let view = PassView {
        view_proj: m(1.0),
        eye: v3(2.0),
        perspective: bits(3.0),
        forward: v3(4.0),
        pixel_scale: 5.0,
    };
    check_encased(
        &module,
        "PassView",
        &uniform_bytes(&view).unwrap(),
        &[
            ("view_proj", 1.0),
            ("eye", 2.0),
            ("perspective", 3.0),
            ("forward", 4.0),
            ("pixel_scale", 5.0),
        ],
    );
    check_encased(
        &module,
        "HandCapsule",
        &uniform_bytes(&hand[0]).unwrap(),
        &[("a", 21.0), ("radius", 21.25), ("b", 21.5)],
    );
}

#[test]
fn cull_uniforms_match_their_wgsl_twin() {
    use glam::{Mat4, Vec3, Vec4};
    let module = parsed(ShaderModule::StrandCull);
    let v3 = |k: f32| Vec3::splat(k);
    let v = |k: f32| Vec4::splat(k);
    let m = |k: f32| Mat4::from_cols(v(k), v(k), v(k), v(k));
    let cull = CullUniforms {
        sides: m(1.0),
        eye: v3(2.0),
        pixel_scale: 3.0,
        forward: v3(4.0),
        min_pixels: 5.0,
        body_local: m(6.0),
        head_local: m(7.0),
        body_eye: v3(8.0),
        body_stretch: 9.0,
        body_radii: v3(10.0),
        head_stretch: 11.0,
        head_eye: v3(12.0),
        head_radius: 13.0,
        root_width: 14.0,
        safety_margin: 15.0,
        strand_count: 16.0f32.to_bits(),
        enabled: 17.0f32.to_bits(),
    };
    check_encased(
        &module,
        "CullUniforms",
        &uniform_bytes(&cull).unwrap(),
        &[
            ("sides", 1.0),
            ("eye", 2.0),
            ("pixel_scale", 3.0),
            ("forward", 4.0),
            ("min_pixels", 5.0),
            ("body_local", 6.0),
            ("head_local", 7.0),
            ("body_eye", 8.0),
            ("body_stretch", 9.0),
            ("body_radii", 10.0),
            ("head_stretch", 11.0),
            ("head_eye", 12.0),
            ("head_radius", 13.0),
            ("root_width", 14.0),
            ("safety_margin", 15.0),
            ("strand_count", 16.0),
            ("enabled", 17.0),
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
    let skin = parsed(ShaderModule::Surfaces);
    let lines = parsed(ShaderModule::Overlay);
    // Attribute offsets are the Rust struct's field offsets, in the shader's location order.
    let skin_offsets = [
        offset_of!(SurfaceVertex, position),
        offset_of!(SurfaceVertex, normal),
        offset_of!(SurfaceVertex, aux),
        offset_of!(SurfaceVertex, pattern),
        offset_of!(SurfaceVertex, tail_t),
        offset_of!(SurfaceVertex, space_material),
    ];
    let locations = wgsl_locations(&skin, "SurfaceVertex");
    assert_eq!(locations.len(), SurfaceVertex::ATTRIBUTES.len());
    for (attr, (&location, &offset)) in SurfaceVertex::ATTRIBUTES
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
fn the_pose_snippet_places_roots_for_the_solver_and_the_renderer() {
    parse_and_validate(
        "prelude + creature_pose.wgsl",
        &[prelude().as_str(), CREATURE_POSE_WGSL].concat(),
    );
    for module in [
        ShaderModule::StrandStep,
        ShaderModule::Shadow,
        ShaderModule::Surfaces,
        ShaderModule::Ribbons,
        ShaderModule::Overlay,
    ] {
        assert_eq!(
            module.snippets().first(),
            Some(&CREATURE_POSE_WGSL),
            "{} must be built on the shared pose snippet",
            module.name()
        );
    }
}
