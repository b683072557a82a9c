// The coat as a volume: a density and velocity grid around the creature. Every
// `VolumeSettings::interval` steps (8 by default; the host counts them) the grid is cleared
// (a buffer clear), `splat_grid` adds the weight and weighted velocity of the simulated
// points of every `stride`-th strand (each weighing `stride`) to the eight nodes around
// them, and the strand step that follows reads it at each point between its forces and its
// rest-length projection (`volume_correct`): friction blends the point's velocity toward
// the grid's, and density above each node's groomed density (plus slack) pushes it down its
// gradient. The steps until the next splat do not read it.
//
// The sums are fixed-point integers (VOLUME_DENSITY_SCALE, VOLUME_MOMENTUM_SCALE), added
// with atomics: integer addition does not care in which order threads add, so the grid is
// the same bits on every run. Composed into the solver's module after the prelude, before
// `strand_step.wgsl`, whose `batch`, `latest` and `older` it reads (WGSL's module-scope
// declarations may come in any order). CPU twin: `src/sim/volume.rs`; keep them in step.

// Rust twin: `sim::VolumeUniforms`. `resolution` 0: no grid this step.
struct VolumeUniforms {
    // World position of node (0, 0, 0), and the distance between nodes.
    origin: vec3<f32>,
    cell: f32,
    // Nodes along each axis.
    resolution: u32,
    // The coat's typical density, points per node (pushes are measured against it).
    rest_density: f32,
    // Share of the difference to the grid's velocity a point takes each step.
    friction: f32,
    // How hard density above rest pushes points down its gradient.
    strength: f32,
    // Every `stride`-th strand is splatted, weighing `stride` (0 counts as 1).
    stride: u32,
}

// Four integers per node: density, momentum x, y, z.
@group(0) @binding(6) var<storage, read_write> grid: array<atomic<i32>>;
@group(0) @binding(7) var<uniform> volume: VolumeUniforms;
// Per node, the density above which it pushes: the groomed coat's own there, plus slack.
@group(0) @binding(8) var<storage, read> rest_grid: array<f32>;

// A point's place in the grid: its cell's lowest node and its fraction toward the next;
// `inside` false when any of the eight nodes would fall outside the grid.
struct GridCell {
    base: vec3<u32>,
    f: vec3<f32>,
    inside: bool,
}

fn grid_cell(p: vec3<f32>) -> GridCell {
    let g = (p - volume.origin) / volume.cell;
    let b = floor(g);
    let last = f32(volume.resolution) - 2.0;
    let inside = all(b >= vec3<f32>(0.0)) && all(b <= vec3<f32>(last));
    return GridCell(vec3<u32>(max(b, vec3<f32>(0.0))), g - b, inside);
}

// Corner `c` (x the lowest bit) of a cell: its node, its trilinear weight, and the
// weight's derivative along x, y, z.
struct Corner {
    node: u32,
    w: f32,
    dw: vec3<f32>,
}

fn corner(cell: GridCell, c: u32) -> Corner {
    let d = vec3<u32>(c & 1u, (c >> 1u) & 1u, c >> 2u);
    let f = cell.f;
    var wx = 1.0 - f.x;
    var sx = -1.0;
    if (d.x == 1u) {
        wx = f.x;
        sx = 1.0;
    }
    var wy = 1.0 - f.y;
    var sy = -1.0;
    if (d.y == 1u) {
        wy = f.y;
        sy = 1.0;
    }
    var wz = 1.0 - f.z;
    var sz = -1.0;
    if (d.z == 1u) {
        wz = f.z;
        sz = 1.0;
    }
    let res = volume.resolution;
    let n = cell.base + d;
    let node = (n.z * res + n.y) * res + n.x;
    return Corner(node, wx * wy * wz, vec3<f32>(sx * wy * wz, wx * sy * wz, wx * wy * sz));
}

fn fixed(x: f32, scale: f32) -> i32 {
    return i32(round(x * scale));
}

// One point at `p` moving `velocity` (metres per step), weighing `weight` points, into the
// grid.
fn splat_point(p: vec3<f32>, velocity: vec3<f32>, weight: f32) {
    let cell = grid_cell(p);
    if (!cell.inside) {
        return;
    }
    let vel = clamp(velocity, vec3<f32>(-VOLUME_VELOCITY_LIMIT), vec3<f32>(VOLUME_VELOCITY_LIMIT));
    for (var c = 0u; c < 8u; c = c + 1u) {
        let k = corner(cell, c);
        let w = k.w * weight;
        let at = k.node * 4u;
        let m = vel * w;
        atomicAdd(&grid[at], fixed(w, VOLUME_DENSITY_SCALE));
        atomicAdd(&grid[at + 1u], fixed(m.x, VOLUME_MOMENTUM_SCALE));
        atomicAdd(&grid[at + 2u], fixed(m.y, VOLUME_MOMENTUM_SCALE));
        atomicAdd(&grid[at + 3u], fixed(m.z, VOLUME_MOMENTUM_SCALE));
    }
}

// One invocation per splatted strand (every `stride`-th): its simulated points (1..5) at
// their latest positions, moving by latest − older. Points that are not finite add nothing.
@compute @workgroup_size(STEP_WORKGROUP)
fn splat_grid(@builtin(global_invocation_id) id: vec3<u32>) {
    let stride = max(volume.stride, 1u);
    if (id.x >= (batch.strand_count + stride - 1u) / stride || volume.resolution == 0u) {
        return;
    }
    let s = id.x * stride;
    let weight = f32(stride);
    let base = s * POINTS;
    for (var i = 1u; i < POINTS; i = i + 1u) {
        let p = latest[base + i].xyz;
        let q = older[base + i].xyz;
        if (finite3(p) && finite3(q)) {
            splat_point(p, p - q, weight);
        }
    }
}

// `x`, a point's position after this step's forces, corrected by the grid: its velocity
// (`p − q`) blended toward the grid's by the friction, and pushed down the gradient of the
// density above rest: brought up to a speed along it of at most VOLUME_PUSH_LIMIT cells a
// step. The grid was splatted at `p`, so it is read there.
fn volume_correct(x: vec3<f32>, p: vec3<f32>, q: vec3<f32>) -> vec3<f32> {
    let cell = grid_cell(p);
    if (!cell.inside) {
        return x;
    }
    var density = 0.0;
    var momentum = vec3<f32>(0.0);
    var gradient = vec3<f32>(0.0);
    for (var c = 0u; c < 8u; c = c + 1u) {
        let k = corner(cell, c);
        let at = k.node * 4u;
        let rho = f32(atomicLoad(&grid[at])) / VOLUME_DENSITY_SCALE;
        let m = vec3<f32>(
            f32(atomicLoad(&grid[at + 1u])),
            f32(atomicLoad(&grid[at + 2u])),
            f32(atomicLoad(&grid[at + 3u])),
        ) / VOLUME_MOMENTUM_SCALE;
        density = density + k.w * rho;
        momentum = momentum + m * k.w;
        gradient = gradient + k.dw * max(rho - rest_grid[k.node], 0.0);
    }
    var out = x;
    if (density > 1e-6) {
        out = out + (momentum / density - (p - q)) * volume.friction;
    }
    let push = gradient * (-volume.strength * volume.cell / max(volume.rest_density, 1e-6));
    let limit = VOLUME_PUSH_LIMIT * volume.cell;
    var pushed = push;
    let len = length(push);
    if (len > limit) {
        pushed = push * (limit / len);
    }
    // A speed to reach, not an impulse to add (see `sim::volume::correct`).
    let reach = length(pushed);
    if (reach > 1e-12) {
        let dir = pushed / reach;
        let have = clamp(dot(p - q, dir), 0.0, reach);
        out = out + pushed - dir * have;
    }
    return out;
}
