//! Where a strand root sits on the posed creature: the pose as shaders read it
//! ([`GpuCreaturePose`]) and the Rust twin of the shared WGSL snippet
//! (`shaders/creature_pose.wgsl`): [`root_transform`], [`place_point`], [`place_direction`].
//! The solver's CPU mirror, the solver's shader and the renderer all place roots through
//! these, so they agree.

use super::{CreaturePose, Space, TAIL_BONES};
use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4Swizzles};

/// The code a root's space has in shaders (WGSL `SPACE_BODY`, `SPACE_HEAD`, `SPACE_TAIL`).
pub fn space_code(space: Space) -> f32 {
    match space {
        Space::Body => 0.0,
        Space::Head => 1.0,
        Space::Tail => 2.0,
    }
}

/// A [`CreaturePose`] as shaders read it. WGSL twin: `CreaturePose` in
/// `shaders/creature_pose.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable, encase::ShaderType)]
pub struct GpuCreaturePose {
    /// Head-local → world.
    pub head: Mat4,
    /// Body-local → world.
    pub body: Mat4,
    /// Per tail bone, root first: body-space rest → world.
    pub tail: [Mat4; TAIL_BONES],
}

impl From<&CreaturePose> for GpuCreaturePose {
    fn from(p: &CreaturePose) -> Self {
        GpuCreaturePose {
            head: Mat4::from(p.head),
            body: Mat4::from(p.body),
            tail: p.tail.map(Mat4::from),
        }
    }
}

/// The transform a root in `space` at tail parameter `tail_t` follows (WGSL
/// `root_transform`): the head or body transform, or for a tail root the blend of the two
/// tail bones nearest `tail_t`: `u = t·TAIL_BONES − 0.5`; bone 0 for `u ≤ 0`, the last bone
/// for `u ≥ TAIL_BONES − 1`, else bones `⌊u⌋` and `⌊u⌋+1` weighted `1−f` and `f`.
pub fn root_transform(pose: &GpuCreaturePose, space: Space, tail_t: f32) -> Mat4 {
    match space {
        Space::Body => pose.body,
        Space::Head => pose.head,
        Space::Tail => {
            let u = tail_t * TAIL_BONES as f32 - 0.5;
            if u <= 0.0 {
                return pose.tail[0];
            }
            if u >= (TAIL_BONES - 1) as f32 {
                return pose.tail[TAIL_BONES - 1];
            }
            let b = u.floor();
            let f = u - b;
            let i = b as usize;
            pose.tail[i] * (1.0 - f) + pose.tail[i + 1] * f
        }
    }
}

/// A part-space point through a root transform (WGSL `place_point`).
pub fn place_point(m: &Mat4, p: Vec3) -> Vec3 {
    m.x_axis.xyz() * p.x + m.y_axis.xyz() * p.y + m.z_axis.xyz() * p.z + m.w_axis.xyz()
}

/// A part-space direction through a root transform, normalised (WGSL `place_direction`).
pub fn place_direction(m: &Mat4, v: Vec3) -> Vec3 {
    (m.x_axis.xyz() * v.x + m.y_axis.xyz() * v.y + m.z_axis.xyz() * v.z).normalize()
}
