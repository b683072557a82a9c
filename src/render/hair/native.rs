//! The native hair path: the strand rasteriser on the host's cores ([`crate::raster`]),
//! chosen by default on CPU adapters, where the GPU's memory is the host's and its
//! rasteriser is the slowest part of a frame. The light's maps: from the strands'
//! positions (the host's own copy of a CPU-stepped coat; a GPU solver's read back, the
//! frame so far submitted), the first hair's depth and the deep opacity drawn and written
//! into the shadow maps. The camera: once the surfaces and the shading pass are recorded,
//! the frame so far is submitted, the shaded colours and sample 0 of the surfaces' depth
//! read back in one wait, the picture drawn and uploaded, and composited over the surfaces
//! in the camera's last pass (`shaders/hair_native.wgsl`). A frame of a CPU-stepped coat
//! thus waits for the GPU once.

use super::native_gpu::{NativeGpu, ReadBack, write_texture};
use super::path::{CameraHair, HairDraw, HairFrame, HairPath};
use crate::raster::{
    BinStats, LightSlabs, Lod, RasterOptions, RasterView, StrandStyle, Strands, draw_light_maps,
    draw_picture,
};
use crate::render::RenderError;
use crate::render::frame::WrittenFrame;
use crate::render::half_float::f16_slice_into;
use crate::render::light_view::SLAB_ENDS;
use crate::render::shadow::cleared_color;
use crate::render::strand_lod::{DRAWN_ORDER_SEED, StrandLod, drawn_order};
use crate::render::target::TargetLayout;
use crate::render::timing::{Pass, Span};
use glam::Vec4;
use std::time::Instant;

/// The native path: its GPU side (made the first time a frame needs it), the strands'
/// positions read this frame, and the drawn order of the strands bound.
#[derive(Debug)]
pub struct NativePath {
    target: TargetLayout,
    gpu: Option<NativeGpu>,
    options: RasterOptions,
    /// The positions read back for the light's maps, reused by the camera's picture of the
    /// same frame (taken by it).
    positions: Option<Vec<Vec4>>,
    /// The drawn order of a binding of `order.len()` strands (the same for every binding
    /// of that many).
    order: Vec<u32>,
    /// The binning statistics of the last camera picture.
    last_stats: Option<BinStats>,
    /// Times this frame waited for the GPU's work to read it back.
    waits: u32,
    /// The light maps' strands per texel ([`light_lod`]); `None`: the camera's level.
    light_density: Option<f32>,
    /// The light maps' texels as their textures hold them, kept from frame to frame.
    light_texels: LightTexels,
}

/// The light maps in their textures' formats, written each frame over the last frame's.
#[derive(Debug, Default)]
struct LightTexels {
    /// `first_hair`: one `Rgba8Unorm` texel a word.
    first_hair: Vec<u32>,
    /// `deep_opacity`: four half floats a texel.
    deep_opacity: Vec<u16>,
}

impl NativePath {
    /// The path for camera targets of `target`; nothing is made yet.
    pub fn new(target: TargetLayout) -> Self {
        NativePath {
            target,
            gpu: None,
            options: RasterOptions::default(),
            positions: None,
            order: Vec::new(),
            last_stats: None,
            waits: 0,
            light_density: None,
            light_texels: LightTexels::default(),
        }
    }

    /// The path, its light maps drawing at most `per_texel` strands a texel of the coat's
    /// disc in them, or the camera's level for `None`
    /// ([`crate::render::RenderSettings::light_strands_per_texel`]).
    pub fn with_light_density(self, per_texel: Option<f32>) -> Self {
        NativePath {
            light_density: per_texel,
            ..self
        }
    }

    /// The binning statistics of the last camera picture (`None` before the first).
    pub fn last_stats(&self) -> Option<BinStats> {
        self.last_stats
    }

    /// Whether rows are drawn eight pixels at a time (on by default) or one at a time (the
    /// scalar twin, the same bits).
    pub fn set_simd(&mut self, on: bool) {
        self.options.simd = on;
    }

    /// Starts a frame: forgets positions read for the last frame's light maps (a frame
    /// whose light maps another path draws must read its own) and its count of waits.
    pub fn begin_frame(&mut self) {
        self.positions = None;
        self.waits = 0;
    }

    /// How many times the frame since [`NativePath::begin_frame`] waited for the GPU to
    /// read its work back: once a frame of a coat whose positions are on the host, twice
    /// when its light's maps read the positions back first, none for a frame drawn by
    /// another path.
    pub fn waits(&self) -> u32 {
        self.waits
    }

    fn gpu(&mut self, device: &wgpu::Device) -> &mut NativeGpu {
        let target = self.target;
        self.gpu
            .get_or_insert_with(|| NativeGpu::new(device, &target))
    }

    /// Makes the drawn order of `count` strands (`self.order`), again only when the count
    /// changes.
    fn ensure_order(&mut self, count: u32) {
        if self.order.len() != count as usize {
            self.order = drawn_order(count, DRAWN_ORDER_SEED);
        }
    }
}

/// The strand LOD and the ribbons' shape the frame's uniforms hold.
fn lod_and_style(w: &WrittenFrame, drawn: u32) -> (Lod, StrandStyle) {
    let f = &w.frame;
    (
        Lod {
            drawn,
            end: f.lod_end,
            fade: f.lod_fade,
            width_scale: f.lod_width_scale,
        },
        StrandStyle {
            root_width: f.root_width,
            tip_width: f.tip_width,
            tip_fade: f.tip_fade,
            min_pixels: f.min_pixels,
        },
    )
}

/// The key light's level of detail for a camera level `camera` of `bound` strands, maps
/// of `texel` metres and `per_texel` strands a texel ([`StrandLod::for_light`]).
fn light_lod(camera: Lod, bound: u32, texel: f32, per_texel: f32) -> Lod {
    let l = StrandLod::for_light(
        StrandLod {
            drawn: camera.drawn,
            end: camera.end,
            fade: camera.fade,
            width_scale: camera.width_scale,
        },
        bound,
        texel,
        per_texel,
    );
    Lod {
        drawn: l.drawn.min(camera.drawn),
        end: l.end,
        fade: l.fade,
        width_scale: l.width_scale,
    }
}

/// Milliseconds since `started`, for the path's debug log.
fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1e3
}

impl HairPath for NativePath {
    fn record_light(
        &mut self,
        gpu: &HairFrame,
        encoder: &mut wgpu::CommandEncoder,
        hair: Option<HairDraw>,
    ) {
        let maps = &gpu.shadow.maps;
        let mut drawn = false;
        if let (Some(hair), Some(written)) = (hair, gpu.frame.written().copied()) {
            let drew = match hair.host_positions {
                Some(positions) => self.draw_light(gpu, hair, &written, positions),
                None => self
                    .read_positions(gpu, encoder, hair)
                    .and_then(|positions| {
                        self.draw_light(gpu, hair, &written, &positions)?;
                        // Kept for the camera's picture of the same frame.
                        self.positions = Some(positions);
                        Ok(())
                    }),
            };
            match drew {
                Ok(()) => drawn = true,
                Err(e) => log::warn!("the native hair path could not draw the light's maps: {e}"),
            }
        }
        // Its maps are written through the queue (they land before the rest of the frame);
        // this pass ends the timed span, and clears the maps when none were drawn.
        if drawn {
            self.keep_light(gpu, encoder);
            return;
        }
        let _pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow: hair maps by the native path"),
            color_attachments: &[
                cleared_color(&maps.first_hair, wgpu::Color::WHITE),
                cleared_color(&maps.deep_opacity, wgpu::Color::TRANSPARENT),
            ],
            depth_stencil_attachment: None,
            timestamp_writes: gpu.timestamps.map(|t| t.render(Pass::Shadow, Span::End)),
            occlusion_query_set: None,
            multiview_mask: None,
        });
    }

    fn prepare_camera(
        &mut self,
        gpu: &HairFrame,
        encoder: &mut wgpu::CommandEncoder,
        hair: HairDraw,
        camera: &CameraHair,
    ) -> Result<(), RenderError> {
        let written = *gpu.frame.written().ok_or_else(|| {
            RenderError::Gpu("the native hair path drew before the frame was written".into())
        })?;
        // Positions from the host's copy, from the light's maps of this frame, or read back
        // with the rest: one wait either way.
        let from_light = self.positions.take();
        let read_positions = hair.host_positions.is_none() && from_light.is_none();
        let started = Instant::now();
        let read = {
            let native = self.gpu(gpu.device);
            let mut reads = ReadBack {
                buffers: vec![hair.strands.shaded_points()],
                depth: Some(camera.targets),
            };
            if camera.culled {
                reads.buffers.push(&hair.strands.culled);
            }
            if read_positions {
                reads.buffers.push(hair.strands.positions(hair.positions));
            }
            native
                .submit_and_read(gpu.device, gpu.queue, encoder, &reads)
                .map_err(RenderError::Gpu)?
        };
        self.waits += 1;
        log::debug!(
            "native hair: the frame up to the shading pass run and read back in {:.1} ms",
            ms(started)
        );
        let read_back: Vec<Vec4>;
        let positions: &[Vec4] = match (hair.host_positions, &from_light) {
            (Some(p), _) => p,
            (None, Some(p)) => p,
            (None, None) => {
                read_back = bytemuck::pod_collect_to_vec(&read.buffers[read.buffers.len() - 1]);
                &read_back
            }
        };
        let colors: Vec<u32> = bytemuck::pod_collect_to_vec(&read.buffers[0]);
        let hidden: Option<Vec<u32>> = camera
            .culled
            .then(|| bytemuck::pod_collect_to_vec(&read.buffers[1]));
        let (lod, style) = lod_and_style(&written, hair.count);
        self.ensure_order(hair.strands.count);
        let strands = Strands {
            positions,
            colors: &colors,
            order: Some(&self.order),
            lod,
            style,
            hidden: hidden.as_deref(),
        };
        let c = &written.camera;
        let view = RasterView::camera(
            c.view_proj,
            c.eye,
            c.forward,
            c.pixel_scale,
            camera.targets.size,
        );
        let options = RasterOptions {
            exposure: Some(written.frame.exposure),
            ..self.options
        };
        let started = Instant::now();
        let (picture, stats) = draw_picture(&strands, &view, &options, read.depth.as_deref())
            .map_err(|e| RenderError::Strands(e.to_string()))?;
        log::debug!("native hair: picture drawn in {:.1} ms", ms(started));
        self.last_stats = Some(stats);
        self.gpu(gpu.device).upload_picture(
            gpu.device,
            gpu.queue,
            camera.targets.size,
            picture.half_rows(),
        );
        Ok(())
    }

    fn record_camera(
        &self,
        _gpu: &HairFrame,
        pass: &mut wgpu::RenderPass,
        _hair: HairDraw,
        _camera: &CameraHair,
    ) {
        if let Some(native) = &self.gpu {
            native.record_composite(pass);
        }
    }

    fn memory_bytes(&self) -> u64 {
        self.gpu.as_ref().map_or(0, NativeGpu::bytes)
    }

    fn release_buffers(&mut self) {
        if let Some(native) = &mut self.gpu {
            native.release();
        }
        self.positions = None;
        self.light_texels = LightTexels::default();
    }
}

impl NativePath {
    /// Submits the frame so far with the positions of `hair` read back, and returns them
    /// (for a coat whose positions are not on the host).
    fn read_positions(
        &mut self,
        gpu: &HairFrame,
        encoder: &mut wgpu::CommandEncoder,
        hair: HairDraw,
    ) -> Result<Vec<Vec4>, String> {
        let started = Instant::now();
        let read = self.gpu(gpu.device).submit_and_read(
            gpu.device,
            gpu.queue,
            encoder,
            &ReadBack {
                buffers: vec![hair.strands.positions(hair.positions)],
                depth: None,
            },
        )?;
        self.waits += 1;
        log::debug!("native hair: positions read back in {:.1} ms", ms(started));
        Ok(bytemuck::pod_collect_to_vec(&read.buffers[0]))
    }

    /// Draws the light's maps of `positions` and writes them into the shadow maps
    /// (through the queue: they land at the frame's next submission).
    fn draw_light(
        &mut self,
        gpu: &HairFrame,
        hair: HairDraw,
        written: &WrittenFrame,
        positions: &[Vec4],
    ) -> Result<(), String> {
        let (camera, style) = lod_and_style(written, hair.count);
        let l = &written.light;
        let lod = match self.light_density {
            Some(per_texel) => light_lod(camera, hair.strands.count, l.pixel_scale, per_texel),
            None => camera,
        };
        self.ensure_order(hair.strands.count);
        let strands = Strands {
            positions,
            colors: &[],
            order: Some(&self.order),
            lod,
            style,
            hidden: None,
        };
        let maps = &gpu.shadow.maps;
        let view = RasterView::light(l.view_proj, l.forward, l.pixel_scale, maps.size);
        let slabs = LightSlabs {
            depth_range: written.frame.light_depth_range,
            ends: SLAB_ENDS,
        };
        let started = Instant::now();
        let (light, _) =
            draw_light_maps(&strands, &view, &slabs, &self.options).map_err(|e| e.to_string())?;
        log::debug!("native hair: light maps drawn in {:.1} ms", ms(started));
        let started = Instant::now();
        let size = (maps.size, maps.size);
        let texels = &mut self.light_texels;
        light.first_hair_texels_into(&mut texels.first_hair);
        write_texture(
            gpu.queue,
            maps.first_hair.texture(),
            size,
            bytemuck::cast_slice(&texels.first_hair),
            4,
        );
        f16_slice_into(
            bytemuck::cast_slice(&light.deep_opacity),
            &mut texels.deep_opacity,
        );
        write_texture(
            gpu.queue,
            maps.deep_opacity.texture(),
            size,
            bytemuck::cast_slice(&texels.deep_opacity),
            8,
        );
        log::debug!("native hair: light maps written in {:.1} ms", ms(started));
        Ok(())
    }
}
