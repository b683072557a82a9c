// Shared by every render pipeline: the frame's uniforms, the view of the pass being drawn,
// the creature's pose, the coat palette, the hand's occlusion and the tone map.
// Prepended to each render shader (see `render::shaders`), after the creature-pose snippet
// (`creature_pose.wgsl`) that places roots for the solver too; not a pipeline by itself.

const PI: f32 = 3.14159265;
const MAX_HAND_CAPSULES: u32 = 24u;

// Vertex spaces beyond the roots' body, head and tail (`SPACE_*` of the pose snippet): world
// space, for the hand and the floor.
const SPACE_WORLD: u32 = 3u;

// What each pixel shows, written to the optional ID target (tests read it).
const ID_SKIN: u32 = 1u;
const ID_HAIR: u32 = 2u;
const ID_HAND: u32 = 3u;
const ID_FACE: u32 = 4u;
const ID_OVERLAY: u32 = 5u;

// Rust twin: `render::uniforms::HandCapsuleUniform`.
struct HandCapsule {
    // xyz: first end, w: radius.
    a_radius: vec4<f32>,
    // xyz: second end, w: unused.
    b: vec4<f32>,
}

// Rust twin: `render::uniforms::FrameUniforms` (encase).
struct FrameUniforms {
    // World → clip for the camera, and for the key light (orthographic).
    view_proj: mat4x4<f32>,
    light_view_proj: mat4x4<f32>,
    // xyz: camera position.
    eye: vec4<f32>,
    // xy: target size in pixels, zw: their reciprocals.
    viewport: vec4<f32>,
    // xyz: unit direction toward the key light, w: its irradiance.
    light_dir: vec4<f32>,
    // Linear colour of the key light.
    light_color: vec4<f32>,
    // xyz: unit direction toward the fill light (no shadow), w: its irradiance.
    fill_dir: vec4<f32>,
    // Ambient from above and from below (linear).
    sky: vec4<f32>,
    ground: vec4<f32>,
    // x: shadow texel size (m), y: light depth range (m), z: hair density per unit coverage,
    // w: depth bias (m).
    shadow: vec4<f32>,
    // Deep opacity map slab ends, metres behind the first hair the light meets.
    slabs: vec4<f32>,
    // The coat palette, linear: main, cream, stripe, blush.
    coat_main: vec4<f32>,
    coat_cream: vec4<f32>,
    coat_stripe: vec4<f32>,
    coat_blush: vec4<f32>,
    // Head-local → world, body-local → world, and each tail bone's rest body → world.
    head: mat4x4<f32>,
    body: mat4x4<f32>,
    tail: array<mat4x4<f32>, 5>,
    // The hand's capsules, for the soft occlusion it casts on nearby fur and skin.
    hand: array<HandCapsule, 24>,
    // x: capsule count, y: occlusion strength (0 none … 1 strong), z: falloff distance (m).
    hand_info: vec4<f32>,
    // x: eye narrowing (0 open … 1 nearly shut), y: time (s, wrapped), zw: unused.
    face: vec4<f32>,
    // x: root width (m), y: tip width as a share of the root's, z: faded share of the
    // length at the tip, w: narrowest drawn width in pixels.
    ribbon: vec4<f32>,
    // x: exposure, y: contact-mode highlight, zw: unused.
    look: vec4<f32>,
    // The linear colour behind the creature (the floor fades into it).
    background: vec4<f32>,
    // x: strand count, y: MSAA samples, z: 1 when the hair casts shadows, w: 1 when the
    // camera's ribbons skip the strands the cull pass marked.
    counts: vec4<u32>,
}

// Rust twin: `render::uniforms::PassView` (encase). One per pass: the camera's, the light's.
struct PassView {
    view_proj: mat4x4<f32>,
    // xyz: camera position (perspective) or direction toward the viewer (orthographic);
    // w: 1 perspective, 0 orthographic.
    eye: vec4<f32>,
    // xyz: unit viewing direction; w: world size of one pixel at unit distance
    // (perspective) or of one pixel (orthographic).
    forward: vec4<f32>,
}

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
@group(0) @binding(1) var<uniform> view: PassView;

// The transform that places a point of `space` (for the tail: at tail parameter `t`), the
// same one the solver places roots with (`root_transform`); world space for the hand.
fn space_matrix(space: u32, t: f32) -> mat4x4<f32> {
    if (space != SPACE_WORLD) {
        return root_transform(CreaturePose(frame.head, frame.body, frame.tail), f32(space), t);
    }
    return mat4x4<f32>(
        vec4<f32>(1.0, 0.0, 0.0, 0.0),
        vec4<f32>(0.0, 1.0, 0.0, 0.0),
        vec4<f32>(0.0, 0.0, 1.0, 0.0),
        vec4<f32>(0.0, 0.0, 0.0, 1.0),
    );
}

// Where a viewer at this pass sees `world` from: unit direction from the point to the eye.
fn toward_viewer(world: vec3<f32>) -> vec3<f32> {
    if (view.eye.w > 0.5) {
        return normalize(view.eye.xyz - world);
    }
    return -view.forward.xyz;
}

// World size of one pixel of this pass at `world`.
fn pixel_size(world: vec3<f32>) -> f32 {
    if (view.eye.w > 0.5) {
        return max(dot(world - view.eye.xyz, view.forward.xyz), 1e-4) * view.forward.w;
    }
    return view.forward.w;
}

// The coat colour (linear) of the pattern channels (cream, stripe, ear tip, blush).
fn coat_color(pattern: vec4<f32>) -> vec3<f32> {
    var c = frame.coat_main.rgb;
    c = mix(c, frame.coat_cream.rgb, pattern.x);
    c = mix(c, frame.coat_stripe.rgb, pattern.y);
    // Ear tips: the stripe colour, darkened.
    c = mix(c, frame.coat_stripe.rgb * 0.45, pattern.z);
    c = mix(c, frame.coat_blush.rgb, pattern.w);
    return c;
}

// Light left by the hand's soft occlusion at `world`: 1 far from every capsule, down to
// 1 − strength at a capsule's surface (the nearest capsule decides).
fn hand_occlusion(world: vec3<f32>) -> f32 {
    let count = min(u32(frame.hand_info.x), MAX_HAND_CAPSULES);
    let strength = frame.hand_info.y;
    let falloff = max(frame.hand_info.z, 1e-4);
    var open = 1.0;
    for (var i = 0u; i < count; i = i + 1u) {
        let a = frame.hand[i].a_radius.xyz;
        let ab = frame.hand[i].b.xyz - a;
        let h = clamp(dot(world - a, ab) / max(dot(ab, ab), 1e-12), 0.0, 1.0);
        let d = distance(world, a + ab * h) - frame.hand[i].a_radius.w;
        let near = 1.0 - smoothstep(0.0, falloff, d);
        open = min(open, 1.0 - strength * near);
    }
    return open;
}

// Linear HDR → display: exposure, then a hue-keeping shoulder that is the identity below
// 0.6 and approaches 1 above it, so highlights roll off instead of clipping to white.
fn tone_map(hdr: vec3<f32>) -> vec3<f32> {
    let c = max(hdr * frame.look.x, vec3<f32>(0.0));
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
