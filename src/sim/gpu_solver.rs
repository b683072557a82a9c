//! `GpuSolver`: the strand step as WGSL compute, up to [`MAX_STEPS_PER_DISPATCH`] steps per
//! dispatch, over buffers the renderer can bind directly (see
//! [`GpuSolver::positions_buffer`]).

use super::body_field::GpuGridFrame;
use super::layout::{GpuRoot, MAX_STEPS_PER_DISPATCH, POINTS_PER_STRAND, StepBatch, StepUniforms};
use super::skinned::GpuRootBinding;
use super::volume::{SplatCadence, VolumeSettings, VolumeUniforms};
use super::{SimError, StrandSolver};
use crate::body::{BodyField, GpuBoneGrid};
use crate::gpu::{GpuContext, read_buffer};
use crate::shaders::ShaderModule;
use encase::ShaderType;
use glam::Vec4;
use std::sync::{Arc, Mutex};
use wgpu::util::DeviceExt;

/// Invocations per workgroup (WGSL `STEP_WORKGROUP`, from the prelude of
/// [`crate::shaders`]).
pub const WORKGROUP_SIZE: u32 = crate::shaders::STEP_WORKGROUP;
/// Steps one [`GpuSolver::record_steps`] call (one dispatch, one submission) can carry.
/// The 60 Hz accumulator with its 1/30 s cap needs at most three per frame.
pub const MAX_STEPS_PER_SUBMIT: usize = MAX_STEPS_PER_DISPATCH;
/// Bytes of one strand in one position buffer (six `vec4<f32>`).
pub const POSITION_BYTES_PER_STRAND: u64 = (POINTS_PER_STRAND * 16) as u64;

/// The strand solver on a wgpu device.
///
/// Buffers (all storage): `roots` (one [`GpuRoot`] per strand, never written), two position
/// buffers used in turn (six `vec4` per strand: xyz world position, w 1 where the hand
/// touched the point in the last step), `comb` (one `vec4` per strand) and a counter of
/// strands reset for not being finite. A dispatch reads the latest and the previous
/// positions once, takes its steps in registers and writes both back; after an odd number
/// of steps the two buffers swap roles ([`GpuSolver::current_index`] says which is latest).
#[derive(Debug)]
pub struct GpuSolver {
    device: wgpu::Device,
    queue: wgpu::Queue,
    last_error: Arc<Mutex<Option<String>>>,
    pipeline: wgpu::ComputePipeline,
    /// The volume grid's splat (`volume_grid.wgsl`), on the step's bind group.
    splat_pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    /// `bind_groups[k]` has `positions[k]` as the latest and `positions[1 - k]` as the older.
    bind_groups: [wgpu::BindGroup; 2],
    /// The volume grid (four `i32` per node), a placeholder of one node while it is off.
    grid: wgpu::Buffer,
    /// The grid's uniforms ([`VolumeUniforms`]); resolution 0 while it is off.
    volume_uniforms: wgpu::Buffer,
    /// Per node, the density above which it pushes (`VolumeSettings::rest`).
    rest_grid: wgpu::Buffer,
    volume: Option<VolumeSettings>,
    /// When the grid is next splatted.
    cadence: SplatCadence,
    roots: wgpu::Buffer,
    /// Per root, its body triangle (one placeholder entry for a creature's coat).
    bindings: wgpu::Buffer,
    /// The body's vertices posed for each step of a dispatch: [`MAX_STEPS_PER_DISPATCH`]
    /// slots of `skin_vertex_count` (one placeholder slot of one vertex for a creature).
    skinned: wgpu::Buffer,
    skin_vertex_count: usize,
    /// The body's distance grids (one placeholder for a body without a field).
    field_grids: wgpu::Buffer,
    /// Every grid's node values.
    field_values: wgpu::Buffer,
    /// Per step of a dispatch, one frame per grid: [`MAX_STEPS_PER_DISPATCH`] slots of
    /// `field_grid_count` frames.
    field_frames: wgpu::Buffer,
    /// Grids of the body's field (0 without one).
    field_grid_count: usize,
    positions: [wgpu::Buffer; 2],
    comb: wgpu::Buffer,
    recovered: wgpu::Buffer,
    uniforms: wgpu::Buffer,
    current: usize,
    strand_count: u32,
}

/// The largest strand count `limits` can hold: bounded by the largest storage binding (the
/// roots, 128 B a strand, are the largest per-strand buffer) and by the number of
/// workgroups one dispatch may have.
pub fn max_strands(limits: &wgpu::Limits) -> usize {
    let per_strand = POSITION_BYTES_PER_STRAND.max(std::mem::size_of::<GpuRoot>() as u64);
    let by_binding = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
        / per_strand;
    let by_dispatch =
        u64::from(limits.max_compute_workgroups_per_dimension) * u64::from(WORKGROUP_SIZE);
    by_binding.min(by_dispatch) as usize
}

impl GpuSolver {
    /// Uploads `roots` and the starting positions (`initial`, used as both current and
    /// previous, so the strands start at rest) and builds the pipeline.
    pub fn new(ctx: &GpuContext, roots: &[GpuRoot], initial: &[Vec4]) -> Result<Self, SimError> {
        Self::build(ctx, roots, None, initial)
    }

    /// [`GpuSolver::new`] for roots bound to a body's triangles by `bindings` (one per
    /// root) on a body of `vertex_count` vertices with its distance field `field` (if
    /// any), stepped by [`GpuSolver::record_skinned_steps`].
    pub fn new_skinned(
        ctx: &GpuContext,
        roots: &[GpuRoot],
        bindings: &[GpuRootBinding],
        vertex_count: usize,
        field: Option<&BodyField>,
        initial: &[Vec4],
    ) -> Result<Self, SimError> {
        if bindings.len() != roots.len() {
            return Err(SimError::BodySize {
                what: "root bindings",
                expected: roots.len(),
                got: bindings.len(),
            });
        }
        Self::build(ctx, roots, Some((bindings, vertex_count, field)), initial)
    }

    fn build(
        ctx: &GpuContext,
        roots: &[GpuRoot],
        body: Option<(&[GpuRootBinding], usize, Option<&BodyField>)>,
        initial: &[Vec4],
    ) -> Result<Self, SimError> {
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
        let module = ShaderModule::StrandStep.create(device);
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
        let batch_size = StepBatch::min_size().get();
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("strand step"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(batch_size),
                    },
                    count: None,
                },
                storage(1, true),
                storage(2, false),
                storage(3, false),
                storage(4, false),
                storage(5, false),
                storage(6, false),
                wgpu::BindGroupLayoutEntry {
                    binding: 7,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: wgpu::BufferSize::new(VolumeUniforms::min_size().get()),
                    },
                    count: None,
                },
                storage(8, true),
                storage(9, true),
                storage(10, true),
                storage(11, true),
                storage(12, true),
                storage(13, true),
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
        let splat_pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("volume splat"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("splat_grid"),
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
        let recovered = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("strands recovered"),
            contents: bytemuck::bytes_of(&[0u32; 4]),
            usage: storage_usage,
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("strand step batch"),
            size: batch_size,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let placeholder = [GpuRootBinding::default()];
        let (bindings, skin_vertex_count, field) = body.unwrap_or((&placeholder, 1, None));
        let skin_vertex_count = skin_vertex_count.max(1);
        let skin_bytes = (MAX_STEPS_PER_DISPATCH * skin_vertex_count * 16) as u64;
        let limits = device.limits();
        if skin_bytes
            > limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size)
        {
            return Err(SimError::BodySize {
                what: "vertex count (more than one storage buffer holds)",
                expected: (limits.max_storage_buffer_binding_size / 16 / 8) as usize,
                got: skin_vertex_count,
            });
        }
        let bindings_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("strand root bindings"),
            contents: bytemuck::cast_slice(bindings),
            usage: storage_usage,
        });
        let skinned = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skinned body vertices"),
            size: skin_bytes,
            usage: storage_usage,
            mapped_at_creation: false,
        });
        let placeholder_grid = [GpuBoneGrid::default()];
        let (field_grids, field_values): (&[GpuBoneGrid], &[f32]) = match field {
            Some(f) if !f.grids.is_empty() && !f.values.is_empty() => (&f.grids, &f.values),
            _ => (&placeholder_grid, &[0.0; 4]),
        };
        let field_grid_count = field.map_or(0, |f| f.grids.len().min(field_grids.len()));
        let frame_bytes = (MAX_STEPS_PER_DISPATCH
            * field_grids.len()
            * std::mem::size_of::<GpuGridFrame>()) as u64;
        let largest = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if std::mem::size_of_val(field_values) as u64 > largest || frame_bytes > largest {
            return Err(SimError::BodySize {
                what: "distance field (more than one storage buffer holds)",
                expected: (largest / 4) as usize,
                got: field_values.len(),
            });
        }
        let field_grids_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("body distance grids"),
            contents: bytemuck::cast_slice(field_grids),
            usage: storage_usage,
        });
        let field_values_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("body distance values"),
            contents: bytemuck::cast_slice(field_values),
            usage: storage_usage,
        });
        let field_frames = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("body distance frames"),
            size: frame_bytes,
            usage: storage_usage,
            mapped_at_creation: false,
        });
        let grid = make_grid(device, 1);
        let volume_uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("volume grid uniforms"),
            size: VolumeUniforms::min_size().get(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let rest_grid = make_rest_grid(device, &[0.0; 4]);
        let buffers = Buffers {
            uniforms: &uniforms,
            roots: &roots_buffer,
            positions: &positions,
            comb: &comb,
            recovered: &recovered,
            grid: &grid,
            volume: &volume_uniforms,
            rest: &rest_grid,
            bindings: &bindings_buffer,
            skinned: &skinned,
            field_grids: &field_grids_buffer,
            field_values: &field_values_buffer,
            field_frames: &field_frames,
        };
        let bind_groups = buffers.bind_groups(device, &layout);
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
            splat_pipeline,
            layout,
            bind_groups,
            grid,
            volume_uniforms,
            rest_grid,
            volume: None,
            cadence: SplatCadence::due(),
            roots: roots_buffer,
            bindings: bindings_buffer,
            skinned,
            skin_vertex_count,
            field_grids: field_grids_buffer,
            field_values: field_values_buffer,
            field_frames,
            field_grid_count,
            positions,
            comb,
            recovered,
            uniforms,
            current: 0,
            strand_count: roots.len() as u32,
        })
    }

    /// Records up to [`MAX_STEPS_PER_SUBMIT`] steps into `encoder` as one dispatch, writing
    /// their uniforms through the queue (they land when `encoder` is submitted). Submit
    /// before recording more: the uniform buffer is reused. The latest-positions index is
    /// updated as the steps are recorded, so an encoder that is recorded into must be
    /// submitted. With the volume grid on, one call carries at most the steps until the
    /// next splat ([`GpuSolver::steps_per_record`]), splatting first when one is due.
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
        let most = self.steps_per_record(steps.len());
        if steps.len() > most {
            return Err(SimError::TooManySteps {
                count: steps.len(),
                max: most,
            });
        }
        if steps.is_empty() {
            return Ok(());
        }
        // The slots past `step_count` are never read; they repeat the first step.
        let mut batch = StepBatch {
            step_count: steps.len() as u32,
            strand_count: self.strand_count,
            steps: [steps[0]; MAX_STEPS_PER_DISPATCH],
        };
        for (slot, u) in batch.steps.iter_mut().zip(steps) {
            *slot = *u;
            slot.capsule_count = slot.capsule_count.min(super::MAX_CAPSULES as u32);
        }
        let bytes = encase::UniformBuffer::<Vec<u8>>::content_of::<StepBatch, Vec<u8>>(&batch)
            .map_err(|e| SimError::Gpu(format!("step uniform layout: {e}")))?;
        self.queue.write_buffer(&self.uniforms, 0, &bytes);
        let (splat, volume) = match &self.volume {
            Some(settings) => self.cadence.start_run(settings, &steps[0], steps.len()),
            None => (false, VolumeUniforms::default()),
        };
        let bytes =
            encase::UniformBuffer::<Vec<u8>>::content_of::<VolumeUniforms, Vec<u8>>(&volume)
                .map_err(|e| SimError::Gpu(format!("volume uniform layout: {e}")))?;
        self.queue.write_buffer(&self.volume_uniforms, 0, &bytes);
        let workgroups = self.strand_count.div_ceil(WORKGROUP_SIZE);
        if splat {
            let splatted = self.strand_count.div_ceil(volume.stride.max(1));
            // Cleared and splatted from the state the steps start from, before the first
            // step reads it; the dispatches until the next splat read it as it stands.
            encoder.clear_buffer(&self.grid, 0, None);
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("volume splat"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.splat_pipeline);
            pass.set_bind_group(0, &self.bind_groups[self.current], &[]);
            pass.dispatch_workgroups(splatted.div_ceil(WORKGROUP_SIZE), 1, 1);
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("strand steps"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_groups[self.current], &[]);
        pass.dispatch_workgroups(workgroups, 1, 1);
        drop(pass);
        // After an odd number of steps the older buffer holds the latest positions.
        if steps.len() % 2 == 1 {
            self.current ^= 1;
        }
        Ok(())
    }

    /// [`GpuSolver::record_steps`] with the body's vertices posed for each step (`skin`:
    /// `steps.len()` poses of the vertex count the solver was made for, step by step) and
    /// its distance field's frames (`frames`: one per grid and step, empty for a body
    /// without a field), written through the queue into the dispatch's slots.
    pub fn record_skinned_steps(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        steps: &[StepUniforms],
        skin: &[Vec4],
        frames: &[GpuGridFrame],
    ) -> Result<(), SimError> {
        super::cpu::check_skin(steps.len(), skin.len(), self.skin_vertex_count)?;
        super::cpu::check_skin(steps.len(), frames.len(), self.field_grid_count)?;
        if steps.len() > MAX_STEPS_PER_DISPATCH {
            return Err(SimError::TooManySteps {
                count: steps.len(),
                max: MAX_STEPS_PER_DISPATCH,
            });
        }
        if !skin.is_empty() {
            self.queue
                .write_buffer(&self.skinned, 0, bytemuck::cast_slice(skin));
        }
        if !frames.is_empty() {
            self.queue
                .write_buffer(&self.field_frames, 0, bytemuck::cast_slice(frames));
        }
        self.record_steps(encoder, steps)
    }

    /// Advances one step per entry of `steps` with the body posed for each (see
    /// [`GpuSolver::record_skinned_steps`]), submitting as [`StrandSolver::step`] does.
    pub fn step_skinned(
        &mut self,
        steps: &[StepUniforms],
        skin: &[Vec4],
        frames: &[GpuGridFrame],
    ) -> Result<(), SimError> {
        let n = self.skin_vertex_count;
        let g = self.field_grid_count;
        super::cpu::check_skin(steps.len(), skin.len(), n)?;
        super::cpu::check_skin(steps.len(), frames.len(), g)?;
        let mut done = 0;
        while done < steps.len() {
            let take = self.steps_per_record(steps.len() - done);
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("skinned strand steps"),
                });
            self.record_skinned_steps(
                &mut encoder,
                &steps[done..done + take],
                &skin[done * n..(done + take) * n],
                &frames[done * g..(done + take) * g],
            )?;
            self.queue.submit(Some(encoder.finish()));
            done += take;
        }
        self.check_device_error()
    }

    /// Of `wanted` steps, how many the next [`GpuSolver::record_steps`] call may carry: up
    /// to [`MAX_STEPS_PER_SUBMIT`], and with the volume grid on none past the next splat
    /// (which a call may only start with).
    pub fn steps_per_record(&self, wanted: usize) -> usize {
        let most = wanted.min(MAX_STEPS_PER_SUBMIT);
        match &self.volume {
            Some(settings) => self.cadence.run_length(settings, most),
            None => most,
        }
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

    /// The counter of strands reset for not being finite (one `u32`, then padding).
    pub fn recovered_buffer(&self) -> &wgpu::Buffer {
        &self.recovered
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
        read_buffer(&self.device, &self.queue, buffer).map_err(SimError::Gpu)
    }
}

impl StrandSolver for GpuSolver {
    fn strand_count(&self) -> usize {
        self.strand_count as usize
    }

    fn step(&mut self, steps: &[StepUniforms]) -> Result<(), SimError> {
        // With the grid on, a submission ends where the current splat stops serving.
        let mut left = steps;
        while !left.is_empty() {
            let (chunk, rest) = left.split_at(self.steps_per_record(left.len()));
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("strand steps"),
                });
            self.record_steps(&mut encoder, chunk)?;
            self.queue.submit(Some(encoder.finish()));
            left = rest;
        }
        self.check_device_error()
    }

    fn set_volume(&mut self, volume: Option<VolumeSettings>) -> Result<(), SimError> {
        if let Some(v) = &volume {
            v.check()?;
            let bytes = (v.words() * 4) as u64;
            let limits = self.device.limits();
            if bytes
                > limits
                    .max_storage_buffer_binding_size
                    .min(limits.max_buffer_size)
            {
                return Err(SimError::WholeParameter {
                    name: "volume_resolution",
                    value: u64::from(v.resolution),
                    expected: "a grid that fits one storage buffer on this device",
                });
            }
            let same_rest = self
                .volume
                .as_ref()
                .is_some_and(|old| std::sync::Arc::ptr_eq(&old.rest, &v.rest));
            if bytes != self.grid.size() || !same_rest {
                self.grid = make_grid(&self.device, bytes);
                self.rest_grid = make_rest_grid(&self.device, &v.rest);
                let buffers = Buffers {
                    uniforms: &self.uniforms,
                    roots: &self.roots,
                    positions: &self.positions,
                    comb: &self.comb,
                    recovered: &self.recovered,
                    grid: &self.grid,
                    volume: &self.volume_uniforms,
                    rest: &self.rest_grid,
                    bindings: &self.bindings,
                    skinned: &self.skinned,
                    field_grids: &self.field_grids,
                    field_values: &self.field_values,
                    field_frames: &self.field_frames,
                };
                self.bind_groups = buffers.bind_groups(&self.device, &self.layout);
            }
        }
        self.cadence.follow(self.volume.as_ref(), volume.as_ref());
        self.volume = volume;
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

    fn recovered(&mut self) -> Result<u64, SimError> {
        let bytes = self.read_back(&self.recovered)?;
        self.check_device_error()?;
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
        Ok(u64::from(words.first().copied().unwrap_or(0)))
    }

    fn set_strand(&mut self, strand: usize, points: &[Vec4]) -> Result<(), SimError> {
        let range = super::strand_range(strand, self.strand_count as usize, points)?;
        let offset = (range.start * 16) as u64;
        for buffer in &self.positions {
            self.queue
                .write_buffer(buffer, offset, bytemuck::cast_slice(points));
        }
        self.queue.submit(None);
        self.check_device_error()
    }
}

/// The volume grid's buffer: `bytes` (at least one node's worth), cleared each step.
fn make_grid(device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("volume grid"),
        size: bytes.max(16),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The per-node rest densities' buffer.
fn make_rest_grid(device: &wgpu::Device, rest: &[f32]) -> wgpu::Buffer {
    let placeholder = [0.0f32; 4];
    let contents = if rest.is_empty() {
        &placeholder[..]
    } else {
        rest
    };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("volume rest densities"),
        contents: bytemuck::cast_slice(contents),
        usage: wgpu::BufferUsages::STORAGE,
    })
}

/// The buffers the step's bind group holds.
struct Buffers<'a> {
    uniforms: &'a wgpu::Buffer,
    roots: &'a wgpu::Buffer,
    positions: &'a [wgpu::Buffer; 2],
    comb: &'a wgpu::Buffer,
    recovered: &'a wgpu::Buffer,
    grid: &'a wgpu::Buffer,
    volume: &'a wgpu::Buffer,
    rest: &'a wgpu::Buffer,
    bindings: &'a wgpu::Buffer,
    skinned: &'a wgpu::Buffer,
    field_grids: &'a wgpu::Buffer,
    field_values: &'a wgpu::Buffer,
    field_frames: &'a wgpu::Buffer,
}

impl Buffers<'_> {
    /// Bind group `k` has `positions[k]` as the latest and `positions[1 - k]` as the older.
    fn bind_groups(
        &self,
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
    ) -> [wgpu::BindGroup; 2] {
        fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            }
        }
        let group = |latest: &wgpu::Buffer, older: &wgpu::Buffer| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("strand step"),
                layout,
                entries: &[
                    whole(0, self.uniforms),
                    whole(1, self.roots),
                    whole(2, latest),
                    whole(3, older),
                    whole(4, self.comb),
                    wgpu::BindGroupEntry {
                        binding: 5,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: self.recovered,
                            offset: 0,
                            size: wgpu::BufferSize::new(4),
                        }),
                    },
                    whole(6, self.grid),
                    whole(7, self.volume),
                    whole(8, self.rest),
                    whole(9, self.bindings),
                    whole(10, self.skinned),
                    whole(11, self.field_grids),
                    whole(12, self.field_values),
                    whole(13, self.field_frames),
                ],
            })
        };
        [
            group(&self.positions[0], &self.positions[1]),
            group(&self.positions[1], &self.positions[0]),
        ]
    }
}
