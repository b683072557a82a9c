//! The strand rasteriser (issue 32): the camera's hair drawn by compute with one sample per
//! pixel and analytic coverage, the nearest few fragments of each pixel blended in depth
//! order, within WebGPU's default limits (no 64-bit atomics).
//!
//! Three passes (`shaders/strand_raster_*.wgsl`):
//!
//! 1. **Bin** (`cs_bin`, a thread per drawn segment): each of a drawn strand's five
//!    segments is set up on screen (ends, depth, the ribbons' tapered half-width and
//!    coverage) and its number added to the list of every 8×8 tile it may touch. A list
//!    holds [`StrandRaster::capacity`] entries; the tile's count keeps counting past that,
//!    and every entry that found it full is counted too ([`Overflow::entries`]).
//! 2. **Draw** (`cs_draw_*`, a workgroup per tile, a thread per pixel): the tile's segments
//!    are set up again into workgroup memory and sorted front to back; each pixel keeps its
//!    [`LAYERS`] nearest fragments sorted, blends the rest behind them in the order it
//!    falls out of them, and stops once almost nothing shows through. A tile whose list
//!    overflowed is drawn by a slow path that finds its segments again among all drawn
//!    segments ([`Overflow::tiles`]): slower, nearly the same picture (its rest falls out
//!    in segment order). Out: premultiplied linear RGB and transmittance per pixel.
//! 3. **Composite** ([`StrandRaster::composite`]): a full-screen triangle in the camera's
//!    render pass after the surfaces, `hair + T · surfaces`.
//!
//! Inputs are the ribbons' own: the frame's uniforms (group 0, the camera's view), the
//! strands' group 1 (positions, the drawn order, the cull flags), the points' colours from
//! the ribbons' shading pass, and the surfaces' depth.

use super::RenderError;
use super::descriptors::{
    RenderPipelineSpec, bind_group_layout, compute_entry, pipeline_layout, render_pipeline,
    texture_entry, workgroups_for,
};
use super::frame::{FrameBinding, View};
use super::target::TargetLayout;
use crate::shaders::{SEGMENTS, STRAND_RASTER_MAX_CAPACITY, STRAND_RASTER_TILE, ShaderModule};
use encase::ShaderType;

/// Fragments per pixel kept in depth order (the rest are blended in the order they fall
/// out of them).
pub const LAYERS: u32 = crate::shaders::STRAND_RASTER_LAYERS;
/// Pixels a side of a tile.
pub const TILE: u32 = STRAND_RASTER_TILE;
/// Entries of a tile's list unless set otherwise: the most the drawing pass holds.
pub const DEFAULT_CAPACITY: u32 = STRAND_RASTER_MAX_CAPACITY;
/// Bytes per pixel of the output: RGB and transmittance as four unorm16.
const OUTPUT_BYTES: u64 = 8;
/// Bytes of the counters before the per-tile counts.
const COUNTS_HEADER: u64 = 16;

/// What the passes know of the target. WGSL twin: `StrandRasterUniforms`
/// (`shaders/strand_raster_segment.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ShaderType)]
pub struct StrandRasterUniforms {
    /// Target width, pixels.
    pub width: u32,
    /// Target height, pixels.
    pub height: u32,
    /// Tiles across.
    pub tiles_x: u32,
    /// Tiles down.
    pub tiles_y: u32,
    /// Entries of each tile's list.
    pub capacity: u32,
}

/// The work of the last frame past the tiles' capacity, drawn by the slow path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overflow {
    /// Tile entries (a segment in a tile) that found the tile's list full.
    pub entries: u32,
    /// Tiles drawn by the slow path.
    pub tiles: u32,
}

/// What one frame of the rasteriser reads.
#[derive(Clone, Copy, Debug)]
pub struct StrandRasterInputs<'a> {
    /// The frame's uniforms and views (group 0; the camera's view is used).
    pub frame: &'a FrameBinding,
    /// Group 1 over the latest positions (`StrandBinding::groups`).
    pub strands_group: &'a wgpu::BindGroup,
    /// The strands drawn this frame (the frame's `lod_drawn`, at most the strands bound).
    pub drawn: u32,
    /// Each point's shaded colour, written by the ribbons' shading pass this frame
    /// (`StrandBinding::shaded_points`).
    pub shaded_points: &'a wgpu::Buffer,
    /// The surfaces' depth, of the layout's samples (reversed: cleared to 0, near is
    /// greater), with `TEXTURE_BINDING` usage.
    pub surface_depth: &'a wgpu::TextureView,
    /// The target's size in pixels.
    pub size: (u32, u32),
}

/// The per-target buffers, made for one size and capacity.
#[derive(Debug)]
struct Buffers {
    key: (u32, u32, u32),
    uniforms: wgpu::Buffer,
    counts: wgpu::Buffer,
    items: wgpu::Buffer,
    output: wgpu::Buffer,
    tiles: (u32, u32),
    /// The composite's group over the uniforms and the output.
    composite_group: wgpu::BindGroup,
}

/// The strand rasteriser: its pipelines, and buffers made for the last target drawn.
#[derive(Debug)]
pub struct StrandRaster {
    layout: wgpu::BindGroupLayout,
    composite_layout: wgpu::BindGroupLayout,
    bin: wgpu::ComputePipeline,
    draw: wgpu::ComputePipeline,
    composite: wgpu::RenderPipeline,
    /// Whether the surfaces' depth is multisampled (the draw's entry point and binding).
    multisampled: bool,
    capacity: u32,
    buffers: Option<Buffers>,
}

/// Tiles across and down a target of `size`.
fn tiles_for(size: (u32, u32)) -> (u32, u32) {
    (size.0.div_ceil(TILE), size.1.div_ceil(TILE))
}

/// The draw's binding of the surfaces' depth: 5 multisampled, 6 single-sampled.
fn depth_binding(multisampled: bool) -> u32 {
    if multisampled { 5 } else { 6 }
}

impl StrandRaster {
    /// Compiles the passes for `target`, reading the frame (`frame`, group 0) and the
    /// strands (`strands`, group 1: `HairStrands::layout`).
    pub fn new(
        device: &wgpu::Device,
        frame: &wgpu::BindGroupLayout,
        strands: &wgpu::BindGroupLayout,
        target: &TargetLayout,
    ) -> Self {
        use wgpu::BufferBindingType::{Storage, Uniform};
        let multisampled = target.samples > 1;
        let layout = bind_group_layout(
            device,
            "strand raster",
            &[
                compute_entry(0, Uniform),
                compute_entry(1, Storage { read_only: false }),
                compute_entry(2, Storage { read_only: false }),
                compute_entry(3, Storage { read_only: true }),
                compute_entry(4, Storage { read_only: false }),
                texture_entry(
                    depth_binding(multisampled),
                    wgpu::ShaderStages::COMPUTE,
                    wgpu::TextureSampleType::Depth,
                    multisampled,
                ),
            ],
        );
        let compute_layout = pipeline_layout(
            device,
            "strand raster",
            &[Some(frame), Some(strands), Some(&layout)],
        );
        let compute = |module: ShaderModule, entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&compute_layout),
                module: &module.create(device),
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let bin = compute(ShaderModule::StrandRasterBin, "cs_bin");
        let draw = compute(
            ShaderModule::StrandRasterDraw,
            if multisampled {
                "cs_draw_multisampled"
            } else {
                "cs_draw_single"
            },
        );
        let fragment = wgpu::ShaderStages::FRAGMENT;
        let buffer = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: fragment,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let composite_layout = bind_group_layout(
            device,
            "strand raster: composite",
            &[buffer(0, Uniform), buffer(4, Storage { read_only: true })],
        );
        let composite = Self::composite_pipeline(device, &composite_layout, target);
        StrandRaster {
            layout,
            composite_layout,
            bin,
            draw,
            composite,
            multisampled,
            capacity: DEFAULT_CAPACITY,
            buffers: None,
        }
    }

    /// The composite: `hair + T · destination` into the camera's colour target, the IDs
    /// (where the layout has them) and depth left as the surfaces wrote them. Its targets
    /// are the camera passes' (`descriptors::camera_targets`: the ID slot empty without IDs).
    fn composite_pipeline(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        target: &TargetLayout,
    ) -> wgpu::RenderPipeline {
        let targets = super::hair::composite::composite_targets(target);
        let module = ShaderModule::StrandRasterComposite.create(device);
        let pipeline_layout = pipeline_layout(
            device,
            "strand raster: composite",
            &[None, None, Some(layout)],
        );
        render_pipeline(
            device,
            RenderPipelineSpec {
                label: "strand raster: composite",
                layout: &pipeline_layout,
                module: &module,
                vertex: "vs_full_screen",
                buffers: &[],
                primitive: super::descriptors::triangles(),
                depth: Some(super::descriptors::camera_depth(false)),
                multisample: super::descriptors::camera_multisample(target.samples),
                fragment: Some(("fs_composite", &targets)),
            },
        )
    }

    /// Entries of each tile's list ([`DEFAULT_CAPACITY`] unless set).
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Sets the entries of each tile's list, 1 … [`DEFAULT_CAPACITY`] (clamped): fewer
    /// take less memory and send more tiles to the slow path. Takes effect at the next
    /// frame.
    pub fn set_capacity(&mut self, capacity: u32) {
        self.capacity = capacity.clamp(1, STRAND_RASTER_MAX_CAPACITY);
    }

    /// Bytes the pass's buffers take for a target of `width × height` with lists of
    /// `capacity` entries: the tiles' counts and lists, the output, the uniforms.
    pub fn bytes_for(width: u32, height: u32, capacity: u32) -> u64 {
        let (tx, ty) = tiles_for((width, height));
        let tiles = u64::from(tx) * u64::from(ty);
        StrandRasterUniforms::min_size().get()
            + COUNTS_HEADER
            + 4 * tiles
            + 4 * tiles * u64::from(capacity)
            + OUTPUT_BYTES * u64::from(width) * u64::from(height)
    }

    /// Bytes of GPU memory the pass's buffers hold now.
    pub fn memory_bytes(&self) -> u64 {
        self.buffers.as_ref().map_or(0, |b| {
            b.uniforms.size() + b.counts.size() + b.items.size() + b.output.size()
        })
    }

    /// Frees the per-target buffers (the pipelines stay); the next record makes them again.
    pub fn release_buffers(&mut self) {
        self.buffers = None;
    }

    /// The last frame's picture: per pixel (row by row) premultiplied linear RGB and
    /// transmittance as four unorm16 (`COPY_SRC`, for tests and read-back).
    pub fn output(&self) -> Option<&wgpu::Buffer> {
        self.buffers.as_ref().map(|b| &b.output)
    }

    fn prepare(&mut self, device: &wgpu::Device, size: (u32, u32)) -> Result<(), RenderError> {
        super::target::check_size(device, size.0, size.1)?;
        let key = (size.0, size.1, self.capacity);
        if self.buffers.as_ref().is_some_and(|b| b.key == key) {
            return Ok(());
        }
        let tiles = tiles_for(size);
        let tile_count = u64::from(tiles.0) * u64::from(tiles.1);
        let items_bytes = 4 * tile_count * u64::from(self.capacity);
        let output_bytes = OUTPUT_BYTES * u64::from(size.0) * u64::from(size.1);
        let largest = device
            .limits()
            .max_storage_buffer_binding_size
            .min(device.limits().max_buffer_size);
        if items_bytes.max(output_bytes) > largest {
            return Err(RenderError::Settings(format!(
                "the strand rasteriser's buffers for a {}×{} target with {} entries a tile \
                 take {} bytes, more than the {largest} this device binds at once: draw \
                 smaller or lower the tile capacity",
                size.0,
                size.1,
                self.capacity,
                items_bytes.max(output_bytes)
            )));
        }
        let storage = |label, bytes: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.max(16),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("strand raster: uniforms"),
            size: StrandRasterUniforms::min_size().get(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let counts = storage("strand raster: tile counts", COUNTS_HEADER + 4 * tile_count);
        let items = storage("strand raster: tile lists", items_bytes);
        let output = storage("strand raster: hair", output_bytes);
        let composite_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("strand raster: composite"),
            layout: &self.composite_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniforms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: output.as_entire_binding(),
                },
            ],
        });
        self.buffers = Some(Buffers {
            key,
            uniforms,
            counts,
            items,
            output,
            tiles,
            composite_group,
        });
        Ok(())
    }

    /// Records the binning and drawing passes of one frame into `encoder`: after the
    /// surfaces (their depth is read) and the ribbons' shading pass (the points' colours),
    /// before the render pass that calls [`StrandRaster::composite`].
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        inputs: &StrandRasterInputs,
    ) -> Result<(), RenderError> {
        self.prepare(device, inputs.size)?;
        let Some(b) = self.buffers.as_ref() else {
            return Ok(());
        };
        let uniforms = StrandRasterUniforms {
            width: inputs.size.0,
            height: inputs.size.1,
            tiles_x: b.tiles.0,
            tiles_y: b.tiles.1,
            capacity: self.capacity,
        };
        queue.write_buffer(&b.uniforms, 0, &super::frame::uniform_bytes(&uniforms)?);
        // Made each frame: the depth view and the colours are the caller's.
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("strand raster"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: b.uniforms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: b.counts.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: b.items.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: inputs.shaded_points.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: b.output.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: depth_binding(self.multisampled),
                    resource: wgpu::BindingResource::TextureView(inputs.surface_depth),
                },
            ],
        });
        encoder.clear_buffer(&b.counts, 0, None);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("strand raster"),
            timestamp_writes: None,
        });
        inputs.frame.bind_compute(&mut pass, View::Camera);
        pass.set_bind_group(1, inputs.strands_group, &[]);
        pass.set_bind_group(2, &group, &[]);
        let segments = inputs.drawn.saturating_mul(SEGMENTS);
        if segments > 0 {
            pass.set_pipeline(&self.bin);
            let (x, y) = workgroups_for(segments);
            pass.dispatch_workgroups(x, y, 1);
        }
        pass.set_pipeline(&self.draw);
        pass.dispatch_workgroups(b.tiles.0, b.tiles.1, 1);
        Ok(())
    }

    /// Composites the last recorded hair over what `pass` (the camera's colour target,
    /// after the surfaces) holds: `hair + T · surfaces`.
    pub fn composite(&self, pass: &mut wgpu::RenderPass) {
        let Some(b) = self.buffers.as_ref() else {
            return;
        };
        pass.set_pipeline(&self.composite);
        pass.set_bind_group(2, &b.composite_group, &[]);
        pass.draw(0..3, 0..1);
    }

    /// The last frame's work past the tiles' capacity (waits for the GPU); `None` before
    /// the first frame.
    pub fn overflow(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Option<Overflow>, RenderError> {
        let Some(b) = self.buffers.as_ref() else {
            return Ok(None);
        };
        let bytes = crate::gpu::read_buffer(device, queue, &b.counts).map_err(RenderError::Gpu)?;
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes[..8]);
        Ok(Some(Overflow {
            entries: words[0],
            tiles: words[1],
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buffers_at_1080p_stay_within_their_stated_bound() {
        // 240 × 135 tiles: counts, lists of 256 entries, 8 bytes a pixel.
        let bytes = StrandRaster::bytes_for(1920, 1080, DEFAULT_CAPACITY);
        let tiles = 240 * 135;
        assert_eq!(
            bytes,
            StrandRasterUniforms::min_size().get()
                + 16
                + 4 * tiles
                + 4 * 256 * tiles
                + 8 * 1920 * 1080
        );
        assert!(bytes < 64 * 1_000_000, "{bytes} bytes");
    }
}
