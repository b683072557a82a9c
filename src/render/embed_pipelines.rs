//! The pipelines of a frame drawn into a caller's targets (`embed`), kept by the renderer
//! between frames and rebuilt when the caller's formats change.

use super::surfaces::SurfacePipelines;

/// The formats a frame into a caller's targets was built for, and its pipelines.
#[derive(Debug)]
pub struct EmbedPipelines {
    pub(super) color_format: wgpu::TextureFormat,
    pub(super) depth_format: wgpu::TextureFormat,
    pub(super) samples: u32,
    pub(super) surfaces: SurfacePipelines,
    pub(super) ribbons: wgpu::RenderPipeline,
}
