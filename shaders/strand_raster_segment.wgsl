// A strand segment on screen as the strand rasteriser sees it (`render::strand_raster`):
// its two ends in pixels, their depth, the ribbon's half-width in pixels and opacity at
// each end, and the two points' shaded colours; and what it leaves at one pixel centre.
// Shared by the binning and the drawing passes, so both agree on which pixels a segment
// touches. Composed after `frame.wgsl` and `ribbon_geometry.wgsl` (the widths, the
// sub-pixel coverage, the LOD weight and the tip fade are the ribbons' own).

// Rust twin: `render::strand_raster::StrandRasterUniforms`.
struct StrandRasterUniforms {
    // The target's size in pixels, and in tiles of STRAND_RASTER_TILE pixels a side.
    width: u32,
    height: u32,
    tiles_x: u32,
    tiles_y: u32,
    // Entries of each tile's list (at most STRAND_RASTER_MAX_CAPACITY).
    capacity: u32,
}

// The per-tile counters, after two frame-wide ones (read back by `StrandRaster::overflow`).
struct TileCounts {
    // Tile entries that found their tile's list full.
    overflow_entries: atomic<u32>,
    // Tiles drawn by the slow path (their list overflowed).
    overflow_tiles: atomic<u32>,
    pad0: u32,
    pad1: u32,
    // Segments that touch each tile (may exceed the capacity).
    count: array<atomic<u32>>,
}

@group(2) @binding(0) var<uniform> raster: StrandRasterUniforms;
@group(2) @binding(1) var<storage, read_write> counts: TileCounts;
// Tile t's list: segment numbers at t * capacity … (t + 1) * capacity, in no order.
@group(2) @binding(2) var<storage, read_write> tile_items: array<u32>;
// Each drawn strand point's shaded colour (`pack_point_color`, the ribbons' shading pass).
@group(2) @binding(3) var<storage, read> shaded_points: array<u32>;

// A segment set up for drawing. `ends`: pixel positions of point j and point j + 1.
// `depth_width`: their reversed depths (near is 1), then the ribbon's drawn half-width in
// pixels at each. `words`: the coverage at each end (true over drawn width times the LOD
// weight, unorm16×2), j, and the two points' packed colours (`pack_point_color`).
struct ScreenSegment {
    ends: vec4<f32>,
    depth_width: vec4<f32>,
    words: vec4<u32>,
}

// Segment `seg` (strand `seg / SEGMENTS` of the drawn order, its segment `seg % SEGMENTS`)
// on a target of `size`, and whether both ends lie in front of the camera (a segment
// reaching behind it is skipped, as the compute rasteriser skips it).
struct SegmentSetup {
    segment: ScreenSegment,
    visible: bool,
}

fn to_pixels(clip: vec4<f32>, size: vec2<f32>) -> vec3<f32> {
    let ndc = clip.xyz / clip.w;
    return vec3<f32>((ndc.x * 0.5 + 0.5) * size.x, (0.5 - ndc.y * 0.5) * size.y, ndc.z);
}

fn screen_segment(seg: u32, size: vec2<f32>) -> SegmentSetup {
    let nth = seg / SEGMENTS;
    let j = seg % SEGMENTS;
    let s = drawn_strand(nth);
    let g0 = strand_point(s, nth, j);
    let g1 = strand_point(s, nth, j + 1u);
    let c0 = view.view_proj * vec4<f32>(g0.p, 1.0);
    let c1 = view.view_proj * vec4<f32>(g1.p, 1.0);
    var out: SegmentSetup;
    out.visible = min(c0.w, c1.w) > 0.0;
    let w0 = max(c0.w, 1e-6);
    let w1 = max(c1.w, 1e-6);
    let p0 = to_pixels(vec4<f32>(c0.xyz, w0), size);
    let p1 = to_pixels(vec4<f32>(c1.xyz, w1), size);
    out.segment.ends = vec4<f32>(p0.xy, p1.xy);
    out.segment.depth_width = vec4<f32>(
        p0.z,
        p1.z,
        0.5 * g0.drawn / pixel_size(g0.p),
        0.5 * g1.drawn / pixel_size(g1.p),
    );
    let base = s * POINTS + j;
    out.segment.words = vec4<u32>(
        pack2x16unorm(vec2<f32>(g0.coverage, g1.coverage)),
        j,
        shaded_points[base],
        shaded_points[base + 1u],
    );
    return out;
}

// Whether the segment may leave anything in the tile of pixels `lo` … `lo + TILE`: its
// distance from the tile's centre is within the tile's half-diagonal and its widest
// half-width. Conservative: every pixel `segment_fragment` covers passes it.
fn segment_near_tile(r: ScreenSegment, lo: vec2<f32>) -> bool {
    let half = 0.5 * f32(STRAND_RASTER_TILE);
    let centre = lo + vec2<f32>(half);
    let a = r.ends.xy;
    let ab = r.ends.zw - a;
    let len2 = dot(ab, ab);
    let t = select(0.0, clamp(dot(centre - a, ab) / len2, 0.0, 1.0), len2 > 1e-12);
    let reach = half * 1.4142136 + max(r.depth_width.z, r.depth_width.w) + 1.0;
    return distance(centre, a + ab * t) <= reach;
}

// The nearest depth of the segment (reversed: the larger), the key it is sorted by.
fn segment_nearest(r: ScreenSegment) -> f32 {
    return max(r.depth_width.x, r.depth_width.y);
}

// What a segment leaves at one pixel centre: its opacity there (0 for none), its depth
// and its tone-mapped colour (as the ribbons write it before the MSAA resolve).
struct Fragment {
    alpha: f32,
    depth: f32,
    color: vec3<f32>,
}

// The segment at pixel centre `pixel`. The pixel belongs to the segment where its
// projection onto the centre line falls in [0, 1): segments meet end to end, as the
// ribbons' quads do, with no overlap at the joints. Opacity: the share of the pixel the
// ribbon covers (one-pixel soft edge, from the distance to the centre line against the
// half-width) times the ribbons' own opacity at the centre (`ribbon_alpha`: the soft edge
// 1 − side⁴, the tip fade and the sub-pixel coverage).
fn segment_fragment(r: ScreenSegment, pixel: vec2<f32>) -> Fragment {
    var f: Fragment;
    f.alpha = 0.0;
    let a = r.ends.xy;
    let ab = r.ends.zw - a;
    let len2 = dot(ab, ab);
    let t = select(0.0, dot(pixel - a, ab) / len2, len2 > 1e-12);
    if (t < 0.0 || t >= 1.0) {
        return f;
    }
    let d = distance(pixel, a + ab * t);
    let hw = mix(r.depth_width.z, r.depth_width.w, t);
    if (d >= hw) {
        return f;
    }
    let cov = unpack2x16unorm(r.words.x);
    let along = (f32(r.words.y) + t) / f32(SEGMENTS);
    let geometric = clamp(0.5 + hw - d, 0.0, 1.0);
    f.alpha = geometric * ribbon_alpha(d / hw, along, mix(cov.x, cov.y, t));
    f.depth = mix(r.depth_width.x, r.depth_width.y, t);
    let c0 = unpack_point_color(r.words.z);
    let c1 = unpack_point_color(r.words.w);
    f.color = tone_map(mix(c0, c1, t));
    return f;
}
