//! Strand culling for the camera: a compute pass (`shaders/strand_cull.wgsl`) marks the
//! strands hidden behind the creature's body or head, or wholly outside the view, and the
//! ribbon pass skips them. The occluders are the analytic body ellipsoid and a sphere inside
//! the head, shrunk so they lie inside the drawn skin, so culling changes no pixel.

use super::RenderSettings;
use super::camera::Camera;
use crate::creature::{Creature, CreaturePose};
use encase::ShaderType;
use glam::{Affine3A, Mat3A, Mat4, UVec4, Vec4};

/// Metres the occluders are shrunk by on top of the ribbon's half width: the skin mesh's
/// chords sink a fraction of a millimetre under the analytic surface, and the hair behind
/// should fail the depth test clearly.
pub const CULL_SAFETY_MARGIN: f32 = 0.003;

/// Strands one workgroup of the cull pass handles (WGSL `@workgroup_size`).
pub const CULL_WORKGROUP: u32 = 64;

/// Bytes of the flag the cull pass writes per strand.
pub const CULL_FLAG_BYTES: u64 = 4;

/// The cull pass's inputs. WGSL twin: `CullUniforms` in `shaders/strand_cull.wgsl`, where
/// each field is documented.
#[derive(Clone, Copy, Debug, PartialEq, ShaderType)]
pub struct CullUniforms {
    /// World → clip for the camera.
    pub view_proj: Mat4,
    /// xyz: camera position; w: world size of one pixel at unit distance.
    pub eye: Vec4,
    /// xyz: unit viewing direction; w: narrowest drawn ribbon in pixels.
    pub forward: Vec4,
    /// World → body-local.
    pub body_inverse: Mat4,
    /// World → head-local.
    pub head_inverse: Mat4,
    /// Body ellipsoid centre, body-local.
    pub body_center: Vec4,
    /// xyz: body ellipsoid radii; w: the body inverse's largest stretch.
    pub body_radii: Vec4,
    /// xyz: head sphere centre, head-local; w: its radius.
    pub head: Vec4,
    /// x: ribbon width at the root, y: the head inverse's largest stretch, z: safety margin.
    pub params: Vec4,
    /// x: strand count, y: 1 to cull.
    pub counts: UVec4,
}

/// An upper bound of how much a linear map can stretch a length: the square root of the
/// product of its largest column and row sums of absolute values (1 for no scaling, a
/// little over for rotations).
fn stretch_bound(m: Mat3A) -> f32 {
    let cols = [m.x_axis, m.y_axis, m.z_axis].map(|c| c.abs().element_sum());
    let t = m.transpose();
    let rows = [t.x_axis, t.y_axis, t.z_axis].map(|c| c.abs().element_sum());
    let max = |v: [f32; 3]| v.into_iter().fold(0.0f32, f32::max);
    (max(cols) * max(rows)).sqrt()
}

/// The radius of a sphere about the head's centre that lies inside the head in every
/// direction: its base radius less every bump that dents it.
pub fn head_inner_radius(creature: &Creature) -> f32 {
    let head = &creature.head;
    let dents: f32 = head
        .ears
        .iter()
        .chain(&head.cheeks)
        .chain(std::iter::once(&head.muzzle))
        .map(|b| b.height.min(0.0))
        .sum();
    head.base_radius + dents
}

/// The cull pass's uniforms for a frame seen by `camera` on a target of `size` pixels;
/// `enabled` false makes the pass mark nothing.
pub fn cull_uniforms(
    creature: &Creature,
    pose: &CreaturePose,
    camera: &Camera,
    size: (u32, u32),
    settings: &RenderSettings,
    strands: u32,
    enabled: bool,
) -> CullUniforms {
    let inverse = |a: &Affine3A| {
        let inv = a.inverse();
        (Mat4::from(inv), stretch_bound(inv.matrix3))
    };
    let (body_inverse, body_stretch) = inverse(&pose.body);
    let (head_inverse, head_stretch) = inverse(&pose.head);
    // A pose that cannot be inverted gives no occluders: cull nothing.
    let usable = body_inverse.is_finite()
        && head_inverse.is_finite()
        && body_stretch.is_finite()
        && head_stretch.is_finite();
    let body = &creature.body;
    let (w, h) = (size.0.max(1) as f32, size.1.max(1) as f32);
    CullUniforms {
        view_proj: camera.view_proj(w / h),
        eye: camera.eye.extend(camera.pixel_scale(size.1)),
        forward: camera.forward().extend(settings.min_pixels),
        body_inverse,
        head_inverse,
        body_center: body.center.extend(1.0),
        body_radii: body.radii.extend(body_stretch),
        head: creature
            .head
            .center
            .extend(head_inner_radius(creature).max(0.0)),
        params: Vec4::new(settings.root_width, head_stretch, CULL_SAFETY_MARGIN, 0.0),
        counts: UVec4::new(strands, u32::from(enabled && usable), 0, 0),
    }
}
