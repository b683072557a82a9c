// The strand rasteriser's picture composited over the surfaces (`render::strand_raster`):
// one full-screen triangle, out = hair + T · surfaces (blend: one, source alpha), in the
// camera's colour target after the surfaces. Pixels with no hair are discarded. Composed
// after `frame.wgsl`, `ribbon_geometry.wgsl` and `strand_raster_segment.wgsl` (for the
// raster's uniforms).

// Premultiplied linear RGB and transmittance per pixel, unorm16×4 (`strand_raster_draw.wgsl`).
@group(2) @binding(4) var<storage, read> hair: array<vec2<u32>>;

@vertex
fn vs_full_screen(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - vec2<f32>(1.0), 0.0, 1.0);
}

@fragment
fn fs_composite(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let px = vec2<u32>(position.xy);
    if (px.x >= raster.width || px.y >= raster.height) {
        discard;
    }
    let word = hair[px.y * raster.width + px.x];
    let rg = unpack2x16unorm(word.x);
    let bt = unpack2x16unorm(word.y);
    if (bt.y >= 1.0) {
        discard;
    }
    return vec4<f32>(rg, bt.x, bt.y);
}
