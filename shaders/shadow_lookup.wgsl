// How much of the key light reaches a point: the opaque shadow of the skin and the hand
// (a depth map with 2×2 filtered comparison), times the light left after the hair in front
// of the point (a deep opacity map: density accumulated in four slabs behind the first hair
// the light meets, so light dims gradually through the coat). Composed after `frame.wgsl`.

@group(2) @binding(0) var skin_depth: texture_depth_2d;
// The first hair's light depth, packed in a colour: OpenGL cannot read a depth texture
// without comparing it.
@group(2) @binding(1) var hair_depth: texture_2d<f32>;
@group(2) @binding(2) var deep_opacity: texture_2d<f32>;
@group(2) @binding(3) var shadow_compare: sampler_comparison;
@group(2) @binding(4) var shadow_linear: sampler;

// The key light's map coordinates of `world`: uv in the maps, and depth (0 … 1 forward).
fn light_coord(world: vec3<f32>) -> vec3<f32> {
    let c = frame.light_view_proj * vec4<f32>(world, 1.0);
    // Orthographic: w is 1.
    return vec3<f32>(c.x * 0.5 + 0.5, 0.5 - c.y * 0.5, c.z);
}

// Cumulative hair opacity at `behind` metres past the first hair: piecewise linear through
// zero at the first hair and the four slab ends, constant past the last. Written without
// branches: every lane of a SIMD shader would pay for all of them anyway.
fn deep_opacity_at(cumulative: vec4<f32>, behind: f32) -> f32 {
    let s = frame.slab_ends;
    let starts = vec4<f32>(0.0, s.x, s.y, s.z);
    let previous = vec4<f32>(0.0, cumulative.x, cumulative.y, cumulative.z);
    // How far through each slab `behind` is: 0 before it, 1 past it.
    let through = clamp((vec4<f32>(behind) - starts) / max(s - starts, vec4<f32>(1e-6)), vec4<f32>(0.0), vec4<f32>(1.0));
    // The slabs' increments, each weighted by how much of it lies in front of the point.
    return dot(cumulative - previous, through);
}

// Share of the key light reaching the point at light-map coordinates `lc` (0 … 1).
fn key_light_visibility_at(lc: vec3<f32>) -> f32 {
    let inside = all(lc.xy > vec2<f32>(0.0)) && all(lc.xy < vec2<f32>(1.0)) && lc.z < 1.0;
    if (!inside) {
        return 1.0;
    }
    let range = max(frame.light_depth_range, 1e-4);
    let bias = frame.shadow_bias / range;
    let opaque = textureSampleCompareLevel(skin_depth, shadow_compare, lc.xy, lc.z - bias);
    if (frame.hair_casts_shadows == 0u) {
        return opaque;
    }
    let size = vec2<f32>(textureDimensions(hair_depth));
    let texel = vec2<i32>(clamp(lc.xy * size, vec2<f32>(0.0), size - 1.0));
    let first = unpack_depth(textureLoad(hair_depth, texel, 0));
    let cumulative = textureSampleLevel(deep_opacity, shadow_linear, lc.xy, 0.0);
    let behind = (lc.z - first) * range;
    let opacity = deep_opacity_at(cumulative, behind);
    return opaque * exp(-frame.hair_density * opacity);
}

// Share of the key light reaching `world` (0 … 1).
fn key_light_visibility(world: vec3<f32>) -> f32 {
    return key_light_visibility_at(light_coord(world));
}
