// Camera-facing tapered ribbons built in the vertex shader straight from the solver's
// position buffer: five quads per strand, two vertices per strand point, no vertex buffer.
// Shared by the colour, hair-depth and deep-opacity passes (each draws the same ribbons,
// seen from its own `view`). Composed after the prelude (`src/shaders.rs`: POINTS,
// STRANDS_PER_BATCH, VERTICES_PER_STRAND) and `frame.wgsl`.
//
// The draw is indexed and instanced: one instance is a batch of 64 strands, and a small
// index buffer (30 indices per strand) names vertices 0..768 within the batch, so the GPU's
// vertex cache shares the 12 vertices of each strand between its 10 triangles.

// Six vec4 per strand: xyz world position, w 1 where the hand touched the point.
@group(1) @binding(0) var<storage, read> positions: array<vec4<f32>>;
// Rust twin: `render::ribbons::RibbonStrand`. x: pattern channels (unorm8×4),
// y: random value (f32 bits), z: part-space normal (octahedral, snorm16×2),
// w: space (low 8 bits) | tail parameter (unorm16, high 16 bits).
@group(1) @binding(1) var<storage, read> strands: array<vec4<u32>>;
// The strands in the order they are drawn (`render::strand_lod::drawn_order`): every prefix
// spread evenly over the body.
@group(1) @binding(3) var<storage, read> drawn_order: array<u32>;
// 1 for the strands the cull pass found hidden from the camera (read when
// `cull_hidden_strands` is 1; the camera's passes read it, the light's do not).
@group(1) @binding(2) var<storage, read> strand_culled: array<u32>;

// Whether the cull pass marked strand `s` (which must be below the strand count).
fn culled_for_camera(s: u32) -> bool {
    return frame.cull_hidden_strands == 1u && strand_culled[s] != 0u;
}

struct RibbonPoint {
    clip: vec4<f32>,
    world: vec3<f32>,
    tangent: vec3<f32>,
    // −1 … 1 across the ribbon.
    side: f32,
    // 0 at the root … 1 at the tip.
    along: f32,
    // True width over drawn width: ribbons narrower than a pixel are drawn a pixel wide
    // and this much less opaque, so thin far fur stays soft instead of shimmering.
    coverage: f32,
    strand: u32,
    // Which of the strand's points (0 at the root).
    point: u32,
    touched: f32,
}

fn octahedral_decode(packed: u32) -> vec3<f32> {
    let e = unpack2x16snorm(packed);
    var n = vec3<f32>(e.x, e.y, 1.0 - abs(e.x) - abs(e.y));
    if (n.z < 0.0) {
        let folded = (1.0 - abs(n.yx)) * select(vec2<f32>(-1.0), vec2<f32>(1.0), n.xy >= vec2<f32>(0.0));
        n = vec3<f32>(folded.x, folded.y, n.z);
    }
    return normalize(n);
}

fn strand_space(s: u32) -> u32 {
    return strands[s].w & 0xffu;
}

fn strand_tail_t(s: u32) -> f32 {
    return f32(strands[s].w >> 16u) / 65535.0;
}

fn strand_pattern(s: u32) -> vec4<f32> {
    return unpack4x8unorm(strands[s].x);
}

// The strand's base colour, linear: a body's own colour (the square root of linear in the
// pattern bytes when bits 8..16 of the space word are 1, `render::ribbons::DIRECT_COLOR`),
// else the coat's colour of its pattern channels.
fn strand_albedo(s: u32) -> vec3<f32> {
    let p = strand_pattern(s);
    if (((strands[s].w >> 8u) & 0xffu) == 1u) {
        return p.rgb * p.rgb;
    }
    return coat_color(p);
}

fn strand_random(s: u32) -> f32 {
    return bitcast<f32>(strands[s].y);
}

// The world-space surface normal at the strand's root, placed like the solver places it.
fn strand_normal(s: u32) -> vec3<f32> {
    let m = space_matrix(strand_space(s), strand_tail_t(s));
    let n = octahedral_decode(strands[s].z);
    return normalize((m * vec4<f32>(n, 0.0)).xyz);
}

// Strand level of detail: how many strands are drawn this frame, which strand the k-th
// drawn one is, and how opaque it is drawn. Every pass that draws strands (the ribbons,
// the shadows, the compute rasteriser) numbers its work by k below `drawn_count()` and asks
// the other two, so a subset of the coat can be drawn without the passes knowing how it
// is chosen: a prefix of the drawn order, sized by the coat on screen, its last strands
// fading so a changing count never pops (`render::strand_lod`).
fn drawn_count() -> u32 {
    return min(frame.lod_drawn, frame.strand_count);
}

fn drawn_strand(k: u32) -> u32 {
    return drawn_order[k];
}

fn drawn_weight(k: u32) -> f32 {
    return clamp((frame.lod_end - f32(k)) / frame.lod_fade, 0.0, 1.0);
}

// A strand point as every way of drawing the hair sees it (the ribbons' vertices and the
// compute rasteriser's segments): where it is, which way the strand runs, which way the
// ribbon spreads across the view, and how wide and opaque it is drawn.
struct StrandPoint {
    p: vec3<f32>,
    tangent: vec3<f32>,
    // Unit direction across the ribbon: perpendicular to the tangent and the view.
    across: vec3<f32>,
    // 0 at the root … 1 at the tip.
    along: f32,
    // Drawn width, metres: the true width, or `min_pixels` pixels where that is wider.
    drawn: f32,
    // True width over drawn width, times the strand's LOD weight.
    coverage: f32,
    touched: f32,
}

// The unit direction a strand runs at a point, from the points before and after it (the
// point itself at either end); straight up where they coincide.
fn strand_tangent(prev: vec3<f32>, next: vec3<f32>) -> vec3<f32> {
    let tangent = next - prev;
    let tangent_len = length(tangent);
    if (tangent_len > 1e-9) {
        return tangent / tangent_len;
    }
    return vec3<f32>(0.0, 1.0, 0.0);
}

// Point `i` of strand `s`, the `nth` strand drawn, seen from this pass's view.
fn strand_point(s: u32, nth: u32, i: u32) -> StrandPoint {
    var out: StrandPoint;
    let base = s * POINTS;
    let point = positions[base + i];
    let p = point.xyz;
    let prev = positions[base + max(i, 1u) - 1u].xyz;
    let next = positions[base + min(i + 1u, POINTS - 1u)].xyz;
    let tangent = strand_tangent(prev, next);
    let to_viewer = toward_viewer(p);
    var side = cross(tangent, to_viewer);
    let side_len = length(side);
    if (side_len > 1e-3) {
        side = side / side_len;
    } else {
        // Strand pointing at the viewer: any direction across it will do; take one that is
        // stable from frame to frame.
        let helper = select(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), abs(tangent.x) > 0.9);
        side = normalize(cross(tangent, helper));
    }
    out.p = p;
    out.tangent = tangent;
    out.across = side;
    out.along = f32(i) / f32(POINTS - 1u);
    let width = frame.root_width * frame.lod_width_scale * mix(1.0, frame.tip_width, out.along);
    out.drawn = max(width, frame.min_pixels * pixel_size(p));
    out.coverage = width / out.drawn * drawn_weight(nth);
    out.touched = point.w;
    return out;
}

// A strand point's shaded colour (linear HDR, 0 … 8) in one word, as the shading pass
// writes it and the ribbons and the compute rasteriser read it: the square roots of
// colour / 8 in 11, 11 and 10 bits. The root spends the bits where tone mapping keeps
// them: the relative step is 2 / (code) (1% at a tenth of full scale, under half a level
// of the sRGB output wherever the coat's colours fall), at half the memory of two unorm16
// pairs (10 MB rather than 20 for the full coat).
fn pack_point_color(c: vec3<f32>) -> u32 {
    let root = sqrt(clamp(c / 8.0, vec3<f32>(0.0), vec3<f32>(1.0)));
    let q = vec3<u32>(round(root * vec3<f32>(2047.0, 2047.0, 1023.0)));
    return q.x | (q.y << 11u) | (q.z << 22u);
}

fn unpack_point_color(word: u32) -> vec3<f32> {
    let q = vec3<f32>(f32(word & 0x7ffu), f32((word >> 11u) & 0x7ffu), f32(word >> 22u));
    let root = q / vec3<f32>(2047.0, 2047.0, 1023.0);
    return 8.0 * root * root;
}

fn ribbon_point(vertex_index: u32, instance: u32) -> RibbonPoint {
    var out: RibbonPoint;
    let local = vertex_index % (STRANDS_PER_BATCH * VERTICES_PER_STRAND);
    // This vertex belongs to the nth strand drawn.
    let nth = instance * STRANDS_PER_BATCH + local / VERTICES_PER_STRAND;
    let k = local % VERTICES_PER_STRAND;
    let i = k / 2u;
    out.side = select(-1.0, 1.0, (k & 1u) == 1u);
    if (nth >= drawn_count()) {
        // Past the last strand of a partial batch: outside the clip volume, culled, and
        // named by a strand index no coat has.
        out.strand = 0xffffffffu;
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    let s = drawn_strand(nth);
    out.strand = s;
    out.point = i;
    let g = strand_point(s, nth, i);
    out.along = g.along;
    out.coverage = g.coverage;
    out.world = g.p + g.across * (0.5 * g.drawn * out.side);
    out.clip = view.view_proj * vec4<f32>(out.world, 1.0);
    out.tangent = g.tangent;
    out.touched = g.touched;
    return out;
}

// Opacity of a ribbon fragment: soft lateral edges (1 − |side|⁴), the last `ribbon.z` of
// the length fading out, and the sub-pixel coverage.
fn ribbon_alpha(side: f32, along: f32, coverage: f32) -> f32 {
    let s2 = side * side;
    let edge = 1.0 - s2 * s2;
    let fade = clamp((1.0 - along) / max(frame.tip_fade, 1e-4), 0.0, 1.0);
    return clamp(edge * fade * coverage, 0.0, 1.0);
}

// Order-independent transparency by coverage: an opacity α covers round(α·samples) of the
// pixel's MSAA samples (dithered per pixel), and each strand picks *which* samples by its
// own hash, so two overlapping half-opaque strands cover about three quarters of the pixel
// instead of the same half. With one sample this is stochastic transparency.
fn coverage_mask(alpha: f32, strand: u32, pixel: vec2<f32>) -> u32 {
    return strand_coverage_mask(alpha, strand_coverage(strand), pixel);
}

// The part of `coverage_mask` that depends on the strand alone, worked out once for all of
// a strand's pixels (the compute rasteriser's walks; the integer remainder is a division
// per lane on SIMD software drivers).
struct StrandCoverage {
    // Seeds the per-pixel dither.
    hash: u32,
    // Which sample the strand's run of covered samples starts at.
    rot: u32,
}

fn strand_coverage(strand: u32) -> StrandCoverage {
    let samples = max(frame.msaa_samples, 1u);
    // Another dither hashes the strand with it first; the default's is the strand itself.
    var key = strand;
    if (frame.ribbon_dither != 0u) {
        key = hash_u32(strand ^ frame.ribbon_dither);
    }
    return StrandCoverage(hash_u32(key), hash_u32(key * 3u + 1u) % samples);
}

// `coverage_mask` of a strand whose `strand_coverage` is `strand`.
fn strand_coverage_mask(alpha: f32, strand: StrandCoverage, pixel: vec2<f32>) -> u32 {
    let samples = max(frame.msaa_samples, 1u);
    let cell = (u32(pixel.x) & 0xffffu) | (u32(pixel.y) << 16u);
    let dither = hash_unit(cell ^ strand.hash);
    let n = min(u32(floor(alpha * f32(samples) + dither)), samples);
    if (n == 0u) {
        return 0u;
    }
    let all = (1u << samples) - 1u;
    let full = (1u << n) - 1u;
    let rot = strand.rot;
    return ((full << rot) | (full >> (samples - rot))) & all;
}
