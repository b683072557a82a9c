// Shared by every render pipeline: the frame's uniforms, the view of the pass being drawn,
// the creature's pose, the coat palette, the hand's occlusion and the tone map.
// Composed after the prelude (`src/shaders.rs`: MAX_HAND_CAPSULES, SPACE_*, ID_*) and the
// creature-pose snippet (`creature_pose.wgsl`) that places roots for the solver too; not a
// pipeline by itself.

// Rust twin: `render::frame::HandCapsuleUniform` (encase).
struct HandCapsule {
    // The capsule's two ends and its radius.
    a: vec3<f32>,
    radius: f32,
    b: vec3<f32>,
}

// Rust twin: `render::frame::FrameUniforms` (encase).
struct FrameUniforms {
    // World → clip for the camera, and for the key light (orthographic, depth 0 … 1).
    view_proj: mat4x4<f32>,
    light_view_proj: mat4x4<f32>,
    // The camera's position.
    eye: vec3<f32>,
    // Unit direction toward the key light, and its irradiance.
    light_dir: vec3<f32>,
    light_irradiance: f32,
    // Linear colour of the key light.
    light_color: vec3<f32>,
    // Unit direction toward the fill light (no shadow), and its irradiance.
    fill_dir: vec3<f32>,
    fill_irradiance: f32,
    // Ambient from above and from below (linear).
    sky: vec3<f32>,
    ground: vec3<f32>,
    // The key light's depth range (m), the hair density per unit coverage in the deep
    // opacity map, and the opaque map's depth bias (m).
    light_depth_range: f32,
    hair_density: f32,
    shadow_bias: f32,
    // Deep opacity map slab ends, metres behind the first hair the light meets.
    slab_ends: vec4<f32>,
    // The coat palette, linear: main, cream, stripe, blush.
    coat_main: vec3<f32>,
    coat_cream: vec3<f32>,
    coat_stripe: vec3<f32>,
    coat_blush: vec3<f32>,
    // Head-local → world, body-local → world, and each tail bone's rest body → world.
    head: mat4x4<f32>,
    body: mat4x4<f32>,
    tail: array<mat4x4<f32>, TAIL_BONES>,
    // The hand's capsules, for the soft occlusion it casts on nearby fur and skin: the
    // first `hand_count`, how strongly (0 none … 1 strong) and over what distance (m).
    hand: array<HandCapsule, MAX_HAND_CAPSULES>,
    hand_count: u32,
    hand_occlusion_strength: f32,
    hand_falloff: f32,
    // How far the eyes are narrowed (0 open … 1 nearly shut).
    eye_narrowing: f32,
    // Ribbon width at the root (m), width at the tip as a share of the root's, faded share
    // of the length at the tip, narrowest drawn width in pixels.
    root_width: f32,
    tip_width: f32,
    tip_fade: f32,
    min_pixels: f32,
    // Exposure before the tone map.
    exposure: f32,
    // The linear colour behind the creature (the floor fades into it).
    background: vec3<f32>,
    // Strands bound, and MSAA samples of the camera's targets.
    strand_count: u32,
    msaa_samples: u32,
    // 1 when the hair casts shadows; 1 when the camera's ribbons skip the strands the cull
    // pass marked.
    hair_casts_shadows: u32,
    cull_hidden_strands: u32,
    // Strand level of detail (`render::strand_lod`): strands drawn (a prefix of the drawn
    // order), where their fade ends and over how many strands it falls (strand k of the
    // order is drawn with weight clamp((lod_end − k) / lod_fade, 0, 1)), and the width
    // scale that keeps the coat's coverage with fewer strands.
    lod_drawn: u32,
    lod_end: f32,
    lod_fade: f32,
    lod_width_scale: f32,
    // Which of the ribbons' dithers the camera draws (`RenderSettings::ribbon_dither`):
    // 0, the default, or another number for the same coat with other sampling noise.
    ribbon_dither: u32,
}

// Rust twin: `render::frame::PassView` (encase). One per pass: the camera's, the light's.
struct PassView {
    view_proj: mat4x4<f32>,
    // The camera's position (perspective), or the direction toward the viewer
    // (orthographic).
    eye: vec3<f32>,
    // 1 for a perspective view, 0 for an orthographic one.
    perspective: u32,
    // Unit viewing direction.
    forward: vec3<f32>,
    // World size of one pixel at unit distance (perspective) or of one pixel
    // (orthographic).
    pixel_scale: f32,
}

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
@group(0) @binding(1) var<uniform> view: PassView;

// The transform that places a point of `space` (for the tail: at tail parameter `t`), the
// same one the solver places roots with (`root_transform`, the same arithmetic); world
// space for the hand. Read straight from the uniforms, as `strand_step.wgsl` does: a pose
// passed by value costs a software rasteriser a 448-byte copy, with its tail bones indexed
// per lane, at every call (the shading pass calls it for every strand point).
fn space_matrix(space: u32, t: f32) -> mat4x4<f32> {
    if (space == SPACE_WORLD) {
        return mat4x4<f32>(
            vec4<f32>(1.0, 0.0, 0.0, 0.0),
            vec4<f32>(0.0, 1.0, 0.0, 0.0),
            vec4<f32>(0.0, 0.0, 1.0, 0.0),
            vec4<f32>(0.0, 0.0, 0.0, 1.0),
        );
    }
    if (space == SPACE_BODY) {
        return frame.body;
    }
    if (space == SPACE_HEAD) {
        return frame.head;
    }
    let u = t * f32(TAIL_BONES) - 0.5;
    if (u <= 0.0) {
        return frame.tail[0];
    }
    if (u >= f32(TAIL_BONES - 1u)) {
        return frame.tail[TAIL_BONES - 1u];
    }
    let b = floor(u);
    let f = u - b;
    let i = u32(b);
    return frame.tail[i] * (1.0 - f) + frame.tail[i + 1u] * f;
}

// Lavapipe (Mesa 22.3, the CI's driver) "inlines" a uniform that a large shader branches
// on alone: it compiles the shader again at every draw that binds the buffer and keeps
// ~300 kB each time. These two branches on `view.perspective`, in every ribbon's vertex
// shader, grew the demo by ~25 MB a second; as `select`s (both sides are evaluated, as a
// SIMD shader would anyway) they cost nothing. `tests/render_memory.rs` catches a branch
// like them coming back (the hand's loop and the shadow and environment switches, tried
// the same way, were not recompiled).

// Where a viewer at this pass sees `world` from: unit direction from the point to the eye.
fn toward_viewer(world: vec3<f32>) -> vec3<f32> {
    return select(-view.forward, normalize(view.eye - world), view.perspective == 1u);
}

// World size of one pixel of this pass at `world`.
fn pixel_size(world: vec3<f32>) -> f32 {
    let depth = select(1.0, max(dot(world - view.eye, view.forward), 1e-4), view.perspective == 1u);
    return depth * view.pixel_scale;
}

// The coat colour (linear) of the pattern channels (cream, stripe, ear tip, blush).
fn coat_color(pattern: vec4<f32>) -> vec3<f32> {
    var c = frame.coat_main;
    c = mix(c, frame.coat_cream, pattern.x);
    c = mix(c, frame.coat_stripe, pattern.y);
    // Ear tips: the stripe colour, darkened.
    c = mix(c, frame.coat_stripe * 0.45, pattern.z);
    c = mix(c, frame.coat_blush, pattern.w);
    return c;
}

// Light left by the hand's soft occlusion at `world`: 1 far from every capsule, down to
// 1 − strength at a capsule's surface (the nearest capsule decides).
fn hand_occlusion(world: vec3<f32>) -> f32 {
    let count = min(frame.hand_count, MAX_HAND_CAPSULES);
    let strength = frame.hand_occlusion_strength;
    let falloff = max(frame.hand_falloff, 1e-4);
    var open = 1.0;
    for (var i = 0u; i < count; i = i + 1u) {
        let a = frame.hand[i].a;
        let ab = frame.hand[i].b - a;
        let h = clamp(dot(world - a, ab) / max(dot(ab, ab), 1e-12), 0.0, 1.0);
        let d = distance(world, a + ab * h) - frame.hand[i].radius;
        let near = 1.0 - smoothstep(0.0, falloff, d);
        open = min(open, 1.0 - strength * near);
    }
    return open;
}

// Whether the hand's occlusion can fall anywhere in the ball of `radius` about `center`:
// false only when every point of it is farther than the falloff (plus a margin for
// rounding) from every capsule, where `hand_occlusion` is exactly 1. Distance to a
// capsule's axis moves no faster than the point does, so the ball's centre minus its
// radius bounds every point's distance from below.
fn hand_reaches(center: vec3<f32>, radius: f32) -> bool {
    let count = min(frame.hand_count, MAX_HAND_CAPSULES);
    // A tenth of a millimetre of slack: far more than the rounding of distances on a
    // creature a metre across, far less than any strand.
    let reach = max(frame.hand_falloff, 1e-4) + 1e-4;
    var near = false;
    for (var i = 0u; i < count; i = i + 1u) {
        let a = frame.hand[i].a;
        let ab = frame.hand[i].b - a;
        let h = clamp(dot(center - a, ab) / max(dot(ab, ab), 1e-12), 0.0, 1.0);
        let d = distance(center, a + ab * h) - frame.hand[i].radius - radius;
        near = near || d < reach;
    }
    return near;
}

// Linear HDR → display: exposure, then a hue-keeping shoulder that is the identity below
// 0.6 and approaches 1 above it, so highlights roll off instead of clipping to white.
fn tone_map(hdr: vec3<f32>) -> vec3<f32> {
    let c = max(hdr * frame.exposure, vec3<f32>(0.0));
    let peak = max(max(c.r, c.g), c.b);
    if (peak <= 0.6) {
        return c;
    }
    let x = peak - 0.6;
    let mapped = 0.6 + 0.4 * x / (x + 0.4);
    return c * (mapped / peak);
}

// A depth in [0, 1] as 24-bit fixed point in three unorm8 channels: an 8-bit colour target
// is renderable on every backend, unlike a 32-bit float one (OpenGL ES).
fn pack_depth(d: f32) -> vec4<f32> {
    let x = u32(clamp(d, 0.0, 1.0) * 16777215.0);
    return vec4<f32>(f32(x >> 16u), f32((x >> 8u) & 0xffu), f32(x & 0xffu), 0.0) / 255.0;
}

fn unpack_depth(c: vec4<f32>) -> f32 {
    let b = vec3<u32>(round(c.rgb * 255.0));
    return f32((b.x << 16u) | (b.y << 8u) | b.z) / 16777215.0;
}

// Small integer hash (PCG-style), for per-strand and per-pixel dither.
fn hash_u32(v: u32) -> u32 {
    let state = v * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

fn hash_unit(v: u32) -> f32 {
    return f32(hash_u32(v) >> 8u) / 16777216.0;
}
