// The demo's dynamic resolution: the scene, drawn offscreen at a fraction of the window's
// size, upscaled into the window with a Catmull-Rom bicubic filter (sharp, no blocky
// texels); at exactly half the window's size, sharpened by `fs_sharpen` and magnified by
// `fs_bilinear` (together the cubic, its ringing clamped); below half, to half the window's size by
// `fs_upscale` and the rest of the way (2×) by `fs_bilinear`, one bilinear tap, which
// lavapipe draws at a fraction of the bicubic's cost. Five bilinear taps stand for the sixteen texels of the 4×4 kernel: the middle
// two weights of each axis share one tap placed between their texels, and the four
// corner taps, whose weights are products of two small negative lobes (together at most
// (0.5 f (1 − f))², 1.6% of the sum, at f = 0.5), are left out and the rest renormalised:
// on a CPU adapter every filtered tap a window pixel reads is what the upscale costs. The
// scene texture is sRGB, so taps and weights mix linear light; the output view encodes
// it again.

@group(0) @binding(0) var scene: texture_2d<f32>;
@group(0) @binding(1) var scene_sampler: sampler;

struct Varying {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

// One triangle covering the window.
@vertex
fn vs_upscale(@builtin(vertex_index) i: u32) -> Varying {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    var out: Varying;
    out.clip = vec4<f32>(uv * vec2<f32>(2.0, -2.0) + vec2<f32>(-1.0, 1.0), 0.0, 1.0);
    out.uv = uv;
    return out;
}

@fragment
fn fs_upscale(v: Varying) -> @location(0) vec4<f32> {
    let size = vec2<f32>(textureDimensions(scene));
    let position = v.uv * size;
    let center = floor(position - 0.5) + 0.5;
    let f = position - center;
    // Catmull-Rom weights of the four texels around the sample, per axis.
    let w0 = f * (-0.5 + f * (1.0 - 0.5 * f));
    let w1 = 1.0 + f * f * (-2.5 + 1.5 * f);
    let w2 = f * (0.5 + f * (2.0 - 1.5 * f));
    let w3 = f * f * (-0.5 + 0.5 * f);
    let w12 = w1 + w2;
    let p0 = (center - 1.0) / size;
    let p12 = (center + w2 / w12) / size;
    let p3 = (center + 2.0) / size;
    // The cross of five taps: the middle of both axes, then the outer lobes of each.
    let middle = w12.x * w12.y;
    let left = w0.x * w12.y;
    let right = w3.x * w12.y;
    let up = w12.x * w0.y;
    let down = w12.x * w3.y;
    var color = textureSampleLevel(scene, scene_sampler, p12, 0.0).rgb * middle;
    color += textureSampleLevel(scene, scene_sampler, vec2<f32>(p0.x, p12.y), 0.0).rgb * left;
    color += textureSampleLevel(scene, scene_sampler, vec2<f32>(p3.x, p12.y), 0.0).rgb * right;
    color += textureSampleLevel(scene, scene_sampler, vec2<f32>(p12.x, p0.y), 0.0).rgb * up;
    color += textureSampleLevel(scene, scene_sampler, vec2<f32>(p12.x, p3.y), 0.0).rgb * down;
    color /= middle + left + right + up + down;
    // The kernel's negative lobes may overshoot below black at hard edges.
    return vec4<f32>(max(color, vec3<f32>(0.0)), 1.0);
}

// One bilinear tap: the last step of a two-step upscale, exactly 2× from a picture the
// bicubic filter drew at half the window's size.
@fragment
fn fs_bilinear(v: Varying) -> @location(0) vec4<f32> {
    return vec4<f32>(textureSampleLevel(scene, scene_sampler, v.uv, 0.0).rgb, 1.0);
}

// The first step of an exactly 2× upscale (a scene at half the window): the scene sharpened
// at its own size by the separable kernel [-3, 38, -3] / 32, into a float target (its
// values leave 0 … 1), for `fs_bilinear` to magnify. Per axis, a bilinear tap a quarter
// texel from a texel centre over the sharpened texels weighs the original four by
// (-9, 111, 29, -3) / 128 — Catmull-Rom's weights at that phase exactly — so the two steps
// are the bicubic filter, with all sixteen of its taps, for 9 loads a scene texel instead
// of 5 filtered taps a window pixel. Each sharpened texel is then held within the darkest
// and brightest of the nine it was made from: the cubic's negative lobes would otherwise
// ring, drawing a thin bright strand over a dark background with black (and, channel by
// channel, off-hue) pixels beside it. Edges clamp, as the sampler does (so along the
// window's outermost pixels the edge texels weigh a little differently from the cubic's).
@fragment
fn fs_sharpen(v: Varying) -> @location(0) vec4<f32> {
    let last = vec2<i32>(textureDimensions(scene)) - 1;
    let at = vec2<i32>(v.clip.xy);
    let k = vec3<f32>(-3.0, 38.0, -3.0) / 32.0;
    var color = vec3<f32>(0.0);
    var darkest = vec3<f32>(1e9);
    var brightest = vec3<f32>(-1e9);
    for (var dy = -1; dy <= 1; dy = dy + 1) {
        for (var dx = -1; dx <= 1; dx = dx + 1) {
            let texel = clamp(at + vec2<i32>(dx, dy), vec2<i32>(0), last);
            let c = textureLoad(scene, texel, 0).rgb;
            color += c * (k[dx + 1] * k[dy + 1]);
            darkest = min(darkest, c);
            brightest = max(brightest, c);
        }
    }
    return vec4<f32>(clamp(color, darkest, brightest), 1.0);
}
