//! The coat as a volume: a density and velocity grid around the creature, splatted from
//! every simulated point with fixed-point sums and read back by every point between the
//! Verlet step and the final rest-length projection (`shaders/volume_grid.wgsl` mirrored
//! line for line). Friction blends a point's velocity toward the grid's; the volume term
//! pushes it down the gradient of the density above the coat's rest density.
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
        }
    }

    /// Integers in the grid buffer.
    pub fn words(&self) -> usize {
        (self.resolution as usize).pow(3) * WORDS_PER_NODE
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

/// Adds one point at `p` moving `velocity` (metres per step) into `grid` (WGSL
/// `splat_point`).
pub fn splat_point(grid: &mut [i32], v: &VolumeUniforms, p: Vec3, velocity: Vec3) {
    let Some((base, f)) = grid_cell(v, p) else {
        return;
    };
    let vel = velocity.clamp(Vec3::splat(-VELOCITY_LIMIT), Vec3::splat(VELOCITY_LIMIT));
    for c in 0..8 {
        let (node, w, _) = corner(v, base, f, c);
        let at = node * WORDS_PER_NODE;
        let m = vel * w;
        grid[at] = grid[at].wrapping_add(fixed(w, DENSITY_SCALE));
        grid[at + 1] = grid[at + 1].wrapping_add(fixed(m.x, MOMENTUM_SCALE));
        grid[at + 2] = grid[at + 2].wrapping_add(fixed(m.y, MOMENTUM_SCALE));
        grid[at + 3] = grid[at + 3].wrapping_add(fixed(m.z, MOMENTUM_SCALE));
    }
}

/// The grid of every simulated point (1..5 of each strand) at `latest`, moving by
/// `latest − older` (WGSL `splat_grid`).
pub fn splat(v: &VolumeUniforms, latest: &[Vec4], older: &[Vec4]) -> Vec<i32> {
    let mut grid = vec![0i32; (v.resolution as usize).pow(3) * WORDS_PER_NODE];
    for (a, b) in latest
        .chunks(POINTS_PER_STRAND)
        .zip(older.chunks(POINTS_PER_STRAND))
    {
        for i in 1..POINTS_PER_STRAND.min(a.len()).min(b.len()) {
            let (p, q) = (a[i].xyz(), b[i].xyz());
            if p.is_finite() && q.is_finite() {
                splat_point(&mut grid, v, p, p - q);
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
/// by the friction, and pushed down the gradient of the density above rest, at most
/// [`PUSH_LIMIT`] cells. The grid was splatted at `p`, so it is read there.
pub fn correct(grid: &[i32], rest: &[f32], v: &VolumeUniforms, x: Vec3, p: Vec3, q: Vec3) -> Vec3 {
    let Some(s) = sample(grid, rest, v, p) else {
        return x;
    };
    let mut out = x;
    if s.density > 1e-6 {
        out += (s.velocity - (p - q)) * v.friction;
    }
    let push = s.excess_gradient * (-v.strength * v.cell / v.rest_density.max(1e-6));
    let limit = PUSH_LIMIT * v.cell;
    let len = push.length();
    if len > limit {
        out += push * (limit / len);
    } else {
        out += push;
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
