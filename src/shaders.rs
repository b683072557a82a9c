//! Every WGSL module Pelt compiles, assembled in one place: a prelude of `const` lines
//! generated from the Rust constants, then the shared snippets, then the pass's own file.
//! The solver and the renderer both compile through [`ShaderModule`], and the shader test
//! validates every module as it is composed here.
//!
//! Rust is the one source of every number the two sides share (points per strand,
//! workgroup sizes, batch sizes, material, ID and space codes, π and the hair fibre's
//! constants): the WGSL files declare no constant at all, so they cannot drift apart.

use crate::creature::TAIL_BONES;
use crate::render::frame::MAX_HAND_CAPSULES;
use crate::render::hair_bsdf;
use crate::render::ids;
use crate::render::mesh::{Material, VertexSpace};
use crate::render::ribbons::{STRANDS_PER_BATCH, VERTICES_PER_STRAND};
use crate::render::strand_cull::CULL_WORKGROUP;
use crate::sim::{
    CONTACT_ITERATIONS, MAX_CAPSULES, MAX_STEPS_PER_DISPATCH, POINTS_PER_STRAND, SEGMENTS,
    WORKGROUP_SIZE,
};

/// The creature's pose and where a root sits on it (`shaders/creature_pose.wgsl`), shared
/// by the solver and every render pass that places roots or skin.
pub const CREATURE_POSE_WGSL: &str = include_str!("../shaders/creature_pose.wgsl");
/// The frame's uniforms and helpers every render pass reads (`shaders/frame.wgsl`).
pub const FRAME_WGSL: &str = include_str!("../shaders/frame.wgsl");
/// The hair fibre's specular lobes (`shaders/hair_bsdf.wgsl`).
pub const HAIR_BSDF_WGSL: &str = include_str!("../shaders/hair_bsdf.wgsl");
/// Ribbons pulled from the solver's buffer (`shaders/ribbon_geometry.wgsl`).
pub const RIBBON_GEOMETRY_WGSL: &str = include_str!("../shaders/ribbon_geometry.wgsl");
/// The key light's visibility (`shaders/shadow_lookup.wgsl`).
pub const SHADOW_LOOKUP_WGSL: &str = include_str!("../shaders/shadow_lookup.wgsl");

/// One constant the WGSL gets from Rust: its name and its value (every one is a `u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedConstant {
    /// The WGSL name.
    pub name: &'static str,
    /// Its value.
    pub value: u32,
}

const fn shared(name: &'static str, value: u32) -> SharedConstant {
    SharedConstant { name, value }
}

/// Every constant of the prelude, from its Rust source.
pub const SHARED_CONSTANTS: [SharedConstant; 29] = [
    // The strands (`sim::layout`).
    shared("POINTS", POINTS_PER_STRAND as u32),
    shared("SEGMENTS", SEGMENTS as u32),
    shared("MAX_CAPSULES", MAX_CAPSULES as u32),
    shared("MAX_STEPS", MAX_STEPS_PER_DISPATCH as u32),
    shared("CONTACT_ITERATIONS", CONTACT_ITERATIONS as u32),
    shared("STEP_WORKGROUP", WORKGROUP_SIZE),
    // The creature (`creature`, `render::mesh::VertexSpace`).
    shared("TAIL_BONES", TAIL_BONES as u32),
    shared("SPACE_BODY", VertexSpace::Body as u32),
    shared("SPACE_HEAD", VertexSpace::Head as u32),
    shared("SPACE_TAIL", VertexSpace::Tail as u32),
    shared("SPACE_WORLD", VertexSpace::World as u32),
    // The renderer's passes.
    shared("MAX_HAND_CAPSULES", MAX_HAND_CAPSULES as u32),
    shared("CULL_WORKGROUP", CULL_WORKGROUP),
    shared("STRANDS_PER_BATCH", STRANDS_PER_BATCH),
    shared("VERTICES_PER_STRAND", VERTICES_PER_STRAND),
    // Surface materials (`render::mesh::Material`).
    shared("MATERIAL_COAT", Material::Coat as u32),
    shared("MATERIAL_EYE", Material::Eye as u32),
    shared("MATERIAL_NOSE", Material::Nose as u32),
    shared("MATERIAL_HAND", Material::Hand as u32),
    shared("MATERIAL_NAIL", Material::Nail as u32),
    shared("MATERIAL_SLEEVE", Material::Sleeve as u32),
    shared("MATERIAL_FLOOR", Material::Floor as u32),
    // What each pixel shows in the optional ID target (`render::ids`).
    shared("ID_BACKGROUND", ids::BACKGROUND as u32),
    shared("ID_SKIN", ids::SKIN as u32),
    shared("ID_HAIR", ids::HAIR as u32),
    shared("ID_HAND", ids::HAND as u32),
    shared("ID_FACE", ids::FACE as u32),
    shared("ID_OVERLAY", ids::OVERLAY as u32),
    shared("ID_FLOOR", ids::FLOOR as u32),
];

/// One `f32` constant the WGSL gets from Rust.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SharedFloat {
    /// The WGSL name.
    pub name: &'static str,
    /// Its value.
    pub value: f32,
}

const fn float(name: &'static str, value: f32) -> SharedFloat {
    SharedFloat { name, value }
}

/// Every `f32` constant of the prelude: π and the hair fibre's constants, whose CPU
/// mirror is [`crate::render::hair_bsdf`].
pub const SHARED_FLOATS: [SharedFloat; 6] = [
    float("PI", std::f32::consts::PI),
    float("HAIR_ALPHA", hair_bsdf::ALPHA),
    float("HAIR_BETA_R", hair_bsdf::BETA_R),
    float("HAIR_GAMMA_TT", hair_bsdf::GAMMA_TT),
    float("HAIR_F0", hair_bsdf::F0),
    float("HAIR_TT_SHARE", hair_bsdf::TT_SHARE),
];

/// The prelude every module starts with: one `const` line per [`SHARED_CONSTANTS`] and
/// [`SHARED_FLOATS`] entry. A float is written as Rust's shortest text that reads back to
/// the same `f32`, so WGSL's value is Rust's to the bit.
pub fn prelude() -> String {
    let mut out =
        String::from("// Generated from Rust (src/shaders.rs): do not declare these again.\n");
    for c in SHARED_CONSTANTS {
        out.push_str(&format!("const {}: u32 = {}u;\n", c.name, c.value));
    }
    for c in SHARED_FLOATS {
        out.push_str(&format!("const {}: f32 = {:?};\n", c.name, c.value));
    }
    out
}

/// Every WGSL module Pelt compiles, one per GPU pass (the file of the same name in
/// `shaders/` is its own part).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderModule {
    /// The solver's step (`sim::GpuSolver`).
    StrandStep,
    /// The camera's strand culling (`render::strand_cull`).
    StrandCull,
    /// The hair's shadow maps from the key light (`render::shadow`).
    Shadow,
    /// Skin, face, hand and floor, and their depth from the light (`render::surfaces`).
    Surfaces,
    /// The hair seen by the camera (`render::ribbons`).
    Ribbons,
    /// The `contact` wireframes (`render::overlay`).
    Overlay,
    /// The ID target's sample-0 copy (`render::ids`).
    Ids,
}

impl ShaderModule {
    /// Every module.
    pub const ALL: [ShaderModule; 7] = [
        ShaderModule::StrandStep,
        ShaderModule::StrandCull,
        ShaderModule::Shadow,
        ShaderModule::Surfaces,
        ShaderModule::Ribbons,
        ShaderModule::Overlay,
        ShaderModule::Ids,
    ];

    /// The module's name: its own file is `shaders/{name}.wgsl`.
    pub fn name(self) -> &'static str {
        match self {
            ShaderModule::StrandStep => "strand_step",
            ShaderModule::StrandCull => "strand_cull",
            ShaderModule::Shadow => "shadow",
            ShaderModule::Surfaces => "surfaces",
            ShaderModule::Ribbons => "ribbons",
            ShaderModule::Overlay => "overlay",
            ShaderModule::Ids => "ids",
        }
    }

    /// The module's own file, `shaders/{name}.wgsl`.
    pub fn own_source(self) -> &'static str {
        match self {
            ShaderModule::StrandStep => include_str!("../shaders/strand_step.wgsl"),
            ShaderModule::StrandCull => include_str!("../shaders/strand_cull.wgsl"),
            ShaderModule::Shadow => include_str!("../shaders/shadow.wgsl"),
            ShaderModule::Surfaces => include_str!("../shaders/surfaces.wgsl"),
            ShaderModule::Ribbons => include_str!("../shaders/ribbons.wgsl"),
            ShaderModule::Overlay => include_str!("../shaders/overlay.wgsl"),
            ShaderModule::Ids => include_str!("../shaders/ids.wgsl"),
        }
    }

    /// The shared snippets placed between the prelude and the module's own file, in order.
    pub fn snippets(self) -> &'static [&'static str] {
        match self {
            ShaderModule::StrandStep => &[CREATURE_POSE_WGSL],
            ShaderModule::StrandCull | ShaderModule::Ids => &[],
            ShaderModule::Shadow => &[CREATURE_POSE_WGSL, FRAME_WGSL, RIBBON_GEOMETRY_WGSL],
            ShaderModule::Surfaces => &[CREATURE_POSE_WGSL, FRAME_WGSL, SHADOW_LOOKUP_WGSL],
            ShaderModule::Ribbons => &[
                CREATURE_POSE_WGSL,
                FRAME_WGSL,
                HAIR_BSDF_WGSL,
                RIBBON_GEOMETRY_WGSL,
                SHADOW_LOOKUP_WGSL,
            ],
            ShaderModule::Overlay => &[CREATURE_POSE_WGSL, FRAME_WGSL],
        }
    }

    /// The composed source: the prelude, the snippets, the module's own file.
    pub fn source(self) -> String {
        let mut out = prelude();
        for part in self.snippets() {
            out.push_str(part);
        }
        out.push_str(self.own_source());
        out
    }

    /// Compiles the module on `device`.
    pub fn create(self, device: &wgpu::Device) -> wgpu::ShaderModule {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(self.name()),
            source: wgpu::ShaderSource::Wgsl(self.source().into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prelude_has_one_line_per_constant_and_no_name_twice() {
        let prelude = prelude();
        let names: Vec<&str> = SHARED_CONSTANTS
            .iter()
            .map(|c| c.name)
            .chain(SHARED_FLOATS.iter().map(|c| c.name))
            .collect();
        for name in &names {
            let listed = names.iter().filter(|n| *n == name).count();
            assert_eq!(listed, 1, "{name} is listed {listed} times");
            let declared = prelude.matches(&format!("const {name}: ")).count();
            assert_eq!(declared, 1, "{name} is declared {declared} times");
        }
        assert_eq!(prelude.lines().count(), names.len() + 1);
        // The float text reads back to the same f32.
        for c in SHARED_FLOATS {
            let line = prelude
                .lines()
                .find(|l| l.starts_with(&format!("const {}: f32 = ", c.name)))
                .unwrap();
            let text = line.rsplit(" = ").next().unwrap().trim_end_matches(';');
            assert_eq!(
                text.parse::<f32>().unwrap().to_bits(),
                c.value.to_bits(),
                "{line}"
            );
        }
    }

    #[test]
    fn the_roots_space_codes_are_the_vertex_spaces() {
        use crate::creature::{Space, space_code};
        assert_eq!(space_code(Space::Body), VertexSpace::Body as u32 as f32);
        assert_eq!(space_code(Space::Head), VertexSpace::Head as u32 as f32);
        assert_eq!(space_code(Space::Tail), VertexSpace::Tail as u32 as f32);
    }
}
