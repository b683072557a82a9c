//! The compute rasteriser of the camera's hair (`shaders/hair_raster.wgsl`, resolved by
//! `shaders/hair_resolve.wgsl`): the picture of the ribbons pass drawn without the hardware
//! rasteriser, which is worst at what fur is made of, triangles thinner than a pixel.
//!
//! Per frame: the drawn strands' points are shaded by the strands' shading pass
//! ([`super::strands::HairStrands::shade`], run by the renderer before the walks); each
//! segment is walked by one thread over the pixels of its screen box, emulating the
//! hardware exactly (the ribbons' two triangles per quad, the standard 4× MSAA sample
//! positions, attributes at the pixel centre, the same `coverage_mask`); where the adapter
//! has 64-bit atomic max, one walk keeps each sample's nearest depth and segment at once
//! (depth bits above the inverted segment code); elsewhere the nearest depth is kept by a
//! 32-bit atomic max, then the nearest segment by a second walk (lowest code among equal
//! depths: the same winner, so the picture is the same bytes every run on both paths); a
//! draw writes the winners into the camera's MSAA targets behind the depth test, after the
//! surfaces, over only the 8×8 tiles where the walk kept hair (listed by a compute pass as
//! the instances of an indirect draw): one draw shading per sample where the adapter can
//! (`hair_resolve_per_sample.wgsl`), else a draw per sample, the same bytes. Segments with
//! more than `RASTER_THREAD_PIXELS` pixels go to a queue drawn by whole workgroups; when
//! it is full an overflow counter counts them and their own thread draws them (slower,
//! the same picture).
//!
//! Each segment is set up once (its triangles' barycentric weights as planes in pixel
//! coordinates) and its thread walks, row by row, only the pixels of the quad's hull.

use crate::render::descriptors::{
    MAX_WORKGROUPS_X, RenderPipelineSpec, bind_group, bind_group_layout, camera_depth,
    camera_multisample, camera_targets, compute_entry, pipeline_layout, render_pipeline,
    tile_draw_layout, triangles, workgroups_for,
};
use crate::render::frame::{FrameBinding, View};
use crate::render::target::TargetLayout;
use crate::render::timing::{Pass, Span, Timestamps};
use crate::shaders::{
    RASTER_EARLY_DEPTH_OVERRIDE, RASTER_SAMPLES_OVERRIDE, SEGMENTS, ShaderModule,
};

pub use crate::gpu::WIDE_ATOMICS;
/// The 64-bit `keep_sample`, spliced over the 32-bit one of `hair_raster.wgsl` (beside
/// this file, not in `shaders/`: alone it is no module; [`wide_source`] is, and the
/// compute raster tests validate it).
const WIDE_KEEP_SAMPLE: &str = include_str!("hair_raster_wide.wgsl");
const NEAREST_BEGIN: &str = "// NEAREST SAMPLE BEGIN";
const NEAREST_END: &str = "// NEAREST SAMPLE END";

/// The resolve's entry point that shades per sample, appended to `hair_resolve.wgsl` where
/// the adapter can (beside this file: alone it is no module).
const PER_SAMPLE_RESOLVE: &str = include_str!("hair_resolve_per_sample.wgsl");

/// The resolve module's source with the entry point that runs once per sample
/// (`fs_resolve`), for adapters with `MULTISAMPLED_SHADING`.
pub fn per_sample_resolve_source() -> String {
    format!(
        "{}\n{}",
        ShaderModule::HairResolve.source(),
        PER_SAMPLE_RESOLVE
    )
}

/// The hair raster module's source with the 64-bit nearest-sample block, or `None` if the
/// markers are missing.
pub fn wide_source() -> Option<String> {
    let source = ShaderModule::HairRaster.source();
    let begin = source.find(NEAREST_BEGIN)?;
    let end = begin + source[begin..].find(NEAREST_END)? + NEAREST_END.len();
    Some(format!(
        "{}{}{}",
        &source[..begin],
        WIDE_KEEP_SAMPLE,
        &source[end..]
    ))
}
use encase::ShaderType;

/// Pixels a side of the tiles the resolve draws (a prelude constant of the shaders).
pub use crate::shaders::RESOLVE_TILE;
/// The resolve's instance: a tile's number.
const TILE_ATTRIBUTES: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![0 => Uint32];

/// Default entries of the long-segment queue.
pub const DEFAULT_QUEUE_CAPACITY: u32 = 4096;
/// Workgroups of the queue passes: they take turns over the queued segments, so an empty
/// queue costs this many idle groups rather than one per entry (4,096 idle groups took
/// milliseconds a walk on lavapipe).
const QUEUE_GROUPS: u32 = 256;

/// What the raster passes know of the target. WGSL twin: `RasterUniforms`
/// (`shaders/strand_segments.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ShaderType)]
pub struct RasterUniforms {
    /// Target width, pixels.
    pub width: u32,
    /// Target height, pixels.
    pub height: u32,
    /// MSAA samples of the camera's targets.
    pub samples: u32,
    /// Entries of the long-segment queue.
    pub queue_capacity: u32,
    /// Low bits of a camera sample's code that hold where along its segment the hair is
    /// ([`along_bits`]; 0 for the shadow maps, which keep no codes).
    pub along_bits: u32,
}

/// Bits of a camera sample's code below its segment and triangle that hold where along the
/// segment the pixel centre is, for `strands` strands: as many as fit in 32 bits beside
/// their `2 × SEGMENTS` codes, the top code (all ones) left for "no hair", at most 12 (the
/// resolve's blend then errs by under 1/8,000 of the two points' colour difference);
/// `None` below [`crate::shaders::RASTER_ALONG_BITS`], past
/// [`crate::shaders::MAX_COMPUTE_RASTER_STRANDS`].
pub fn along_bits(strands: u32) -> Option<u32> {
    let codes = u64::from(strands.max(1)) * u64::from(2 * SEGMENTS);
    // Every code shifted, with all its low bits set, stays below 2³² − 1 when the codes
    // fit in 32 − bits bits.
    let code_bits = u64::BITS - codes.leading_zeros();
    let bits = 32u32.saturating_sub(code_bits).min(MAX_ALONG_BITS);
    (bits >= crate::shaders::RASTER_ALONG_BITS).then_some(bits)
}

/// The most bits [`along_bits`] gives.
const MAX_ALONG_BITS: u32 = 12;

/// The per-target buffers, made for one size and queue capacity (at the layout's samples),
/// and the resolve's group over the strands' binding's shaded colours.
#[derive(Debug)]
struct RasterBuffers {
    /// Width, height and queue capacity.
    key: (u32, u32, u32),
    uniforms: wgpu::Buffer,
    sample_nearest: wgpu::Buffer,
    /// The shaded points' colours the resolve reads (the strands' binding's, held here
    /// so a new binding makes the resolve's group again).
    point_colors: wgpu::Buffer,
    queue: wgpu::Buffer,
    /// The resolve's indirect draw arguments (16 bytes), the hair tiles' numbers (its
    /// instances), then a flag per tile.
    hair_tiles: wgpu::Buffer,
    /// Tiles in the target.
    tiles: u32,
    raster_group: wgpu::BindGroup,
    resolve_group: wgpu::BindGroup,
}

/// The compute rasteriser: its pipelines, and buffers made for the last target drawn.
#[derive(Debug)]
pub struct ComputeRaster {
    raster_layout: wgpu::BindGroupLayout,
    resolve_layout: wgpu::BindGroupLayout,
    layout: wgpu::PipelineLayout,
    narrow_module: wgpu::ShaderModule,
    /// The module of the 64-bit path, where the device has [`WIDE_ATOMICS`].
    wide_module: Option<wgpu::ShaderModule>,
    hair_tiles: wgpu::ComputePipeline,
    /// The one walk of 64-bit keys, made when first needed.
    wide: Option<Vec<Walk>>,
    /// The 32-bit path's two walks, made when first needed.
    narrow: Option<Vec<Walk>>,
    /// Whether the walks skip samples that already hold nearer hair (on by default).
    early_depth: bool,
    /// Whether the 64-bit walk is used where it exists (off to test the 32-bit path).
    prefer_wide: bool,
    /// The resolve's pipelines: one shading per sample, or one per MSAA sample.
    resolve: Vec<wgpu::RenderPipeline>,
    /// The walks the last frame dispatched (`None` before the first).
    last_walks: Option<RasterWalks>,
    queue_capacity: u32,
    /// MSAA samples of the camera's targets, fixed in the walks' pipelines.
    samples: u32,
    buffers: Option<RasterBuffers>,
}

/// One walk over the segments: the pipeline of every segment's thread and that of the
/// queued long segments.
#[derive(Debug)]
struct Walk {
    all: wgpu::ComputePipeline,
    queued: wgpu::ComputePipeline,
    label: &'static str,
    /// Whether its pipelines skip samples that hold nearer hair.
    early_depth: bool,
}

/// The walks a frame's hair was drawn by, as dispatched: for tests that draw one frame by
/// two paths and must know that two paths drew (the pictures are the same by design).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RasterWalks {
    /// Walks over the segments: 1 for the 64-bit path's one walk, 2 for the 32-bit path's
    /// depth and hair walks.
    pub walks: usize,
    /// Whether the walks' pipelines skip samples that already hold nearer hair.
    pub early_depth: bool,
}

/// A pipeline of `entry` for camera targets of `samples` (the module's `RASTER_SAMPLES`),
/// skipping samples that hold nearer hair where `early_depth` (`RASTER_EARLY_DEPTH`).
fn compute_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
    samples: u32,
    early_depth: bool,
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(layout),
        module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants: &[
                (RASTER_SAMPLES_OVERRIDE, f64::from(samples)),
                (
                    RASTER_EARLY_DEPTH_OVERRIDE,
                    f64::from(u8::from(early_depth)),
                ),
            ],
            ..Default::default()
        },
        cache: None,
    })
}

/// The walks of `module` for targets of `samples`: the 64-bit one (`wide`) or the 32-bit
/// depth and hair walks.
fn walks(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    wide: bool,
    samples: u32,
    early_depth: bool,
) -> Vec<Walk> {
    let walk = |all, queued, label| Walk {
        all: compute_pipeline(device, layout, module, all, samples, early_depth),
        queued: compute_pipeline(device, layout, module, queued, samples, early_depth),
        label,
        early_depth,
    };
    if wide {
        vec![walk("cs_depth", "cs_depth_queued", "hair raster: nearest")]
    } else {
        vec![
            walk("cs_depth", "cs_depth_queued", "hair raster: depth"),
            walk("cs_hair", "cs_hair_queued", "hair raster: nearest hair"),
        ]
    }
}

/// The resolve's pipelines for `target`: one shading per sample where the layout says the
/// adapter can (`TargetLayout::per_sample_shading`) and the device accepts it, else one per
/// sample, its mask holding only that sample (the draw for sample k writes sample k's
/// winner). Instances: the hair tiles' numbers.
fn resolve_pipelines(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    target: &TargetLayout,
) -> Vec<wgpu::RenderPipeline> {
    let targets = camera_targets(target, None);
    let tile_buffers = [Some(wgpu::VertexBufferLayout {
        array_stride: 4,
        step_mode: wgpu::VertexStepMode::Instance,
        attributes: &TILE_ATTRIBUTES,
    })];
    let pipeline = |module: &wgpu::ShaderModule, fragment, mask| {
        let mut multisample = camera_multisample(target.samples);
        multisample.mask = mask;
        render_pipeline(
            device,
            RenderPipelineSpec {
                label: "hair resolve",
                layout,
                module,
                vertex: "vs_tile",
                buffers: &tile_buffers,
                primitive: triangles(),
                depth: Some(camera_depth(true)),
                multisample,
                fragment: Some((fragment, &targets)),
            },
        )
    };
    if target.samples > 1 && target.per_sample_shading {
        // A layout made by hand may claim what the device lacks: then the draw per sample.
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("hair resolve (per sample)"),
            source: wgpu::ShaderSource::Wgsl(per_sample_resolve_source().into()),
        });
        let one = pipeline(&module, "fs_resolve", !0);
        if pollster::block_on(scope.pop()).is_none() {
            return vec![one];
        }
    }
    let module = ShaderModule::HairResolve.create(device);
    let fragments = [
        "fs_resolve_0",
        "fs_resolve_1",
        "fs_resolve_2",
        "fs_resolve_3",
    ];
    if target.samples <= 1 {
        return vec![pipeline(&module, fragments[0], !0)];
    }
    (0..target.samples.min(4))
        .map(|k| pipeline(&module, fragments[k as usize], 1 << k))
        .collect()
}

/// The resolve's tiles in a target of `width × height`.
fn tiles_in(width: u32, height: u32) -> u32 {
    width.div_ceil(RESOLVE_TILE) * height.div_ceil(RESOLVE_TILE)
}

impl ComputeRaster {
    /// Compiles the passes for `target`, reading the frame (group 0) and the strands
    /// (group 1); group 2 is empty (the points come shaded by the ribbons' shading pass,
    /// so no walk reads the shadow maps), group 3 is the raster's own.
    pub fn new(
        device: &wgpu::Device,
        frame: &wgpu::BindGroupLayout,
        strands: &wgpu::BindGroupLayout,
        target: &TargetLayout,
    ) -> Self {
        use wgpu::BufferBindingType::{Storage, Uniform};
        let raster_layout = bind_group_layout(
            device,
            "hair raster",
            &[
                compute_entry(0, Uniform),
                compute_entry(1, Storage { read_only: false }),
                compute_entry(2, Storage { read_only: false }),
                compute_entry(3, Storage { read_only: false }),
            ],
        );
        let resolve_layout = tile_draw_layout(device, "hair resolve");
        let narrow_module = ShaderModule::HairRaster.create(device);
        let layout = pipeline_layout(
            device,
            "hair raster",
            &[Some(frame), Some(strands), None, Some(&raster_layout)],
        );
        let wide_module = device
            .features()
            .contains(WIDE_ATOMICS)
            .then(wide_source)
            .flatten()
            .map(|source| {
                device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("hair raster (64-bit)"),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                })
            });
        let own_module = wide_module.as_ref().unwrap_or(&narrow_module);
        let hair_tiles = compute_pipeline(
            device,
            &layout,
            own_module,
            "cs_hair_tiles",
            target.samples,
            true,
        );
        let resolve_pipeline_layout = pipeline_layout(
            device,
            "hair resolve",
            &[Some(frame), Some(strands), None, Some(&resolve_layout)],
        );
        let resolve = resolve_pipelines(device, &resolve_pipeline_layout, target);
        ComputeRaster {
            layout,
            narrow_module,
            wide_module,
            hair_tiles,
            wide: None,
            narrow: None,
            early_depth: true,
            prefer_wide: true,
            raster_layout,
            resolve_layout,
            resolve,
            last_walks: None,
            queue_capacity: DEFAULT_QUEUE_CAPACITY,
            samples: target.samples,
            buffers: None,
        }
    }

    /// Sets the long-segment queue's capacity (0 sends every long segment to the overflow
    /// path; for tests). Takes effect at the next frame.
    pub fn set_queue_capacity(&mut self, capacity: u32) {
        self.queue_capacity = capacity.min(MAX_WORKGROUPS_X);
    }

    /// Whether the one-walk 64-bit path is used where the device has it (on by default;
    /// off draws by the 32-bit path's two walks, for tests: the picture does not change).
    pub fn set_wide_atomics(&mut self, on: bool) {
        self.prefer_wide = on;
    }

    /// Whether the next frame is drawn by the 64-bit path.
    pub fn uses_wide_atomics(&self) -> bool {
        self.prefer_wide && self.wide_module.is_some()
    }

    /// The walks the last frame dispatched, read from the pipelines it used (not from the
    /// settings asked for); `None` before the first frame.
    pub fn last_walks(&self) -> Option<RasterWalks> {
        self.last_walks
    }

    /// Whether the walks skip samples that already hold hair nearer than the segment (on
    /// by default; off walks every sample, for the test that skipping changes no byte).
    /// Takes effect at the next frame.
    pub fn set_early_depth(&mut self, on: bool) {
        if on != self.early_depth {
            self.early_depth = on;
            self.wide = None;
            self.narrow = None;
        }
    }

    /// Bytes of GPU memory the pass's buffers hold now.
    pub fn bytes(&self) -> u64 {
        self.buffers.as_ref().map_or(0, |b| {
            b.uniforms.size() + b.sample_nearest.size() + b.queue.size() + b.hair_tiles.size()
        })
    }

    /// Bytes the pass's buffers take for a target of `width × height` with `samples`, at
    /// the default queue capacity (the points' colours are the strands' binding's).
    pub fn bytes_for(width: u32, height: u32, samples: u32) -> u64 {
        let slots = u64::from(width) * u64::from(height) * u64::from(samples);
        16 + 2 * 4 * slots
            + 8
            + 4 * u64::from(DEFAULT_QUEUE_CAPACITY.max(1))
            + 16
            + 8 * u64::from(tiles_in(width, height))
    }

    /// Frees the per-target buffers (the pipelines stay); the next
    /// [`ComputeRaster::record`] makes them again.
    pub fn release_buffers(&mut self) {
        self.buffers = None;
    }

    /// The overflow counter's buffer of the last frame, if one was drawn.
    pub fn queue_buffer(&self) -> Option<&wgpu::Buffer> {
        self.buffers.as_ref().map(|b| &b.queue)
    }

    fn prepare(&mut self, device: &wgpu::Device, size: (u32, u32), point_colors: &wgpu::Buffer) {
        // The sample count is the layout's, fixed for this rasteriser.
        let samples = self.samples;
        let key = (size.0, size.1, self.queue_capacity);
        if self
            .buffers
            .as_ref()
            .is_some_and(|b| b.key == key && b.point_colors == *point_colors)
        {
            return;
        }
        let slots = u64::from(size.0) * u64::from(size.1) * u64::from(samples);
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
            label: Some("hair raster: uniforms"),
            size: RasterUniforms::min_size().get(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let sample_nearest = storage("hair raster: nearest sample", 8 * slots);
        let queue_buffer = storage(
            "hair raster: long-segment queue",
            8 + 4 * u64::from(self.queue_capacity.max(1)),
        );
        let tiles = tiles_in(size.0, size.1);
        let hair_tiles = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("hair raster: hair tiles"),
            size: 16 + 8 * u64::from(tiles.max(1)),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let raster_group = bind_group(
            device,
            "hair raster",
            &self.raster_layout,
            &[
                uniforms.as_entire_binding(),
                sample_nearest.as_entire_binding(),
                queue_buffer.as_entire_binding(),
                hair_tiles.as_entire_binding(),
            ],
        );
        let resolve_group = bind_group(
            device,
            "hair resolve",
            &self.resolve_layout,
            &[
                uniforms.as_entire_binding(),
                sample_nearest.as_entire_binding(),
                point_colors.as_entire_binding(),
            ],
        );
        self.buffers = Some(RasterBuffers {
            key,
            uniforms,
            sample_nearest,
            point_colors: point_colors.clone(),
            queue: queue_buffer,
            hair_tiles,
            tiles,
            raster_group,
            resolve_group,
        });
    }

    /// Records the raster walks (one or two) of `strands` strands (group 1 over the latest
    /// positions) for a target of `size` (of the layout's samples), after the shadow maps
    /// and the cull pass; the resolve reads the points' colours from `point_colors`, which
    /// the strands' shading pass fills before it ([`super::strands::HairStrands::shade`],
    /// `StrandBinding::shaded_points`). `timed_begin`: this is the first pass of the timed
    /// [`Pass::Ribbons`].
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameBinding,
        strands_group: &wgpu::BindGroup,
        strands: u32,
        point_colors: &wgpu::Buffer,
        size: (u32, u32),
        timestamps: Option<&Timestamps>,
        timed_begin: bool,
    ) {
        self.prepare(device, size, point_colors);
        if let Some(b) = &self.buffers {
            // Written each frame: the strand count sets the code's bits.
            let u = RasterUniforms {
                width: size.0,
                height: size.1,
                samples: self.samples,
                queue_capacity: self.queue_capacity,
                along_bits: along_bits(strands).unwrap_or(crate::shaders::RASTER_ALONG_BITS),
            };
            if let Ok(bytes) = crate::render::frame::uniform_bytes(&u) {
                queue.write_buffer(&b.uniforms, 0, &bytes);
            }
        }
        let wide = self.uses_wide_atomics();
        let (walks_made, module) = match (&mut self.wide, &self.wide_module) {
            (made, Some(module)) if wide => (made, module),
            _ => (&mut self.narrow, &self.narrow_module),
        };
        let walks = walks_made.get_or_insert_with(|| {
            walks(
                device,
                &self.layout,
                module,
                wide,
                self.samples,
                self.early_depth,
            )
        });
        let Some(b) = self.buffers.as_ref() else {
            return;
        };
        self.last_walks = Some(RasterWalks {
            walks: walks.len(),
            early_depth: walks.iter().all(|w| w.early_depth),
        });
        encoder.clear_buffer(&b.sample_nearest, 0, None);
        encoder.clear_buffer(&b.queue, 0, None);
        encoder.clear_buffer(&b.hair_tiles, 0, None);
        let segments = strands * SEGMENTS;
        for (pass_index, walk) in walks.iter().enumerate() {
            if pass_index == 1 {
                // The queue's count starts again; its overflow counter keeps counting.
                encoder.clear_buffer(&b.queue, 0, Some(4));
            }
            let timed = (timed_begin && pass_index == 0)
                .then_some(())
                .and(timestamps)
                .map(|t| t.compute(Pass::Ribbons, Span::Begin));
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(walk.label),
                timestamp_writes: timed,
            });
            frame.bind_compute(&mut pass, View::Camera);
            pass.set_bind_group(1, strands_group, &[]);
            pass.set_bind_group(3, &b.raster_group, &[]);
            pass.set_pipeline(&walk.all);
            let (x, y) = workgroups_for(segments);
            pass.dispatch_workgroups(x, y, 1);
            if self.queue_capacity > 0 {
                pass.set_pipeline(&walk.queued);
                pass.dispatch_workgroups(self.queue_capacity.min(QUEUE_GROUPS), 1, 1);
            }
            if pass_index + 1 == walks.len() {
                pass.set_pipeline(&self.hair_tiles);
                let (x, y) = workgroups_for(b.tiles);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
    }

    /// Writes the rasterised hair into the camera's targets (`pass`, after the surfaces).
    pub fn resolve(
        &self,
        pass: &mut wgpu::RenderPass,
        frame: &FrameBinding,
        strands_group: &wgpu::BindGroup,
    ) {
        let Some(b) = self.buffers.as_ref() else {
            return;
        };
        frame.bind(pass, View::Camera);
        pass.set_bind_group(1, strands_group, &[]);
        pass.set_bind_group(3, &b.resolve_group, &[]);
        pass.set_vertex_buffer(
            0,
            b.hair_tiles.slice(16..16 + 4 * u64::from(b.tiles.max(1))),
        );
        for pipeline in &self.resolve {
            pass.set_pipeline(pipeline);
            pass.draw_indirect(&b.hair_tiles, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shaders::{MAX_COMPUTE_RASTER_STRANDS, RASTER_ALONG_BITS};

    #[test]
    fn the_codes_and_their_along_bits_never_reach_the_code_of_no_hair() {
        let max = MAX_COMPUTE_RASTER_STRANDS;
        assert_eq!(max, 3_355_443);
        for strands in [1, 64, 4_096, 26_214, 26_215, 420_032, 1_680_128, max] {
            let bits = along_bits(strands).expect("within the compute path's strands");
            let last_code = u64::from(strands) * u64::from(2 * SEGMENTS) - 1;
            let largest = (last_code << bits) | ((1 << bits) - 1);
            // The walk stores 2³² − 1 − code; 0 there means no hair.
            assert!(
                largest < u64::from(u32::MAX),
                "{strands} strands, {bits} bits"
            );
            // And no bit is left unused that could have held one more step.
            assert!(
                bits == 12 || ((last_code + 1) << (bits + 1)) > u64::from(u32::MAX) - 1,
                "{strands} strands could have had more than {bits} bits"
            );
        }
        assert_eq!(along_bits(4_096), Some(12));
        assert_eq!(along_bits(420_032), Some(9));
        assert_eq!(along_bits(max), Some(RASTER_ALONG_BITS));
        assert_eq!(along_bits(max + 1), None);
    }
}
