//! The uniform blocks every render pipeline reads: the frame's ([`FrameUniforms`]) and the
//! view of the pass being drawn ([`PassView`]). Laid out by encase, which applies WGSL's
//! layout rules; a test checks them against `shaders/render_frame.wgsl` as naga parses it.

use super::RenderError;
use encase::ShaderType;
use glam::{Mat4, UVec4, Vec4};

/// Most hand capsules the shading's soft occlusion considers.
pub const MAX_HAND_CAPSULES: usize = 24;

/// One hand capsule for the occlusion term. WGSL twin: `HandCapsule`.
#[derive(Clone, Copy, Debug, Default, PartialEq, ShaderType)]
pub struct HandCapsuleUniform {
    /// xyz: first end, w: radius.
    pub a_radius: Vec4,
    /// xyz: second end, w: unused.
    pub b: Vec4,
}

/// Everything that is the same for every pass of a frame. WGSL twin: `FrameUniforms`
/// (`shaders/render_frame.wgsl`, where each field is documented).
#[derive(Clone, Copy, Debug, PartialEq, ShaderType)]
pub struct FrameUniforms {
    /// World → clip for the camera.
    pub view_proj: Mat4,
    /// World → clip for the key light (orthographic, depth 0 … 1 forward).
    pub light_view_proj: Mat4,
    /// xyz: camera position.
    pub eye: Vec4,
    /// xy: target size in pixels, zw: reciprocals.
    pub viewport: Vec4,
    /// xyz: unit direction toward the key light, w: its irradiance.
    pub light_dir: Vec4,
    /// Linear colour of the key light.
    pub light_color: Vec4,
    /// xyz: unit direction toward the fill light, w: its irradiance.
    pub fill_dir: Vec4,
    /// Ambient light from above (linear).
    pub sky: Vec4,
    /// Ambient light from below (linear).
    pub ground: Vec4,
    /// x: shadow texel size (m), y: light depth range (m), z: hair density per unit
    /// coverage, w: depth bias (m).
    pub shadow: Vec4,
    /// Deep opacity map slab ends, metres behind the first hair.
    pub slabs: Vec4,
    /// Coat main colour, linear.
    pub coat_main: Vec4,
    /// Coat cream colour, linear.
    pub coat_cream: Vec4,
    /// Coat stripe colour, linear.
    pub coat_stripe: Vec4,
    /// Coat blush colour, linear.
    pub coat_blush: Vec4,
    /// Head-local → world.
    pub head: Mat4,
    /// Body-local → world.
    pub body: Mat4,
    /// Each tail bone's skinning transform (rest body space → world).
    pub tail: [Mat4; 5],
    /// The hand's capsules for the occlusion term.
    pub hand: [HandCapsuleUniform; MAX_HAND_CAPSULES],
    /// x: capsule count, y: occlusion strength, z: falloff distance (m).
    pub hand_info: Vec4,
    /// x: eye narrowing (0 … 1), y: time (s, wrapped).
    pub face: Vec4,
    /// x: root width (m), y: tip width share, z: faded length share, w: narrowest drawn
    /// width in pixels.
    pub ribbon: Vec4,
    /// x: exposure, y: contact-mode highlight.
    pub look: Vec4,
    /// The linear colour behind the creature (the floor fades into it).
    pub background: Vec4,
    /// x: strand count, y: MSAA samples, z: 1 when the hair casts shadows, w: 1 when the
    /// camera's ribbons skip the strands the cull pass marked.
    pub counts: UVec4,
}

/// The view one pass draws from: the camera's or the key light's. WGSL twin: `PassView`.
#[derive(Clone, Copy, Debug, PartialEq, ShaderType)]
pub struct PassView {
    /// World → clip.
    pub view_proj: Mat4,
    /// xyz: camera position (perspective) or direction toward the viewer (orthographic);
    /// w: 1 perspective, 0 orthographic.
    pub eye: Vec4,
    /// xyz: unit viewing direction; w: world size of one pixel at unit distance
    /// (perspective) or of one pixel (orthographic).
    pub forward: Vec4,
}

/// The bytes of a uniform block as WGSL lays it out.
pub fn uniform_bytes<T: ShaderType + encase::internal::WriteInto>(
    value: &T,
) -> Result<Vec<u8>, RenderError> {
    encase::UniformBuffer::<Vec<u8>>::content_of::<T, Vec<u8>>(value)
        .map_err(|e| RenderError::Gpu(format!("uniform layout: {e}")))
}
