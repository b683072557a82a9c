//! `GpuSolver`: the strand step as one WGSL compute dispatch per fixed step, over buffers
//! the renderer can bind directly (see [`GpuSolver::positions_buffer`]).

use super::layout::{GpuRoot, POINTS_PER_STRAND, StepUniforms};
use super::{SimError, StrandSolver};
use crate::gpu::GpuContext;
use glam::Vec4;
use std::sync::{Arc, Mutex};
use wgpu::util::DeviceExt;

/// The step shader's source.
pub const STRAND_STEP_WGSL: &str = include_str!("../../shaders/strand_step.wgsl");
/// Invocations per workgroup (WGSL `@workgroup_size`).
pub const WORKGROUP_SIZE: u32 = 64;
/// Steps one submission can carry, each with its own uniform slot. The 60 Hz accumulator
/// with its 1/30 s cap needs at most three per frame.
pub const MAX_STEPS_PER_SUBMIT: usize = 4;
/// Bytes of one strand in one position buffer (six `vec4<f32>`).
pub const POSITION_BYTES_PER_STRAND: u64 = (POINTS_PER_STRAND * 16) as u64;

/// The strand solver on a wgpu device.
///
/// Buffers (all storage): `roots` (one [`GpuRoot`] per strand, never written), two position
/// buffers used in turn (six `vec4` per strand: xyz world position, w 1 where the hand
/// touched the point this step), and `comb` (one `vec4` per strand). A step reads the
/// current positions and overwrites the other buffer, which held the previous ones.
#[derive(Debug)]
pub struct GpuSolver {
    device: wgpu::Device,
    queue: wgpu::Queue,
    last_error: Arc<Mutex<Option<String>>>,
    pipeline: wgpu::ComputePipeline,
    /// `bind_groups[k]` reads `positions[k]` and writes `positions[1 - k]`.
    bind_groups: [wgpu::BindGroup; 2],
    roots: wgpu::Buffer,
    positions: [wgpu::Buffer; 2],
    comb: wgpu::Buffer,
    uniforms: wgpu::Buffer,
    slot_stride: u64,
    current: usize,
    strand_count: u32,
}

/// The largest strand count `limits` can hold: bounded by the largest storage binding and
/// by the number of workgroups one dispatch may have.
pub fn max_strands(limits: &wgpu::Limits) -> usize {
    let by_binding = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
        / POSITION_BYTES_PER_STRAND;
    let by_dispatch =
        u64::from(limits.max_compute_workgroups_per_dimension) * u64::from(WORKGROUP_SIZE);
    by_binding.min(by_dispatch) as usize
}

impl GpuSolver {
    /// Uploads `roots` and the starting positions (`initial`, used as both current and
    /// previous, so the strands start at rest) and builds the pipeline.
    pub fn new(ctx: &GpuContext, roots: &[GpuRoot], initial: &[Vec4]) -> Result<Self, SimError> {
        let device = &ctx.device;
        let max = max_strands(&device.limits());
        if roots.is_empty() || roots.len() > max {
            return Err(SimError::StrandCount {
                count: roots.len(),
                max,
            });
        }
        if initial.len() != roots.len() * POINTS_PER_STRAND {
            return Err(SimError::StateSize {
                expected: roots.len() * POINTS_PER_STRAND,
                got: initial.len(),
            });
        }
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let oom_scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("strand_step.wgsl"),
            source: wgpu::ShaderSource::Wgsl(STRAND_STEP_WGSL.into()),
        });
        let storage = |binding: u32, read_only: bool| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("strand step"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: wgpu::BufferSize::new(
                            std::mem::size_of::<StepUniforms>() as u64,
                        ),
                    },
                    count: None,
                },
                storage(1, true),
                storage(2, true),
                storage(3, false),
                storage(4, false),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("strand step"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("strand step"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("step"),
            compilation_options: Default::default(),
            cache: None,
        });

        let storage_usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let roots_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("strand roots"),
            contents: bytemuck::cast_slice(roots),
            usage: storage_usage,
        });
        let make_positions = |label| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::cast_slice(initial),
                // VERTEX too, so a renderer may pull points as vertex data if it prefers.
                usage: storage_usage | wgpu::BufferUsages::VERTEX,
            })
        };
        let positions = [
            make_positions("strand positions A"),
            make_positions("strand positions B"),
        ];
        let comb = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("strand comb"),
            contents: bytemuck::cast_slice(&vec![Vec4::ZERO; roots.len()]),
            usage: storage_usage,
        });
        let align = u64::from(device.limits().min_uniform_buffer_offset_alignment).max(16);
        let size = std::mem::size_of::<StepUniforms>() as u64;
        let slot_stride = size.div_ceil(align) * align;
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("strand step uniforms"),
            size: slot_stride * MAX_STEPS_PER_SUBMIT as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = |read: &wgpu::Buffer, write: &wgpu::Buffer| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("strand step"),
                layout: &layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &uniforms,
                            offset: 0,
                            size: wgpu::BufferSize::new(size),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: roots_buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: read.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: write.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: comb.as_entire_binding(),
                    },
                ],
            })
        };
        let bind_groups = [
            bind_group(&positions[0], &positions[1]),
            bind_group(&positions[1], &positions[0]),
        ];
        let oom = pollster::block_on(oom_scope.pop());
        let invalid = pollster::block_on(scope.pop());
        if let Some(e) = invalid.or(oom) {
            return Err(SimError::Gpu(e.to_string()));
        }
        Ok(GpuSolver {
            device: device.clone(),
            queue: ctx.queue.clone(),
            last_error: ctx.last_error.clone(),
            pipeline,
            bind_groups,
            roots: roots_buffer,
            positions,
            comb,
            uniforms,
            slot_stride,
            current: 0,
            strand_count: roots.len() as u32,
        })
    }

    /// Records up to [`MAX_STEPS_PER_SUBMIT`] steps into `encoder`, writing their uniforms
    /// through the queue (they land when `encoder` is submitted). Submit before recording
    /// more: the uniform slots are reused. The latest-positions index advances as the steps
    /// are recorded, so an encoder that is recorded into must be submitted.
    pub fn record_steps(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        steps: &[StepUniforms],
    ) -> Result<(), SimError> {
        if steps.len() > MAX_STEPS_PER_SUBMIT {
            return Err(SimError::TooManySteps {
                count: steps.len(),
                max: MAX_STEPS_PER_SUBMIT,
            });
        }
        let workgroups = self.strand_count.div_ceil(WORKGROUP_SIZE);
        for (slot, u) in steps.iter().enumerate() {
            let offset = slot as u64 * self.slot_stride;
            let mut u = *u;
            u.counts.x = self.strand_count;
            u.counts.y = u.counts.y.min(super::MAX_CAPSULES as u32);
            self.queue
                .write_buffer(&self.uniforms, offset, bytemuck::bytes_of(&u));
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("strand step"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_groups[self.current], &[offset as u32]);
            pass.dispatch_workgroups(workgroups, 1, 1);
            drop(pass);
            self.current ^= 1;
        }
        Ok(())
    }

    /// The buffer holding the latest positions (six `vec4<f32>` per strand, xyz world
    /// position, w 1 where the hand touched). It alternates between two buffers each step:
    /// bind [`GpuSolver::position_buffers`] once and pick with [`GpuSolver::current_index`].
    pub fn positions_buffer(&self) -> &wgpu::Buffer {
        &self.positions[self.current]
    }

    /// Both position buffers; index with [`GpuSolver::current_index`] for the latest.
    pub fn position_buffers(&self) -> &[wgpu::Buffer; 2] {
        &self.positions
    }

    /// Which of [`GpuSolver::position_buffers`] holds the latest positions.
    pub fn current_index(&self) -> usize {
        self.current
    }

    /// The roots buffer (one [`GpuRoot`] per strand).
    pub fn roots_buffer(&self) -> &wgpu::Buffer {
        &self.roots
    }

    /// The comb buffer (one `vec4<f32>` per strand, xyz in the root's part space).
    pub fn comb_buffer(&self) -> &wgpu::Buffer {
        &self.comb
    }

    fn check_device_error(&self) -> Result<(), SimError> {
        match self.last_error.lock().ok().and_then(|mut e| e.take()) {
            Some(e) => Err(SimError::Gpu(e)),
            None => Ok(()),
        }
    }

    /// Copies the whole of `buffer` back to the host.
    fn read_back(&self, buffer: &wgpu::Buffer) -> Result<Vec<u8>, SimError> {
        read_buffer(&self.device, &self.queue, buffer)
    }
}

/// Copies a whole buffer back to the host (through a staging buffer) and waits for it.
pub fn read_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
) -> Result<Vec<u8>, SimError> {
    let size = buffer.size();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("read back"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("read back"),
    });
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
    queue.submit(Some(encoder.finish()));
    let (tx, rx) = std::sync::mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| SimError::Gpu(e.to_string()))?;
    rx.recv()
        .map_err(|e| SimError::Gpu(e.to_string()))?
        .map_err(|e| SimError::Gpu(e.to_string()))?;
    let bytes = staging
        .get_mapped_range(..)
        .map_err(|e| SimError::Gpu(e.to_string()))?
        .to_vec();
    staging.unmap();
    Ok(bytes)
}

impl StrandSolver for GpuSolver {
    fn strand_count(&self) -> usize {
        self.strand_count as usize
    }

    fn step(&mut self, steps: &[StepUniforms]) -> Result<(), SimError> {
        for chunk in steps.chunks(MAX_STEPS_PER_SUBMIT) {
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("strand steps"),
                });
            self.record_steps(&mut encoder, chunk)?;
            self.queue.submit(Some(encoder.finish()));
        }
        self.check_device_error()
    }

    fn positions(&mut self) -> Result<Vec<Vec4>, SimError> {
        let bytes = self.read_back(&self.positions[self.current])?;
        self.check_device_error()?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    fn comb(&mut self) -> Result<Vec<Vec4>, SimError> {
        let bytes = self.read_back(&self.comb)?;
        self.check_device_error()?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }
}
