//! Every WGSL module Pelt compiles, assembled in one place: a prelude of `const` lines
//! generated from the Rust constants, then the shared snippets, then the pass's own file.
//! The solver and the renderer both compile through [`ShaderModule`], and the shader test
//! validates every module as it is composed here.
//!
//! Rust is the one source of every number the two sides share (points per strand,
//! workgroup sizes, batch sizes, material, ID and space codes, π and the hair fibre's
//! constants): the WGSL files declare no constant at all, so they cannot drift apart.

// The numbers the GPU programs and their Rust callers share, defined here, below both the
// solver and the renderer, which re-export the ones they own under their own names
// (`sim::POINTS_PER_STRAND`, `render::ids::SKIN` …): the prelude hands them to WGSL, so
// neither side can drift, and this module imports nothing above it.

/// Points per strand: the root and five simulated points (`sim::POINTS_PER_STRAND`).
pub const POINTS: u32 = 6;
/// Simulated segments per strand.
pub const SEGMENTS: u32 = POINTS - 1;
/// The most hand capsules one solver step carries (`sim::MAX_CAPSULES`).
pub const MAX_CAPSULES: u32 = 24;
/// The most steps one solver dispatch takes (`sim::MAX_STEPS_PER_DISPATCH`).
pub const MAX_STEPS: u32 = 8;
/// Extra push-out and projection rounds for points the hand touched.
pub const CONTACT_ITERATIONS: u32 = 3;
/// Strands one workgroup of the solver steps (`sim::WORKGROUP_SIZE`).
pub const STEP_WORKGROUP: u32 = 64;
/// Tail bones of the creature's pose.
pub const TAIL_BONES: u32 = crate::creature::TAIL_BONES as u32;
/// Vertex and root spaces (`render::mesh::VertexSpace`, `creature::space_code`).
pub const SPACE_BODY: u32 = 0;
/// Head-local.
pub const SPACE_HEAD: u32 = 1;
/// Body-local at rest, skinned to the tail bones.
pub const SPACE_TAIL: u32 = 2;
/// World space (the hand, the floor).
pub const SPACE_WORLD: u32 = 3;
/// A root bound to a triangle of a skinned body (`sim::SPACE_SKINNED`).
pub const SPACE_SKINNED: u32 = 4;
/// A body root's candidate slot that names no distance grid (`sim::NO_GRID`).
pub const NO_GRID: u32 = u32::MAX;
/// Distance grids one body root asks at most (`sim::CANDIDATES`).
pub const FIELD_CANDIDATES: u32 = 4;
/// Rounds of the push out of a body's distance field (`sim::body_field::PUSH_ROUNDS`).
pub const FIELD_PUSH_ROUNDS: u32 = 2;
/// The most hand capsules the shading's soft occlusion considers.
pub const MAX_HAND_CAPSULES: u32 = 24;
/// Strands one workgroup of the camera's cull pass handles.
pub const CULL_WORKGROUP: u32 = 64;
/// Strands drawn per ribbon instance.
pub const STRANDS_PER_BATCH: u32 = 64;
/// Ribbon vertices per strand: two per point.
pub const VERTICES_PER_STRAND: u32 = 2 * POINTS;
/// Threads of one workgroup of the passes that take one item a thread (the shading of
/// strand points, the strand rasteriser's binning).
pub const RASTER_WORKGROUP: u32 = 64;
/// Pixels a side of a workgroup of the native hair path's depth read
/// (`render::hair::native_gpu`).
pub const DEPTH_READ_TILE: u32 = 8;
/// Pixels a side of the strand rasteriser's screen tiles (`render::strand_raster`): one
/// workgroup of its drawing pass, a thread per pixel.
pub const STRAND_RASTER_TILE: u32 = 8;
/// Fragments per pixel the strand rasteriser keeps in depth order and blends exactly; the
/// rest are blended without order behind them.
pub const STRAND_RASTER_LAYERS: u32 = 4;
/// The most entries of one tile's segment list (the size of the drawing pass's workgroup
/// arrays: 256 segments set up take 12 KiB of the 16 KiB WebGPU guarantees).
pub const STRAND_RASTER_MAX_CAPACITY: u32 = 256;
/// A pixel of the strand rasteriser stops taking segments once the hair in front of them
/// lets less than this through.
pub const STRAND_RASTER_OPAQUE_T: f32 = 0.001;
/// Surface materials (`render::mesh::Material`): the creature's coat-coloured skin.
pub const MATERIAL_COAT: u32 = 0;
/// A glossy eye.
pub const MATERIAL_EYE: u32 = 1;
/// The nose.
pub const MATERIAL_NOSE: u32 = 2;
/// The hand's skin.
pub const MATERIAL_HAND: u32 = 3;
/// A fingernail.
pub const MATERIAL_NAIL: u32 = 4;
/// The sleeve.
pub const MATERIAL_SLEEVE: u32 = 5;
/// The floor.
pub const MATERIAL_FLOOR: u32 = 6;
/// A body other than the creature, coloured per vertex (`render::mesh::Material::Body`).
pub const MATERIAL_BODY: u32 = 7;
/// The floor's centre on the ground plane, metres: under the creature (`render::mesh`).
pub const FLOOR_CENTER_X: f32 = 0.0;
/// See [`FLOOR_CENTER_X`].
pub const FLOOR_CENTER_Z: f32 = -0.4;
/// Distances from the floor's centre over which it fades into the background, metres
/// (read by `fs_matte`).
pub const FLOOR_FADE_START: f32 = 1.0;
/// See [`FLOOR_FADE_START`].
pub const FLOOR_FADE_END: f32 = 2.8;

/// What a pixel of the ID target shows (`render::ids`): nothing.
pub const ID_BACKGROUND: u32 = 0;
/// The creature's skin.
pub const ID_SKIN: u32 = 1;
/// Hair.
pub const ID_HAIR: u32 = 2;
/// The hand.
pub const ID_HAND: u32 = 3;
/// Eyes and nose.
pub const ID_FACE: u32 = 4;
/// The contact overlay (which never writes IDs; reserved).
pub const ID_OVERLAY: u32 = 5;
/// The floor.
pub const ID_FLOOR: u32 = 6;
/// The hair fibre's cuticle tilt α, 3° (`render::hair_bsdf`, its CPU mirror).
pub const HAIR_ALPHA: f32 = 0.052_359_9;
/// Longitudinal width of the R lobe (8°); TT is half as wide, TRT twice.
pub const HAIR_BETA_R: f32 = 0.139_626;
/// Azimuthal width of the TT lobe, radians.
pub const HAIR_GAMMA_TT: f32 = 0.5;
/// Fresnel reflectance at normal incidence (fibre index about 1.55).
pub const HAIR_F0: f32 = 0.0465;
/// Share of the light entering the fibre that leaves it forward (the rest is absorbed or
/// scattered inside even by the palest fibre).
pub const HAIR_TT_SHARE: f32 = 0.8;

// The volume grid (`sim::volume`, `shaders/volume_grid.wgsl`).
/// One unit of splat weight as an integer in the volume grid (2¹⁶).
pub const VOLUME_DENSITY_SCALE: f32 = 65536.0;
/// One unit of weighted velocity (metres per step) as an integer in the volume grid (2²⁰).
pub const VOLUME_MOMENTUM_SCALE: f32 = 1_048_576.0;
/// Largest velocity component a point splats into the volume grid, metres per step.
pub const VOLUME_VELOCITY_LIMIT: f32 = 0.05;
/// Largest push the volume term gives a point in one step, in grid cells.
pub const VOLUME_PUSH_LIMIT: f32 = 0.1;

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
/// The ribbons' shading, for the shading pass every hair path reads (`shaders/ribbons.wgsl`).
pub const RIBBONS_WGSL: &str = include_str!("../shaders/ribbons.wgsl");
/// The volume grid's splat and read (the solver's module only).
pub const VOLUME_GRID_WGSL: &str = include_str!("../shaders/volume_grid.wgsl");
/// A strand segment as the strand rasteriser sets it up and draws it at a pixel, and its
/// bindings (`shaders/strand_raster_segment.wgsl`).
pub const STRAND_RASTER_SEGMENT_WGSL: &str = include_str!("../shaders/strand_raster_segment.wgsl");

/// One `u32` constant the WGSL gets from Rust: its name and its value.
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

/// The pipeline-overridable constants the shader files declare, each set from Rust when its
/// pipelines are made (none today); the files declare no other constant of their own.
pub const PIPELINE_OVERRIDES: [&str; 0] = [];

/// Every `u32` constant of the prelude.
pub const SHARED_CONSTANTS: [SharedConstant; 39] = [
    shared("POINTS", POINTS),
    shared("SEGMENTS", SEGMENTS),
    shared("MAX_CAPSULES", MAX_CAPSULES),
    shared("MAX_STEPS", MAX_STEPS),
    shared("CONTACT_ITERATIONS", CONTACT_ITERATIONS),
    shared("STEP_WORKGROUP", STEP_WORKGROUP),
    shared("TAIL_BONES", TAIL_BONES),
    shared("SPACE_BODY", SPACE_BODY),
    shared("SPACE_HEAD", SPACE_HEAD),
    shared("SPACE_TAIL", SPACE_TAIL),
    shared("SPACE_WORLD", SPACE_WORLD),
    shared("SPACE_SKINNED", SPACE_SKINNED),
    shared("NO_GRID", NO_GRID),
    shared("FIELD_CANDIDATES", FIELD_CANDIDATES),
    shared("FIELD_PUSH_ROUNDS", FIELD_PUSH_ROUNDS),
    shared("MAX_HAND_CAPSULES", MAX_HAND_CAPSULES),
    shared("CULL_WORKGROUP", CULL_WORKGROUP),
    shared("STRANDS_PER_BATCH", STRANDS_PER_BATCH),
    shared("VERTICES_PER_STRAND", VERTICES_PER_STRAND),
    shared("RASTER_WORKGROUP", RASTER_WORKGROUP),
    shared("STRAND_RASTER_TILE", STRAND_RASTER_TILE),
    shared("STRAND_RASTER_LAYERS", STRAND_RASTER_LAYERS),
    shared("STRAND_RASTER_MAX_CAPACITY", STRAND_RASTER_MAX_CAPACITY),
    shared("DEPTH_READ_TILE", DEPTH_READ_TILE),
    shared("MATERIAL_COAT", MATERIAL_COAT),
    shared("MATERIAL_EYE", MATERIAL_EYE),
    shared("MATERIAL_NOSE", MATERIAL_NOSE),
    shared("MATERIAL_HAND", MATERIAL_HAND),
    shared("MATERIAL_NAIL", MATERIAL_NAIL),
    shared("MATERIAL_SLEEVE", MATERIAL_SLEEVE),
    shared("MATERIAL_FLOOR", MATERIAL_FLOOR),
    shared("MATERIAL_BODY", MATERIAL_BODY),
    shared("ID_BACKGROUND", ID_BACKGROUND),
    shared("ID_SKIN", ID_SKIN),
    shared("ID_HAIR", ID_HAIR),
    shared("ID_HAND", ID_HAND),
    shared("ID_FACE", ID_FACE),
    shared("ID_OVERLAY", ID_OVERLAY),
    shared("ID_FLOOR", ID_FLOOR),
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

/// Every `f32` constant of the prelude: π, the hair fibre's constants, the volume grid's
/// and the floor's.
pub const SHARED_FLOATS: [SharedFloat; 15] = [
    float("PI", std::f32::consts::PI),
    float("HAIR_ALPHA", HAIR_ALPHA),
    float("HAIR_BETA_R", HAIR_BETA_R),
    float("HAIR_GAMMA_TT", HAIR_GAMMA_TT),
    float("HAIR_F0", HAIR_F0),
    float("HAIR_TT_SHARE", HAIR_TT_SHARE),
    // The volume grid.
    float("VOLUME_DENSITY_SCALE", VOLUME_DENSITY_SCALE),
    float("VOLUME_MOMENTUM_SCALE", VOLUME_MOMENTUM_SCALE),
    float("VOLUME_VELOCITY_LIMIT", VOLUME_VELOCITY_LIMIT),
    float("VOLUME_PUSH_LIMIT", VOLUME_PUSH_LIMIT),
    // The floor's fade into the background.
    float("FLOOR_CENTER_X", FLOOR_CENTER_X),
    float("FLOOR_CENTER_Z", FLOOR_CENTER_Z),
    float("FLOOR_FADE_START", FLOOR_FADE_START),
    float("FLOOR_FADE_END", FLOOR_FADE_END),
    // When a pixel of the strand rasteriser is opaque enough to stop.
    float("STRAND_RASTER_OPAQUE_T", STRAND_RASTER_OPAQUE_T),
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
    /// The ribbons' points shaded once per frame by compute (`render::ribbons`).
    RibbonShading,
    /// The `contact` wireframes (`render::overlay`).
    Overlay,
    /// The ID target's sample-0 copy (`render::ids`).
    Ids,
    /// The native hair path's GPU side: the surfaces' depth read (sample 0) and the host's
    /// picture composited over the surfaces (`render::hair::native`).
    HairNative,
    /// The demo's scene, drawn smaller, upscaled into its window (the binary's
    /// `app::upscale`).
    Upscale,
    /// The demo's panel drawn from its cached texture (the binary's `app::panel_cache`).
    PanelCache,
    /// The strand rasteriser's binning of segments into screen tiles
    /// (`render::strand_raster`).
    StrandRasterBin,
    /// The strand rasteriser's drawing, a workgroup per tile (`render::strand_raster`).
    StrandRasterDraw,
    /// The strand rasteriser's picture composited over the surfaces
    /// (`render::strand_raster`).
    StrandRasterComposite,
}

impl ShaderModule {
    /// Every module.
    pub const ALL: [ShaderModule; 14] = [
        ShaderModule::StrandStep,
        ShaderModule::StrandCull,
        ShaderModule::Shadow,
        ShaderModule::Surfaces,
        ShaderModule::Ribbons,
        ShaderModule::Overlay,
        ShaderModule::Ids,
        ShaderModule::RibbonShading,
        ShaderModule::HairNative,
        ShaderModule::Upscale,
        ShaderModule::PanelCache,
        ShaderModule::StrandRasterBin,
        ShaderModule::StrandRasterDraw,
        ShaderModule::StrandRasterComposite,
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
            ShaderModule::RibbonShading => "ribbon_shading",
            ShaderModule::HairNative => "hair_native",
            ShaderModule::Upscale => "upscale",
            ShaderModule::PanelCache => "panel_cache",
            ShaderModule::StrandRasterBin => "strand_raster_bin",
            ShaderModule::StrandRasterDraw => "strand_raster_draw",
            ShaderModule::StrandRasterComposite => "strand_raster_composite",
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
            ShaderModule::RibbonShading => include_str!("../shaders/ribbon_shading.wgsl"),
            ShaderModule::HairNative => include_str!("../shaders/hair_native.wgsl"),
            ShaderModule::Upscale => include_str!("../shaders/upscale.wgsl"),
            ShaderModule::PanelCache => include_str!("../shaders/panel_cache.wgsl"),
            ShaderModule::StrandRasterBin => include_str!("../shaders/strand_raster_bin.wgsl"),
            ShaderModule::StrandRasterDraw => include_str!("../shaders/strand_raster_draw.wgsl"),
            ShaderModule::StrandRasterComposite => {
                include_str!("../shaders/strand_raster_composite.wgsl")
            }
        }
    }

    /// The shared snippets placed between the prelude and the module's own file, in order.
    pub fn snippets(self) -> &'static [&'static str] {
        match self {
            ShaderModule::StrandStep => &[CREATURE_POSE_WGSL, VOLUME_GRID_WGSL],
            ShaderModule::StrandCull
            | ShaderModule::Ids
            | ShaderModule::HairNative
            | ShaderModule::Upscale
            | ShaderModule::PanelCache => &[],
            ShaderModule::Shadow => &[CREATURE_POSE_WGSL, FRAME_WGSL, RIBBON_GEOMETRY_WGSL],
            ShaderModule::Surfaces => &[CREATURE_POSE_WGSL, FRAME_WGSL, SHADOW_LOOKUP_WGSL],
            ShaderModule::Ribbons => &[
                CREATURE_POSE_WGSL,
                FRAME_WGSL,
                HAIR_BSDF_WGSL,
                RIBBON_GEOMETRY_WGSL,
                SHADOW_LOOKUP_WGSL,
            ],
            ShaderModule::RibbonShading => &[
                CREATURE_POSE_WGSL,
                FRAME_WGSL,
                HAIR_BSDF_WGSL,
                RIBBON_GEOMETRY_WGSL,
                SHADOW_LOOKUP_WGSL,
                RIBBONS_WGSL,
            ],
            ShaderModule::Overlay => &[CREATURE_POSE_WGSL, FRAME_WGSL],
            ShaderModule::StrandRasterBin
            | ShaderModule::StrandRasterDraw
            | ShaderModule::StrandRasterComposite => &[
                CREATURE_POSE_WGSL,
                FRAME_WGSL,
                RIBBON_GEOMETRY_WGSL,
                STRAND_RASTER_SEGMENT_WGSL,
            ],
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
    fn the_roots_space_codes_are_the_prelude_s() {
        use crate::creature::{Space, space_code};
        assert_eq!(space_code(Space::Body), SPACE_BODY as f32);
        assert_eq!(space_code(Space::Head), SPACE_HEAD as f32);
        assert_eq!(space_code(Space::Tail), SPACE_TAIL as f32);
    }
}
