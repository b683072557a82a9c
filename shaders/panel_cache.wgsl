// The panel's cache (`panel_cache.rs`): egui's output kept in a texture of the window's size.
// `fs_clear` empties the part about to be drawn again (under a scissor); `fs_composite`
// lays the kept panel over the frame with egui's own premultiplied "over" blending, which
// gives what drawing egui straight onto the frame gives, to 8-bit rounding.

@group(0) @binding(0) var panel: texture_2d<f32>;

// One triangle covering the target; scissors choose the part drawn.
@vertex
fn vs_cover(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * vec2<f32>(2.0, -2.0) + vec2<f32>(-1.0, 1.0), 0.0, 1.0);
}

@fragment
fn fs_clear() -> @location(0) vec4<f32> {
    return vec4<f32>(0.0);
}

// One texel per pixel (the cache has the window's size), read without a sampler: a plain
// load is the cheapest fragment a software rasteriser runs.
@fragment
fn fs_composite(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    return textureLoad(panel, vec2<i32>(position.xy), 0);
}
