// Copies sample 0 of the multisampled ID target into a single-sampled one that can be read
// back (integer targets cannot be resolved by averaging). Composed after the prelude alone.

@group(0) @binding(0) var ids: texture_multisampled_2d<u32>;

@vertex
fn vs_fullscreen(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_resolve(@builtin(position) p: vec4<f32>) -> @location(0) u32 {
    return textureLoad(ids, vec2<i32>(p.xy), 0).r;
}
