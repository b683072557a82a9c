//! The render shaders' sources. Shared snippets (the frame's uniforms, the hair BSDF, the
//! ribbon geometry, the shadow lookup) are prepended to each pipeline's own file, so one
//! definition serves every pass; a test parses and validates each composed module.

/// The frame's uniforms and helpers (`shaders/render_frame.wgsl`), after the creature-pose
/// snippet the solver places roots with, so roots, normals and skin are placed alike.
pub const FRAME_WGSL: &str = concat!(
    include_str!("../../shaders/creature_pose.wgsl"),
    include_str!("../../shaders/render_frame.wgsl")
);
/// The hair fibre's specular lobes (`shaders/hair_bsdf.wgsl`).
pub const HAIR_BSDF_WGSL: &str = include_str!("../../shaders/hair_bsdf.wgsl");
/// Ribbons pulled from the solver's buffer (`shaders/ribbon_geometry.wgsl`).
pub const RIBBON_GEOMETRY_WGSL: &str = include_str!("../../shaders/ribbon_geometry.wgsl");
/// The key light's visibility (`shaders/shadow_lookup.wgsl`).
pub const SHADOW_LOOKUP_WGSL: &str = include_str!("../../shaders/shadow_lookup.wgsl");
/// The ribbon colour pass (`shaders/ribbon_color.wgsl`).
pub const RIBBON_COLOR_WGSL: &str = include_str!("../../shaders/ribbon_color.wgsl");
/// The ribbon shadow passes (`shaders/ribbon_shadow.wgsl`).
pub const RIBBON_SHADOW_WGSL: &str = include_str!("../../shaders/ribbon_shadow.wgsl");
/// The opaque surfaces (`shaders/skin.wgsl`).
pub const SKIN_WGSL: &str = include_str!("../../shaders/skin.wgsl");
/// The contact overlay (`shaders/lines.wgsl`).
pub const LINES_WGSL: &str = include_str!("../../shaders/lines.wgsl");
/// The camera's strand culling (`shaders/strand_cull.wgsl`).
pub const STRAND_CULL_WGSL: &str = include_str!("../../shaders/strand_cull.wgsl");
/// The ID target's sample-0 copy (`shaders/id_resolve.wgsl`).
pub const ID_RESOLVE_WGSL: &str = include_str!("../../shaders/id_resolve.wgsl");

/// The composed source of every render pipeline's module, by name: what the renderer
/// compiles and what the shader test validates.
pub fn render_modules() -> Vec<(&'static str, String)> {
    vec![
        (
            "ribbon_color",
            [
                FRAME_WGSL,
                HAIR_BSDF_WGSL,
                RIBBON_GEOMETRY_WGSL,
                SHADOW_LOOKUP_WGSL,
                RIBBON_COLOR_WGSL,
            ]
            .concat(),
        ),
        (
            "ribbon_shadow",
            [FRAME_WGSL, RIBBON_GEOMETRY_WGSL, RIBBON_SHADOW_WGSL].concat(),
        ),
        ("skin", [FRAME_WGSL, SHADOW_LOOKUP_WGSL, SKIN_WGSL].concat()),
        ("lines", [FRAME_WGSL, LINES_WGSL].concat()),
        ("id_resolve", ID_RESOLVE_WGSL.to_string()),
        ("strand_cull", STRAND_CULL_WGSL.to_string()),
    ]
}

/// The composed source of the render module `name` (see [`render_modules`]).
pub fn module_source(name: &str) -> String {
    render_modules()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, s)| s)
        .unwrap_or_default()
}
