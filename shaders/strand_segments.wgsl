// A strand segment on screen exactly as the ribbons pass draws it: the quad between two
// strand points, split into the same two triangles as the ribbons' index buffer, with the
// hardware's rules for which MSAA samples a triangle covers (the standard sample
// positions) and how attributes are interpolated (perspective-correct, at the pixel
// centre) and depth (linear in screen space, at each sample). Shared by the compute
// rasteriser and its resolve. Composed after `frame.wgsl` and `ribbon_geometry.wgsl`.

// Rust twin: `render::compute_raster::RasterUniforms`.
struct RasterUniforms {
    // The camera target's size in pixels and MSAA samples.
    width: u32,
    height: u32,
    samples: u32,
    // Entries of the long-segment queue (more are drawn by the thread that found them).
    queue_capacity: u32,
    // Low bits of a camera sample's code that hold where along its segment the hair is
    // (`sample_code` in `hair_raster.wgsl`).
    along_bits: u32,
}

// A ribbon vertex on screen: pixel position, depth (reversed: near is 1), 1/w, and the
// attributes the fragment shader reads.
struct ScreenVertex {
    xy: vec2<f32>,
    depth: f32,
    inv_w: f32,
    side: f32,
    along: f32,
    coverage: f32,
}

// A segment's four vertices: point j's two sides (a, b), point j + 1's (c, d).
struct ScreenQuad {
    v0: ScreenVertex,
    v1: ScreenVertex,
    v2: ScreenVertex,
    v3: ScreenVertex,
    // False when a vertex lies behind the camera (the segment is then skipped).
    visible: bool,
}

struct ScreenTriangle {
    a: ScreenVertex,
    b: ScreenVertex,
    c: ScreenVertex,
}

fn screen_vertex(g: StrandPoint, side: f32, size: vec2<f32>) -> ScreenVertex {
    let world = g.p + g.across * (0.5 * g.drawn * side);
    let clip = view.view_proj * vec4<f32>(world, 1.0);
    var v: ScreenVertex;
    v.inv_w = 1.0 / clip.w;
    let ndc = clip.xyz * v.inv_w;
    v.xy = vec2<f32>((ndc.x * 0.5 + 0.5) * size.x, (0.5 - ndc.y * 0.5) * size.y);
    v.depth = ndc.z;
    v.side = side;
    v.along = g.along;
    v.coverage = g.coverage;
    return v;
}

// Segment j (0 … SEGMENTS − 1) of strand `s`, the `nth` drawn, on a target of `size`.
fn segment_quad(s: u32, nth: u32, j: u32, size: vec2<f32>) -> ScreenQuad {
    let g0 = strand_point(s, nth, j);
    let g1 = strand_point(s, nth, j + 1u);
    var q: ScreenQuad;
    q.v0 = screen_vertex(g0, -1.0, size);
    q.v1 = screen_vertex(g0, 1.0, size);
    q.v2 = screen_vertex(g1, -1.0, size);
    q.v3 = screen_vertex(g1, 1.0, size);
    q.visible = min(min(q.v0.inv_w, q.v1.inv_w), min(q.v2.inv_w, q.v3.inv_w)) > 0.0;
    return q;
}

fn edge(a: vec2<f32>, b: vec2<f32>, p: vec2<f32>) -> f32 {
    return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
}

// Triangle t of the quad, in the ribbons' index order: (0, 1, 2) then (2, 1, 3).
fn quad_triangle(q: ScreenQuad, t: u32) -> ScreenTriangle {
    var tri: ScreenTriangle;
    if (t == 0u) {
        tri.a = q.v0;
        tri.b = q.v1;
        tri.c = q.v2;
    } else {
        tri.a = q.v2;
        tri.b = q.v1;
        tri.c = q.v3;
    }
    return tri;
}

// The standard sample positions within a pixel: 4× MSAA's, or the centre for one sample.
fn sample_position(k: u32, samples: u32) -> vec2<f32> {
    if (samples == 1u) {
        return vec2<f32>(0.5, 0.5);
    }
    // (0.375, 0.125), (0.875, 0.375), (0.125, 0.625), (0.625, 0.875), by arithmetic: a
    // private array indexed per lane is slow on SIMD software drivers.
    let i = f32(k & 3u);
    let half = f32((k & 3u) >> 1u);
    return vec2<f32>(fract(0.375 + 0.5 * i - 0.25 * half), 0.125 + 0.25 * i);
}

// Bounding box of the quad in pixels (x0, y0, x1, y1 inclusive), clamped to the target;
// empty (x1 < x0) when it misses the target.
fn quad_pixels(q: ScreenQuad, size: vec2<u32>) -> vec4<i32> {
    let lo = min(min(q.v0.xy, q.v1.xy), min(q.v2.xy, q.v3.xy));
    let hi = max(max(q.v0.xy, q.v1.xy), max(q.v2.xy, q.v3.xy));
    let limit = vec2<f32>(size) - 1.0;
    let a = vec2<i32>(floor(clamp(lo, vec2<f32>(-1.0), limit + 1.0)));
    let b = vec2<i32>(floor(clamp(hi, vec2<f32>(-1.0), limit + 1.0)));
    let first = max(a, vec2<i32>(0));
    let last = min(b, vec2<i32>(size) - 1);
    return vec4<i32>(first, last);
}

// Whether any sample of pixel `px` can lie inside the quad: the quad lies within the
// capsule of its centre line and half its wider end, and a sample within 0.71 pixels of
// the pixel's centre. A cheap test that skips most of the box of a thin diagonal segment
// without changing a sample.
fn quad_near(q: ScreenQuad, px: vec2<i32>) -> bool {
    let m0 = 0.5 * (q.v0.xy + q.v1.xy);
    let m1 = 0.5 * (q.v2.xy + q.v3.xy);
    let reach = 0.5 * max(distance(q.v0.xy, q.v1.xy), distance(q.v2.xy, q.v3.xy)) + 0.75;
    let p = vec2<f32>(px) + 0.5;
    let d = m1 - m0;
    let h = clamp(dot(p - m0, d) / max(dot(d, d), 1e-12), 0.0, 1.0);
    return distance(p, m0 + d * h) <= reach;
}

// A triangle set up once for a walk over its pixels: its barycentric weights as planes in
// pixel coordinates relative to the walk's origin (the weights at r: bx·r.x + by·r.y + b0),
// and its vertices' values, so a sample costs three multiply-adds a weight rather than
// three edge functions and a division.
struct TrianglePlanes {
    bx: vec3<f32>,
    by: vec3<f32>,
    b0: vec3<f32>,
    depth: vec3<f32>,
    inv_w: vec3<f32>,
    side: vec3<f32>,
    along: vec3<f32>,
    coverage: vec3<f32>,
    // False for a triangle of no area: it covers nothing.
    valid: bool,
}

// The weights' planes of one edge function: edge(u, v, r) = ex·r.x + ey·r.y + e0.
fn edge_plane(u: vec2<f32>, v: vec2<f32>) -> vec3<f32> {
    let d = v - u;
    return vec3<f32>(-d.y, d.x, d.y * u.x - d.x * u.y);
}

fn triangle_planes(tri: ScreenTriangle, origin: vec2<f32>) -> TrianglePlanes {
    // Local coordinates keep the planes' constant terms small (no cancellation at
    // 1080p for triangles a tenth of a pixel wide).
    let a = tri.a.xy - origin;
    let b = tri.b.xy - origin;
    let c = tri.c.xy - origin;
    let area = edge(a, b, c);
    var p: TrianglePlanes;
    p.valid = area != 0.0;
    let inv_area = select(0.0, 1.0 / area, p.valid);
    let wa = edge_plane(b, c) * inv_area;
    let wb = edge_plane(c, a) * inv_area;
    let wc = edge_plane(a, b) * inv_area;
    p.bx = vec3<f32>(wa.x, wb.x, wc.x);
    p.by = vec3<f32>(wa.y, wb.y, wc.y);
    p.b0 = vec3<f32>(wa.z, wb.z, wc.z);
    p.depth = vec3<f32>(tri.a.depth, tri.b.depth, tri.c.depth);
    p.inv_w = vec3<f32>(tri.a.inv_w, tri.b.inv_w, tri.c.inv_w);
    p.side = vec3<f32>(tri.a.side, tri.b.side, tri.c.side);
    p.along = vec3<f32>(tri.a.along, tri.b.along, tri.c.along);
    p.coverage = vec3<f32>(tri.a.coverage, tri.b.coverage, tri.c.coverage);
    return p;
}

// Barycentric weights at the local point `r`.
fn planes_at(p: TrianglePlanes, r: vec2<f32>) -> vec3<f32> {
    return p.bx * r.x + p.by * r.y + p.b0;
}

// Barycentric weights at `offset` from a point where they are `at` (an offset within a
// pixel from its corner: small, so the sum loses nothing that matters to a sample's test).
fn sample_weights(p: TrianglePlanes, at: vec3<f32>, offset: vec2<f32>) -> vec3<f32> {
    return at + p.bx * offset.x + p.by * offset.y;
}

// Perspective-correct weights at the local point `r` (for the attributes).
fn planes_perspective(p: TrianglePlanes, r: vec2<f32>) -> vec3<f32> {
    let w = planes_at(p, r) * p.inv_w;
    return w / (w.x + w.y + w.z);
}

// A segment set up once for its walk: both triangles' planes, relative to the pixel box's
// first corner (so a pixel's local corner is an exact small integer).
struct SegmentSetup {
    origin: vec2<f32>,
    tri0: TrianglePlanes,
    tri1: TrianglePlanes,
    // The bits of the segment's nearest depth (reversed: the greatest of its corners'),
    // raised by 0.1% to cover the rounding of depths interpolated inside it; all ones
    // when no corner lies in front of the camera (nothing is skipped).
    nearest_bits: u32,
}

fn segment_setup(q: ScreenQuad, box: vec4<i32>) -> SegmentSetup {
    var setup: SegmentSetup;
    setup.origin = vec2<f32>(box.xy);
    let nearest = max(max(q.v0.depth, q.v1.depth), max(q.v2.depth, q.v3.depth));
    setup.nearest_bits = select(0xffffffffu, bitcast<u32>(nearest * 1.001), nearest > 0.0);
    setup.tri0 = triangle_planes(quad_triangle(q, 0u), setup.origin);
    setup.tri1 = triangle_planes(quad_triangle(q, 1u), setup.origin);
    return setup;
}

fn setup_triangle(setup: SegmentSetup, t: u32) -> TrianglePlanes {
    if (t == 0u) {
        return setup.tri0;
    }
    return setup.tri1;
}

// Widens `span` (x from, x to) by the part of the line from `p` to `q` within rows y0 … y1.
fn edge_span(span: vec2<f32>, p: vec2<f32>, q: vec2<f32>, y0: f32, y1: f32) -> vec2<f32> {
    if (max(p.y, q.y) < y0 || min(p.y, q.y) > y1) {
        return span;
    }
    var x0 = p.x;
    var x1 = q.x;
    let dy = q.y - p.y;
    if (dy != 0.0) {
        x0 = p.x + (q.x - p.x) * clamp((y0 - p.y) / dy, 0.0, 1.0);
        x1 = p.x + (q.x - p.x) * clamp((y1 - p.y) / dy, 0.0, 1.0);
    }
    return vec2<f32>(min(span.x, min(x0, x1)), max(span.y, max(x0, x1)));
}

// The pixels of row `y` of `box` whose samples can lie inside the quad (x from, x to;
// empty when to < from): the x extent of the quad's convex hull between the row's first
// and last sample rows, from the six lines between its corners (those include the hull's
// edges). Walking these spans rather than the whole box skips most pixels of a thin
// diagonal segment without changing a sample.
fn quad_row_span(q: ScreenQuad, y: i32, box: vec4<i32>, samples: u32) -> vec2<i32> {
    var lo = 0.5;
    var hi = 0.5;
    if (samples > 1u) {
        lo = 0.125;
        hi = 0.875;
    }
    let y0 = f32(y) + lo;
    let y1 = f32(y) + hi;
    var span = vec2<f32>(1e9, -1e9);
    span = edge_span(span, q.v0.xy, q.v1.xy, y0, y1);
    span = edge_span(span, q.v0.xy, q.v2.xy, y0, y1);
    span = edge_span(span, q.v0.xy, q.v3.xy, y0, y1);
    span = edge_span(span, q.v1.xy, q.v2.xy, y0, y1);
    span = edge_span(span, q.v1.xy, q.v3.xy, y0, y1);
    span = edge_span(span, q.v2.xy, q.v3.xy, y0, y1);
    // A margin for rounding; the samples' own tests decide.
    let limit = vec2<f32>(f32(box.x) - 1.0, f32(box.z) + 1.0);
    let x = clamp(floor(span + vec2<f32>(-0.01, 0.01)), vec2<f32>(limit.x), vec2<f32>(limit.y));
    return vec2<i32>(max(i32(x.x), box.x), min(i32(x.y), box.z));
}

// A walk over the pixels of a quad's row spans (`quad_row_span`) as one loop: the pixel
// (x, y) in hand, and the span of its row. One loop rather than a loop over rows around a
// loop over each row's pixels, because a SIMD driver (lavapipe) runs a batch of threads
// through a loop as long as its longest: nested, as many rows as the tallest segment of
// the batch times the widest row of any, so a steep strand beside a flat one cost both;
// flat, the most pixels any segment of the batch has.
struct SpanWalk {
    x: i32,
    y: i32,
    span: vec2<i32>,
}

// A walk before the first pixel of `box`: its first `span_walk_next` finds it.
fn span_walk_start(box: vec4<i32>) -> SpanWalk {
    return SpanWalk(0, box.y - 1, vec2<i32>(1, 0));
}

// Moves `walk` to the quad's next pixel in `box` (row by row, left to right, skipping rows
// with none); false when there is none.
fn span_walk_next(walk: ptr<function, SpanWalk>, q: ScreenQuad, box: vec4<i32>, samples: u32) -> bool {
    (*walk).x = (*walk).x + 1;
    if ((*walk).x > (*walk).span.y) {
        loop {
            (*walk).y = (*walk).y + 1;
            if ((*walk).y > box.w) {
                return false;
            }
            (*walk).span = quad_row_span(q, (*walk).y, box, samples);
            if ((*walk).span.x <= (*walk).span.y) {
                break;
            }
        }
        (*walk).x = (*walk).span.x;
    }
    return true;
}

// The resolves' tiles (every module that composes this file declares `raster`): tiles
// across, tiles in all, and vertex i of tile `tile`'s two triangles (row-major numbers,
// the instances of a resolve's indirect draw).
fn tiles_across() -> u32 {
    return (raster.width + RESOLVE_TILE - 1u) / RESOLVE_TILE;
}

fn tile_count() -> u32 {
    return tiles_across() * ((raster.height + RESOLVE_TILE - 1u) / RESOLVE_TILE);
}

@vertex
fn vs_tile(@builtin(vertex_index) i: u32, @location(0) tile: u32) -> @builtin(position) vec4<f32> {
    let across = tiles_across();
    // Corners (0, 0) (1, 0) (0, 1), (0, 1) (1, 0) (1, 1) by bit masks.
    let corner = vec2<u32>((0x32u >> i) & 1u, (0x2cu >> i) & 1u);
    let size = vec2<u32>(raster.width, raster.height);
    let pixel = min((vec2<u32>(tile % across, tile / across) + corner) * RESOLVE_TILE, size);
    let ndc = vec2<f32>(pixel) / vec2<f32>(size) * 2.0 - 1.0;
    return vec4<f32>(ndc.x, -ndc.y, 0.0, 1.0);
}
