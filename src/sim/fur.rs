//! `FurSim`: the creature, its groom and a strand solver stepped on the fixed clock, with
//! the hand's capsules and the tail's swing passed in from outside.

use super::body_field::{FieldSteps, candidate_grids, grid_frames};
use super::clock::{StepClock, TimeMode};
use super::contact::HandContact;
use super::cpu::CpuSolver;
use super::gpu_solver::GpuSolver;
use super::layout::{GpuRoot, StepUniforms, gpu_roots};
use super::params::FurParams;
use super::reference::{rest_positions, rest_positions_on};
use super::skinned::{GpuRootBinding, SkinnedSteps, StrandSkin, skin_vertices, skinned_roots};
use super::volume::VolumeSettings;
use super::{SimError, StrandSolver};
use crate::body::{BodyField, BodyMesh, BodyMotion, FieldOptions};
use crate::creature::{Creature, CreaturePose, IdleMotion, TAIL_BONES};
use crate::gpu::GpuContext;
use crate::groom::{BodyGroom, BodyGroomSource, Groom, StrandRoot};
use glam::{Affine3A, Vec4};
use std::sync::Arc;

/// Steps a coat takes without the volume grid before it measures its rest densities
/// (one second): the groomed shape sags under gravity first, and the grid must find the
/// coat as it then stands at rest, or the untouched coat would feel pressure.
pub const SETTLE_STEPS: u64 = 60;

/// How to build a [`FurSim`].
#[derive(Clone, Debug, PartialEq)]
pub struct FurConfig {
    /// Number of strands.
    pub strands: usize,
    /// Seed for the groom and the idle motion.
    pub seed: u64,
    /// Solver constants.
    pub params: FurParams,
    /// Fixed 60 Hz steps or one per frame.
    pub time_mode: TimeMode,
    /// Whether the head sways and the body breathes.
    pub idle_motion: bool,
    /// Simulation time at the start, seconds (0 for a new run).
    pub start_time: f64,
    /// On a body: its distance field's grids, which keep every strand point out of the
    /// skinned mesh on both solvers (`None`: the roots' skin planes alone). Unused on the
    /// creature.
    pub body_field: Option<FieldOptions>,
}

impl FurConfig {
    /// The default configuration for `strands` strands from `seed`.
    pub fn new(strands: usize, seed: u64) -> Self {
        FurConfig {
            strands,
            seed,
            params: FurParams::default(),
            time_mode: TimeMode::Fixed,
            idle_motion: true,
            start_time: 0.0,
            body_field: Some(FieldOptions::default()),
        }
    }
}

/// What drives one step from outside: the hand and the tail's swing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepInput {
    /// The hand's capsules for this step (`None`: no hand).
    pub contact: Option<HandContact>,
    /// The tail bones' skinning transforms for this step (body-space rest → world, see
    /// [`CreaturePose::tail`]); `None`: the tail follows the body unswung.
    pub tail: Option<[Affine3A; TAIL_BONES]>,
}

/// A body the coat grows on in place of the creature: its mesh and how it moves.
#[derive(Clone)]
pub struct FurBody {
    /// The surface, skin and texture in the bind pose.
    pub mesh: Arc<BodyMesh>,
    /// The pose at any time (looped by the motion itself).
    pub motion: Arc<dyn BodyMotion>,
    /// How the coat is groomed: a groom file or strands in the body's frame (`None`: from
    /// the body alone, [`BodyGroom::generate`]).
    pub groom: Option<Arc<BodyGroomSource>>,
}

impl std::fmt::Debug for FurBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FurBody")
            .field("vertices", &self.mesh.positions.len())
            .field("triangles", &self.mesh.triangles.len())
            .finish()
    }
}

/// Two bodies are equal when they share their mesh and their motion and groom alike.
impl PartialEq for FurBody {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.mesh, &other.mesh)
            && Arc::ptr_eq(&self.motion, &other.motion)
            && self.groom == other.groom
    }
}

impl FurBody {
    /// The lowest point of the body at rest, metres (where it stands: the floor for a
    /// body's scene); `None` for a body with no finite vertex.
    pub fn lowest_point(&self) -> Option<f32> {
        self.mesh
            .positions
            .iter()
            .map(|p| p.y)
            .filter(|y| y.is_finite())
            .reduce(f32::min)
    }

    /// Every vertex posed at `time` seconds, appended to `out`.
    pub fn skin_at(&self, time: f64, out: &mut Vec<Vec4>) {
        skin_vertices(&self.mesh, &self.motion.pose_at(time), out);
    }
}

/// A coat grown on a body: the body, its groom and the roots' triangles.
#[derive(Debug)]
struct BodyCoat {
    body: FurBody,
    groom: BodyGroom,
    bindings: Vec<GpuRootBinding>,
    /// The body's distance field, when the coat keeps out of it.
    field: Option<BodyField>,
    /// When the coat was laid out on the body, seconds.
    start: f64,
}

#[derive(Debug)]
enum Backend {
    Gpu(Box<GpuSolver>),
    Cpu(CpuSolver),
}

impl Backend {
    fn solver(&mut self) -> &mut dyn StrandSolver {
        match self {
            Backend::Gpu(s) => s.as_mut(),
            Backend::Cpu(s) => s,
        }
    }
}

/// The simulated coat: creature, groom, solver and clock.
#[derive(Debug)]
pub struct FurSim {
    creature: Creature,
    groom: Groom,
    roots: Vec<GpuRoot>,
    params: FurParams,
    idle: IdleMotion,
    clock: StepClock,
    backend: Backend,
    input: StepInput,
    /// The head's turn toward a petting hand, body-local axes.
    head_turn: glam::Quat,
    /// The volume grid around the groomed coat, its rest densities measured from the
    /// settled coat the first time a step runs with `params.volume` on (`None` until then,
    /// and again after the resolution changes).
    volume: Option<VolumeSettings>,
    /// The uniforms the groomed coat was laid out under (where the grid is placed from).
    groomed_at: StepUniforms,
    /// The body the coat grows on, when it is not the creature's.
    body: Option<BodyCoat>,
}

impl FurSim {
    /// Grows the groom and starts the strands at rest on the CPU solver.
    pub fn new_cpu(config: &FurConfig, creature: Creature) -> Result<Self, SimError> {
        Self::build(config, creature, None, |roots, _, initial| {
            Ok(Backend::Cpu(CpuSolver::new(roots.to_vec(), initial)?))
        })
    }

    /// Grows a groom on `body` (as its `groom` says: [`BodyGroom::grow`]) and starts the
    /// strands at rest on its pose at the start time, on the CPU solver. Each step poses
    /// the body at the step's time and the roots follow their skinned triangles.
    pub fn new_cpu_on_body(config: &FurConfig, body: FurBody) -> Result<Self, SimError> {
        Self::build(
            config,
            Creature::default(),
            Some(body),
            |roots, bindings, initial| {
                Ok(Backend::Cpu(CpuSolver::new_skinned(
                    roots.to_vec(),
                    bindings.map(|(b, _, _)| b.to_vec()).unwrap_or_default(),
                    initial,
                )?))
            },
        )
    }

    /// [`FurSim::new_cpu_on_body`] on the GPU solver.
    pub fn new_gpu_on_body(
        config: &FurConfig,
        body: FurBody,
        gpu: &GpuContext,
    ) -> Result<Self, SimError> {
        let max = super::max_strands(&gpu.device.limits());
        // A groom file's count or density, or a file of strands, sets the count.
        let planned = BodyGroom::planned_count(&body.mesh, body.groom.as_deref(), config.strands);
        if planned > max {
            return Err(SimError::StrandCount {
                count: planned,
                max,
            });
        }
        Self::build(
            config,
            Creature::default(),
            Some(body),
            |roots, bindings, initial| {
                let (bindings, vertices, field) = bindings.unwrap_or((&[], 0, None));
                Ok(Backend::Gpu(Box::new(GpuSolver::new_skinned(
                    gpu, roots, bindings, vertices, field, &initial,
                )?)))
            },
        )
    }

    /// Grows the groom and starts the strands at rest on the GPU solver.
    pub fn new_gpu(
        config: &FurConfig,
        creature: Creature,
        gpu: &GpuContext,
    ) -> Result<Self, SimError> {
        // Checked before growing the groom: an absurd count fails at once.
        let max = super::max_strands(&gpu.device.limits());
        if config.strands > max {
            return Err(SimError::StrandCount {
                count: config.strands,
                max,
            });
        }
        Self::build(config, creature, None, |roots, _, initial| {
            Ok(Backend::Gpu(Box::new(GpuSolver::new(
                gpu, roots, &initial,
            )?)))
        })
    }

    #[allow(clippy::type_complexity)]
    fn build(
        config: &FurConfig,
        creature: Creature,
        body: Option<FurBody>,
        make: impl FnOnce(
            &[GpuRoot],
            Option<(&[GpuRootBinding], usize, Option<&BodyField>)>,
            Vec<Vec4>,
        ) -> Result<Backend, SimError>,
    ) -> Result<Self, SimError> {
        config.params.validate()?;
        if !config.start_time.is_finite() {
            return Err(SimError::FrameTime(config.start_time));
        }
        // A body holds still but for its own motion: the creature's idle sway moves nothing
        // of it.
        let idle = if config.idle_motion && body.is_none() {
            IdleMotion::from_seed(config.seed)
        } else {
            IdleMotion::still()
        };
        let pose = idle.pose(&creature, config.start_time);
        let u = StepUniforms::new(&config.params, &pose, config.start_time, 0.0, None);
        let (groom, roots, body, initial) = match body {
            None => {
                let groom = Groom::generate(&creature, config.strands, config.seed)?;
                let roots = gpu_roots(&groom.roots, &creature, &config.params);
                let initial = rest_positions(&u, &roots);
                (groom, roots, None, initial)
            }
            Some(body) => {
                let body_groom = BodyGroom::grow(
                    &body.mesh,
                    body.groom.as_deref(),
                    config.strands,
                    config.seed,
                )?;
                let (roots, mut bindings) =
                    skinned_roots(&body.mesh, &body_groom.roots, &config.params);
                // A body whose grids would not fit the field's memory cap keeps the fur out
                // by each root's skin plane alone, as with the field turned off, rather than
                // being refused: the coat still grows, with a warning saying why.
                let field = match config.body_field {
                    Some(options) => match BodyField::build(&body.mesh, options) {
                        Ok(field) => Some(field),
                        Err(e @ crate::body::DistanceError::TooLarge { .. }) => {
                            log::warn!("{e}; the fur is kept out by each root's skin plane only");
                            None
                        }
                        Err(e) => return Err(e.into()),
                    },
                    None => None,
                };
                if let Some(field) = &field {
                    for (binding, root) in bindings.iter_mut().zip(&body_groom.roots) {
                        binding.grids = candidate_grids(
                            field,
                            &body.mesh,
                            root.triangle,
                            root.barycentric,
                            root.length,
                        );
                    }
                }
                let mut skin = Vec::new();
                body.skin_at(config.start_time, &mut skin);
                let steps = SkinnedSteps {
                    positions: &skin,
                    vertex_count: body.mesh.positions.len(),
                    field: None,
                };
                let initial = rest_positions_on(&u, &roots, Some((steps, &bindings)));
                let groom = Groom {
                    seed: config.seed,
                    roots: body_groom.roots.iter().map(strand_root_of).collect(),
                    areas: Vec::new(),
                };
                let coat = BodyCoat {
                    body,
                    groom: body_groom,
                    bindings,
                    field,
                    start: config.start_time,
                };
                (groom, roots, Some(coat), initial)
            }
        };
        let backend = make(
            &roots,
            body.as_ref().map(|b| {
                (
                    &b.bindings[..],
                    b.body.mesh.positions.len(),
                    b.field.as_ref(),
                )
            }),
            initial,
        )?;
        Ok(FurSim {
            creature,
            groom,
            roots,
            params: config.params,
            idle,
            clock: StepClock::starting_at(config.time_mode, config.start_time),
            backend,
            input: StepInput::default(),
            head_turn: glam::Quat::IDENTITY,
            volume: None,
            groomed_at: u,
            body,
        })
    }

    /// Sets the hand for the steps that follow (`None`: no hand). Checked first: a bad
    /// capsule is an error and leaves the previous hand in place.
    pub fn set_contact(&mut self, contact: Option<HandContact>) -> Result<(), SimError> {
        if let Some(c) = &contact {
            c.validate()?;
        }
        self.input.contact = contact;
        Ok(())
    }

    /// Sets the tail bones' skinning transforms for the steps that follow (`None`: the
    /// tail follows the body unswung). Checked first: a non-finite transform is an error
    /// and leaves the previous tail in place.
    pub fn set_tail_pose(&mut self, tail: Option<[Affine3A; TAIL_BONES]>) -> Result<(), SimError> {
        check_tail(tail.as_ref())?;
        self.input.tail = tail;
        Ok(())
    }

    /// Counts a frame of `dt` seconds and takes the steps it calls for; returns how many.
    pub fn update(&mut self, dt: f64) -> Result<u32, SimError> {
        let (n, step_seconds) = self.clock.advance(dt)?;
        let input = self.input.clone();
        self.take_steps(n, step_seconds, |_| Ok(input.clone()))?;
        Ok(n)
    }

    /// Takes `n` steps of 1/60 s, whatever the time mode (for headless runs).
    pub fn step(&mut self, n: u32) -> Result<(), SimError> {
        let input = self.input.clone();
        self.take_steps(n, 1.0 / super::FIXED_STEP_HZ, |_| Ok(input.clone()))
    }

    /// Takes `n` steps of 1/60 s, asking `drive` for each step's hand and tail with the
    /// step's number (1 for the first step ever taken). Steps are batched into dispatches of
    /// up to [`super::MAX_STEPS_PER_DISPATCH`], each strand read and written once per batch.
    /// The last step's input stays set afterwards.
    pub fn step_with(
        &mut self,
        n: u32,
        drive: impl FnMut(u64) -> StepInput,
    ) -> Result<(), SimError> {
        self.drive_steps(n, 1.0 / super::FIXED_STEP_HZ, drive)
    }

    /// Counts a frame of `dt` seconds, as [`FurSim::update`] does, asking `drive` for the
    /// hand and tail of each step it takes (by step number, as [`FurSim::step_with`]): a
    /// hand that moves with simulated time then moves the same at any frame rate.
    pub fn update_with(
        &mut self,
        dt: f64,
        drive: impl FnMut(u64) -> StepInput,
    ) -> Result<u32, SimError> {
        let (n, step_seconds) = self.clock.advance(dt)?;
        self.drive_steps(n, step_seconds, drive)?;
        Ok(n)
    }

    fn drive_steps(
        &mut self,
        n: u32,
        step_seconds: f64,
        mut drive: impl FnMut(u64) -> StepInput,
    ) -> Result<(), SimError> {
        let mut last = None;
        self.take_steps(n, step_seconds, |step| {
            let input = drive(step);
            if let Some(c) = &input.contact {
                c.validate()?;
            }
            check_tail(input.tail.as_ref())?;
            last = Some(input.clone());
            Ok(input)
        })?;
        if let Some(input) = last {
            self.input = input;
        }
        Ok(())
    }

    /// The tail bones' skinning transforms the steps use (`None`: unswung).
    pub fn tail_pose(&self) -> Option<[Affine3A; TAIL_BONES]> {
        self.input.tail
    }

    fn take_steps(
        &mut self,
        n: u32,
        step_seconds: f64,
        mut input: impl FnMut(u64) -> Result<StepInput, SimError>,
    ) -> Result<(), SimError> {
        // In dispatch-sized batches, so a huge `n` never builds a huge uniform list.
        let mut left = n as usize;
        while left > 0 {
            let mut batch = left.min(super::MAX_STEPS_PER_DISPATCH);
            if self.params.volume && self.volume.is_none() {
                // The grid's rest densities are measured at exactly SETTLE_STEPS, however
                // the steps are batched, so the coat steps the same for any caller.
                let to_settle = SETTLE_STEPS.saturating_sub(self.clock.steps());
                if to_settle > 0 {
                    batch = batch.min(to_settle as usize);
                }
            }
            let mut clock = self.clock;
            let mut uniforms = Vec::with_capacity(batch);
            let mut skin = Vec::new();
            let mut frames = Vec::new();
            for _ in 0..batch {
                clock.record_step(step_seconds);
                let step_input = input(clock.steps())?;
                uniforms.push(self.uniforms_for(&step_input, clock.time(), step_seconds as f32));
                if let Some(coat) = &self.body {
                    // One pose per step: the roots' triangles and the field's grids follow
                    // the same joints.
                    let pose = coat.body.motion.pose_at(clock.time());
                    skin_vertices(&coat.body.mesh, &pose, &mut skin);
                    if let Some(field) = &coat.field {
                        grid_frames(field, &pose, &mut frames);
                    }
                }
            }
            let volume = if self.params.volume {
                self.settled_volume()?
            } else {
                None
            };
            self.backend.solver().set_volume(volume)?;
            match (&self.body, &mut self.backend) {
                (None, backend) => backend.solver().step(&uniforms)?,
                (Some(coat), Backend::Cpu(s)) => {
                    let field = coat.field.as_ref().map(|f| FieldSteps {
                        grids: &f.grids,
                        values: &f.values,
                        frames: &frames,
                    });
                    s.step_skinned(&uniforms, &skin, coat.body.mesh.positions.len(), field)?
                }
                (Some(_), Backend::Gpu(s)) => s.step_skinned(&uniforms, &skin, &frames)?,
            }
            self.clock = clock;
            left -= batch;
        }
        Ok(())
    }

    fn uniforms_for(&self, input: &StepInput, time: f64, step_seconds: f32) -> StepUniforms {
        let mut pose = self.idle.pose(&self.creature, time);
        if let Some(tail) = input.tail {
            pose.tail = tail;
        }
        StepUniforms::new(
            &self.params,
            &pose,
            time,
            step_seconds,
            input.contact.as_ref(),
        )
    }

    /// The uniforms of a step ending at `time` seconds that lasts `step_seconds`, with the
    /// hand and tail currently set.
    pub fn uniforms_at(&self, time: f64, step_seconds: f32) -> StepUniforms {
        self.uniforms_for(&self.input, time, step_seconds)
    }

    /// The creature's pose at `time` seconds (f64, or an f32 that converts), with the tail
    /// currently set.
    pub fn pose_at(&self, time: impl Into<f64>) -> CreaturePose {
        self.unturned_pose_at(time).with_head_turn(self.head_turn)
    }

    /// The creature's pose at `time` seconds before the head's turn toward the hand (what
    /// the hand's response is computed from, so the lean never feeds on itself).
    pub fn unturned_pose_at(&self, time: impl Into<f64>) -> CreaturePose {
        let mut pose = self.idle.pose(&self.creature, time);
        if let Some(tail) = self.input.tail {
            pose.tail = tail;
        }
        pose
    }

    /// Turns the head by `turn` (body-local axes, about its pivot) for the steps that
    /// follow: the creature leaning into a hand. Refused unless finite.
    pub fn set_head_turn(&mut self, turn: glam::Quat) -> Result<(), SimError> {
        if !turn.is_finite() {
            return Err(SimError::Parameter {
                name: "head_turn",
                value: f32::NAN,
                expected: "a finite rotation",
            });
        }
        self.head_turn = turn.normalize();
        Ok(())
    }

    /// The latest positions (six per strand; see [`StrandSolver::positions`]).
    pub fn positions(&mut self) -> Result<Vec<Vec4>, SimError> {
        self.backend.solver().positions()
    }

    /// The comb vectors (one per strand).
    pub fn comb(&mut self) -> Result<Vec<Vec4>, SimError> {
        self.backend.solver().comb()
    }

    /// Strands reset to rest because their state was not finite, since the start.
    pub fn recovered(&mut self) -> Result<u64, SimError> {
        self.backend.solver().recovered()
    }

    /// Overwrites strand `strand`'s latest and previous positions (six points); see
    /// [`StrandSolver::set_strand`].
    pub fn set_strand(&mut self, strand: usize, points: &[Vec4]) -> Result<(), SimError> {
        self.backend.solver().set_strand(strand, points)
    }

    /// Simulation time in seconds.
    pub fn time(&self) -> f64 {
        self.clock.time()
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.clock.steps()
    }

    /// Measures the current state's invariants (reads the state back from the GPU).
    pub fn stats(&mut self) -> Result<super::StrandStats, SimError> {
        let positions = self.positions()?;
        let comb = self.comb()?;
        let pose = self.pose_at(self.time());
        let mut stats = match &self.body {
            None => {
                super::StrandStats::measure(&self.roots, &positions, &comb, &self.params, &pose)
            }
            Some(coat) => {
                let mut skin = Vec::new();
                coat.body.skin_at(self.time(), &mut skin);
                let steps = SkinnedSteps {
                    positions: &skin,
                    vertex_count: coat.body.mesh.positions.len(),
                    field: None,
                };
                super::StrandStats::measure_in_frames(
                    &self.roots,
                    &positions,
                    &comb,
                    &self.params,
                    |i, _| match coat.bindings.get(i) {
                        Some(binding) => StrandSkin { steps, binding }.frame(0),
                        None => glam::Mat4::IDENTITY,
                    },
                )
            }
        };
        stats.recovered_strands = self.recovered()?;
        Ok(stats)
    }

    /// The creature.
    pub fn creature(&self) -> &Creature {
        &self.creature
    }

    /// The groom (its roots in the solver's order: strand `i` grows from root `i`).
    pub fn groom(&self) -> &Groom {
        &self.groom
    }

    /// The roots as the solver reads them, with their per-strand constants.
    pub fn gpu_roots(&self) -> &[GpuRoot] {
        &self.roots
    }

    /// The solver constants.
    pub fn params(&self) -> &FurParams {
        &self.params
    }

    /// Changes the solver constants for the steps that follow (live tuning). Checked
    /// first: an invalid set is an error and the old one stays.
    pub fn set_params(&mut self, params: FurParams) -> Result<(), SimError> {
        params.validate()?;
        // A new resolution, or a limit that changes which strands splat, needs the rest
        // densities measured anew; a limit that splats the same strands changes nothing.
        if params.volume_resolution != self.params.volume_resolution
            || self.splat_stride(&params) != self.splat_stride(&self.params)
        {
            self.volume = None;
        }
        self.params = params;
        Ok(())
    }

    /// The volume grid as the steps use it while `params().volume` is on: its place
    /// relative to the body's pivot, its resolution, the settled coat's rest densities and
    /// the parameters' strengths ([`VolumeSettings::uniforms`] places it for a step).
    /// `None` until the rest densities are measured: after [`SETTLE_STEPS`], at the first
    /// step with the grid on.
    pub fn volume_settings(&self) -> Option<VolumeSettings> {
        let v = self.volume.as_ref()?;
        Some(VolumeSettings {
            friction: self.params.volume_friction,
            strength: self.params.volume_strength,
            interval: self.params.volume_interval,
            ..v.clone()
        })
    }

    /// Which strands this coat splats under `params` (every k-th, [`VolumeSettings::stride`]).
    fn splat_stride(&self, params: &FurParams) -> u32 {
        super::volume::splat_stride(self.roots.len(), params.volume_splat_strands)
    }

    /// The grid for the next steps: `None` while the coat is still settling (the first
    /// [`SETTLE_STEPS`] steps, taken without it); then, once, the rest densities measured
    /// from the coat as it stands, so the untouched coat feels no pressure.
    fn settled_volume(&mut self) -> Result<Option<VolumeSettings>, SimError> {
        if self.volume.is_none() {
            if self.clock.steps() < SETTLE_STEPS {
                return Ok(None);
            }
            let positions = self.backend.solver().positions()?;
            let u = self.uniforms_at(self.clock.time(), 1.0 / super::FIXED_STEP_HZ as f32);
            let mut settings = VolumeSettings::around(
                &self.groomed_rest(),
                &self.groomed_at,
                self.params.volume_resolution,
            );
            settings.stride = self.splat_stride(&self.params);
            settings.measure_rest(&u, &positions);
            self.volume = Some(settings);
            // A grid too coarse for the coat (a node counting past its integers) is an
            // error now, and measured again at the next step with new parameters.
            if let Some(Err(e)) = self.volume_settings().map(|v| v.check()) {
                self.volume = None;
                return Err(e);
            }
        }
        Ok(self.volume_settings())
    }

    /// The groomed coat at rest as it was laid out at the start.
    fn groomed_rest(&self) -> Vec<Vec4> {
        match &self.body {
            None => rest_positions(&self.groomed_at, &self.roots),
            Some(coat) => {
                let mut skin = Vec::new();
                coat.body.skin_at(coat.start, &mut skin);
                let steps = SkinnedSteps {
                    positions: &skin,
                    vertex_count: coat.body.mesh.positions.len(),
                    field: None,
                };
                rest_positions_on(&self.groomed_at, &self.roots, Some((steps, &coat.bindings)))
            }
        }
    }

    /// The body's distance field the steps keep the coat out of (`None` on the creature, or
    /// with [`FurConfig::body_field`] off).
    pub fn body_field(&self) -> Option<&BodyField> {
        self.body.as_ref().and_then(|c| c.field.as_ref())
    }

    /// The body the coat grows on (`None`: the built-in creature).
    pub fn body(&self) -> Option<&FurBody> {
        self.body.as_ref().map(|c| &c.body)
    }

    /// The body's groom, roots in the solver's order (`None` on the creature; its groom is
    /// [`FurSim::groom`]). [`FurSim::groom`] holds the same roots as creature roots (part
    /// `Body`, their rest position, normal and flow in the body's frame, no pattern).
    pub fn body_groom(&self) -> Option<&BodyGroom> {
        self.body.as_ref().map(|c| &c.groom)
    }

    /// The body's vertices as posed at `time` seconds (xyz, w 1); empty on the creature.
    pub fn body_vertices_at(&self, time: f64) -> Vec<Vec4> {
        let mut out = Vec::new();
        if let Some(coat) = &self.body {
            coat.body.skin_at(time, &mut out);
        }
        out
    }

    /// The GPU solver, for binding its buffers in a renderer; `None` on the CPU solver.
    pub fn gpu(&self) -> Option<&GpuSolver> {
        match &self.backend {
            Backend::Gpu(s) => Some(s),
            Backend::Cpu(_) => None,
        }
    }

    /// The latest positions where they live in host memory (the CPU solver), borrowed;
    /// `None` on the GPU solver (read those with [`FurSim::positions`]).
    pub fn host_positions(&self) -> Option<&[Vec4]> {
        match &self.backend {
            Backend::Gpu(_) => None,
            Backend::Cpu(s) => Some(s.latest()),
        }
    }

    /// The CPU solver (to choose its SIMD or reference path); `None` on the GPU solver.
    pub fn cpu_mut(&mut self) -> Option<&mut CpuSolver> {
        match &mut self.backend {
            Backend::Gpu(_) => None,
            Backend::Cpu(s) => Some(s),
        }
    }
}

/// A body's root as a creature root (part `Body`, rest position, normal and flow in the
/// body's frame, no pattern), for code that reads [`FurSim::groom`].
fn strand_root_of(r: &crate::groom::BodyRoot) -> StrandRoot {
    StrandRoot {
        part: crate::creature::Part::Body,
        position: r.position,
        normal: r.normal,
        flow: r.flow,
        length: r.length,
        lift_root: r.lift_root,
        lift_tip: r.lift_tip,
        random: r.random,
        tail_t: 0.0,
        pattern: crate::groom::Pattern::default(),
    }
}

fn check_tail(tail: Option<&[Affine3A; TAIL_BONES]>) -> Result<(), SimError> {
    match tail {
        Some(bones) if !bones.iter().all(|b| b.is_finite()) => Err(SimError::Parameter {
            name: "tail pose",
            value: f32::NAN,
            expected: "finite tail bone transforms",
        }),
        _ => Ok(()),
    }
}
