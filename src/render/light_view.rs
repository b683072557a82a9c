//! The key light's view of the creature: the orthographic frame its shadow maps are drawn
//! in, and the maps' formats and depth slabs. Below the passes that draw or read the maps
//! (`shadow`, `frame`, `descriptors`, the hair paths), so none of them imports another for
//! these numbers.

use super::pass_view::PassView;
use glam::{Mat4, Vec3};

/// Depth format of both shadow depth maps.
pub const SHADOW_DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Format of the first hair's depth as the later passes read it: 24-bit fixed point in an
/// 8-bit colour (WGSL `pack_depth`), renderable and readable on every backend.
pub const FIRST_HAIR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// Format of the deep opacity map: four cumulative densities, blended additively.
pub const DEEP_OPACITY_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
/// Slab ends of the deep opacity map, metres behind the first hair the light meets: thin
/// near the surface of the coat, where the eye sees the change, and reaching past the
/// longest strands (13 cm and their variation) to the skin.
pub const SLAB_ENDS: [f32; 4] = [0.012, 0.035, 0.08, 0.2];

/// The sphere the light frame covers: the creature with its fur and a hand near it.
pub const SHADOW_CENTER: Vec3 = Vec3::new(0.0, -0.28, -0.36);
/// Radius of that sphere, metres.
pub const SHADOW_RADIUS: f32 = 1.3;

/// The orthographic frame of a directional light toward `toward_light`, covering the
/// creature: its world → clip matrix, its depth range (m) and its pass view for a map of
/// `size` texels.
pub fn light_frame(toward_light: Vec3, size: u32) -> (Mat4, f32, PassView) {
    let l = toward_light.normalize_or(Vec3::Y);
    let r = SHADOW_RADIUS;
    let eye = SHADOW_CENTER + l * (2.0 * r);
    let up = if l.y.abs() > 0.95 { Vec3::Z } else { Vec3::Y };
    let view = glam::camera::rh::view::look_at_mat4(eye, SHADOW_CENTER, up);
    let proj = glam::camera::rh::proj::directx::orthographic(-r, r, -r, r, r, 3.0 * r);
    let view_proj = proj * view;
    let texel = 2.0 * r / size.max(1) as f32;
    let pass = PassView {
        view_proj,
        eye: l,
        perspective: 0,
        forward: -l,
        pixel_scale: texel,
    };
    (view_proj, 2.0 * r, pass)
}
