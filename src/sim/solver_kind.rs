//! Which solver steps the strands, and how `Auto` chooses one for an adapter.

use super::SimError;
use super::fur::{FurBody, FurConfig, FurSim};
use crate::creature::Creature;
use crate::gpu::GpuContext;

/// Which solver steps the strands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SolverKind {
    /// WGSL compute on a wgpu device.
    Gpu,
    /// The CPU mirror on rayon.
    Cpu,
    /// Whichever is faster with the adapter ([`SolverKind::for_adapter`]); the default,
    /// as in [`crate::SimulatedFurOptions`] and `pelt demo`.
    #[default]
    Auto,
}

impl SolverKind {
    /// The solver `self` means beside an adapter described by `info`: `Auto` is the CPU
    /// solver when the adapter is itself a CPU (llvmpipe and the like: both would share the
    /// same cores, and the SIMD solver does the same work in far fewer instructions than a
    /// shader run on a CPU), the GPU solver otherwise. Deterministic: the same
    /// adapter always gets the same solver, so a seed gives the same coat every run.
    pub fn for_adapter(self, info: &wgpu::AdapterInfo) -> SolverKind {
        match self {
            SolverKind::Auto if info.device_type == wgpu::DeviceType::Cpu => SolverKind::Cpu,
            SolverKind::Auto => SolverKind::Gpu,
            chosen => chosen,
        }
    }

    /// The name the command line uses.
    pub fn name(self) -> &'static str {
        match self {
            SolverKind::Gpu => "gpu",
            SolverKind::Cpu => "cpu",
            SolverKind::Auto => "auto",
        }
    }
}

impl SolverKind {
    /// Grows the coat of `config` (on `body`, or on `creature` without one) and starts it
    /// on the solver `self` means beside `gpu`'s adapter ([`SolverKind::for_adapter`]).
    pub fn grow(
        self,
        config: &FurConfig,
        creature: Creature,
        body: Option<FurBody>,
        gpu: &GpuContext,
    ) -> Result<FurSim, SimError> {
        match (self.for_adapter(&gpu.info()), body) {
            (SolverKind::Cpu, None) => FurSim::new_cpu(config, creature),
            (_, None) => FurSim::new_gpu(config, creature, gpu),
            (SolverKind::Cpu, Some(body)) => FurSim::new_cpu_on_body(config, body),
            (_, Some(body)) => FurSim::new_gpu_on_body(config, body, gpu),
        }
    }
}

impl std::fmt::Display for SolverKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SolverKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [SolverKind::Gpu, SolverKind::Cpu, SolverKind::Auto]
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("{s:?} is not a solver; use gpu, cpu or auto"))
    }
}
