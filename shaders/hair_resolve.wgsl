// The compute rasteriser's resolve: draws of the tiles with hair (listed by `cs_hair_tiles`),
// one per MSAA sample (or one shading per sample, `render/hair_resolve_per_sample.wgsl`,
// appended where the adapter can), that write, where
// a hair sample is nearer than what the surfaces drew (the depth test), its tone-mapped
// colour, ID_HAIR and its depth into the camera's MSAA targets, so the overlay, the IDs and
// the MSAA resolve work as they do after the ribbons. The colour is the ribbons': the
// winning triangle's vertex colours interpolated at the pixel centre, which is the blend of
// its segment's two points' colours by how far along the segment the centre is (the walk
// keeps that in the code's low bits, from −1 to 2 in 4,095 steps for up to 26,214 strands
// and 127 at worst). Composed after
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
    // The walk's code: segment and triangle, then where along the segment the pixel
    // centre is (`sample_code` in `hair_raster.wgsl`).
    let code = 0xffffffffu - hair;
    let steps = (1u << raster.along_bits) - 1u;
    let along = ALONG_LOW + ALONG_SPAN * f32(code & steps) / f32(steps);
    let segment = (code >> raster.along_bits) / 2u;
    let nth = segment / SEGMENTS;
    let j = segment % SEGMENTS;
    let s = drawn_strand(nth);
    var out: ResolveOut;
    out.color = vec4<f32>(tone_map(mix(point_color(s, j), point_color(s, j + 1u), along)), 1.0);
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
