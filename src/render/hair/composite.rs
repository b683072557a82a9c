//! How a strand rasteriser's picture is laid over the surfaces in the camera's last pass,
//! shared by the native path ([`super::native_gpu`]) and the WGSL one
//! (`render::strand_raster`): premultiplied hair plus the surfaces behind it scaled by the
//! hair's transmittance, the surfaces' alpha and IDs kept.

use crate::render::target::{ID_FORMAT, TargetLayout};

/// `out = hair + T · surface` for a picture of premultiplied colour with the
/// transmittance in alpha; the destination's alpha kept.
pub const OVER_SURFACES: wgpu::BlendState = wgpu::BlendState {
    color: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::SrcAlpha,
        operation: wgpu::BlendOperation::Add,
    },
    alpha: wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::Zero,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    },
};

/// The camera pass's colour targets for a composite into `target`: the colour blended by
/// [`OVER_SURFACES`], and the ID target (where the layout has one) left as the surfaces
/// wrote it.
pub fn composite_targets(target: &TargetLayout) -> [Option<wgpu::ColorTargetState>; 2] {
    [
        Some(wgpu::ColorTargetState {
            format: target.color_format,
            blend: Some(OVER_SURFACES),
            write_mask: wgpu::ColorWrites::ALL,
        }),
        target.ids.then_some(wgpu::ColorTargetState {
            format: ID_FORMAT,
            blend: None,
            write_mask: wgpu::ColorWrites::empty(),
        }),
    ]
}
