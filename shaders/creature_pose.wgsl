// The creature's pose as shaders read it, and where a strand root sits on it. A shared
// snippet: the strand step (`strand_step.wgsl`) and the renderer's ribbon pass are each
// built by prepending this file, so both place roots, normals and flow identically.
// Rust twins: `creature::GpuCreaturePose` (the struct) and `creature::root_transform`,
// `creature::place_point`, `creature::place_direction` (the placement). Composed after the
// prelude (`src/shaders.rs`), which gives TAIL_BONES and the SPACE_* codes.

// Rust twin: `creature::GpuCreaturePose`.
struct CreaturePose {
    // Head-local → world.
    head: mat4x4<f32>,
    // Body-local → world.
    body: mat4x4<f32>,
    // Per tail bone, root first: body-space rest → world (the skinning transform).
    tail: array<mat4x4<f32>, TAIL_BONES>,
}

// The transform a root in `space` (SPACE_*) at tail parameter `t` follows. A tail root
// blends its two nearest bones: u = t·TAIL_BONES − 0.5; bone 0 below u = 0, the last bone
// above u = TAIL_BONES − 1, else bones floor(u) and floor(u)+1 weighted 1−f and f. The
// blended matrix moves points by the blend of the bones' points, and directions by the
// blend of their directions (normalise those: `place_direction`).
fn root_transform(pose: CreaturePose, space: u32, t: f32) -> mat4x4<f32> {
    if (space == SPACE_BODY) {
        return pose.body;
    }
    if (space == SPACE_HEAD) {
        return pose.head;
    }
    let u = t * f32(TAIL_BONES) - 0.5;
    if (u <= 0.0) {
        return pose.tail[0];
    }
    if (u >= f32(TAIL_BONES - 1u)) {
        return pose.tail[TAIL_BONES - 1u];
    }
    let b = floor(u);
    let f = u - b;
    var bones = pose.tail;
    let i = u32(b);
    return bones[i] * (1.0 - f) + bones[i + 1u] * f;
}

// A part-space point through a root transform.
fn place_point(m: mat4x4<f32>, p: vec3<f32>) -> vec3<f32> {
    return m[0].xyz * p.x + m[1].xyz * p.y + m[2].xyz * p.z + m[3].xyz;
}

// A part-space direction through a root transform, normalised.
fn place_direction(m: mat4x4<f32>, v: vec3<f32>) -> vec3<f32> {
    return normalize(m[0].xyz * v.x + m[1].xyz * v.y + m[2].xyz * v.z);
}

// A root's world position from its part-space position.
fn place_root_point(pose: CreaturePose, space: u32, t: f32, p: vec3<f32>) -> vec3<f32> {
    return place_point(root_transform(pose, space, t), p);
}

// A root's world direction (normal, flow) from its part-space direction, normalised.
fn place_root_direction(pose: CreaturePose, space: u32, t: f32, v: vec3<f32>) -> vec3<f32> {
    return place_direction(root_transform(pose, space, t), v);
}
