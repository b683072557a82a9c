// The native hair path's GPU side (`render/hair/native.rs`): the surfaces' depth read back
// (sample 0 of the multisampled depth, the one sample the host's rasteriser tests against;
// with one sample the depth itself, bound as a float texture and read by a shader too, as
// OpenGL neither copies a depth texture out nor loads from one in GLSL),
// and the picture the host drew (premultiplied linear RGB, transmittance in alpha)
// composited over the surfaces: out = hair + T · surface, by the blend state. Composed
// after the prelude alone.

@group(0) @binding(0) var surface_depth: texture_depth_multisampled_2d;
@group(0) @binding(1) var<storage, read_write> depth_out: array<f32>;
@group(0) @binding(2) var single_depth: texture_2d<f32>;

@compute @workgroup_size(DEPTH_READ_TILE, DEPTH_READ_TILE)
fn cs_depth_sample0(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(surface_depth);
    if (id.x >= size.x || id.y >= size.y) {
        return;
    }
    depth_out[id.y * size.x + id.x] = textureLoad(surface_depth, vec2<i32>(id.xy), 0);
}

@compute @workgroup_size(DEPTH_READ_TILE, DEPTH_READ_TILE)
fn cs_depth_single(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(single_depth);
    if (id.x >= size.x || id.y >= size.y) {
        return;
    }
    depth_out[id.y * size.x + id.x] = textureLoad(single_depth, vec2<i32>(id.xy), 0).x;
}

@group(1) @binding(0) var picture: texture_2d<f32>;

@vertex
fn vs_fullscreen(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_composite(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return textureLoad(picture, vec2<i32>(p.xy), 0);
}

struct IdOut {
    @location(0) color: vec4<f32>,
    @location(1) id: u32,
}

// The hair's ID where it covers at least half the pixel (the colour is masked off).
@fragment
fn fs_hair_ids(@builtin(position) p: vec4<f32>) -> IdOut {
    if (textureLoad(picture, vec2<i32>(p.xy), 0).a > 0.5) {
        discard;
    }
    return IdOut(vec4<f32>(0.0), ID_HAIR);
}
