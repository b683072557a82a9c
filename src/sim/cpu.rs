//! `CpuSolver`: the strand step in host memory on rayon, by default eight strands at a time
//! in SIMD lanes ([`super::simd`]), or through the plain scalar reference
//! ([`super::reference`]) that defines the step. It is the reference the GPU is tested
//! against and a real fallback where the only adapter is a software one.

use super::body_field::FieldSteps;
use super::layout::{GpuRoot, POINTS_PER_STRAND, StepUniforms};
use super::reference::{GridView, step_strand_skinned};
use super::simd::{LANES, StepCapsules, step_lanes_skinned};
use super::skinned::{GpuRootBinding, SkinnedSteps, StrandSkin};
use super::volume::{self, SplatCadence, VolumeSettings};
use super::{SimError, StrandSolver};
use glam::Vec4;
use rayon::prelude::*;

/// Which implementation of the step a [`CpuSolver`] runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CpuPath {
    /// Eight strands in lock step in SIMD lanes (structure of arrays, branches as
    /// selects). The default.
    #[default]
    Simd,
    /// The plain scalar reference, one strand at a time.
    Reference,
}

/// Strands one rayon task takes (a multiple of the SIMD width): big enough that task
/// overhead vanishes, small enough that two cores share the work evenly.
const STRANDS_PER_TASK: usize = 256;

/// The CPU strand solver: the same buffers and step as the GPU, in host memory.
#[derive(Clone, Debug)]
pub struct CpuSolver {
    roots: Vec<GpuRoot>,
    /// Per root, its body triangle (empty for a creature's coat).
    bindings: Vec<GpuRootBinding>,
    latest: Vec<Vec4>,
    older: Vec<Vec4>,
    comb: Vec<Vec4>,
    recovered: u64,
    path: CpuPath,
    volume: Option<VolumeSettings>,
    /// When the grid is next splatted.
    cadence: SplatCadence,
}

impl CpuSolver {
    /// A solver over `roots`, starting at rest (`initial` positions, previous equal), on
    /// the SIMD path.
    pub fn new(roots: Vec<GpuRoot>, initial: Vec<Vec4>) -> Result<Self, SimError> {
        if initial.len() != roots.len() * POINTS_PER_STRAND {
            return Err(SimError::StateSize {
                expected: roots.len() * POINTS_PER_STRAND,
                got: initial.len(),
            });
        }
        let comb = vec![Vec4::ZERO; roots.len()];
        Ok(CpuSolver {
            roots,
            bindings: Vec::new(),
            latest: initial.clone(),
            older: initial,
            comb,
            recovered: 0,
            path: CpuPath::default(),
            volume: None,
            cadence: SplatCadence::due(),
        })
    }

    /// A solver over `roots` bound to a body's triangles by `bindings` (one per root), for
    /// [`CpuSolver::step_skinned`].
    pub fn new_skinned(
        roots: Vec<GpuRoot>,
        bindings: Vec<GpuRootBinding>,
        initial: Vec<Vec4>,
    ) -> Result<Self, SimError> {
        if bindings.len() != roots.len() {
            return Err(SimError::BodySize {
                what: "root bindings",
                expected: roots.len(),
                got: bindings.len(),
            });
        }
        let mut solver = CpuSolver::new(roots, initial)?;
        solver.bindings = bindings;
        Ok(solver)
    }

    /// Advances one step per entry of `steps` with the body's vertices posed for each
    /// (`skin`: `steps.len()` poses of `vertex_count` vertices, step by step) and, when
    /// `field` is given, its distance field posed for each (one frame per grid and step).
    pub fn step_skinned(
        &mut self,
        steps: &[StepUniforms],
        skin: &[Vec4],
        vertex_count: usize,
        field: Option<FieldSteps<'_>>,
    ) -> Result<(), SimError> {
        check_skin(steps.len(), skin.len(), vertex_count)?;
        if let Some(f) = &field {
            check_skin(steps.len(), f.frames.len(), f.grids.len())?;
        }
        let skin = SkinnedSteps {
            positions: skin,
            vertex_count,
            field,
        };
        match self.volume.clone() {
            Some(settings) => self.step_in_volume(steps, &settings, Some(skin)),
            None => self.step_alone(steps, Some(skin)),
        }
        Ok(())
    }

    /// Chooses the implementation the next steps run.
    pub fn set_path(&mut self, path: CpuPath) {
        self.path = path;
    }

    /// The implementation steps run on.
    pub fn path(&self) -> CpuPath {
        self.path
    }

    /// The latest positions, borrowed (six per strand, strand by strand: the layout of the
    /// GPU solver's position buffers).
    pub fn latest(&self) -> &[Vec4] {
        &self.latest
    }
}

impl CpuSolver {
    /// Steps with the volume grid, in runs that end where a splat is due: before a run that
    /// starts with one, the grid is splatted from every strand (in strand order: integer
    /// sums, the GPU's bits whatever its thread order) and the run's first step reads it
    /// through the scalar reference (the SIMD lanes do not read the grid); every other step
    /// goes the way steps without the grid go (the SIMD lanes give the reference's bits, so
    /// a run split across calls steps the same as one).
    fn step_in_volume(
        &mut self,
        steps: &[StepUniforms],
        settings: &VolumeSettings,
        skin: Option<SkinnedSteps<'_>>,
    ) {
        let mut left = steps;
        let mut done = 0;
        while !left.is_empty() {
            let (run, rest) = left.split_at(self.cadence.run_length(settings, left.len()));
            let skin_from = |first: usize| skin.map(|s| s.from_step(first));
            let (splat, uniforms) = self.cadence.start_run(settings, &run[0], run.len());
            let alone = if splat {
                let grid = volume::splat(&uniforms, &self.latest, &self.older);
                let view = GridView {
                    grid: &grid,
                    rest: &settings.rest,
                    uniforms,
                };
                self.step_reading(&run[0], view, skin_from(done));
                &run[1..]
            } else {
                run
            };
            self.step_alone(alone, skin_from(done + run.len() - alone.len()));
            done += run.len();
            left = rest;
        }
    }

    /// Every strand through `steps` alone (no grid), on the chosen path.
    fn step_alone(&mut self, steps: &[StepUniforms], skin: Option<SkinnedSteps<'_>>) {
        for (b, batch) in steps.chunks(super::MAX_STEPS_PER_DISPATCH).enumerate() {
            let path = self.path;
            let capsules = StepCapsules::of(batch);
            let skin = skin.map(|s| s.from_step(b * super::MAX_STEPS_PER_DISPATCH));
            self.for_each_task(|latest, older, comb, roots, bindings| {
                let mut resets = 0u64;
                let n = POINTS_PER_STRAND;
                let lanes = if path == CpuPath::Simd {
                    roots.len() / LANES * LANES
                } else {
                    0
                };
                let lane_skin = |s: usize| skin.map(|k| (k, bindings.get(s..).unwrap_or(&[])));
                for (k, chunk) in roots[..lanes].chunks(LANES).enumerate() {
                    let s = k * LANES;
                    resets += u64::from(step_lanes_skinned(
                        batch,
                        &capsules,
                        lane_skin(s),
                        chunk,
                        &mut latest[s * n..(s + LANES) * n],
                        &mut older[s * n..(s + LANES) * n],
                        &mut comb[s..s + LANES],
                    ));
                }
                for s in lanes..roots.len() {
                    resets += u64::from(step_strand_skinned(
                        batch,
                        &roots[s],
                        strand_skin(skin, bindings, s),
                        &mut latest[s * n..(s + 1) * n],
                        &mut older[s * n..(s + 1) * n],
                        &mut comb[s],
                        None,
                    ));
                }
                resets
            });
        }
    }

    /// Every strand through one step on the scalar reference, reading the grid `view`.
    fn step_reading(
        &mut self,
        step: &StepUniforms,
        view: GridView<'_>,
        skin: Option<SkinnedSteps<'_>>,
    ) {
        let steps = std::slice::from_ref(step);
        self.for_each_task(|latest, older, comb, roots, bindings| {
            let n = POINTS_PER_STRAND;
            (0..roots.len())
                .map(|s| {
                    u64::from(step_strand_skinned(
                        steps,
                        &roots[s],
                        strand_skin(skin, bindings, s),
                        &mut latest[s * n..(s + 1) * n],
                        &mut older[s * n..(s + 1) * n],
                        &mut comb[s],
                        Some(view),
                    ))
                })
                .sum()
        });
    }

    /// Runs `task` on every [`STRANDS_PER_TASK`] strands in parallel (their latest and older
    /// points, combs, roots and body bindings, empty for a creature's coat) and counts the
    /// strands it says it reset.
    fn for_each_task(
        &mut self,
        task: impl Fn(&mut [Vec4], &mut [Vec4], &mut [Vec4], &[GpuRoot], &[GpuRootBinding]) -> u64
        + Sync
        + Send,
    ) {
        let points = STRANDS_PER_TASK * POINTS_PER_STRAND;
        let bindings = &self.bindings;
        let resets: u64 = self
            .latest
            .par_chunks_mut(points)
            .zip(self.older.par_chunks_mut(points))
            .zip(self.comb.par_chunks_mut(STRANDS_PER_TASK))
            .zip(self.roots.par_chunks(STRANDS_PER_TASK))
            .enumerate()
            .map(|(k, (((latest, older), comb), roots))| {
                let start = k * STRANDS_PER_TASK;
                let bound = bindings
                    .get(start..(start + roots.len()).min(bindings.len()))
                    .unwrap_or(&[]);
                task(latest, older, comb, roots, bound)
            })
            .sum();
        self.recovered += resets;
    }
}

impl StrandSolver for CpuSolver {
    fn strand_count(&self) -> usize {
        self.roots.len()
    }

    fn step(&mut self, steps: &[StepUniforms]) -> Result<(), SimError> {
        match self.volume.clone() {
            Some(settings) => self.step_in_volume(steps, &settings, None),
            None => self.step_alone(steps, None),
        }
        Ok(())
    }

    fn set_volume(&mut self, volume: Option<VolumeSettings>) -> Result<(), SimError> {
        if let Some(v) = &volume {
            v.check()?;
        }
        self.cadence.follow(self.volume.as_ref(), volume.as_ref());
        self.volume = volume;
        Ok(())
    }

    fn positions(&mut self) -> Result<Vec<Vec4>, SimError> {
        Ok(self.latest.clone())
    }

    fn comb(&mut self) -> Result<Vec<Vec4>, SimError> {
        Ok(self.comb.clone())
    }

    fn recovered(&mut self) -> Result<u64, SimError> {
        Ok(self.recovered)
    }

    fn set_strand(&mut self, strand: usize, points: &[Vec4]) -> Result<(), SimError> {
        let range = super::strand_range(strand, self.roots.len(), points)?;
        self.latest[range.clone()].copy_from_slice(points);
        self.older[range].copy_from_slice(points);
        Ok(())
    }
}

/// Strand `s`'s skin among a task's `bindings` (none for a creature's coat).
fn strand_skin<'a>(
    skin: Option<SkinnedSteps<'a>>,
    bindings: &'a [GpuRootBinding],
    s: usize,
) -> Option<StrandSkin<'a>> {
    skin.and_then(|steps| bindings.get(s).map(|binding| StrandSkin { steps, binding }))
}

/// That `skin` holds exactly `steps` poses of `vertex_count` vertices.
pub(crate) fn check_skin(steps: usize, skin: usize, vertex_count: usize) -> Result<(), SimError> {
    if steps.checked_mul(vertex_count) != Some(skin) {
        return Err(SimError::BodySize {
            what: "posed vertices",
            expected: steps.saturating_mul(vertex_count),
            got: skin,
        });
    }
    Ok(())
}
