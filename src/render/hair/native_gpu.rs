//! The GPU side of the native hair path: the frame so far submitted and what the host
//! needs read back (the strands' positions, their shaded colours, sample 0 of the
//! surfaces' depth), the light's maps and the camera's picture written from the host, and
//! the full-screen pass that composites that picture over the surfaces
//! (`shaders/hair_native.wgsl`).

use super::composite::composite_targets;
use crate::raster::PICTURE_PIXEL_BYTES;
use crate::render::descriptors::{
    RenderPipelineSpec, bind_group, bind_group_layout, camera_multisample, pipeline_layout,
    render_pipeline, texture_entry,
};
use crate::render::target::{DEPTH_FORMAT, FrameTargets, ID_FORMAT, TargetLayout};
use crate::shaders::ShaderModule;

/// Format of the host's picture: premultiplied linear RGB and transmittance.
const PICTURE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

/// What the host asks of a frame's GPU work, read back once it has run.
#[derive(Default)]
pub struct ReadBack<'a> {
    /// Buffers read whole, in order.
    pub buffers: Vec<&'a wgpu::Buffer>,
    /// The camera's targets whose depth (sample 0) is read.
    pub depth: Option<&'a FrameTargets>,
}

/// What came back: each buffer's bytes, in the order asked, and the depth, row-major.
pub struct ReadBytes {
    /// Each buffer's bytes.
    pub buffers: Vec<Vec<u8>>,
    /// One depth a pixel (the renderer's reversed depth), when asked.
    pub depth: Option<Vec<f32>>,
}

/// The host's picture, uploaded, and the group that binds it.
#[derive(Debug)]
struct Uploaded {
    size: (u32, u32),
    texture: wgpu::Texture,
    group: wgpu::BindGroup,
}

/// The native path's pipelines and its picture's texture.
#[derive(Debug)]
pub struct NativeGpu {
    /// Whether the camera's depth is multisampled (its read takes sample 0).
    multisampled: bool,
    depth_layout: wgpu::BindGroupLayout,
    depth_pipeline: wgpu::ComputePipeline,
    picture_layout: wgpu::BindGroupLayout,
    composite: wgpu::RenderPipeline,
    /// Writes the hair's ID where it covers at least half a pixel (with an ID target).
    ids: Option<wgpu::RenderPipeline>,
    picture: Option<Uploaded>,
}

impl NativeGpu {
    /// The pipelines for camera targets of `target`.
    pub fn new(device: &wgpu::Device, target: &TargetLayout) -> Self {
        let module = ShaderModule::HairNative.create(device);
        // Sample 0 of a multisampled depth, or the one sample's depth: by a shader either
        // way. OpenGL, where frames have one sample, neither copies a depth texture out nor
        // loads from one in GLSL, so one sample is bound as an unfilterable float texture
        // (which a `Depth32Float` texture may be).
        let multisampled = target.samples > 1;
        let depth_layout = bind_group_layout(
            device,
            "native hair: depth",
            &[
                if multisampled {
                    texture_entry(
                        0,
                        wgpu::ShaderStages::COMPUTE,
                        wgpu::TextureSampleType::Depth,
                        true,
                    )
                } else {
                    texture_entry(
                        2,
                        wgpu::ShaderStages::COMPUTE,
                        wgpu::TextureSampleType::Float { filterable: false },
                        false,
                    )
                },
                crate::render::descriptors::compute_entry(
                    1,
                    wgpu::BufferBindingType::Storage { read_only: false },
                ),
            ],
        );
        let depth_pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("native hair: depth sample 0"),
            layout: Some(&pipeline_layout(
                device,
                "native hair: depth",
                &[Some(&depth_layout)],
            )),
            module: &module,
            entry_point: Some(if multisampled {
                "cs_depth_sample0"
            } else {
                "cs_depth_single"
            }),
            compilation_options: Default::default(),
            cache: None,
        });
        let picture_layout = bind_group_layout(
            device,
            "native hair: picture",
            &[texture_entry(
                0,
                wgpu::ShaderStages::FRAGMENT,
                wgpu::TextureSampleType::Float { filterable: false },
                false,
            )],
        );
        let layout = pipeline_layout(
            device,
            "native hair: composite",
            &[None, Some(&picture_layout)],
        );
        let color = |blend, write_mask| {
            Some(wgpu::ColorTargetState {
                format: target.color_format,
                blend,
                write_mask,
            })
        };
        let id = |write_mask| {
            target.ids.then_some(wgpu::ColorTargetState {
                format: ID_FORMAT,
                blend: None,
                write_mask,
            })
        };
        // The depth is neither tested nor written: the host tested the hair against it.
        let depth = wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(false),
            depth_compare: Some(wgpu::CompareFunction::Always),
            stencil: Default::default(),
            bias: Default::default(),
        };
        let pipeline = |label, fragment, targets: &[Option<wgpu::ColorTargetState>]| {
            render_pipeline(
                device,
                RenderPipelineSpec {
                    label,
                    layout: &layout,
                    module: &module,
                    vertex: "vs_fullscreen",
                    buffers: &[],
                    primitive: Default::default(),
                    depth: Some(depth.clone()),
                    multisample: camera_multisample(target.samples),
                    fragment: Some((fragment, targets)),
                },
            )
        };
        let composite = pipeline(
            "native hair: composite",
            "fs_composite",
            &composite_targets(target),
        );
        let ids = target.ids.then(|| {
            pipeline(
                "native hair: ids",
                "fs_hair_ids",
                &[
                    color(None, wgpu::ColorWrites::empty()),
                    id(wgpu::ColorWrites::ALL),
                ],
            )
        });
        NativeGpu {
            multisampled,
            depth_layout,
            depth_pipeline,
            picture_layout,
            composite,
            ids,
            picture: None,
        }
    }

    /// Submits `encoder` (a fresh one takes its place) with copies of what `reads` asks
    /// appended, waits for it, and returns the bytes.
    pub fn submit_and_read(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        reads: &ReadBack,
    ) -> Result<ReadBytes, String> {
        let staging = |size: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("native hair: read back"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let mut stagings = Vec::with_capacity(reads.buffers.len());
        for buffer in &reads.buffers {
            let s = staging(buffer.size());
            encoder.copy_buffer_to_buffer(buffer, 0, &s, 0, buffer.size());
            stagings.push(s);
        }
        let depth = reads
            .depth
            .map(|targets| self.record_depth_read(device, encoder, targets, &staging));
        let done = std::mem::replace(
            encoder,
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("native hair: rest of the frame"),
            }),
        );
        queue.submit(Some(done.finish()));
        // Every buffer is mapped, then one wait covers them all.
        let (tx, rx) = std::sync::mpsc::channel();
        let all: Vec<&wgpu::Buffer> = stagings
            .iter()
            .chain(depth.as_ref().map(|d| &d.0))
            .collect();
        for s in &all {
            let tx = tx.clone();
            s.map_async(wgpu::MapMode::Read, .., move |r| {
                let _ = tx.send(r);
            });
        }
        drop(tx);
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        for r in rx.iter().take(all.len()) {
            r.map_err(|e| e.to_string())?;
        }
        let mut out = ReadBytes {
            buffers: Vec::with_capacity(stagings.len()),
            depth: None,
        };
        for s in &stagings {
            out.buffers.push(read_mapped(s)?);
        }
        if let Some((s, row_bytes, (width, height))) = &depth {
            let bytes = read_mapped(s)?;
            let mut d = Vec::with_capacity(*width as usize * *height as usize);
            for y in 0..*height as usize {
                let row = &bytes[y * *row_bytes as usize..][..*width as usize * 4];
                d.extend(bytemuck::pod_collect_to_vec::<u8, f32>(row));
            }
            out.depth = Some(d);
        }
        Ok(out)
    }

    /// Records sample 0 of `targets`' depth copied into a staging buffer of its own:
    /// returns it, its bytes a row and the size.
    fn record_depth_read(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        targets: &FrameTargets,
        staging: &dyn Fn(u64) -> wgpu::Buffer,
    ) -> (wgpu::Buffer, u32, (u32, u32)) {
        let (width, height) = targets.size;
        let bytes = u64::from(width) * u64::from(height) * 4;
        let out = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("native hair: depth sample 0"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("native hair: depth"),
            layout: &self.depth_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: if self.multisampled { 0 } else { 2 },
                    resource: wgpu::BindingResource::TextureView(&targets.depth),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: out.as_entire_binding(),
                },
            ],
        });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("native hair: depth sample 0"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.depth_pipeline);
            pass.set_bind_group(0, &group, &[]);
            let tile = crate::shaders::DEPTH_READ_TILE;
            pass.dispatch_workgroups(width.div_ceil(tile), height.div_ceil(tile), 1);
        }
        let s = staging(bytes);
        encoder.copy_buffer_to_buffer(&out, 0, &s, 0, bytes);
        (s, width * 4, (width, height))
    }

    /// Uploads the host's picture (`rows`, row-major premultiplied RGB and transmittance as
    /// half floats) of `size` pixels; it lands at the next submission.
    pub fn upload_picture(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        size: (u32, u32),
        rows: &[[u16; 4]],
    ) {
        if self.picture.as_ref().is_none_or(|p| p.size != size) {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("native hair: picture"),
                size: extent(size),
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: PICTURE_FORMAT,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            });
            let view = texture.create_view(&Default::default());
            let group = bind_group(
                device,
                "native hair: picture",
                &self.picture_layout,
                &[wgpu::BindingResource::TextureView(&view)],
            );
            self.picture = Some(Uploaded {
                size,
                texture,
                group,
            });
        }
        if let Some(p) = &self.picture {
            write_texture(
                queue,
                &p.texture,
                size,
                bytemuck::cast_slice(rows),
                PICTURE_PIXEL_BYTES as u32,
            );
        }
    }

    /// Draws the uploaded picture over the surfaces in `pass` (nothing before the first).
    pub fn record_composite(&self, pass: &mut wgpu::RenderPass) {
        let Some(picture) = &self.picture else {
            return;
        };
        pass.set_pipeline(&self.composite);
        pass.set_bind_group(1, &picture.group, &[]);
        pass.draw(0..3, 0..1);
        if let Some(ids) = &self.ids {
            pass.set_pipeline(ids);
            pass.draw(0..3, 0..1);
        }
    }

    /// Bytes of GPU memory the picture takes.
    pub fn bytes(&self) -> u64 {
        self.picture.as_ref().map_or(0, |p| {
            u64::from(p.size.0) * u64::from(p.size.1) * PICTURE_PIXEL_BYTES
        })
    }

    /// Frees the picture (its next frame makes it again).
    pub fn release(&mut self) {
        self.picture = None;
    }
}

/// Waits for nothing more (the device was polled): copies a mapped buffer's bytes out.
fn read_mapped(buffer: &wgpu::Buffer) -> Result<Vec<u8>, String> {
    let bytes = buffer
        .get_mapped_range(..)
        .map_err(|e| e.to_string())?
        .to_vec();
    buffer.unmap();
    Ok(bytes)
}

fn extent((width, height): (u32, u32)) -> wgpu::Extent3d {
    wgpu::Extent3d {
        width,
        height,
        depth_or_array_layers: 1,
    }
}

/// Writes `bytes` (rows of `size.0` texels of `texel` bytes) into all of `texture`.
pub fn write_texture(
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    size: (u32, u32),
    bytes: &[u8],
    texel: u32,
) {
    queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        bytes,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(size.0 * texel),
            rows_per_image: Some(size.1),
        },
        extent(size),
    );
}
