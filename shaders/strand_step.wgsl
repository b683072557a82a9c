// One fixed step of the strand solver: one invocation per strand, six points each.
// Damped Verlet with a slow gust, blend toward the groomed rest direction (stiffness from
// root to tip), skin and floor clearance, push-out from the hand's capsules (combing the
// strand), then projection onto the exact rest segment length.
//
// The CPU mirror is `src/sim/cpu.rs`; keep the two in step, line for line.

const POINTS: u32 = 6u;
const SEGMENTS: f32 = 5.0;
const MAX_CAPSULES: u32 = 24u;
const TAU: f32 = 6.2831853;
// (cos, sin) of the kink wave's advance per segment, TAU · 1.7 / 4.
const KINK_STEP: vec2<f32> = vec2<f32>(-0.8910065, 0.4539905);
// Extra push-out and projection rounds for points the hand touched.
const CONTACT_ITERATIONS: u32 = 3u;

// Rust twin: `sim::layout::GpuCapsule`.
struct Capsule {
    // xyz: first end, w: radius.
    a_radius: vec4<f32>,
    // xyz: second end.
    b: vec4<f32>,
    // xyz: displacement this step (already clamped), w: unused.
    motion: vec4<f32>,
}

// Rust twin: `sim::layout::StepUniforms`.
struct StepUniforms {
    head: mat4x4<f32>,
    body: mat4x4<f32>,
    // xyz: gravity per step, w: velocity kept per step.
    gravity_damping: vec4<f32>,
    // x: gust strength, y: time in seconds, z: kink, w: unused.
    wind: vec4<f32>,
    // x: root stiffness, y: tip stiffness, z: comb gain, w: comb decay per step.
    stiffness: vec4<f32>,
    // x: floor height, y: skin clearance per point, z: comb magnitude limit, w: unused.
    limits: vec4<f32>,
    // x: friction (share of capsule motion passed on), y: comb scale, zw: unused.
    contact: vec4<f32>,
    // xyz: centre of the sphere bounding every capsule, w: its radius (0: no hand).
    bound: vec4<f32>,
    // x: strand count, y: capsule count, zw: unused.
    counts: vec4<u32>,
    capsules: array<Capsule, MAX_CAPSULES>,
}

// Rust twin: `sim::layout::GpuRoot`.
struct Root {
    // xyz: position in its part's space, w: strand rest length.
    position_length: vec4<f32>,
    // xyz: unit normal in its part's space, w: 1 for head space, 0 for body space.
    normal_space: vec4<f32>,
    // xyz: unit groom flow in its part's space, w: per-strand random value.
    flow_random: vec4<f32>,
    // x: lift angle at the root, y: lift angle at the tip (radians from the normal).
    lift: vec4<f32>,
}

@group(0) @binding(0) var<uniform> u: StepUniforms;
@group(0) @binding(1) var<storage, read> roots: array<Root>;
@group(0) @binding(2) var<storage, read> current: array<vec4<f32>>;
// Holds the previous positions on entry and the new ones on exit (ping-pong).
@group(0) @binding(3) var<storage, read_write> next: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> comb: array<vec4<f32>>;

fn rotate(m: mat4x4<f32>, v: vec3<f32>) -> vec3<f32> {
    return m[0].xyz * v.x + m[1].xyz * v.y + m[2].xyz * v.z;
}

fn unrotate(m: mat4x4<f32>, v: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(dot(m[0].xyz, v), dot(m[1].xyz, v), dot(m[2].xyz, v));
}

fn transform(m: mat4x4<f32>, p: vec3<f32>) -> vec3<f32> {
    return m[0].xyz * p.x + m[1].xyz * p.y + m[2].xyz * p.z + m[3].xyz;
}

// A slow gust that varies with where the root is.
fn gust(r: vec3<f32>, time: f32, strength: f32) -> vec3<f32> {
    let sway = 0.6 + 0.4 * sin(0.23 * time + 1.3 * r.x + 0.9 * r.y);
    let dir = vec3<f32>(
        sin(0.9 * time + 2.1 * r.x + 1.3 * r.z),
        0.3 * sin(1.7 * time + 3.1 * r.y),
        cos(0.7 * time + 1.7 * r.z - 0.9 * r.x),
    );
    return dir * (strength * sway);
}

// (cos, sin) of a small angle by its Taylor series, exact to f32 rounding for |k| ≤ 0.5
// (the kink is validated to that range): cheaper than cos and sin on CPUs and software GPUs.
fn small_cos_sin(k: f32) -> vec2<f32> {
    let k2 = k * k;
    let c = 1.0 - k2 / 2.0 * (1.0 - k2 / 12.0 * (1.0 - k2 / 30.0 * (1.0 - k2 / 56.0)));
    let s = k * (1.0 - k2 / 6.0 * (1.0 - k2 / 20.0 * (1.0 - k2 / 42.0)));
    return vec2<f32>(c, s);
}

// The angle (c, s) turned by the angle (dc, ds).
fn turn(a: vec2<f32>, d: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(a.x * d.x - a.y * d.y, a.y * d.x + a.x * d.y);
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
    let a = cap.a_radius.xyz;
    let ab = cap.b.xyz - a;
    let r = cap.a_radius.w * 1.0001;
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

@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) id: vec3<u32>) {
    let s = id.x;
    if (s >= u.counts.x) {
        return;
    }
    let root = roots[s];
    var m = u.body;
    if (root.normal_space.w > 0.5) {
        m = u.head;
    }
    let normal_local = root.normal_space.xyz;
    let root_w = transform(m, root.position_length.xyz);
    let n_w = normalize(rotate(m, normal_local));
    let seg = root.position_length.w / SEGMENTS;
    let random = root.flow_random.w;

    // The groom flow plus the comb, kept in the root's tangent plane.
    let comb_old = comb[s].xyz;
    var flow = root.flow_random.xyz + comb_old;
    flow = flow - normal_local * dot(flow, normal_local);
    let flow_len = length(flow);
    if (flow_len > 1e-6) {
        flow = flow / flow_len;
    } else {
        flow = root.flow_random.xyz;
    }
    let f_w = normalize(rotate(m, flow));

    let gravity = u.gravity_damping.xyz;
    let damping = u.gravity_damping.w;
    let g = gust(root_w, u.wind.y, u.wind.x);
    let kink = u.wind.z;
    let floor_y = u.limits.x;
    let friction = u.contact.x;
    let hand = u.bound.w > 0.0;
    let capsule_count = min(u.counts.y, MAX_CAPSULES);

    // The rest angle from the normal runs linearly from lift.x at the root to lift.y at
    // the tip, plus a kink `kink · t · sin(TAU (3 random + 1.7 t))`. Both are stepped
    // along the strand as rotations, so a strand needs three cos/sin pairs, not fifteen.
    var lift = vec2<f32>(cos(root.lift.x), sin(root.lift.x));
    let lift_angle_step = (root.lift.y - root.lift.x) / (SEGMENTS - 1.0);
    let lift_step = vec2<f32>(cos(lift_angle_step), sin(lift_angle_step));
    var kink_wave = vec2<f32>(cos(TAU * random * 3.0), sin(TAU * random * 3.0));

    let base = s * POINTS;
    next[base] = vec4<f32>(root_w, 0.0);
    var parent = root_w;
    var pushed = vec3<f32>(0.0);
    var touches = 0.0;
    for (var i = 1u; i < POINTS; i = i + 1u) {
        let fi = f32(i);
        let t = (fi - 1.0) / (SEGMENTS - 1.0);
        let p = current[base + i].xyz;
        let q = next[base + i].xyz;

        // Damped Verlet, gravity and gust (stronger toward the tip).
        var x = p + (p - q) * damping + gravity + g * (fi / SEGMENTS);

        // Blend toward the groomed rest direction from the parent.
        let rest = turn(lift, small_cos_sin(kink * t * kink_wave.y));
        let rest_dir = n_w * rest.x + f_w * rest.y;
        lift = turn(lift, lift_step);
        kink_wave = turn(kink_wave, KINK_STEP);
        let k = mix(u.stiffness.x, u.stiffness.y, t);
        x = mix(x, parent + rest_dir * seg, k);

        // Skin clearance (above the root's normal-offset plane) and the floor.
        let clearance = u.limits.y * fi;
        let height = dot(x - root_w, n_w);
        if (height < clearance) {
            x = x + n_w * (clearance - height);
        }
        x.y = max(x.y, floor_y);

        // The hand: out of each capsule, carried along by its motion.
        var touched = 0.0;
        if (hand && distance(x, u.bound.xyz) < u.bound.w) {
            for (var c = 0u; c < capsule_count; c = c + 1u) {
                let cap = u.capsules[c];
                let a = cap.a_radius.xyz;
                let ab = cap.b.xyz - a;
                let r = cap.a_radius.w;
                let h = clamp(dot(x - a, ab) / max(dot(ab, ab), 1e-12), 0.0, 1.0);
                let closest = a + ab * h;
                let off = x - closest;
                let dist = length(off);
                if (dist < r) {
                    var out_dir = n_w;
                    if (dist > 1e-6) {
                        out_dir = off / dist;
                    }
                    x = closest + out_dir * r + cap.motion.xyz * friction;
                    pushed = pushed + cap.motion.xyz;
                    touched = 1.0;
                }
            }
        }
        touches = touches + touched;

        // Inextensible: exactly one rest segment from the parent, then turned (length
        // kept) back above the skin plane and the floor if the projection crossed them.
        let skin_min = (clearance - dot(parent - root_w, n_w)) / seg;
        let floor_min = (floor_y - parent.y) / seg;
        x = project_segment(x, parent, rest_dir, seg, n_w, skin_min, floor_min);
        // The projection can swing a point back into a capsule: turn the segment about its
        // parent (length kept) until its end clears every capsule. The hand wins over the
        // skin plane (a flat stand-in for curved skin that a pressing hand may squeeze fur
        // below); only the floor stays absolute.
        if (hand && distance(x, u.bound.xyz) < u.bound.w) {
            var dir = (x - parent) / seg;
            for (var iter = 0u; iter < CONTACT_ITERATIONS; iter = iter + 1u) {
                for (var c = 0u; c < capsule_count; c = c + 1u) {
                    let turned = clear_capsule(dir, parent, seg, u.capsules[c]);
                    if (any(turned != dir)) {
                        touched = 1.0;
                    }
                    dir = turned;
                }
            }
            dir = lift_direction(dir, vec3<f32>(0.0, 1.0, 0.0), floor_min);
            x = parent + dir * seg;
        }

        next[base + i] = vec4<f32>(x, touched);
        parent = x;
    }

    // The comb decays every step and follows the hand's motion where it touched,
    // in the root's tangent plane, its magnitude limited.
    var c_new = comb_old * u.stiffness.w;
    if (touches > 0.0) {
        let motion_local = unrotate(m, pushed / touches);
        c_new = c_new + motion_local * (u.stiffness.z * u.contact.y / seg);
    }
    c_new = c_new - normal_local * dot(c_new, normal_local);
    let c_len = length(c_new);
    if (c_len > u.limits.z) {
        c_new = c_new * (u.limits.z / c_len);
    }
    comb[s] = vec4<f32>(c_new, 0.0);
}
