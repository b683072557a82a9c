//! The view one pass draws from (the camera's or the key light's), as WGSL reads it.

use encase::ShaderType;
use glam::{Mat4, Vec3};

/// The view one pass draws from: the camera's or the key light's. WGSL twin: `PassView`.
#[derive(Clone, Copy, Debug, PartialEq, ShaderType)]
pub struct PassView {
    /// World → clip.
    pub view_proj: Mat4,
    /// The camera's position (perspective), or the direction toward the viewer
    /// (orthographic).
    pub eye: Vec3,
    /// 1 for a perspective view, 0 for an orthographic one.
    pub perspective: u32,
    /// Unit viewing direction.
    pub forward: Vec3,
    /// World size of one pixel at unit distance (perspective) or of one pixel
    /// (orthographic).
    pub pixel_scale: f32,
}
