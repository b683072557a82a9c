//! The hair's shadow maps by compute (`shaders/shadow_raster.wgsl`, written into the maps
//! by `shaders/shadow_resolve.wgsl`): with [`crate::render::Raster::Compute`] the first hair's
//! light depth and the deep opacity slabs are rasterised as the compute rasteriser draws
//! the camera's hair (the shadow pass's ribbons emulated at one sample a texel), then
//! copied into the same textures by a pass over the 8×8 tiles some hair covers (the rest
//! is cleared to "no hair"), so the lookups do not change. The
//! opaque depth map of the surfaces stays hardware.

use super::compute_raster::{RESOLVE_TILE, RasterUniforms};
use crate::render::descriptors::{
    RenderPipelineSpec, bind_group, bind_group_layout, compute_entry, pipeline_layout,
    render_pipeline, tile_draw_layout, triangles, workgroups_for,
};
use crate::render::frame::{FrameBinding, View};
use crate::render::light_view::{DEEP_OPACITY_FORMAT, FIRST_HAIR_FORMAT};
use crate::shaders::{RASTER_WORKGROUP, SEGMENTS, ShaderModule};
use encase::ShaderType;

/// The compute shadow's pipelines, and its buffers for maps up to one size.
#[derive(Debug)]
pub struct ShadowRaster {
    first_hair: wgpu::ComputePipeline,
    deep_opacity: wgpu::ComputePipeline,
    list_tiles: wgpu::ComputePipeline,
    write_maps: wgpu::RenderPipeline,
    raster_layout: wgpu::BindGroupLayout,
    maps_layout: wgpu::BindGroupLayout,
    /// Made for the largest maps drawn since they were last freed.
    buffers: Option<ShadowBuffers>,
}

/// The buffers of maps up to one size, and the groups that bind them.
#[derive(Debug)]
struct ShadowBuffers {
    first_depth: wgpu::Buffer,
    slab_opacity: wgpu::Buffer,
    /// The maps' indirect draw arguments (16 bytes), the tiles with hair (its instances),
    /// then a flag per tile.
    hair_tiles: wgpu::Buffer,
    tiles: u32,
    /// Texels along each side of the maps (the buffers hold this many squared).
    size: u32,
    uniforms: wgpu::Buffer,
    raster_group: wgpu::BindGroup,
    maps_group: wgpu::BindGroup,
}

impl ShadowBuffers {
    /// Buffers for maps of up to `size × size` texels.
    fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        size: u32,
        raster_layout: &wgpu::BindGroupLayout,
        maps_layout: &wgpu::BindGroupLayout,
    ) -> Self {
        let texels = u64::from(size) * u64::from(size);
        let storage = |label, bytes| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let first_depth = storage("shadow raster: first hair", 4 * texels);
        let slab_opacity = storage("shadow raster: slab opacity", 16 * texels);
        let tiles = size.div_ceil(RESOLVE_TILE) * size.div_ceil(RESOLVE_TILE);
        let hair_tiles = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("shadow raster: hair tiles"),
            size: 16 + 8 * u64::from(tiles.max(1)),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("shadow raster: uniforms"),
            size: RasterUniforms::min_size().get(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let u = RasterUniforms {
            width: size,
            height: size,
            samples: 1,
            queue_capacity: 0,
            along_bits: 0,
        };
        if let Ok(bytes) = crate::render::frame::uniform_bytes(&u) {
            queue.write_buffer(&uniforms, 0, &bytes);
        }
        let resources = [
            uniforms.as_entire_binding(),
            first_depth.as_entire_binding(),
            slab_opacity.as_entire_binding(),
            hair_tiles.as_entire_binding(),
        ];
        let raster_group = bind_group(device, "shadow raster", raster_layout, &resources);
        let maps_group = bind_group(device, "shadow raster: maps", maps_layout, &resources[..3]);
        ShadowBuffers {
            first_depth,
            slab_opacity,
            hair_tiles,
            tiles,
            size,
            uniforms,
            raster_group,
            maps_group,
        }
    }
}

impl ShadowRaster {
    /// The pipelines, reading the frame (group 0) and the strands (group 1);
    /// [`ShadowRaster::prepare`] makes the buffers.
    pub fn new(
        device: &wgpu::Device,
        frame: &wgpu::BindGroupLayout,
        strands: &wgpu::BindGroupLayout,
    ) -> Self {
        use wgpu::BufferBindingType::{Storage, Uniform};
        let raster_layout = bind_group_layout(
            device,
            "shadow raster",
            &[
                compute_entry(0, Uniform),
                compute_entry(1, Storage { read_only: false }),
                compute_entry(2, Storage { read_only: false }),
                compute_entry(3, Storage { read_only: false }),
            ],
        );
        let maps_layout = tile_draw_layout(device, "shadow raster: maps");
        let module = ShaderModule::ShadowRaster.create(device);
        let layout = pipeline_layout(
            device,
            "shadow raster",
            &[Some(frame), Some(strands), None, Some(&raster_layout)],
        );
        let compute = |entry: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let maps_module = ShaderModule::ShadowResolve.create(device);
        let maps_pipeline_layout = pipeline_layout(
            device,
            "shadow raster: maps",
            &[None, None, None, Some(&maps_layout)],
        );
        let write_maps = render_pipeline(
            device,
            RenderPipelineSpec {
                label: "shadow raster: maps",
                layout: &maps_pipeline_layout,
                module: &maps_module,
                vertex: "vs_tile",
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: 4,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &wgpu::vertex_attr_array![0 => Uint32],
                })],
                primitive: triangles(),
                depth: None,
                multisample: Default::default(),
                fragment: Some((
                    "fs_shadow_maps",
                    &[
                        Some(FIRST_HAIR_FORMAT.into()),
                        Some(DEEP_OPACITY_FORMAT.into()),
                    ],
                )),
            },
        );
        ShadowRaster {
            first_hair: compute("cs_first_hair"),
            deep_opacity: compute("cs_deep_opacity"),
            list_tiles: compute("cs_hair_tiles"),
            write_maps,
            raster_layout,
            maps_layout,
            buffers: None,
        }
    }

    /// Makes buffers for maps of `size` texels a side unless those it has hold them (they
    /// draw any smaller maps: made again only to grow).
    pub fn prepare(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, size: u32) {
        if self.buffers.as_ref().is_some_and(|b| b.size >= size) {
            return;
        }
        self.buffers = None;
        self.buffers = Some(ShadowBuffers::new(
            device,
            queue,
            size,
            &self.raster_layout,
            &self.maps_layout,
        ));
    }

    /// Frees the buffers (the pipelines stay); [`ShadowRaster::prepare`] makes them again.
    pub fn release_buffers(&mut self) {
        self.buffers = None;
    }

    /// Bytes of GPU memory the buffers take (none when freed).
    pub fn bytes(&self) -> u64 {
        self.buffers.as_ref().map_or(0, |b| {
            b.first_depth.size() + b.slab_opacity.size() + b.hair_tiles.size() + b.uniforms.size()
        })
    }

    /// Records the two compute passes over `count` strands (group 1 `strands`), from the
    /// light's view.
    pub fn record_compute(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        queue: &wgpu::Queue,
        frame: &FrameBinding,
        strands: &wgpu::BindGroup,
        count: u32,
        extent: u32,
    ) {
        let Some(b) = self.buffers.as_ref() else {
            return;
        };
        // The maps' corner this frame draws: the walk and the writes number its texels
        // row by row at its own width, so only its share of the buffers is cleared.
        let extent = extent.clamp(1, b.size);
        let u = RasterUniforms {
            width: extent,
            height: extent,
            samples: 1,
            queue_capacity: 0,
            along_bits: 0,
        };
        if let Ok(bytes) = crate::render::frame::uniform_bytes(&u) {
            queue.write_buffer(&b.uniforms, 0, &bytes);
        }
        let texels = u64::from(extent) * u64::from(extent);
        encoder.clear_buffer(&b.first_depth, 0, Some(4 * texels));
        encoder.clear_buffer(&b.slab_opacity, 0, Some(16 * texels));
        encoder.clear_buffer(&b.hair_tiles, 0, None);
        let tiles = extent.div_ceil(RESOLVE_TILE).pow(2);
        let (x, y) = workgroups_for(count * SEGMENTS);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("shadow raster"),
            timestamp_writes: None,
        });
        frame.bind_compute(&mut pass, View::Light);
        pass.set_bind_group(1, strands, &[]);
        pass.set_bind_group(3, &b.raster_group, &[]);
        pass.set_pipeline(&self.first_hair);
        pass.dispatch_workgroups(x, y, 1);
        pass.set_pipeline(&self.deep_opacity);
        pass.dispatch_workgroups(x, y, 1);
        pass.set_pipeline(&self.list_tiles);
        pass.dispatch_workgroups(tiles.div_ceil(RASTER_WORKGROUP).max(1), 1, 1);
    }

    /// Writes the maps in `pass` (its two colour attachments: the first hair's depth and
    /// the deep opacity map).
    pub fn write_maps(&self, pass: &mut wgpu::RenderPass) {
        let Some(b) = self.buffers.as_ref() else {
            return;
        };
        pass.set_pipeline(&self.write_maps);
        pass.set_bind_group(3, &b.maps_group, &[]);
        pass.set_vertex_buffer(
            0,
            b.hair_tiles.slice(16..16 + 4 * u64::from(b.tiles.max(1))),
        );
        pass.draw_indirect(&b.hair_tiles, 0);
    }
}
