//! The compute rasteriser as a hair path: the exact emulation of the ribbons' 4× MSAA
//! picture ([`ComputeRaster`] for the camera, [`ShadowRaster`] for the light's maps),
//! each made the first time a frame needs it, with the switches its tests use and the
//! limits past which it cannot draw a frame ([`ComputePath::refusal`]).

use super::compute_raster::{ComputeRaster, DEFAULT_QUEUE_CAPACITY, RasterWalks};
use super::path::{CameraHair, HairDraw, HairFrame, HairPath};
use super::shadow_raster::ShadowRaster;
use crate::render::RenderError;
use crate::render::shadow::cleared_color;
use crate::render::target::TargetLayout;
use crate::render::timing::{Pass, Span};

/// The compute path: its two rasterisers, built when first needed, and their settings.
#[derive(Debug)]
pub struct ComputePath {
    /// Group 0 of its pipelines (the frame's uniforms), kept to build them when needed.
    frame_layout: wgpu::BindGroupLayout,
    /// Group 1 of its pipelines (the strands).
    strands_layout: wgpu::BindGroupLayout,
    /// The camera's targets it draws into.
    target: TargetLayout,
    /// The camera's rasteriser, built the first time a frame draws hair with it.
    camera: Option<ComputeRaster>,
    /// The hair's shadow maps by compute, built the first time a frame needs them.
    light: Option<ShadowRaster>,
    /// Entries of the camera rasteriser's long-segment queue.
    queue_capacity: u32,
    /// Whether the camera's walk keeps samples by 64-bit atomics where the device has them.
    wide_atomics: bool,
    /// Whether the camera's walks skip samples that hold nearer hair.
    early_depth: bool,
}

impl ComputePath {
    /// The path for camera targets of `target`, its pipelines reading the frame (`frame`,
    /// group 0) and the strands (`strands`, group 1); nothing is compiled yet.
    pub fn new(
        frame: &wgpu::BindGroupLayout,
        strands: &wgpu::BindGroupLayout,
        target: TargetLayout,
    ) -> Self {
        ComputePath {
            frame_layout: frame.clone(),
            strands_layout: strands.clone(),
            target,
            camera: None,
            light: None,
            queue_capacity: DEFAULT_QUEUE_CAPACITY,
            wide_atomics: true,
            early_depth: true,
        }
    }

    /// Why this path cannot draw a frame of `size` on `device` with `strands` strands bound
    /// and shadow maps of `shadow_texels` a side, or `None` when it can: its largest buffers
    /// (8 bytes per MSAA sample of the target, 16 per shadow texel) must each fit one
    /// storage binding of the device, and it draws at most
    /// [`crate::shaders::MAX_COMPUTE_RASTER_STRANDS`] strands. (The points' colours, 4 bytes
    /// a point, are the strands' binding's, a quarter of the positions that binding already
    /// fits.)
    pub fn refusal(
        &self,
        device: &wgpu::Device,
        size: (u32, u32),
        shadow_texels: u32,
        strands: u32,
    ) -> Option<String> {
        let limit = device.limits().max_storage_buffer_binding_size;
        let samples = u64::from(size.0) * u64::from(size.1) * u64::from(self.target.samples);
        let texels = u64::from(shadow_texels).pow(2);
        let largest = (8 * samples).max(16 * texels);
        if largest > limit {
            Some(format!(
                "the compute rasteriser would need a {largest}-byte buffer at {}×{}, past this \
                 device's {limit}-byte storage binding limit",
                size.0, size.1
            ))
        } else if strands > crate::shaders::MAX_COMPUTE_RASTER_STRANDS {
            Some(format!(
                "the compute rasteriser draws at most {} strands, not {strands}",
                crate::shaders::MAX_COMPUTE_RASTER_STRANDS
            ))
        } else {
            None
        }
    }

    /// Entries of the camera rasteriser's queue of long segments (those beyond are drawn
    /// by their own thread and counted, see [`ComputePath::overflow_buffer`]).
    pub fn set_queue_capacity(&mut self, capacity: u32) {
        self.queue_capacity = capacity;
        if let Some(camera) = &mut self.camera {
            camera.set_queue_capacity(capacity);
        }
    }

    /// Whether the camera's walk keeps samples by 64-bit atomics where the device has them.
    pub fn set_wide_atomics(&mut self, on: bool) {
        self.wide_atomics = on;
        if let Some(camera) = &mut self.camera {
            camera.set_wide_atomics(on);
        }
    }

    /// Whether the camera's walks skip the samples that already hold nearer hair.
    pub fn set_early_depth(&mut self, on: bool) {
        self.early_depth = on;
        if let Some(camera) = &mut self.camera {
            camera.set_early_depth(on);
        }
    }

    /// The buffer whose second word counts the long segments the last camera frame drew
    /// without the queue, or `None` when no frame was drawn since its buffers were made.
    pub fn overflow_buffer(&self) -> Option<&wgpu::Buffer> {
        self.camera.as_ref().and_then(ComputeRaster::queue_buffer)
    }

    /// The walks the camera's rasteriser dispatched for the last frame it drew (`None`
    /// before its first).
    pub fn last_walks(&self) -> Option<RasterWalks> {
        self.camera.as_ref().and_then(ComputeRaster::last_walks)
    }
}

impl HairPath for ComputePath {
    fn record_light(
        &mut self,
        gpu: &HairFrame,
        encoder: &mut wgpu::CommandEncoder,
        hair: Option<HairDraw>,
    ) {
        let light = self.light.get_or_insert_with(|| {
            ShadowRaster::new(gpu.device, &self.frame_layout, &self.strands_layout)
        });
        let maps = &gpu.shadow.maps;
        // Its buffers draw any maps up to theirs, so they are made again only to grow,
        // and never its pipelines (built once: compiling them stalls a frame).
        light.prepare(gpu.device, gpu.queue, maps.size);
        if let Some(hair) = hair {
            light.record_compute(
                encoder,
                gpu.queue,
                gpu.frame,
                hair.group(),
                hair.count,
                maps.size,
            );
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow: hair maps by compute"),
            color_attachments: &[
                cleared_color(&maps.first_hair, wgpu::Color::WHITE),
                cleared_color(&maps.deep_opacity, wgpu::Color::TRANSPARENT),
            ],
            depth_stencil_attachment: None,
            timestamp_writes: gpu.timestamps.map(|t| t.render(Pass::Shadow, Span::End)),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if hair.is_some() {
            light.write_maps(&mut pass);
        }
    }

    fn prepare_camera(
        &mut self,
        gpu: &HairFrame,
        encoder: &mut wgpu::CommandEncoder,
        hair: HairDraw,
        camera: &CameraHair,
    ) -> Result<(), RenderError> {
        let raster = self.camera.get_or_insert_with(|| {
            let mut c = ComputeRaster::new(
                gpu.device,
                &self.frame_layout,
                &self.strands_layout,
                &self.target,
            );
            c.set_queue_capacity(self.queue_capacity);
            c.set_wide_atomics(self.wide_atomics);
            c.set_early_depth(self.early_depth);
            c
        });
        // The shading pass before it opens the timed span of the camera's hair.
        raster.record(
            gpu.device,
            gpu.queue,
            encoder,
            gpu.frame,
            hair.group(),
            hair.strands.count,
            hair.strands.shaded_points(),
            camera.targets.size,
            gpu.timestamps,
            false,
        );
        Ok(())
    }

    fn record_camera(
        &self,
        gpu: &HairFrame,
        pass: &mut wgpu::RenderPass,
        hair: HairDraw,
        _camera: &CameraHair,
    ) {
        if let Some(raster) = &self.camera {
            raster.resolve(pass, gpu.frame, hair.group());
        }
    }

    fn memory_bytes(&self) -> u64 {
        self.camera.as_ref().map_or(0, ComputeRaster::bytes)
            + self.light.as_ref().map_or(0, ShadowRaster::bytes)
    }

    fn release_buffers(&mut self) {
        // The pipelines stay: small beside the buffers, and building them again would
        // stall the next compute frame.
        if let Some(camera) = &mut self.camera {
            camera.release_buffers();
        }
        if let Some(light) = &mut self.light {
            light.release_buffers();
        }
    }
}
