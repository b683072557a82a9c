// How much of the key light reaches a point: the opaque shadow of the skin and the hand
// (a depth map with 2×2 filtered comparison), times the light left after the hair in front
// of the point (a deep opacity map: density accumulated in four slabs behind the first hair
// the light meets, so light dims gradually through the coat). Needs `render_frame.wgsl`.

@group(2) @binding(0) var skin_depth: texture_depth_2d;
// The first hair's light depth, packed in a colour: OpenGL cannot read a depth texture
// without comparing it.
@group(2) @binding(1) var hair_depth: texture_2d<f32>;
@group(2) @binding(2) var deep_opacity: texture_2d<f32>;
@group(2) @binding(3) var shadow_compare: sampler_comparison;
@group(2) @binding(4) var shadow_linear: sampler;

struct LightCoord {
    uv: vec2<f32>,
    depth: f32,
    inside: bool,
}

fn light_coord(world: vec3<f32>) -> LightCoord {
    var out: LightCoord;
    let c = frame.light_view_proj * vec4<f32>(world, 1.0);
    let ndc = c.xyz / c.w;
    out.uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    out.depth = ndc.z;
    out.inside = all(out.uv > vec2<f32>(0.0)) && all(out.uv < vec2<f32>(1.0)) && ndc.z < 1.0;
    return out;
}

// Cumulative hair opacity at `behind` metres past the first hair, from the four slab ends.
fn deep_opacity_at(cumulative: vec4<f32>, behind: f32) -> f32 {
    if (behind <= 0.0) {
        return 0.0;
    }
    let s = frame.slabs;
    if (behind < s.x) {
        return cumulative.x * behind / s.x;
    }
    if (behind < s.y) {
        return mix(cumulative.x, cumulative.y, (behind - s.x) / (s.y - s.x));
    }
    if (behind < s.z) {
        return mix(cumulative.y, cumulative.z, (behind - s.y) / (s.z - s.y));
    }
    if (behind < s.w) {
        return mix(cumulative.z, cumulative.w, (behind - s.z) / (s.w - s.z));
    }
    return cumulative.w;
}

// Share of the key light reaching `world` (0 … 1).
fn key_light_visibility(world: vec3<f32>) -> f32 {
    let lc = light_coord(world);
    if (!lc.inside) {
        return 1.0;
    }
    let range = max(frame.shadow.y, 1e-4);
    let bias = frame.shadow.w / range;
    let opaque = textureSampleCompareLevel(skin_depth, shadow_compare, lc.uv, lc.depth - bias);
    if (frame.counts.z == 0u) {
        return opaque;
    }
    let size = vec2<f32>(textureDimensions(hair_depth));
    let texel = vec2<i32>(clamp(lc.uv * size, vec2<f32>(0.0), size - 1.0));
    let first = unpack_depth(textureLoad(hair_depth, texel, 0));
    let cumulative = textureSampleLevel(deep_opacity, shadow_linear, lc.uv, 0.0);
    let behind = (lc.depth - first) * range;
    let opacity = deep_opacity_at(cumulative, behind);
    return opaque * exp(-frame.shadow.z * opacity);
}
