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
    // Twice the signed area in pixels.
    area: f32,
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
    tri.area = edge(tri.a.xy, tri.b.xy, tri.c.xy);
    return tri;
}

// Screen-space barycentric weights of a, b, c at `p`.
fn barycentric(tri: ScreenTriangle, p: vec2<f32>) -> vec3<f32> {
    return vec3<f32>(edge(tri.b.xy, tri.c.xy, p), edge(tri.c.xy, tri.a.xy, p), edge(tri.a.xy, tri.b.xy, p)) / tri.area;
}

// Perspective-correct weights of a, b, c at `p` (for the attributes).
fn perspective_weights(tri: ScreenTriangle, p: vec2<f32>) -> vec3<f32> {
    let w = barycentric(tri, p) * vec3<f32>(tri.a.inv_w, tri.b.inv_w, tri.c.inv_w);
    return w / (w.x + w.y + w.z);
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
