// The compute rasteriser's resolve: draws of the tiles with hair (listed by `cs_hair_tiles`),
// one per MSAA sample (or one shading per sample, `render/hair_resolve_per_sample.wgsl`,
// appended where the adapter can), that write, where
// a hair sample is nearer than what the surfaces drew (the depth test), its tone-mapped
// colour, ID_HAIR and its depth into the camera's MSAA targets, so the overlay, the IDs and
// the MSAA resolve work as they do after the ribbons. The colour is the ribbons': the
// winning triangle's three vertex colours interpolated at the pixel centre. Composed after
// `frame.wgsl`, `ribbon_geometry.wgsl` and `strand_segments.wgsl`.

@group(3) @binding(0) var<uniform> raster: RasterUniforms;
// Per sample: the nearest hair's inverted code and depth bits (`hair_raster.wgsl`).
@group(3) @binding(1) var<storage, read> sample_nearest: array<vec2<u32>>;
// Per strand point: its shaded colour (`pack_point_color`), from the ribbons' shading pass
// (`ribbon_shading.wgsl`) this frame.
@group(3) @binding(2) var<storage, read> point_colors: array<u32>;

struct ResolveOut {
    @location(0) color: vec4<f32>,
    @location(1) id: u32,
    @builtin(frag_depth) depth: f32,
}

fn point_color(s: u32, i: u32) -> vec3<f32> {
    return unpack_point_color(point_colors[s * POINTS + i]);
}

// The fragment of MSAA sample `sample` (one entry point per sample, each in a pipeline
// whose sample mask holds only that sample: no per-sample shading capability is needed).
fn resolve_sample(position: vec4<f32>, sample: u32) -> ResolveOut {
    let px = vec2<u32>(position.xy);
    let slot = (px.y * raster.width + px.x) * raster.samples + sample;
    let nearest = sample_nearest[slot];
    let hair = nearest.x;
    if (hair == 0u) {
        discard;
    }
    let code = 0xffffffffu - hair;
    let segment = code / 2u;
    let t = code % 2u;
    let nth = segment / SEGMENTS;
    let j = segment % SEGMENTS;
    let s = drawn_strand(nth);
    let q = segment_quad(s, nth, j, vec2<f32>(f32(raster.width), f32(raster.height)));
    let w = perspective_weights(quad_triangle(q, t), vec2<f32>(px) + 0.5);
    // Triangle 0 is (j, j, j + 1), triangle 1 (j + 1, j, j + 1) in points.
    let a = point_color(s, j + t);
    let b = point_color(s, j);
    let c = point_color(s, j + 1u);
    var out: ResolveOut;
    out.color = vec4<f32>(tone_map(w.x * a + w.y * b + w.z * c), 1.0);
    out.id = ID_HAIR;
    out.depth = bitcast<f32>(nearest.y);
    return out;
}

@fragment
fn fs_resolve_0(@builtin(position) position: vec4<f32>) -> ResolveOut {
    return resolve_sample(position, 0u);
}

@fragment
fn fs_resolve_1(@builtin(position) position: vec4<f32>) -> ResolveOut {
    return resolve_sample(position, 1u);
}

@fragment
fn fs_resolve_2(@builtin(position) position: vec4<f32>) -> ResolveOut {
    return resolve_sample(position, 2u);
}

@fragment
fn fs_resolve_3(@builtin(position) position: vec4<f32>) -> ResolveOut {
    return resolve_sample(position, 3u);
}
