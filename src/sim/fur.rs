//! `FurSim`: the creature, its groom and a strand solver stepped on the fixed clock, with
//! the hand's capsules passed in from outside.

use super::clock::{StepClock, TimeMode};
use super::contact::HandContact;
use super::cpu::{CpuSolver, rest_positions};
use super::gpu_solver::GpuSolver;
use super::layout::{GpuRoot, StepUniforms};
use super::params::FurParams;
use super::{SimError, StrandSolver};
use crate::creature::{Creature, CreaturePose, IdleMotion};
use crate::gpu::GpuContext;
use crate::groom::Groom;
use glam::Vec4;

/// Which solver steps the strands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverKind {
    /// WGSL compute on a wgpu device.
    Gpu,
    /// The CPU mirror on rayon.
    Cpu,
}

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
        }
    }
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
    params: FurParams,
    idle: IdleMotion,
    clock: StepClock,
    backend: Backend,
    contact: Option<HandContact>,
}

impl FurSim {
    /// Grows the groom and starts the strands at rest on the CPU solver.
    pub fn new_cpu(config: &FurConfig, creature: Creature) -> Result<Self, SimError> {
        Self::build(config, creature, |roots, initial| {
            Ok(Backend::Cpu(CpuSolver::new(roots, initial)?))
        })
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
        Self::build(config, creature, |roots, initial| {
            Ok(Backend::Gpu(Box::new(GpuSolver::new(
                gpu, &roots, &initial,
            )?)))
        })
    }

    fn build(
        config: &FurConfig,
        creature: Creature,
        make: impl FnOnce(Vec<GpuRoot>, Vec<Vec4>) -> Result<Backend, SimError>,
    ) -> Result<Self, SimError> {
        config.params.validate()?;
        let groom = Groom::generate(&creature, config.strands, config.seed)?;
        let idle = if config.idle_motion {
            IdleMotion::from_seed(config.seed)
        } else {
            IdleMotion::still()
        };
        let roots: Vec<GpuRoot> = groom.roots.iter().map(GpuRoot::from).collect();
        let pose = idle.pose(&creature, 0.0);
        let u = StepUniforms::new(&config.params, &pose, 0.0, 0.0, None, roots.len() as u32);
        let initial = rest_positions(&u, &roots);
        let backend = make(roots, initial)?;
        Ok(FurSim {
            creature,
            groom,
            params: config.params,
            idle,
            clock: StepClock::new(config.time_mode),
            backend,
            contact: None,
        })
    }

    /// Sets the hand for the steps that follow (`None`: no hand). Checked first: a bad
    /// capsule is an error and leaves the previous hand in place.
    pub fn set_contact(&mut self, contact: Option<HandContact>) -> Result<(), SimError> {
        if let Some(c) = &contact {
            c.validate()?;
        }
        self.contact = contact;
        Ok(())
    }

    /// Counts a frame of `dt` seconds and takes the steps it calls for; returns how many.
    pub fn update(&mut self, dt: f64) -> Result<u32, SimError> {
        let (n, step_seconds) = self.clock.advance(dt)?;
        self.take_steps(n, step_seconds)?;
        Ok(n)
    }

    /// Takes `n` steps of 1/60 s, whatever the time mode (for headless runs).
    pub fn step(&mut self, n: u32) -> Result<(), SimError> {
        self.take_steps(n, 1.0 / super::FIXED_STEP_HZ)
    }

    fn take_steps(&mut self, n: u32, step_seconds: f64) -> Result<(), SimError> {
        // In submission-sized batches, so a huge `n` never builds a huge uniform list.
        let mut left = n as usize;
        while left > 0 {
            let batch = left.min(super::MAX_STEPS_PER_SUBMIT);
            let mut clock = self.clock;
            let uniforms: Vec<StepUniforms> = (0..batch)
                .map(|_| {
                    clock.record_step(step_seconds);
                    self.uniforms_at(clock.time() as f32, step_seconds as f32)
                })
                .collect();
            self.backend.solver().step(&uniforms)?;
            self.clock = clock;
            left -= batch;
        }
        Ok(())
    }

    /// The uniforms of a step ending at `time` seconds that lasts `step_seconds`.
    pub fn uniforms_at(&self, time: f32, step_seconds: f32) -> StepUniforms {
        let pose = self.pose_at(time);
        StepUniforms::new(
            &self.params,
            &pose,
            time,
            step_seconds,
            self.contact.as_ref(),
            self.groom.len() as u32,
        )
    }

    /// The creature's pose at `time` seconds.
    pub fn pose_at(&self, time: f32) -> CreaturePose {
        self.idle.pose(&self.creature, time)
    }

    /// The latest positions (six per strand; see [`StrandSolver::positions`]).
    pub fn positions(&mut self) -> Result<Vec<Vec4>, SimError> {
        self.backend.solver().positions()
    }

    /// The comb vectors (one per strand).
    pub fn comb(&mut self) -> Result<Vec<Vec4>, SimError> {
        self.backend.solver().comb()
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
        let pose = self.pose_at(self.time() as f32);
        Ok(super::StrandStats::measure(
            &self.groom.roots,
            &positions,
            &comb,
            &self.params,
            &pose,
        ))
    }

    /// The creature.
    pub fn creature(&self) -> &Creature {
        &self.creature
    }

    /// The groom.
    pub fn groom(&self) -> &Groom {
        &self.groom
    }

    /// The solver constants.
    pub fn params(&self) -> &FurParams {
        &self.params
    }

    /// Changes the solver constants for the steps that follow (live tuning). Checked
    /// first: an invalid set is an error and the old one stays.
    pub fn set_params(&mut self, params: FurParams) -> Result<(), SimError> {
        params.validate()?;
        self.params = params;
        Ok(())
    }

    /// The GPU solver, for binding its buffers in a renderer; `None` on the CPU solver.
    pub fn gpu(&self) -> Option<&GpuSolver> {
        match &self.backend {
            Backend::Gpu(s) => Some(s),
            Backend::Cpu(_) => None,
        }
    }
}
