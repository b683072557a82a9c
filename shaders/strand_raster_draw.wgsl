// The strand rasteriser's drawing (`render::strand_raster`): one workgroup per 8×8 tile,
// one thread per pixel, one sample at the pixel centre. The tile's segments (its list from
// the binning pass) are set up once into workgroup memory and sorted front to back by their
// nearest depth (ties by segment number, so the order, and the picture, is the same every
// run); each pixel then keeps its STRAND_RASTER_LAYERS nearest fragments sorted and blends
// them exactly, blends the rest behind them in the order it falls out, and stops once the fragments in
// front of every later segment let through less than STRAND_RASTER_OPAQUE_T. A tile whose
// list overflowed finds its segments again itself, 64 at a time over every drawn segment
// (slower, the same picture). Out: premultiplied linear RGB and transmittance per pixel,
// unorm16×4. Composed after `frame.wgsl`, `ribbon_geometry.wgsl`, `strand_raster_segment.wgsl`.

@group(2) @binding(4) var<storage, read_write> hair_out: array<vec2<u32>>;
// The surfaces' depth (reversed: near is 1), multisampled or not: one entry point each.
@group(2) @binding(5) var surface_depth_ms: texture_depth_multisampled_2d;
@group(2) @binding(6) var surface_depth_single: texture_depth_2d;

// The tile's segments, set up once for all its pixels, and their order.
var<workgroup> records: array<ScreenSegment, STRAND_RASTER_MAX_CAPACITY>;
var<workgroup> keys: array<u32, STRAND_RASTER_MAX_CAPACITY>;
var<workgroup> seg_ids: array<u32, STRAND_RASTER_MAX_CAPACITY>;
var<workgroup> order: array<u32, STRAND_RASTER_MAX_CAPACITY>;
var<workgroup> listed: u32;
// The slow path's segments near the tile among the 64 set up, one bit each.
var<workgroup> near_bits: array<atomic<u32>, 2>;

// One pixel's fragments: the nearest ones sorted (reversed depth: the largest first; an
// empty slot has depth −1 and opacity 0), and the rest, each fragment blended behind those
// that fell out before it: premultiplied colour and Π (1 − α). Every loop over the slots has a fixed count, so a compiler can unroll
// it and keep the slots in registers (a CPU driver spills arrays indexed at run time).
struct Layers {
    depth: array<f32, STRAND_RASTER_LAYERS>,
    alpha: array<f32, STRAND_RASTER_LAYERS>,
    color: array<vec3<f32>, STRAND_RASTER_LAYERS>,
    rest_color: vec3<f32>,
    rest_t: f32,
}

var<private> layers: Layers;
// The surfaces' depth at this pixel's samples.
var<private> surface: array<f32, 4>;
var<private> surface_samples: u32;

fn clear_layers() {
    for (var i = 0u; i < STRAND_RASTER_LAYERS; i = i + 1u) {
        layers.depth[i] = -1.0;
        layers.alpha[i] = 0.0;
        layers.color[i] = vec3<f32>(0.0);
    }
    layers.rest_color = vec3<f32>(0.0);
    layers.rest_t = 1.0;
}

// Keeps the fragment among the nearest if it is one of them: it takes the first slot it is
// nearer than, and each slot it passes on moves one back; what falls off the end (the
// farthest, or an empty slot) goes to the rest. Equal depths keep the order they came in.
fn add_fragment(depth: f32, alpha: f32, color: vec3<f32>) {
    var d = depth;
    var a = alpha;
    var c = color;
    for (var i = 0u; i < STRAND_RASTER_LAYERS; i = i + 1u) {
        let take = d > layers.depth[i];
        let kept_d = layers.depth[i];
        let kept_a = layers.alpha[i];
        let kept_c = layers.color[i];
        layers.depth[i] = select(kept_d, d, take);
        layers.alpha[i] = select(kept_a, a, take);
        layers.color[i] = select(kept_c, c, take);
        d = select(d, kept_d, take);
        a = select(a, kept_a, take);
        c = select(c, kept_c, take);
    }
    if (a > 0.0) {
        // Behind what fell out before it (Rust twin: `take` in src/raster/blend.rs).
        layers.rest_color = layers.rest_color + layers.rest_t * a * c;
        layers.rest_t = layers.rest_t * (1.0 - a);
    }
}

// Light let through by the kept fragments at or in front of `depth`: every fragment of a
// segment whose nearest depth is `depth` lies behind them.
fn transmittance_in_front(depth: f32) -> f32 {
    var t = 1.0;
    for (var i = 0u; i < STRAND_RASTER_LAYERS; i = i + 1u) {
        t = t * select(1.0, 1.0 - layers.alpha[i], layers.depth[i] >= depth);
    }
    return t;
}

// Adds what the tile's set-up segment `k` leaves at `pixel`, unless fragments in front of
// all of it already hide it (its share would be under STRAND_RASTER_OPAQUE_T). False when
// it is hidden so.
fn draw_segment(k: u32, pixel: vec2<f32>) -> bool {
    // A pixel row the segment cannot reach is skipped first, having read only the ends
    // and widths: the threads of a row run together on a SIMD driver, so most rows of a
    // tile skip most segments here.
    let ends = records[k].ends;
    let depth_width = records[k].depth_width;
    let reach = max(depth_width.z, depth_width.w);
    if (abs(pixel.y - 0.5 * (ends.y + ends.w)) > 0.5 * abs(ends.y - ends.w) + reach) {
        return true;
    }
    if (transmittance_in_front(max(depth_width.x, depth_width.y)) < STRAND_RASTER_OPAQUE_T) {
        return false;
    }
    let r = records[k];
    let f = segment_fragment(r, pixel);
    if (f.alpha <= 0.0) {
        return true;
    }
    // The share of the pixel's samples where the hair is in front of the surfaces (the
    // ribbons are depth-tested per sample).
    var shown = 0u;
    for (var k = 0u; k < surface_samples; k = k + 1u) {
        shown = shown + select(0u, 1u, f.depth >= surface[k]);
    }
    let alpha = f.alpha * f32(shown) / f32(surface_samples);
    if (alpha > 0.0) {
        add_fragment(f.depth, alpha, f.color);
    }
    return true;
}

// The kept fragments front to back, then the rest (premultiplied, in the order it fell out of
// them) behind them: premultiplied colour and transmittance.
fn resolve_layers() -> vec4<f32> {
    var rgb = vec3<f32>(0.0);
    var t = 1.0;
    for (var i = 0u; i < STRAND_RASTER_LAYERS; i = i + 1u) {
        rgb = rgb + t * layers.alpha[i] * layers.color[i];
        t = t * (1.0 - layers.alpha[i]);
    }
    rgb = rgb + t * layers.rest_color;
    t = t * layers.rest_t;
    return vec4<f32>(rgb, t);
}

// Whether listed segment `a` comes before `b`: nearer first, ties by segment number (the
// numbers differ, so the order is total and the same whatever order the list was filled in).
fn before(a: u32, b: u32) -> bool {
    return keys[a] < keys[b] || (keys[a] == keys[b] && seg_ids[a] < seg_ids[b]);
}

// Sorts the tile's `n` listed segments into `order` by ranking: each thread counts, for
// each of its entries, the entries that come before it. More comparisons than a sorting
// network, but a single barrier: a CPU driver runs every thread of the workgroup up to
// each barrier in turn, and a network's dozens of them cost more than the comparisons.
fn sort_order(n: u32, li: u32) {
    let threads = STRAND_RASTER_TILE * STRAND_RASTER_TILE;
    for (var i = li; i < n; i = i + threads) {
        var rank = 0u;
        for (var j = 0u; j < n; j = j + 1u) {
            rank = rank + select(0u, 1u, before(j, i));
        }
        order[rank] = i;
    }
    workgroupBarrier();
}

// The tile's listed segments (`n`, all of them in the list), sorted, at `pixel`.
fn draw_listed(tile: u32, n: u32, pixel: vec2<f32>, li: u32) {
    let threads = STRAND_RASTER_TILE * STRAND_RASTER_TILE;
    let size = vec2<f32>(f32(raster.width), f32(raster.height));
    for (var i = li; i < n; i = i + threads) {
        let seg = tile_items[tile * raster.capacity + i];
        let r = screen_segment(seg, size).segment;
        records[i] = r;
        seg_ids[i] = seg;
        // Reversed depth: the nearest first is the smallest 1 − depth (non-negative, so
        // its bits sort as the number does).
        keys[i] = bitcast<u32>(clamp(1.0 - segment_nearest(r), 0.0, 2.0));
    }
    workgroupBarrier();
    sort_order(n, li);
    for (var i = 0u; i < n; i = i + 1u) {
        if (!draw_segment(order[i], pixel)) {
            // Sorted by nearest depth: every later segment is hidden too.
            break;
        }
    }
}

// The slow path of a tile whose list overflowed: every drawn segment, a workgroup's worth
// at a time, in segment order, those near the tile drawn. Each pixel visits only the
// segments near the tile (their bits in `near_bits`, lowest first: the same order as a
// visit of all 64 that skips the far ones), so a thread's loop iterations grow with the
// segments it draws, not with the workgroup's size: a CPU driver may cap an invocation's
// loop iterations (llvmpipe at 65,535, every loop counted together), and a dense coat's
// every segment × 64 passed that cap and left the tile unwritten.
fn draw_all(tile_xy: vec2<u32>, pixel: vec2<f32>, li: u32) {
    let threads = STRAND_RASTER_TILE * STRAND_RASTER_TILE;
    if (li == 0u) {
        atomicAdd(&counts.overflow_tiles, 1u);
    }
    let size = vec2<f32>(f32(raster.width), f32(raster.height));
    let lo = vec2<f32>(tile_xy * STRAND_RASTER_TILE);
    let total = drawn_count() * SEGMENTS;
    for (var base = 0u; base < total; base = base + threads) {
        if (li < 2u) {
            atomicStore(&near_bits[li], 0u);
        }
        workgroupBarrier();
        let seg = base + li;
        if (seg < total && !culled_for_camera(drawn_strand(seg / SEGMENTS))) {
            let setup = screen_segment(seg, size);
            records[li] = setup.segment;
            if (setup.visible && segment_near_tile(setup.segment, lo)) {
                atomicOr(&near_bits[li / 32u], 1u << (li % 32u));
            }
        }
        workgroupBarrier();
        // The two words one after the other, written out: a loop over them would count.
        var low = atomicLoad(&near_bits[0]);
        while (low != 0u) {
            draw_segment(firstTrailingBit(low), pixel);
            low = low & (low - 1u);
        }
        var high = atomicLoad(&near_bits[1]);
        while (high != 0u) {
            draw_segment(32u + firstTrailingBit(high), pixel);
            high = high & (high - 1u);
        }
        workgroupBarrier();
    }
}

fn draw_tile(tile_xy: vec2<u32>, local: vec2<u32>, li: u32) {
    let tile = tile_xy.y * raster.tiles_x + tile_xy.x;
    let px = tile_xy * STRAND_RASTER_TILE + local;
    let pixel = vec2<f32>(px) + vec2<f32>(0.5);
    clear_layers();
    if (li == 0u) {
        listed = atomicLoad(&counts.count[tile]);
    }
    let n = workgroupUniformLoad(&listed);
    if (n <= raster.capacity) {
        draw_listed(tile, n, pixel, li);
    } else {
        draw_all(tile_xy, pixel, li);
    }
    if (px.x < raster.width && px.y < raster.height) {
        let c = resolve_layers();
        hair_out[px.y * raster.width + px.x] = vec2<u32>(pack2x16unorm(c.rg), pack2x16unorm(c.ba));
    }
}

@compute @workgroup_size(STRAND_RASTER_TILE, STRAND_RASTER_TILE)
fn cs_draw_multisampled(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_id) local: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let px = group.xy * STRAND_RASTER_TILE + local.xy;
    let q = vec2<i32>(min(px, textureDimensions(surface_depth_ms) - vec2<u32>(1u)));
    surface_samples = clamp(textureNumSamples(surface_depth_ms), 1u, 4u);
    for (var k = 0u; k < surface_samples; k = k + 1u) {
        surface[k] = textureLoad(surface_depth_ms, q, i32(k));
    }
    draw_tile(group.xy, local.xy, li);
}

@compute @workgroup_size(STRAND_RASTER_TILE, STRAND_RASTER_TILE)
fn cs_draw_single(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_id) local: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let px = group.xy * STRAND_RASTER_TILE + local.xy;
    let q = vec2<i32>(min(px, textureDimensions(surface_depth_single) - vec2<u32>(1u)));
    surface_samples = 1u;
    surface[0] = textureLoad(surface_depth_single, q, 0);
    draw_tile(group.xy, local.xy, li);
}
