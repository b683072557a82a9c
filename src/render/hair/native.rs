//! The native hair path: the strand rasteriser on the host's cores ([`crate::raster`]),
//! chosen by default on CPU adapters, where the GPU's memory is the host's and its
//! rasteriser is the slowest part of a frame. The light's maps: the frame so far is
//! submitted, the strands' positions read back, the first hair's depth and the deep
//! opacity drawn and written into the shadow maps. The camera: once the surfaces and the
//! shading pass are recorded, the frame so far is submitted, the shaded colours and sample
//! 0 of the surfaces' depth read back, the picture drawn and uploaded, and composited over
//! the surfaces in the camera's last pass (`shaders/hair_native.wgsl`).

use super::native_gpu::{NativeGpu, ReadBack, write_texture};
use super::path::{CameraHair, HairDraw, HairFrame, HairPath};
use crate::raster::{
    BinStats, LightSlabs, Lod, RasterOptions, RasterView, StrandStyle, Strands, draw_light_maps,
    draw_picture,
};
use crate::render::RenderError;
use crate::render::frame::WrittenFrame;
use crate::render::light_view::SLAB_ENDS;
use crate::render::shadow::cleared_color;
use crate::render::strand_lod::{DRAWN_ORDER_SEED, drawn_order};
use crate::render::target::TargetLayout;
use crate::render::timing::{Pass, Span};
use glam::Vec4;
use rayon::prelude::*;

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

    /// Forgets positions read for a frame's light maps (a frame whose light maps another
    /// path draws must read its own).
    pub fn forget_positions(&mut self) {
        self.positions = None;
    }

    fn gpu(&mut self, device: &wgpu::Device) -> &mut NativeGpu {
        let target = self.target;
        self.gpu
            .get_or_insert_with(|| NativeGpu::new(device, &target))
    }

    /// The drawn order of `count` strands, made again only when the count changes.
    fn order(&mut self, count: u32) -> &[u32] {
        if self.order.len() != count as usize {
            self.order = drawn_order(count, DRAWN_ORDER_SEED);
        }
        &self.order
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

/// A float as IEEE half-precision bits (rounded to nearest; the maps' `Rgba16Float`).
fn f16_bits(v: f32) -> u16 {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mantissa = bits & 0x007f_ffff;
    if v.is_nan() {
        return 0x7e00;
    }
    if exp >= 31 {
        return sign | 0x7c00;
    }
    if exp <= 0 {
        if exp < -10 {
            return sign;
        }
        let m = (mantissa | 0x0080_0000) >> (1 - exp);
        return sign | ((m + 0x1000) >> 13) as u16;
    }
    // Rounding may carry into the exponent, which is the right result.
    sign | (((exp as u32) << 10) + ((mantissa + 0x1000) >> 13)) as u16
}

/// Reads back the positions of `hair` alone (the light's maps drew none this frame).
fn positions_of(bytes: &[u8]) -> Vec<Vec4> {
    bytemuck::pod_collect_to_vec(bytes)
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
            match self.draw_light(gpu, encoder, hair, &written) {
                Ok(()) => drawn = true,
                Err(e) => log::warn!("the native hair path could not draw the light's maps: {e}"),
            }
        }
        // Its maps are written through the queue (they land before the rest of the frame);
        // this pass ends the timed span, and clears the maps when none were drawn.
        let load = |view| {
            Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })
        };
        let attachments = if drawn {
            [load(&maps.first_hair), load(&maps.deep_opacity)]
        } else {
            [
                cleared_color(&maps.first_hair, wgpu::Color::WHITE),
                cleared_color(&maps.deep_opacity, wgpu::Color::TRANSPARENT),
            ]
        };
        let _pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow: hair maps by the native path"),
            color_attachments: &attachments,
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
        let positions = self.positions.take();
        let read = {
            let native = self.gpu(gpu.device);
            let mut reads = ReadBack {
                buffers: vec![hair.strands.shaded_points()],
                depth: Some(camera.targets),
            };
            if positions.is_none() {
                reads.buffers.push(hair.strands.positions(hair.positions));
            }
            native
                .submit_and_read(gpu.device, gpu.queue, encoder, &reads)
                .map_err(RenderError::Gpu)?
        };
        let positions = match positions {
            Some(p) => p,
            None => positions_of(&read.buffers[1]),
        };
        let colors: Vec<u32> = bytemuck::pod_collect_to_vec(&read.buffers[0]);
        let (lod, style) = lod_and_style(&written, hair.count);
        let order = self.order(hair.strands.count).to_vec();
        let strands = Strands {
            positions: &positions,
            colors: &colors,
            order: Some(&order),
            lod,
            style,
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
        let (picture, stats) = draw_picture(&strands, &view, &options, read.depth.as_deref())
            .map_err(|e| RenderError::Strands(e.to_string()))?;
        self.last_stats = Some(stats);
        let rows = picture.rows();
        self.gpu(gpu.device)
            .upload_picture(gpu.device, gpu.queue, camera.targets.size, &rows);
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
    }
}

impl NativePath {
    /// Submits the frame so far with the positions read back, draws the light's maps and
    /// writes them into the shadow maps (through the queue); keeps the positions for the
    /// camera's picture.
    fn draw_light(
        &mut self,
        gpu: &HairFrame,
        encoder: &mut wgpu::CommandEncoder,
        hair: HairDraw,
        written: &WrittenFrame,
    ) -> Result<(), String> {
        let read = self.gpu(gpu.device).submit_and_read(
            gpu.device,
            gpu.queue,
            encoder,
            &ReadBack {
                buffers: vec![hair.strands.positions(hair.positions)],
                depth: None,
            },
        )?;
        let positions = positions_of(&read.buffers[0]);
        let (lod, style) = lod_and_style(written, hair.count);
        let order = self.order(hair.strands.count).to_vec();
        let strands = Strands {
            positions: &positions,
            colors: &[],
            order: Some(&order),
            lod,
            style,
        };
        let maps = &gpu.shadow.maps;
        let l = &written.light;
        let view = RasterView::light(l.view_proj, l.forward, l.pixel_scale, maps.size);
        let slabs = LightSlabs {
            depth_range: written.frame.light_depth_range,
            ends: SLAB_ENDS,
        };
        let (light, _) =
            draw_light_maps(&strands, &view, &slabs, &self.options).map_err(|e| e.to_string())?;
        let size = (maps.size, maps.size);
        write_texture(
            gpu.queue,
            maps.first_hair.texture(),
            size,
            &light.first_hair_rgba8(),
            4,
        );
        // A million texels and more: converted over every core.
        let deep: Vec<[u16; 4]> = light
            .deep_opacity
            .par_iter()
            .map(|o| o.map(f16_bits))
            .collect();
        write_texture(
            gpu.queue,
            maps.deep_opacity.texture(),
            size,
            bytemuck::cast_slice(&deep),
            8,
        );
        self.positions = Some(positions);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::f16_bits;

    #[test]
    fn halves_are_the_ieee_bits() {
        assert_eq!(f16_bits(0.0), 0);
        assert_eq!(f16_bits(1.0), 0x3c00);
        assert_eq!(f16_bits(-2.0), 0xc000);
        assert_eq!(f16_bits(0.5), 0x3800);
        assert_eq!(f16_bits(65504.0), 0x7bff);
        assert_eq!(f16_bits(1e6), 0x7c00);
        // The smallest subnormal, 2^-24.
        assert_eq!(f16_bits(5.960_464_5e-8), 1);
        // 1 + 2^-10 is the next half after 1.
        assert_eq!(f16_bits(1.000_976_6), 0x3c01);
    }
}
