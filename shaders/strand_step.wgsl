// One dispatch of the strand solver: one invocation per strand, six points each, taking up
// to MAX_STEPS steps with the strand kept in registers, so memory is read and written once
// per dispatch, not once per step. Each step: damped Verlet with a slow gust, blend toward
// the groomed rest direction (stiffness from root to tip), skin and floor clearance,
// push-out from the hand's capsules (combing the strand), then projection onto the exact
// rest segment length. A strand whose state is not finite is reset to its rest shape and
// counted, so one bad strand never spreads and is never silent.
//
// Composed after the prelude (`src/shaders.rs`: POINTS, SEGMENTS, MAX_CAPSULES, MAX_STEPS,
// CONTACT_ITERATIONS, STEP_WORKGROUP, SPACE_*), `creature_pose.wgsl` (CreaturePose,
// root_transform, place_*) and `volume_grid.wgsl` (the volume grid, bindings 6 and 7,
// `volume_correct`, read by a dispatch's first step; the host splats before it).
// The CPU mirror is `src/sim/reference.rs` (the plain scalar step, the one definition
// both fast paths are tested against) and `src/sim/simd.rs`; keep them in step.

// Rust twin: `sim::GpuCapsule`.
struct Capsule {
    // The two ends and the radius.
    a: vec3<f32>,
    radius: f32,
    b: vec3<f32>,
    // Displacement this step (already clamped).
    motion: vec3<f32>,
}

// Rust twin: `sim::StepUniforms`.
struct StepUniforms {
    // Where roots sit at the end of this step.
    pose: CreaturePose,
    // Gravity per step, and the share of the velocity kept per step.
    gravity: vec3<f32>,
    damping: f32,
    // (cos, sin) of the gust's time phases (wrapped on the host): sway, x direction.
    gust_time_01: vec4<f32>,
    // (cos, sin) of the gust's time phases: y direction, z direction.
    gust_time_23: vec4<f32>,
    // The sphere bounding every capsule: centre, and radius (0: no hand).
    bound_center: vec3<f32>,
    bound_radius: f32,
    // The gust's strength.
    gust_strength: f32,
    // Stiffness toward the rest shape at the root and at the tip.
    root_stiffness: f32,
    tip_stiffness: f32,
    // How much of the hand's motion the comb takes in, and the share of it kept per step.
    comb_gain: f32,
    comb_decay: f32,
    // Floor height, skin clearance per point, and the comb's largest magnitude.
    floor: f32,
    skin_clearance: f32,
    comb_limit: f32,
    // Share of the capsules' motion passed on to touched points, and the comb's scale.
    friction: f32,
    comb_scale: f32,
    // The capsules; only the first `capsule_count` are read.
    capsule_count: u32,
    capsules: array<Capsule, MAX_CAPSULES>,
}

// Rust twin: `sim::StepBatch`.
struct StepBatch {
    // Steps in this dispatch, and strands.
    step_count: u32,
    strand_count: u32,
    steps: array<StepUniforms, MAX_STEPS>,
}

// Rust twin: `sim::GpuRoot`; its per-strand constants are computed once at groom time.
struct Root {
    // xyz: position in its part's space, w: rest length of one segment.
    position_segment: vec4<f32>,
    // xyz: unit normal in its part's space, w: space code (SPACE_BODY, _HEAD, _TAIL).
    normal_space: vec4<f32>,
    // xyz: unit groom flow in its part's space, w: tail parameter t.
    flow_tail: vec4<f32>,
    // (cos, sin) of the rest angle from the normal of segments 0, 1 | 2, 3 | 4.
    rest_01: vec4<f32>,
    rest_23: vec4<f32>,
    rest_4: vec4<f32>,
    // (cos, sin) of the gust's spatial phases: sway, x | y, z.
    gust_01: vec4<f32>,
    gust_23: vec4<f32>,
}

@group(0) @binding(0) var<uniform> batch: StepBatch;
@group(0) @binding(1) var<storage, read> roots: array<Root>;
// The latest positions on entry; ping-pong with `older`.
@group(0) @binding(2) var<storage, read_write> latest: array<vec4<f32>>;
// The positions one step before `latest` on entry.
@group(0) @binding(3) var<storage, read_write> older: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> comb: array<vec4<f32>>;
// Strands reset because their state was not finite, since the solver was made.
@group(0) @binding(5) var<storage, read_write> recovered: atomic<u32>;

// `root_transform` of step `j`'s pose, read straight from the uniforms: passing the whole
// pose by value costs software rasterisers a 448-byte copy per strand and step.
fn step_transform(j: u32, space: u32, t: f32) -> mat4x4<f32> {
    if (space == SPACE_BODY) {
        return batch.steps[j].pose.body;
    }
    if (space == SPACE_HEAD) {
        return batch.steps[j].pose.head;
    }
    let u = t * f32(TAIL_BONES) - 0.5;
    if (u <= 0.0) {
        return batch.steps[j].pose.tail[0];
    }
    if (u >= f32(TAIL_BONES - 1u)) {
        return batch.steps[j].pose.tail[TAIL_BONES - 1u];
    }
    let b = floor(u);
    let f = u - b;
    let i = u32(b);
    return batch.steps[j].pose.tail[i] * (1.0 - f) + batch.steps[j].pose.tail[i + 1u] * f;
}

// Rust twin: `sim::GpuRootBinding`: a skinned root's triangle (three vertex indices) and
// its barycentric coordinates there.
struct RootBinding {
    vertices: vec4<u32>,
    barycentric: vec4<f32>,
    // The body's distance grids the root's points ask, in order (NO_GRID: unused).
    grids: array<u32, FIELD_CANDIDATES>,
}

// Rust twin: `body::GpuBoneGrid`: one bone's distance grid in its bind frame.
struct BoneGrid {
    // xyz: the lowest node, w: the cell size (metres).
    origin_cell: vec4<f32>,
    // xyz: nodes along x, y, z; w: the joint.
    dims_joint: vec4<u32>,
    // x: the first node's index in `field_values`.
    offset: vec4<u32>,
}

// Rust twin: `sim::GpuGridFrame`: one grid's joint in one step's pose.
struct GridFrame {
    // World → the grid's cells (bind frame, lowest node at the origin, cell size 1).
    to_bind: mat4x4<f32>,
    // Columns 0..2: bind → world for gradients; column 3: x the scale, y 1 where usable.
    normal_scale: mat4x4<f32>,
}

// Per root, its body triangle (a placeholder of one entry for the creature's coat).
@group(0) @binding(9) var<storage, read> root_bindings: array<RootBinding>;
// The body's vertices posed for each step of the dispatch (xyz): MAX_STEPS equal slots,
// step j's vertex i at j · (length / MAX_STEPS) + i.
@group(0) @binding(10) var<storage, read> skinned_vertices: array<vec4<f32>>;
// The body's distance grids (a placeholder of one for a body without a field, which no
// root names), every grid's node values, and per step of the dispatch one frame per grid
// (step j's grid g at j · arrayLength(&field_grids) + g).
@group(0) @binding(11) var<storage, read> field_grids: array<BoneGrid>;
@group(0) @binding(12) var<storage, read> field_values: array<f32>;
@group(0) @binding(13) var<storage, read> field_frames: array<GridFrame>;

// One grid's reading at `p` in step `j` (Rust twin `sim::body_field::grid_sample`,
// operation for operation): the signed distance (world metres), and the grid, the cell's
// first node and the point's place in the cell, from which `field_normal` works out the
// normal for the winning grid only; `ok` false outside its box or where its frame has no
// opinion.
struct FieldSample {
    d: f32,
    ok: bool,
    g: u32,
    i000: u32,
    f: vec3<f32>,
}

// The eight corner values of the cell whose first node is `i000` in grid `grid`.
struct Corners {
    v000: f32,
    v100: f32,
    v010: f32,
    v110: f32,
    v001: f32,
    v101: f32,
    v011: f32,
    v111: f32,
}

fn cell_corners(grid: BoneGrid, i000: u32) -> Corners {
    let nx = grid.dims_joint.x;
    let ny = grid.dims_joint.y;
    let i010 = i000 + nx;
    let i001 = i000 + ny * nx;
    let i011 = i001 + nx;
    return Corners(
        field_values[i000],
        field_values[i000 + 1u],
        field_values[i010],
        field_values[i010 + 1u],
        field_values[i001],
        field_values[i001 + 1u],
        field_values[i011],
        field_values[i011 + 1u],
    );
}

// A cell's trilinear blend at `f` (x, then y, then z; Rust twin
// `sim::body_field::cell_blend`): `x··` blended along x, `y·` then along y; the value is
// y0 · (1 − f.z) + y1 · f.z. The value and the normal both take it from here.
struct CellBlend {
    x00: f32,
    x10: f32,
    x01: f32,
    x11: f32,
    y0: f32,
    y1: f32,
}

fn cell_blend(c: Corners, f: vec3<f32>) -> CellBlend {
    let gx0 = 1.0 - f.x;
    let gy0 = 1.0 - f.y;
    let x00 = c.v000 * gx0 + c.v100 * f.x;
    let x10 = c.v010 * gx0 + c.v110 * f.x;
    let x01 = c.v001 * gx0 + c.v101 * f.x;
    let x11 = c.v011 * gx0 + c.v111 * f.x;
    return CellBlend(x00, x10, x01, x11, x00 * gy0 + x10 * f.y, x01 * gy0 + x11 * f.y);
}

fn grid_sample(j: u32, g: u32, p: vec3<f32>) -> FieldSample {
    var none = FieldSample(0.0, false, 0u, 0u, vec3<f32>(0.0));
    let grid_count = arrayLength(&field_grids);
    if (g >= grid_count) {
        return none;
    }
    let grid = field_grids[g];
    let frame = field_frames[j * grid_count + g];
    let ns = frame.normal_scale;
    if (ns[3].y < 0.5) {
        return none;
    }
    let m = frame.to_bind;
    let u = vec3<f32>(
        m[0].x * p.x + m[1].x * p.y + m[2].x * p.z + m[3].x,
        m[0].y * p.x + m[1].y * p.y + m[2].y * p.z + m[3].y,
        m[0].z * p.x + m[1].z * p.y + m[2].z * p.z + m[3].z,
    );
    if (any(grid.dims_joint.xyz < vec3<u32>(2u))) {
        return none;
    }
    let last = vec3<f32>(grid.dims_joint.xyz - vec3<u32>(1u));
    if (!(all(u >= vec3<f32>(0.0)) && all(u <= last))) {
        return none;
    }
    let b = min(floor(u), last - vec3<f32>(1.0));
    let f = u - b;
    let base = vec3<u32>(b);
    let i000 = grid.offset.x + (base.z * grid.dims_joint.y + base.y) * grid.dims_joint.x + base.x;
    let c = cell_blend(cell_corners(grid, i000), f);
    let value = c.y0 * (1.0 - f.z) + c.y1 * f.z;
    return FieldSample(value * ns[3].x, true, g, i000, f);
}

// The unit outward normal (world) at reading `r` of step `j` (Rust twin
// `sim::body_field::Reading::normal`); zero where the field is flat there.
fn field_normal(j: u32, r: FieldSample) -> vec3<f32> {
    let grid_count = arrayLength(&field_grids);
    let grid = field_grids[r.g];
    let ns = field_frames[j * grid_count + r.g].normal_scale;
    let c = cell_corners(grid, r.i000);
    let f = r.f;
    let gy0 = 1.0 - f.y;
    let gz0 = 1.0 - f.z;
    let b = cell_blend(c, f);
    let ddx = ((c.v100 - c.v000) * gy0 + (c.v110 - c.v010) * f.y) * gz0
        + ((c.v101 - c.v001) * gy0 + (c.v111 - c.v011) * f.y) * f.z;
    let ddy = (b.x10 - b.x00) * gz0 + (b.x11 - b.x01) * f.z;
    let ddz = b.y1 - b.y0;
    let w = vec3<f32>(
        ns[0].x * ddx + ns[1].x * ddy + ns[2].x * ddz,
        ns[0].y * ddx + ns[1].y * ddy + ns[2].y * ddz,
        ns[0].z * ddx + ns[1].z * ddy + ns[2].z * ddz,
    );
    let len = sqrt(w.x * w.x + w.y * w.y + w.z * w.z);
    if (len > 1e-20) {
        return w / len;
    }
    return vec3<f32>(0.0);
}

// Whether sample `d` beats `best`: inside beats outside, then the nearer surface.
fn field_nearer(d: f32, best: f32) -> bool {
    let inside = d < 0.0;
    if (inside != (best < 0.0)) {
        return inside;
    }
    return abs(d) < abs(best);
}

// The field at `p` in step `j` through the grids strand `s`'s binding names, in order
// (Rust twin `sim::body_field::field_reading`).
fn field_sample(j: u32, s: u32, p: vec3<f32>) -> FieldSample {
    var best = FieldSample(0.0, false, 0u, 0u, vec3<f32>(0.0));
    for (var k = 0u; k < FIELD_CANDIDATES; k = k + 1u) {
        let g = root_bindings[s].grids[k];
        if (g == NO_GRID) {
            continue;
        }
        let s = grid_sample(j, g, p);
        if (s.ok && (!best.ok || field_nearer(s.d, best.d))) {
            best = s;
        }
    }
    return best;
}

// The frame of triangle p0 p1 p2 at barycentrics `bary` (Rust twin
// `sim::triangle_frame`): columns e1 = the first edge's direction, e2 = n × e1, n the unit
// face normal, and the barycentric point. A degenerate triangle keeps the world axes.
fn skinned_frame(p0: vec3<f32>, p1: vec3<f32>, p2: vec3<f32>, bary: vec3<f32>) -> mat4x4<f32> {
    let point = p0 * bary.x + p1 * bary.y + p2 * bary.z;
    let edge = p1 - p0;
    let c = cross(edge, p2 - p0);
    let edge_len = length(edge);
    let cross_len = length(c);
    if (!(edge_len > 1e-12 && cross_len > 1e-12)) {
        return mat4x4<f32>(
            vec4<f32>(1.0, 0.0, 0.0, 0.0),
            vec4<f32>(0.0, 1.0, 0.0, 0.0),
            vec4<f32>(0.0, 0.0, 1.0, 0.0),
            vec4<f32>(point, 1.0),
        );
    }
    let e1 = edge / edge_len;
    let n = c / cross_len;
    let e2 = cross(n, e1);
    return mat4x4<f32>(vec4<f32>(e1, 0.0), vec4<f32>(e2, 0.0), vec4<f32>(n, 0.0), vec4<f32>(point, 1.0));
}

// The transform strand `s` follows in step `j`: its skinned triangle's frame for a root
// bound to a body, else its pivot's (`step_transform`).
fn strand_transform(j: u32, s: u32, space: u32, t: f32) -> mat4x4<f32> {
    if (space == SPACE_SKINNED) {
        let per_step = arrayLength(&skinned_vertices) / MAX_STEPS;
        let b = root_bindings[s];
        let base = j * per_step;
        return skinned_frame(
            skinned_vertices[base + b.vertices.x].xyz,
            skinned_vertices[base + b.vertices.y].xyz,
            skinned_vertices[base + b.vertices.z].xyz,
            b.barycentric.xyz,
        );
    }
    return step_transform(j, space, t);
}

fn unrotate(m: mat4x4<f32>, v: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(dot(m[0].xyz, v), dot(m[1].xyz, v), dot(m[2].xyz, v));
}

// Whether every component is a finite number. A bit test: comparisons with NaN may be
// folded away by a shader compiler.
fn finite3(v: vec3<f32>) -> bool {
    let exponent = bitcast<vec3<u32>>(v) & vec3<u32>(0x7f800000u);
    return all(exponent != vec3<u32>(0x7f800000u));
}

// Any unit vector perpendicular to unit `n`.
fn perpendicular(n: vec3<f32>) -> vec3<f32> {
    if (abs(n.x) < 0.9) {
        return normalize(cross(n, vec3<f32>(1.0, 0.0, 0.0)));
    }
    return normalize(cross(n, vec3<f32>(0.0, 1.0, 0.0)));
}

// Unit `d` turned toward unit `n` just enough that dot(d, n) >= min_dot; length kept.
fn lift_direction(d: vec3<f32>, n: vec3<f32>, min_dot: f32) -> vec3<f32> {
    let c = dot(d, n);
    if (c >= min_dot) {
        return d;
    }
    let m = clamp(min_dot, -1.0, 1.0);
    var side = d - n * c;
    let side_len = length(side);
    if (side_len > 1e-6) {
        side = side / side_len;
    } else {
        side = perpendicular(n);
    }
    return n * m + side * sqrt(max(0.0, 1.0 - m * m));
}

// `x` moved to exactly `seg` from `parent` (toward `fallback` if they coincide), then turned
// about the parent until it clears the skin plane (normal `n`) and the floor.
fn project_segment(
    x: vec3<f32>,
    parent: vec3<f32>,
    fallback: vec3<f32>,
    seg: f32,
    n: vec3<f32>,
    skin_min: f32,
    floor_min: f32,
) -> vec3<f32> {
    var dir = x - parent;
    let dir_len = length(dir);
    if (dir_len > 1e-9) {
        dir = dir / dir_len;
    } else {
        dir = fallback;
    }
    dir = lift_direction(dir, n, skin_min);
    dir = lift_direction(dir, vec3<f32>(0.0, 1.0, 0.0), floor_min);
    dir = lift_direction(dir, n, skin_min);
    return parent + dir * seg;
}

// Unit `dir` turned about `parent` until the segment's end (at `seg`) lies outside `cap`,
// treating the capsule near that end as the sphere around its nearest axis point:
// |p + d·seg − c| ≥ r  ⇔  d·(p − c)/|p − c| ≥ (r² − |p − c|² − seg²) / (2·seg·|p − c|).
// Unchanged when the end is already outside; a parent inside turns it straight away.
fn clear_capsule(dir: vec3<f32>, parent: vec3<f32>, seg: f32, cap: Capsule) -> vec3<f32> {
    let a = cap.a;
    let ab = cap.b - a;
    let r = cap.radius * 1.0001;
    let end = parent + dir * seg;
    let h = clamp(dot(end - a, ab) / max(dot(ab, ab), 1e-12), 0.0, 1.0);
    let center = a + ab * h;
    if (distance(end, center) >= r) {
        return dir;
    }
    let away = parent - center;
    let dist = length(away);
    if (dist < 1e-6) {
        return dir;
    }
    let min_dot = (r * r - dist * dist - seg * seg) / (2.0 * seg * dist);
    return lift_direction(dir, away / dist, min_dot);
}

// The nearest point of `cap`'s axis to `p`.
fn axis_point(cap: Capsule, p: vec3<f32>) -> vec3<f32> {
    let a = cap.a;
    let ab = cap.b - a;
    let h = clamp(dot(p - a, ab) / max(dot(ab, ab), 1e-12), 0.0, 1.0);
    return a + ab * h;
}

// Unit `dir`, or, when its end is still inside a capsule after the clearing rounds (wedged
// between two capsules, where turning out of one turns into the other), the direction
// straight away from every capsule within reach of the parent.
fn wedge_escape(dir: vec3<f32>, parent: vec3<f32>, seg: f32, j: u32, count: u32) -> vec3<f32> {
    let end = parent + dir * seg;
    var stuck = false;
    var escape = vec3<f32>(0.0);
    for (var c = 0u; c < count; c = c + 1u) {
        let cap = batch.steps[j].capsules[c];
        let r = cap.radius;
        if (distance(end, axis_point(cap, end)) < r) {
            stuck = true;
        }
        let away = parent - axis_point(cap, parent);
        let dist = length(away);
        if (dist < r + seg && dist > 1e-6) {
            escape = escape + away / dist;
        }
    }
    let len = length(escape);
    if (stuck && len > 1e-6) {
        return escape / len;
    }
    return dir;
}

// One step's frame of a strand, shared by its five points.
struct Frame {
    // The step's index in the batch.
    j: u32,
    // The root's world position, normal and flow (with the comb), and the gust.
    root: vec3<f32>,
    n: vec3<f32>,
    f: vec3<f32>,
    gust: vec3<f32>,
    // Rest length of one segment.
    seg: f32,
    // The strand, whose binding names the body's distance grids its points ask, and
    // whether it names any.
    strand: u32,
    field: bool,
}

// A point after one step, with the running sums of the capsule motion it and the points
// before it were pushed by, and of the points touched.
struct Advanced {
    x: vec3<f32>,
    touched: f32,
    pushed: vec3<f32>,
    touches: f32,
}

// Point `i` (0 for the point next to the root) of a strand through one step: `p` its
// latest position, `q` the one before, `parent` the point before it this step, `rest` its
// segment's rest (cos, sin) from the normal. The points are stepped by five calls rather
// than a loop over arrays: software rasterisers keep arrays indexed in a loop in memory.
fn advance_point(
    fr: Frame,
    i: u32,
    p: vec3<f32>,
    q: vec3<f32>,
    parent: vec3<f32>,
    rest: vec2<f32>,
    pushed_in: vec3<f32>,
    touches_in: f32,
) -> Advanced {
    let j = fr.j;
    let seg = fr.seg;
    let n_w = fr.n;
    let root_w = fr.root;
    let fi = f32(i + 1u);
    let t = f32(i) / f32(SEGMENTS - 1u);
    let floor_y = batch.steps[j].floor;
    let friction = batch.steps[j].friction;
    let bound_center = batch.steps[j].bound_center;
    let bound_radius = batch.steps[j].bound_radius;
    let hand = bound_radius > 0.0;
    let capsule_count = min(batch.steps[j].capsule_count, MAX_CAPSULES);
    var pushed = pushed_in;

    // Damped Verlet, gravity and gust (stronger toward the tip).
    let damping = batch.steps[j].damping;
    var x = p + (p - q) * damping + batch.steps[j].gravity
        + fr.gust * (fi / f32(SEGMENTS));

    // Blend toward the groomed rest direction from the parent.
    let rest_dir = n_w * rest.x + fr.f * rest.y;
    let k = mix(batch.steps[j].root_stiffness, batch.steps[j].tip_stiffness, t);
    x = mix(x, parent + rest_dir * seg, k);

    // Skin clearance (above the root's normal-offset plane) and the floor.
    let clearance = batch.steps[j].skin_clearance * fi;
    let height = dot(x - root_w, n_w);
    if (height < clearance) {
        x = x + n_w * (clearance - height);
    }
    // The body's distance field: out along its normal to the skin clearance.
    let field_clearance = batch.steps[j].skin_clearance;
    // Where the push's last reading was at the point it left, `spare` is how far that
    // point clears the clearance (Rust twin `sim::body_field::Pushed`); -1 for unknown.
    var pushed_x = x;
    var spare = -1.0;
    if (fr.field) {
        for (var round = 0u; round < FIELD_PUSH_ROUNDS; round = round + 1u) {
            let fs = field_sample(j, fr.strand, x);
            if (!fs.ok) {
                break;
            }
            if (!(fs.d < field_clearance)) {
                if (fs.d - field_clearance >= 0.0) {
                    spare = fs.d - field_clearance;
                }
                break;
            }
            x = x + field_normal(j, fs) * (field_clearance - fs.d);
        }
        pushed_x = x;
    }
    x.y = max(x.y, floor_y);

    // The hand: out of each capsule, carried along by its motion.
    var touched = 0.0;
    if (hand && distance(x, bound_center) < bound_radius) {
        for (var c = 0u; c < capsule_count; c = c + 1u) {
            let cap = batch.steps[j].capsules[c];
            let a = cap.a;
            let ab = cap.b - a;
            let r = cap.radius;
            let h = clamp(dot(x - a, ab) / max(dot(ab, ab), 1e-12), 0.0, 1.0);
            let closest = a + ab * h;
            let off = x - closest;
            let dist = length(off);
            if (dist < r) {
                var out_dir = n_w;
                if (dist > 1e-6) {
                    out_dir = off / dist;
                }
                x = closest + out_dir * r + cap.motion * friction;
                pushed = pushed + cap.motion;
                touched = 1.0;
            }
        }
    }
    let touches = touches_in + touched;

    // The coat as a volume (`volume_grid.wgsl`, off when its resolution is 0): toward the
    // grid's velocity and out of density above rest, before the projection below keeps the
    // segment exact, clear of skin and floor, and out of the capsules. Only a dispatch's
    // first step reads it: the host splats before a dispatch, never within one.
    if (volume.resolution > 0u && j == 0u) {
        x = volume_correct(x, p, q);
    }

    // Inextensible: exactly one rest segment from the parent, then turned (length kept)
    // back above the skin plane and the floor if the projection crossed them.
    let skin_min = (clearance - dot(parent - root_w, n_w)) / seg;
    let floor_min = (floor_y - parent.y) / seg;
    x = project_segment(x, parent, rest_dir, seg, n_w, skin_min, floor_min);
    // A projected end still below the field's clearance: the segment turned about its
    // parent toward the field's normal, to first order just clear (Rust twin
    // `turn_out_of_field`), then above the floor again.
    // A point that moved less than half its spare since the push surely still clears, and
    // is not read again (Rust twin `sim::body_field::still_clear`).
    let moved = x - pushed_x;
    let half = 0.5 * spare;
    let clear = spare >= 0.0 && moved.x * moved.x + moved.y * moved.y + moved.z * moved.z < half * half;
    if (fr.field && !clear) {
        let fs = field_sample(j, fr.strand, x);
        var turn_n = vec3<f32>(0.0);
        if (fs.ok && fs.d < field_clearance) {
            turn_n = field_normal(j, fs);
        }
        if (fs.ok && fs.d < field_clearance && any(turn_n != vec3<f32>(0.0))) {
            let dir0 = (x - parent) / seg;
            let along = dir0.x * turn_n.x + dir0.y * turn_n.y + dir0.z * turn_n.z;
            var turned = lift_direction(dir0, turn_n, along + (field_clearance - fs.d) / seg);
            turned = lift_direction(turned, vec3<f32>(0.0, 1.0, 0.0), floor_min);
            x = parent + turned * seg;
        }
    }
    // The projection can swing a point back into a capsule: turn the segment about its
    // parent (length kept) until its end clears every capsule. The hand wins over the skin
    // plane (a flat stand-in for curved skin that a pressing hand may squeeze fur below);
    // only the floor stays absolute.
    if (hand && distance(x, bound_center) < bound_radius) {
        var dir = (x - parent) / seg;
        for (var iter = 0u; iter < CONTACT_ITERATIONS; iter = iter + 1u) {
            for (var c = 0u; c < capsule_count; c = c + 1u) {
                let turned = clear_capsule(dir, parent, seg, batch.steps[j].capsules[c]);
                if (any(turned != dir)) {
                    touched = 1.0;
                }
                dir = turned;
            }
        }
        dir = wedge_escape(dir, parent, seg, j, capsule_count);
        dir = lift_direction(dir, vec3<f32>(0.0, 1.0, 0.0), floor_min);
        x = parent + dir * seg;
    }
    return Advanced(x, touched, pushed, touches);
}

// A strand's rest shape, points 1..5, flags 0.
struct Shape {
    p0: vec4<f32>,
    p1: vec4<f32>,
    p2: vec4<f32>,
    p3: vec4<f32>,
    p4: vec4<f32>,
}

// The rest shape from the root's world position, normal and groomed flow (no comb).
fn rest_shape(root_w: vec3<f32>, n_w: vec3<f32>, f_w: vec3<f32>, root: Root) -> Shape {
    let seg = root.position_segment.w;
    let p0 = root_w + (n_w * root.rest_01.x + f_w * root.rest_01.y) * seg;
    let p1 = p0 + (n_w * root.rest_01.z + f_w * root.rest_01.w) * seg;
    let p2 = p1 + (n_w * root.rest_23.x + f_w * root.rest_23.y) * seg;
    let p3 = p2 + (n_w * root.rest_23.z + f_w * root.rest_23.w) * seg;
    let p4 = p3 + (n_w * root.rest_4.x + f_w * root.rest_4.y) * seg;
    return Shape(
        vec4<f32>(p0, 0.0), vec4<f32>(p1, 0.0), vec4<f32>(p2, 0.0), vec4<f32>(p3, 0.0),
        vec4<f32>(p4, 0.0),
    );
}

fn finite_shape(a: vec4<f32>, b: vec4<f32>, c: vec4<f32>, d: vec4<f32>, e: vec4<f32>) -> bool {
    return finite3(a.xyz) && finite3(b.xyz) && finite3(c.xyz) && finite3(d.xyz)
        && finite3(e.xyz);
}

@compute @workgroup_size(STEP_WORKGROUP)
fn step(@builtin(global_invocation_id) id: vec3<u32>) {
    let s = id.x;
    let step_count = min(batch.step_count, MAX_STEPS);
    if (s >= batch.strand_count || step_count == 0u) {
        return;
    }
    let root = roots[s];
    let space = u32(root.normal_space.w);
    let tail_t = root.flow_tail.w;
    let position_local = root.position_segment.xyz;
    let normal_local = root.normal_space.xyz;
    let flow_local = root.flow_tail.xyz;
    let seg = root.position_segment.w;

    // The strand in registers: points 1..5 (xyz, w the touched flag) as they are latest
    // (c) and one step before (o). The root is placed each step, never read.
    let base = s * POINTS;
    var c0 = latest[base + 1u];
    var c1 = latest[base + 2u];
    var c2 = latest[base + 3u];
    var c3 = latest[base + 4u];
    var c4 = latest[base + 5u];
    var o0 = older[base + 1u];
    var o1 = older[base + 2u];
    var o2 = older[base + 3u];
    var o3 = older[base + 4u];
    var o4 = older[base + 5u];
    var comb_v = comb[s].xyz;
    var good = finite_shape(c0, c1, c2, c3, c4) && finite_shape(o0, o1, o2, o3, o4)
        && finite3(comb_v);
    var root_w = vec3<f32>(0.0);
    var has_field = false;
    if (space == SPACE_SKINNED) {
        for (var k = 0u; k < FIELD_CANDIDATES; k = k + 1u) {
            has_field = has_field || root_bindings[s].grids[k] != NO_GRID;
        }
    }

    for (var j = 0u; j < step_count; j = j + 1u) {
        let m = strand_transform(j, s, space, tail_t);
        root_w = place_point(m, position_local);
        let n_w = place_direction(m, normal_local);

        // A strand found not finite (on entry, or after the last step) is put at rest and
        // sits this step out, so it starts again from its rest shape with no velocity.
        if (!good) {
            let r = rest_shape(root_w, n_w, place_direction(m, flow_local), root);
            c0 = r.p0;
            c1 = r.p1;
            c2 = r.p2;
            c3 = r.p3;
            c4 = r.p4;
            o0 = r.p0;
            o1 = r.p1;
            o2 = r.p2;
            o3 = r.p3;
            o4 = r.p4;
            comb_v = vec3<f32>(0.0);
            atomicAdd(&recovered, 1u);
            good = true;
            continue;
        }

        // The groom flow plus the comb, kept in the root's tangent plane.
        var flow = flow_local + comb_v;
        flow = flow - normal_local * dot(flow, normal_local);
        let flow_len = length(flow);
        if (flow_len > 1e-6) {
            flow = flow / flow_len;
        } else {
            flow = flow_local;
        }
        let f_w = place_direction(m, flow);

        // The slow gust, by angle addition of the host's time phases and the root's
        // spatial phases: sin(a + b) = sin a cos b + cos a sin b.
        let gt0 = batch.steps[j].gust_time_01;
        let gt1 = batch.steps[j].gust_time_23;
        let gs0 = root.gust_01;
        let gs1 = root.gust_23;
        let sway = 0.6 + 0.4 * (gt0.y * gs0.x + gt0.x * gs0.y);
        let gust = vec3<f32>(
            gt0.w * gs0.z + gt0.z * gs0.w,
            0.3 * (gt1.y * gs1.x + gt1.x * gs1.y),
            gt1.z * gs1.z - gt1.w * gs1.w,
        ) * (batch.steps[j].gust_strength * sway);

        let fr = Frame(j, root_w, n_w, f_w, gust, seg, s, has_field);
        let zero = vec3<f32>(0.0);
        let a0 = advance_point(fr, 0u, c0.xyz, o0.xyz, root_w, root.rest_01.xy, zero, 0.0);
        let a1 = advance_point(fr, 1u, c1.xyz, o1.xyz, a0.x, root.rest_01.zw, a0.pushed, a0.touches);
        let a2 = advance_point(fr, 2u, c2.xyz, o2.xyz, a1.x, root.rest_23.xy, a1.pushed, a1.touches);
        let a3 = advance_point(fr, 3u, c3.xyz, o3.xyz, a2.x, root.rest_23.zw, a2.pushed, a2.touches);
        let a4 = advance_point(fr, 4u, c4.xyz, o4.xyz, a3.x, root.rest_4.xy, a3.pushed, a3.touches);
        o0 = c0;
        o1 = c1;
        o2 = c2;
        o3 = c3;
        o4 = c4;
        c0 = vec4<f32>(a0.x, a0.touched);
        c1 = vec4<f32>(a1.x, a1.touched);
        c2 = vec4<f32>(a2.x, a2.touched);
        c3 = vec4<f32>(a3.x, a3.touched);
        c4 = vec4<f32>(a4.x, a4.touched);
        good = finite_shape(c0, c1, c2, c3, c4);

        // The comb decays every step and follows the hand's motion where it touched,
        // in the root's tangent plane, its magnitude limited.
        var c_new = comb_v * batch.steps[j].comb_decay;
        if (a4.touches > 0.0) {
            let motion_local = unrotate(m, a4.pushed / a4.touches);
            c_new = c_new + motion_local * (batch.steps[j].comb_gain * batch.steps[j].comb_scale / seg);
        }
        c_new = c_new - normal_local * dot(c_new, normal_local);
        let c_len = length(c_new);
        if (c_len > batch.steps[j].comb_limit) {
            c_new = c_new * (batch.steps[j].comb_limit / c_len);
        }
        comb_v = c_new;
        good = good && finite3(comb_v);
    }

    // A strand that went bad in the last step is reset now, under the last step's pose,
    // so no non-finite number is ever stored.
    if (!good) {
        let m = strand_transform(step_count - 1u, s, space, tail_t);
        let r = rest_shape(
            root_w, place_direction(m, normal_local), place_direction(m, flow_local), root
        );
        c0 = r.p0;
        c1 = r.p1;
        c2 = r.p2;
        c3 = r.p3;
        c4 = r.p4;
        o0 = r.p0;
        o1 = r.p1;
        o2 = r.p2;
        o3 = r.p3;
        o4 = r.p4;
        comb_v = vec3<f32>(0.0);
        atomicAdd(&recovered, 1u);
    }

    // After an odd number of steps the buffers swap roles: `older` holds the latest.
    comb[s] = vec4<f32>(comb_v, 0.0);
    if ((step_count & 1u) == 1u) {
        older[base] = vec4<f32>(root_w, 0.0);
        older[base + 1u] = c0;
        older[base + 2u] = c1;
        older[base + 3u] = c2;
        older[base + 4u] = c3;
        older[base + 5u] = c4;
        latest[base + 1u] = o0;
        latest[base + 2u] = o1;
        latest[base + 3u] = o2;
        latest[base + 4u] = o3;
        latest[base + 5u] = o4;
    } else {
        latest[base] = vec4<f32>(root_w, 0.0);
        latest[base + 1u] = c0;
        latest[base + 2u] = c1;
        latest[base + 3u] = c2;
        latest[base + 4u] = c3;
        latest[base + 5u] = c4;
        older[base + 1u] = o0;
        older[base + 2u] = o1;
        older[base + 3u] = o2;
        older[base + 4u] = o3;
        older[base + 5u] = o4;
    }
}
