//! The coat as a volume: a density and velocity grid around the creature, splatted from
//! the simulated points with fixed-point sums and read back by every point between the
//! Verlet step and the final rest-length projection (`shaders/volume_grid.wgsl` mirrored
//! line for line). Friction blends a point's velocity toward the grid's; the volume term
//! pushes it down the gradient of the density above the coat's rest density. The grid is
//! splatted and read every [`VolumeSettings::interval`] steps ([`SplatCadence`]; every
//! eighth by default, [`DEFAULT_INTERVAL`], to divide its cost); a coat of more than
//! [`FurParams::volume_splat_strands`](super::FurParams::volume_splat_strands) strands
//! splats an even, weighted subset of them ([`VolumeSettings::stride`]), so a splat costs
//! the same at any coat size.
//!
//! The sums are integers (weights times [`DENSITY_SCALE`], momenta times
//! [`MOMENTUM_SCALE`]), so the GPU's atomic adds give the same grid whatever the order its
//! threads run in, and this CPU twin, adding the same integers in strand order, gives the
//! same grid from the same positions.

use super::layout::{POINTS_PER_STRAND, StepUniforms};
use encase::ShaderType;
use glam::{Vec3, Vec4, Vec4Swizzles};
use std::sync::Arc;

/// One unit of splat weight (a whole point in one grid node) as an integer (WGSL
/// `VOLUME_DENSITY_SCALE`).
pub const DENSITY_SCALE: f32 = crate::shaders::VOLUME_DENSITY_SCALE;
/// One unit of weighted velocity (metres per step) as an integer (WGSL
/// `VOLUME_MOMENTUM_SCALE`).
pub const MOMENTUM_SCALE: f32 = crate::shaders::VOLUME_MOMENTUM_SCALE;
/// Largest velocity component a point splats, metres per step (WGSL
/// `VOLUME_VELOCITY_LIMIT`): with [`MOMENTUM_SCALE`] it keeps a node of a few thousand
/// points inside an `i32`.
pub const VELOCITY_LIMIT: f32 = crate::shaders::VOLUME_VELOCITY_LIMIT;
/// Largest push the volume term gives a point in one step, in grid cells (WGSL
/// `VOLUME_PUSH_LIMIT`).
pub const PUSH_LIMIT: f32 = crate::shaders::VOLUME_PUSH_LIMIT;
/// Integers per grid node: density, then momentum x, y, z.
pub const WORDS_PER_NODE: usize = 4;
/// The coat's typical density (what pushes are measured against) is this quantile of the
/// densities the groomed coat's points read.
pub const REST_QUANTILE: f32 = 0.9;
/// Share of the typical density a node may gain over its own groomed density before it
/// pushes: the groomed coat, settling under gravity, feels no pressure.
pub const REST_SLACK: f32 = 0.05;
/// Room around the groomed coat's bounds, metres, so the head's turn and the tail's swing
/// stay inside the grid.
pub const GRID_MARGIN: f32 = 0.15;
pub use super::params::{DEFAULT_INTERVAL, DEFAULT_SPLAT_STRANDS, MAX_INTERVAL, MIN_SPLAT_STRANDS};

/// The most nodes a side a grid may have: 512³ nodes of four words would already be 2 GiB,
/// so the node count never overflows.
pub const MAX_RESOLUTION: u32 = 512;
/// The most points (weights, with a stride) a node may hold at rest: half of what its
/// fixed-point density can count before the `i32` wraps (2³¹ / [`DENSITY_SCALE`]), so a
/// pressed coat has room. A coarse grid over a large coat would exceed it.
pub const MAX_REST_POINTS: f32 = 16_384.0;

/// The largest [`VolumeSettings::stride`]: a point then weighs 2²⁶ in the density's fixed
/// point, so a node could hold 32 of them before its `i32` wraps (it holds about 0.15 at
/// this stride on the full coat).
pub const MAX_STRIDE: u32 = 1024;

/// The splat's stride for a coat of `strands` splatting at most `limit` (0 counts as 1):
/// every k-th strand, each weighing k (1: every strand). k is at most [`MAX_STRIDE`], so a
/// coat of more than `limit` × [`MAX_STRIDE`] strands splats more than `limit` of them.
pub fn splat_stride(strands: usize, limit: u32) -> u32 {
    let limit = (limit.max(1)) as usize;
    strands.div_ceil(limit).clamp(1, MAX_STRIDE as usize) as u32
}

/// The grid of one step as the shaders read it. WGSL twin: `VolumeUniforms` (encase).
/// `resolution` 0 turns the grid off.
#[derive(Clone, Copy, Debug, Default, PartialEq, ShaderType)]
pub struct VolumeUniforms {
    /// World position of node (0, 0, 0).
    pub origin: Vec3,
    /// Distance between neighbouring nodes, metres.
    pub cell: f32,
    /// Nodes along each axis (0: no grid).
    pub resolution: u32,
    /// The coat's rest density, points per node.
    pub rest_density: f32,
    /// Share of the difference to the grid's velocity a point takes each step.
    pub friction: f32,
    /// How hard density above rest pushes points down its gradient.
    pub strength: f32,
    /// Every `stride`-th strand is splatted, weighing `stride` (0 counts as 1).
    pub stride: u32,
}

/// The grid's placement, rest densities and strengths, fixed for a run (the origin follows
/// the body's pivot step by step).
#[derive(Clone, Debug, PartialEq)]
pub struct VolumeSettings {
    /// Node (0, 0, 0) relative to the body's pivot, metres.
    pub offset: Vec3,
    /// Distance between neighbouring nodes, metres.
    pub cell: f32,
    /// Nodes along each axis.
    pub resolution: u32,
    /// The coat's typical density, points per node (see [`REST_QUANTILE`]).
    pub rest_density: f32,
    /// Per node, the density above which it pushes: the groomed coat's own density there
    /// plus [`REST_SLACK`] of the typical density. Empty until measured.
    pub rest: Arc<[f32]>,
    /// See [`VolumeUniforms::friction`].
    pub friction: f32,
    /// See [`VolumeUniforms::strength`].
    pub strength: f32,
    /// Steps from one splat of the grid to the next, 1 to [`MAX_INTERVAL`]
    /// ([`DEFAULT_INTERVAL`], 8, by default). The step right after a splat reads the grid;
    /// the steps until the next splat move every strand alone, in dispatches of several
    /// steps again. 1 is a splat (32 atomic adds a point) and a one-step dispatch every
    /// step. Measured at the test tier over the last splat period, 8 against 1: a stroke's
    /// untouched neighbours turn with it by a mean cosine of 0.45 against 0.42, and a held
    /// press moves them 0.17 mm away against 0.14. At 8 a strand sways with the splat's
    /// period, so one step's positions alone measure its phase as much as the grid (0.19 to
    /// 0.49 by phase). Reading the old grid in the steps between instead was worse: it
    /// feeds each point's own old velocity back to it, and its stale density pushes points
    /// it no longer holds (a press moved neighbours 39 mm).
    pub interval: u32,
    /// Every `stride`-th strand is splatted, each weighing `stride` ([`splat_stride`]):
    /// roots are stored in Morton order, so any stride takes an even subset of the skin,
    /// and the rest densities are measured with the same subset, so an untouched coat still
    /// feels no pressure. Every strand reads the grid. Density and momentum are sums, so
    /// a subset weighted by the stride estimates them without bias; with fewer points per
    /// node they are noisier. Set it before [`VolumeSettings::measure_rest`]: rest densities
    /// measured with another stride would press on an untouched coat.
    pub stride: u32,
}

impl VolumeSettings {
    /// The grid for step `u`: placed on the body's pivot at that step.
    pub fn uniforms(&self, u: &StepUniforms) -> VolumeUniforms {
        VolumeUniforms {
            origin: u.pose.body.w_axis.xyz() + self.offset,
            cell: self.cell,
            resolution: self.resolution,
            rest_density: self.rest_density,
            friction: self.friction,
            strength: self.strength,
            stride: self.stride,
        }
    }

    /// Whether `other` is the same grid (place, spacing, resolution and rest densities), so
    /// a solver keeps counting toward its next splat; the strengths and interval may differ.
    pub fn same_grid(&self, other: &VolumeSettings) -> bool {
        (self.offset, self.cell, self.resolution, self.stride)
            == (other.offset, other.cell, other.resolution, other.stride)
            && Arc::ptr_eq(&self.rest, &other.rest)
    }

    /// An error unless the grid is usable: at least 2 nodes a side, a finite place and a
    /// positive cell, one finite rest density per node (what
    /// [`VolumeSettings::measure_rest`] gives), friction in [0, 1], a finite non-negative
    /// strength and an interval of 1 to [`MAX_INTERVAL`].
    pub fn check(&self) -> Result<(), super::SimError> {
        let bad = |name, value: f32, expected| {
            Err(super::SimError::Parameter {
                name,
                value,
                expected,
            })
        };
        if !(2..=MAX_RESOLUTION).contains(&self.resolution) {
            return Err(super::SimError::WholeParameter {
                name: "volume_resolution",
                value: u64::from(self.resolution),
                expected: "from 2 to 512 nodes a side",
            });
        }
        if let Some(o) = self.offset.to_array().into_iter().find(|o| !o.is_finite()) {
            return bad("volume offset", o, "a finite place");
        }
        if !(self.cell.is_finite() && self.cell > 0.0) {
            return bad("volume cell", self.cell, "a finite, positive cell size");
        }
        if !self.rest_density.is_finite() || self.rest_density <= 0.0 {
            return bad(
                "volume rest density",
                self.rest_density,
                "a positive number",
            );
        }
        if !(0.0..=1.0).contains(&self.friction) {
            return bad("volume_friction", self.friction, "a number from 0 to 1");
        }
        if !(self.strength.is_finite() && self.strength >= 0.0) {
            return bad(
                "volume_strength",
                self.strength,
                "a finite number, 0 or more",
            );
        }
        if let Some(r) = self.rest.iter().find(|r| !r.is_finite()) {
            return bad("volume rest densities", *r, "finite numbers");
        }
        if let Some(r) = self.rest.iter().find(|r| **r > MAX_REST_POINTS) {
            return bad(
                "volume rest densities",
                *r,
                "at most 16,384 points a node (a finer volume_resolution spreads the coat \
                 over more nodes)",
            );
        }
        if self.rest.len() != (self.resolution as usize).pow(3) {
            return Err(super::SimError::WholeParameter {
                name: "volume rest densities",
                value: self.rest.len() as u64,
                expected: "one per grid node (VolumeSettings::measure_rest)",
            });
        }
        if !(1..=MAX_INTERVAL).contains(&self.interval) {
            return Err(super::SimError::WholeParameter {
                name: "volume_interval",
                value: u64::from(self.interval),
                expected: "a whole number of steps from 1 to 8",
            });
        }
        if !(1..=MAX_STRIDE).contains(&self.stride) {
            return Err(super::SimError::WholeParameter {
                name: "volume splat stride",
                value: u64::from(self.stride),
                expected: "a whole number from 1 to 1,024 (VolumeSettings::stride)",
            });
        }
        Ok(())
    }

    /// Integers in the grid buffer (saturating: [`VolumeSettings::check`] refuses a grid
    /// that large).
    pub fn words(&self) -> usize {
        (self.resolution as usize)
            .saturating_pow(3)
            .saturating_mul(WORDS_PER_NODE)
    }

    /// The grid (without rest density) around `rest` positions (six per strand) taken at
    /// step `u`: a cube over their bounds plus [`GRID_MARGIN`], `resolution` nodes a side.
    pub fn around(rest: &[Vec4], u: &StepUniforms, resolution: u32) -> Self {
        let pivot = u.pose.body.w_axis.xyz();
        let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for p in rest.iter().filter(|p| p.is_finite()) {
            lo = lo.min(p.xyz());
            hi = hi.max(p.xyz());
        }
        if lo.x > hi.x {
            (lo, hi) = (pivot, pivot);
        }
        let side = (hi - lo).max_element() + 2.0 * GRID_MARGIN;
        let center = (lo + hi) * 0.5;
        VolumeSettings {
            offset: center - Vec3::splat(side * 0.5) - pivot,
            cell: side / (resolution.max(2) - 1) as f32,
            resolution,
            rest_density: 1.0,
            rest: Arc::from(Vec::new()),
            friction: 0.0,
            strength: 0.0,
            interval: DEFAULT_INTERVAL,
            stride: 1,
        }
    }

    /// Measures the rest densities from the groomed coat at `rest` (six points per strand)
    /// laid out under `u`: the typical density, and each node's own.
    pub fn measure_rest(&mut self, u: &StepUniforms, rest: &[Vec4]) {
        let v = self.uniforms(u);
        let grid = splat(&v, rest, rest);
        let empty: Vec<f32> = vec![v.rest_density; (v.resolution as usize).pow(3)];
        let mut seen: Vec<f32> = rest
            .chunks(POINTS_PER_STRAND)
            .flat_map(|s| s.iter().skip(1))
            .filter_map(|p| sample(&grid, &empty, &v, p.xyz()).map(|s| s.density))
            .collect();
        seen.sort_by(f32::total_cmp);
        self.rest_density = match seen.len() {
            0 => 1.0,
            n => seen[((n - 1) as f32 * REST_QUANTILE).round() as usize].max(1.0),
        };
        let slack = REST_SLACK * self.rest_density;
        self.rest = grid
            .chunks(WORDS_PER_NODE)
            .map(|node| node[0] as f32 / DENSITY_SCALE + slack)
            .collect();
    }
}

/// When a solver splats its grid: every [`VolumeSettings::interval`] steps, counted by the
/// solver, so how a caller batches its steps never changes the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplatCadence {
    /// Steps taken since the last splat (`None`: the next step splats).
    since: Option<u32>,
}

impl Default for SplatCadence {
    fn default() -> Self {
        Self::due()
    }
}

impl SplatCadence {
    /// A cadence whose next step splats (a grid just turned on, placed or measured anew).
    pub fn due() -> Self {
        SplatCadence { since: None }
    }

    /// Follows a solver's grid changing from `old` to `new`: a grid turned off, or placed or
    /// measured anew, is splatted before the next step; new strengths or interval alone keep
    /// the count.
    pub fn follow(&mut self, old: Option<&VolumeSettings>, new: Option<&VolumeSettings>) {
        if !matches!((old, new), (Some(old), Some(new)) if old.same_grid(new)) {
            *self = SplatCadence::due();
        }
    }

    /// Whether the next step splats under `settings`.
    fn splats(&self, settings: &VolumeSettings) -> bool {
        self.since.is_none_or(|n| n >= settings.interval.max(1))
    }

    /// How many of `left` steps the next run takes under `settings`: never past the next
    /// splat (a run may only start with one).
    pub fn run_length(&self, settings: &VolumeSettings, left: usize) -> usize {
        let interval = settings.interval.max(1);
        let room = match self.since {
            Some(n) if n < interval => interval - n,
            _ => interval,
        };
        left.min(room as usize)
    }

    /// Starts a run of `steps` steps ([`SplatCadence::run_length`]) whose first is `first`,
    /// counting them: whether the grid is splatted before it, and the uniforms its steps
    /// read, the grid placed on `first`'s pose (resolution 0, no grid, for a run that does
    /// not start with a splat). A run longer than `run_length` allows is counted as
    /// reaching the next splat, never wrapped: the next run then splats.
    pub fn start_run(
        &mut self,
        settings: &VolumeSettings,
        first: &StepUniforms,
        steps: usize,
    ) -> (bool, VolumeUniforms) {
        let splat = self.splats(settings);
        let since = if splat { 0 } else { self.since.unwrap_or(0) };
        let steps = u32::try_from(steps).unwrap_or(u32::MAX);
        self.since = Some(since.saturating_add(steps));
        match splat {
            true => (true, settings.uniforms(first)),
            false => (false, VolumeUniforms::default()),
        }
    }
}

/// Where a point falls in the grid: its lowest node and its fraction toward the next, or
/// `None` outside (WGSL `grid_cell`).
fn grid_cell(v: &VolumeUniforms, p: Vec3) -> Option<([usize; 3], Vec3)> {
    let g = (p - v.origin) / v.cell;
    let b = g.floor();
    let last = (v.resolution as f32) - 2.0;
    if !(b.x >= 0.0 && b.y >= 0.0 && b.z >= 0.0 && b.x <= last && b.y <= last && b.z <= last) {
        return None;
    }
    Some(([b.x as usize, b.y as usize, b.z as usize], g - b))
}

/// Corner `c` (0..8: x the lowest bit) of the cell at `base`: its node's index and its
/// trilinear weight for fraction `f`, and the weight's derivative along x, y and z (WGSL
/// `corner`).
fn corner(v: &VolumeUniforms, base: [usize; 3], f: Vec3, c: usize) -> (usize, f32, Vec3) {
    let (dx, dy, dz) = (c & 1, (c >> 1) & 1, c >> 2);
    let wx = if dx == 1 { f.x } else { 1.0 - f.x };
    let wy = if dy == 1 { f.y } else { 1.0 - f.y };
    let wz = if dz == 1 { f.z } else { 1.0 - f.z };
    let sx = if dx == 1 { 1.0 } else { -1.0 };
    let sy = if dy == 1 { 1.0 } else { -1.0 };
    let sz = if dz == 1 { 1.0 } else { -1.0 };
    let res = v.resolution as usize;
    let node = ((base[2] + dz) * res + base[1] + dy) * res + base[0] + dx;
    (
        node,
        wx * wy * wz,
        Vec3::new(sx * wy * wz, wx * sy * wz, wx * wy * sz),
    )
}

/// The integer a weight or a weighted velocity adds to the grid (WGSL `fixed`).
fn fixed(x: f32, scale: f32) -> i32 {
    (x * scale).round_ties_even() as i32
}

/// Adds one point at `p` moving `velocity` (metres per step) and weighing `weight` points
/// into `grid` (WGSL `splat_point`).
pub fn splat_point(grid: &mut [i32], v: &VolumeUniforms, p: Vec3, velocity: Vec3, weight: f32) {
    let Some((base, f)) = grid_cell(v, p) else {
        return;
    };
    let vel = velocity.clamp(Vec3::splat(-VELOCITY_LIMIT), Vec3::splat(VELOCITY_LIMIT));
    for c in 0..8 {
        let (node, w, _) = corner(v, base, f, c);
        let w = w * weight;
        let at = node * WORDS_PER_NODE;
        let m = vel * w;
        grid[at] = grid[at].wrapping_add(fixed(w, DENSITY_SCALE));
        grid[at + 1] = grid[at + 1].wrapping_add(fixed(m.x, MOMENTUM_SCALE));
        grid[at + 2] = grid[at + 2].wrapping_add(fixed(m.y, MOMENTUM_SCALE));
        grid[at + 3] = grid[at + 3].wrapping_add(fixed(m.z, MOMENTUM_SCALE));
    }
}

/// The grid of the simulated points (1..5) of every `v.stride`-th strand at `latest`,
/// moving by `latest − older`, each weighing the stride (WGSL `splat_grid`).
pub fn splat(v: &VolumeUniforms, latest: &[Vec4], older: &[Vec4]) -> Vec<i32> {
    let mut grid = vec![0i32; (v.resolution as usize).pow(3) * WORDS_PER_NODE];
    let stride = v.stride.max(1);
    let weight = stride as f32;
    for (a, b) in latest
        .chunks(POINTS_PER_STRAND)
        .zip(older.chunks(POINTS_PER_STRAND))
        .step_by(stride as usize)
    {
        for i in 1..POINTS_PER_STRAND.min(a.len()).min(b.len()) {
            let (p, q) = (a[i].xyz(), b[i].xyz());
            if p.is_finite() && q.is_finite() {
                splat_point(&mut grid, v, p, p - q, weight);
            }
        }
    }
    grid
}

/// What the grid says at a point: density (points per node), the velocity of the points
/// around it, and the gradient of the density above rest, per cell.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GridSample {
    /// Interpolated density.
    pub density: f32,
    /// Interpolated momentum over density (zero where the grid is empty).
    pub velocity: Vec3,
    /// Gradient of the density above each node's rest, per cell.
    pub excess_gradient: Vec3,
}

/// Reads `grid` at `p`, with `rest` the density above which each node pushes (WGSL
/// `volume_correct`); `None` outside it.
pub fn sample(grid: &[i32], rest: &[f32], v: &VolumeUniforms, p: Vec3) -> Option<GridSample> {
    let (base, f) = grid_cell(v, p)?;
    let mut density = 0.0f32;
    let mut momentum = Vec3::ZERO;
    let mut gradient = Vec3::ZERO;
    for c in 0..8 {
        let (node, w, dw) = corner(v, base, f, c);
        let at = node * WORDS_PER_NODE;
        let rho = grid[at] as f32 / DENSITY_SCALE;
        let m = Vec3::new(
            grid[at + 1] as f32,
            grid[at + 2] as f32,
            grid[at + 3] as f32,
        ) / MOMENTUM_SCALE;
        density += w * rho;
        momentum += m * w;
        gradient += dw * (rho - rest[node]).max(0.0);
    }
    let velocity = if density > 1e-6 {
        momentum / density
    } else {
        Vec3::ZERO
    };
    Some(GridSample {
        density,
        velocity,
        excess_gradient: gradient,
    })
}

/// `x`, a point's position after this step's forces, corrected by the grid (WGSL
/// `volume_correct`): its velocity (`p − q`, latest minus older) blended toward the grid's
/// by the friction, and pushed down the gradient of the density above rest: brought up to
/// a speed along it of at most [`PUSH_LIMIT`] cells a step (the part of its velocity
/// already along the push counts). The grid was splatted at `p`, so it is read there.
pub fn correct(grid: &[i32], rest: &[f32], v: &VolumeUniforms, x: Vec3, p: Vec3, q: Vec3) -> Vec3 {
    let Some(s) = sample(grid, rest, v, p) else {
        return x;
    };
    let mut out = x;
    if s.density > 1e-6 {
        out += (s.velocity - (p - q)) * v.friction;
    }
    let mut push = s.excess_gradient * (-v.strength * v.cell / v.rest_density.max(1e-6));
    let limit = PUSH_LIMIT * v.cell;
    let len = push.length();
    if len > limit {
        push *= limit / len;
    }
    // The push is a speed to reach, not an impulse to add: only what the point does not
    // already move along it is added, so pushes repeated (every step) or carried on (between
    // splats) never run away.
    let reach = push.length();
    if reach > 1e-12 {
        let dir = push / reach;
        let have = (p - q).dot(dir).clamp(0.0, reach);
        out += push - dir * have;
    }
    out
}

/// The largest density any node of `grid` holds within `reach` metres of segment `a`–`b`
/// (a capsule's axis), points per node.
pub fn max_density_near(grid: &[i32], v: &VolumeUniforms, a: Vec3, b: Vec3, reach: f32) -> f32 {
    let res = v.resolution as usize;
    let ab = b - a;
    let mut best = 0.0f32;
    for z in 0..res {
        for y in 0..res {
            for x in 0..res {
                let node = v.origin + Vec3::new(x as f32, y as f32, z as f32) * v.cell;
                let h = ((node - a).dot(ab) / ab.dot(ab).max(1e-12)).clamp(0.0, 1.0);
                if node.distance(a + ab * h) <= reach {
                    let at = ((z * res + y) * res + x) * WORDS_PER_NODE;
                    best = best.max(grid[at] as f32 / DENSITY_SCALE);
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::creature::{Creature, CreaturePose};
    use crate::sim::FurParams;

    fn step() -> StepUniforms {
        let pose = CreaturePose::rest(&Creature::default());
        StepUniforms::new(&FurParams::default(), &pose, 0.0, 1.0 / 60.0, None)
    }

    fn every(interval: u32) -> VolumeSettings {
        VolumeSettings {
            interval,
            ..VolumeSettings::around(&[], &step(), 8)
        }
    }

    /// The runs a cadence cuts `calls` (steps per call) into: (length, splats) each.
    fn runs(interval: u32, calls: &[usize]) -> Vec<(usize, bool)> {
        let settings = every(interval);
        let mut cadence = SplatCadence::due();
        let mut out = Vec::new();
        for &call in calls {
            let mut left = call;
            while left > 0 {
                let n = cadence.run_length(&settings, left);
                let (splat, v) = cadence.start_run(&settings, &step(), n);
                assert_eq!(
                    v.resolution > 0,
                    splat,
                    "a run reads the grid iff it splats"
                );
                out.push((n, splat));
                left -= n;
            }
        }
        out
    }

    #[test]
    fn the_splat_stride_keeps_the_splatted_strands_within_the_limit() {
        assert_eq!(splat_stride(4_096, DEFAULT_SPLAT_STRANDS), 1);
        assert_eq!(splat_stride(65_536, 65_536), 1);
        assert_eq!(splat_stride(65_537, 65_536), 2);
        // The full coat: every 7th strand, 60,005 of them.
        assert_eq!(splat_stride(420_032, DEFAULT_SPLAT_STRANDS), 7);
        assert_eq!(splat_stride(0, 256), 1);
        assert_eq!(splat_stride(1_000, 0), 1_000);
        // Never so sparse that a node's integers could wrap.
        assert_eq!(splat_stride(usize::MAX, 256), MAX_STRIDE);
    }

    #[test]
    fn a_strided_splat_takes_every_kth_strand_at_k_times_the_weight() {
        // Six strands, each a different height: a stride of 3 splats strands 0 and 3.
        let settings = VolumeSettings::around(&[Vec4::ZERO, Vec4::ONE], &step(), 8);
        let coat: Vec<Vec4> = (0..6)
            .flat_map(|s| {
                (0..6).map(move |i| Vec4::new(0.5, 0.1 * s as f32 + 0.01 * i as f32, 0.5, 1.0))
            })
            .collect();
        let mut u = settings.uniforms(&step());
        let total = |grid: &[i32]| -> f32 {
            grid.chunks(WORDS_PER_NODE)
                .map(|n| n[0] as f32 / DENSITY_SCALE)
                .sum()
        };
        u.stride = 1;
        let whole = splat(&u, &coat, &coat);
        u.stride = 3;
        let strided = splat(&u, &coat, &coat);
        // Five simulated points a strand: 30 in all, and 2 strands × 5 points × weight 3.
        assert!((total(&whole) - 30.0).abs() < 1e-3, "{}", total(&whole));
        assert!((total(&strided) - 30.0).abs() < 1e-3, "{}", total(&strided));
        let mut by_hand = vec![0i32; whole.len()];
        for s in [0, 3] {
            for p in &coat[s * 6 + 1..s * 6 + 6] {
                splat_point(&mut by_hand, &u, p.xyz(), Vec3::ZERO, 3.0);
            }
        }
        assert_eq!(strided, by_hand);
    }

    #[test]
    fn a_splat_comes_every_interval_steps_however_the_steps_are_called() {
        assert_eq!(runs(1, &[3]), vec![(1, true); 3]);
        assert_eq!(runs(3, &[8]), vec![(3, true), (3, true), (2, true)]);
        // One at a time: the splat on the first of every three, the others without a grid.
        let single: Vec<bool> = runs(3, &[1; 7]).into_iter().map(|r| r.1).collect();
        assert_eq!(single, [true, false, false, true, false, false, true]);
        // A call that starts mid-interval runs to the next splat, then splats.
        assert_eq!(runs(8, &[5, 8]), vec![(5, true), (3, false), (5, true)]);
    }

    #[test]
    fn a_run_longer_than_the_cadence_allows_reaches_the_next_splat_and_never_wraps() {
        let settings = every(8);
        for too_long in [usize::MAX, u32::MAX as usize, 9] {
            let mut cadence = SplatCadence::due();
            assert!(cadence.start_run(&settings, &step(), 5).0);
            assert!(!cadence.start_run(&settings, &step(), too_long).0);
            // Counted past the interval, not wrapped to a few steps in: the next run splats.
            assert_eq!(cadence.run_length(&settings, 100), 8, "{too_long}");
            assert!(cadence.start_run(&settings, &step(), 1).0, "{too_long}");
        }
    }

    #[test]
    fn a_shorter_interval_set_mid_count_splats_at_once_and_a_longer_one_waits() {
        let (long, short) = (every(8), every(2));
        let mut cadence = SplatCadence::due();
        let first = step();
        assert!(cadence.start_run(&long, &first, 5).0);
        // Five steps counted: past a 2-step interval, so the next step splats.
        assert_eq!(cadence.run_length(&short, 8), 2);
        assert!(cadence.start_run(&short, &first, 1).0);
        assert!(!cadence.start_run(&short, &first, 1).0);
        // Two steps since the splat, then back to 8: six more before the next.
        assert_eq!(cadence.run_length(&long, 8), 6);
        assert!(!cadence.start_run(&long, &first, 6).0);
        assert!(cadence.start_run(&long, &first, 1).0);
    }
}
