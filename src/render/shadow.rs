//! The key light's shadow maps: an opaque depth map (skin, face, hand), a depth map of the
//! nearest hair, and the deep opacity map (hair density accumulated in four slabs behind
//! that first hair), with the orthographic light frame that covers the creature.

use super::uniforms::PassView;
use glam::{Mat4, Vec3, Vec4};

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
        eye: (l).extend(0.0),
        forward: (-l).extend(texel),
    };
    (view_proj, 2.0 * r, pass)
}

/// The shadow maps' textures and samplers.
#[derive(Debug)]
pub struct ShadowMaps {
    /// Texels along each side.
    pub size: u32,
    /// Opaque depth (skin, face, hand).
    pub skin_depth: wgpu::TextureView,
    /// Depth test of the nearest hair.
    pub hair_depth: wgpu::TextureView,
    /// The nearest hair's depth as a readable float.
    pub first_hair: wgpu::TextureView,
    /// The deep opacity map.
    pub deep_opacity: wgpu::TextureView,
    /// Comparison sampler for the opaque map (filtered: 2×2 PCF).
    pub compare: wgpu::Sampler,
    /// Bilinear sampler for the deep opacity map.
    pub linear: wgpu::Sampler,
    /// Bytes of GPU memory the maps take.
    pub bytes: u64,
}

impl ShadowMaps {
    /// Maps of `size × size` texels.
    pub fn new(device: &wgpu::Device, size: u32) -> Self {
        let texture = |label, format| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: wgpu::Extent3d {
                        width: size,
                        height: size,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                        | wgpu::TextureUsages::TEXTURE_BINDING,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        };
        let compare = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow compare"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let linear = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("deep opacity"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let texels = u64::from(size) * u64::from(size);
        ShadowMaps {
            size,
            skin_depth: texture("shadow: opaque depth", SHADOW_DEPTH_FORMAT),
            hair_depth: texture("shadow: first hair depth test", SHADOW_DEPTH_FORMAT),
            first_hair: texture("shadow: first hair depth", FIRST_HAIR_FORMAT),
            deep_opacity: texture("shadow: deep opacity", DEEP_OPACITY_FORMAT),
            compare,
            linear,
            bytes: texels * (4 + 4 + 4 + 8),
        }
    }
}

/// The slab ends as the uniform carries them.
pub fn slab_uniform() -> Vec4 {
    Vec4::from_array(SLAB_ENDS)
}
