// The compute rasteriser of the camera's hair: the ribbons pass's picture without the
// hardware rasteriser. Composed after `frame.wgsl`, `ribbon_geometry.wgsl` and
// `strand_segments.wgsl`: the walks read the strands and the cull flags, not the shadow
// maps or the hair's BSDF (the shading pass has used those already).
//
// The points are shaded before, by the ribbons' shading pass (`ribbon_shading.wgsl`),
// into the colours the resolve reads. Then two passes over the drawn strands, both order
// independent so the picture is the same bytes every run:
// 1. `cs_depth`: one thread per segment walks its pixels, and for each MSAA sample the
//    segment covers (geometry and the same `coverage_mask` as `fs_final`) keeps the nearest
//    depth by an atomic max (reversed depth: nearer is greater);
// 2. `cs_hair`: the same walk again; where a sample's depth is the nearest, an atomic max
//    of the inverted segment code keeps the lowest code among equals (a deterministic tie).
// Both skip the samples that already hold hair nearer than the segment's nearest corner
// (with a 0.1% margin for the interpolation's rounding): they cannot change, whatever the
// order, so the picture is the same bytes. At the full coat, 1920×1080, 49 M pixels are
// walked and about 1.2 M end up showing the segment that walked them.
// Where the adapter has 64-bit atomic max, `hair_raster_wide.wgsl` replaces `keep_sample`
// and the walk of 1. keeps both at once (depth bits above the inverted code: the same
// winner), so 2. is not run.
// A segment whose box holds more than RASTER_THREAD_PIXELS pixels goes to a queue that
// whole workgroups draw (`cs_depth_queued`, `cs_hair_queued`); when the queue is full the
// overflow counter counts it and the thread draws it itself: slower, the same picture.

struct RasterQueue {
    // Segments pushed (may pass the capacity: only the first `queue_capacity` are kept).
    count: atomic<u32>,
    // Segments drawn by their own thread because the queue was full.
    overflow: atomic<u32>,
    entries: array<u32>,
}

// The camera targets' MSAA samples (`raster.samples`), fixed when the walk's pipelines are
// made: loops over the samples unroll and their positions become constants (testing
// samples against the triangles was about 40% of the walk's time on lavapipe).
override RASTER_SAMPLES: u32 = 4u;

// Whether the walks skip the samples that already hold nearer hair (see above; off only to
// test that skipping changes no byte).
override RASTER_EARLY_DEPTH: bool = true;

@group(3) @binding(0) var<uniform> raster: RasterUniforms;
@group(3) @binding(2) var<storage, read_write> queue: RasterQueue;

// The resolve's indirect draw: four words of arguments (vertices, instances, 0, 0), then
// the numbers of the RESOLVE_TILE² tiles where some sample has hair (its instances), then
// a flag per tile that the walk sets.
@group(3) @binding(3) var<storage, read_write> hair_tiles: array<atomic<u32>>;

// Flags the tile of pixel `px` as holding hair.
fn mark_tile(px: vec2<i32>) {
    let tile = (u32(px.y) / RESOLVE_TILE) * tiles_across() + u32(px.x) / RESOLVE_TILE;
    let flag = 4u + tile_count() + tile;
    if (atomicLoad(&hair_tiles[flag]) == 0u) {
        atomicStore(&hair_tiles[flag], 1u);
    }
}

// NEAREST SAMPLE BEGIN (the 32-bit path; `render/hair_raster_wide.wgsl` replaces this
// block where the adapter has 64-bit atomic max)
// Per sample, two words: 0xffffffff − (segment · 2 + triangle) of the nearest hair, then
// its depth's bits (0, 0: none); the layout of one little-endian 64-bit key.
@group(3) @binding(1) var<storage, read_write> sample_nearest: array<atomic<u32>>;

// Keeps a hair sample of depth `bits` and inverted code `code` at `slot`: the depth pass
// keeps the nearest depth, the hair pass the lowest code at that depth.
fn keep_sample(slot: u32, bits: u32, code: u32, hair_pass: bool) {
    if (!hair_pass) {
        atomicMax(&sample_nearest[2u * slot + 1u], bits);
    } else if (atomicLoad(&sample_nearest[2u * slot + 1u]) == bits) {
        atomicMax(&sample_nearest[2u * slot], code);
    }
}

// The depth's bits of the nearest hair kept at `slot` so far (0: none).
fn kept_depth_bits(slot: u32) -> u32 {
    return atomicLoad(&sample_nearest[2u * slot + 1u]);
}
// NEAREST SAMPLE END

// The code of triangle `t` of segment `segment` at a pixel where it is `along` of the way
// from point j to point j + 1: the segment and triangle above `raster.along_bits` bits of
// `along`, so the lowest code among hairs at one depth is the lowest segment and
// triangle, as without them (one triangle has one `along` at a pixel). `along` is kept
// from −1 to 2 (ALONG_LOW, ALONG_SPAN): a sample inside a thin triangle can have its
// pixel's centre outside it, where the hardware extrapolates the colours, as the resolve
// then does; clamped to 0 … 1 the hair's colours moved 0.04 levels on average at 200×120.
fn sample_code(segment: u32, t: u32, along: f32) -> u32 {
    let steps = f32((1u << raster.along_bits) - 1u);
    let unit = clamp((along - ALONG_LOW) / ALONG_SPAN, 0.0, 1.0);
    return ((segment * 2u + t) << raster.along_bits) | u32(round(unit * steps));
}

fn target_size() -> vec2<f32> {
    return vec2<f32>(f32(raster.width), f32(raster.height));
}

// Covers pixel `px` with segment `segment` (of a strand whose `strand_coverage` is
// `strand`), set up by `segment_setup`: the depth pass or the hair pass.
fn cover_pixel(setup: SegmentSetup, strand: StrandCoverage, segment: u32, px: vec2<i32>, hair_pass: bool) {
    let samples = RASTER_SAMPLES;
    let corner = vec2<f32>(px) - setup.origin;
    let centre = corner + 0.5;
    // Which samples each triangle covers (geometry and coverage mask), and where along the
    // segment it is at the pixel centre (the resolve's blend of its two points' colours).
    var masks = vec2<u32>(0u);
    var along = vec2<f32>(0.0);
    for (var t = 0u; t < 2u; t = t + 1u) {
        let tri = setup_triangle(setup, t);
        if (!tri.valid) {
            continue;
        }
        // The weights at the pixel's corner, then at each sample by its offset from there
        // (two multiply-adds a weight; the sample loop unrolls, its offsets constants).
        let at_corner = planes_at(tri, corner);
        var inside = 0u;
        for (var k = 0u; k < samples; k = k + 1u) {
            let b = sample_weights(tri, at_corner, sample_position(k, samples));
            if (all(b >= vec3<f32>(0.0))) {
                inside = inside | (1u << k);
            }
        }
        if (inside == 0u) {
            continue;
        }
        let w = planes_perspective(tri, centre);
        let alpha = ribbon_alpha(dot(w, tri.side), dot(w, tri.along), dot(w, tri.coverage));
        masks[t] = strand_coverage_mask(alpha, strand, vec2<f32>(px) + 0.5) & inside;
        // Triangle 0's corners are points (j, j, j + 1), triangle 1's (j + 1, j, j + 1).
        along[t] = select(w.x + w.z, w.z, t == 0u);
    }
    let covered = masks.x | masks.y;
    if (covered == 0u) {
        return;
    }
    let pixel = (u32(px.y) * raster.width + u32(px.x)) * samples;
    // Samples already holding hair nearer than any point of this segment cannot change.
    var open = 0u;
    for (var k = 0u; k < samples; k = k + 1u) {
        if ((covered & (1u << k)) != 0u && (!RASTER_EARLY_DEPTH || kept_depth_bits(pixel + k) <= setup.nearest_bits)) {
            open = open | (1u << k);
        }
    }
    var kept = false;
    for (var t = 0u; t < 2u; t = t + 1u) {
        let mask = masks[t] & open;
        if (mask == 0u) {
            continue;
        }
        let tri = setup_triangle(setup, t);
        let at_corner = planes_at(tri, corner);
        let code = 0xffffffffu - sample_code(segment, t, along[t]);
        for (var k = 0u; k < samples; k = k + 1u) {
            if ((mask & (1u << k)) == 0u) {
                continue;
            }
            let depth = dot(sample_weights(tri, at_corner, sample_position(k, samples)), tri.depth);
            if (!(depth > 0.0 && depth <= 1.0)) {
                continue;
            }
            keep_sample(pixel + k, bitcast<u32>(depth), code, hair_pass);
            kept = true;
        }
    }
    if (kept && !hair_pass) {
        mark_tile(px);
    }
}

// The segment numbered `segment` (strand nth · SEGMENTS + j), or an invisible one.
struct SegmentWork {
    quad: ScreenQuad,
    strand: u32,
    box: vec4<i32>,
    pixels: u32,
}

fn segment_work(segment: u32) -> SegmentWork {
    var work: SegmentWork;
    work.pixels = 0u;
    if (segment >= drawn_count() * SEGMENTS) {
        return work;
    }
    let nth = segment / SEGMENTS;
    let s = drawn_strand(nth);
    if (culled_for_camera(s)) {
        return work;
    }
    work.strand = s;
    work.quad = segment_quad(s, nth, segment % SEGMENTS, target_size());
    if (!work.quad.visible) {
        return work;
    }
    work.box = quad_pixels(work.quad, vec2<u32>(raster.width, raster.height));
    let extent = work.box.zw - work.box.xy + 1;
    if (extent.x > 0 && extent.y > 0) {
        work.pixels = u32(extent.x) * u32(extent.y);
    }
    return work;
}

fn box_pixel(box: vec4<i32>, n: u32) -> vec2<i32> {
    let w = u32(box.z - box.x + 1);
    return box.xy + vec2<i32>(i32(n % w), i32(n / w));
}

fn raster_segment(segment: u32, hair_pass: bool) {
    let work = segment_work(segment);
    if (work.pixels == 0u) {
        return;
    }
    if (work.pixels > RASTER_THREAD_PIXELS) {
        let slot = atomicAdd(&queue.count, 1u);
        if (slot < raster.queue_capacity) {
            queue.entries[slot] = segment;
            return;
        }
        atomicAdd(&queue.overflow, 1u);
    }
    let setup = segment_setup(work.quad, work.box);
    let strand = strand_coverage(work.strand);
    // Row by row, only the pixels within reach of the quad.
    var walk = span_walk_start(work.box);
    while (span_walk_next(&walk, work.quad, work.box, RASTER_SAMPLES)) {
        cover_pixel(setup, strand, segment, vec2<i32>(walk.x, walk.y), hair_pass);
    }
}

// Workgroups take turns over the queued segments (as many groups as the queue holds at
// most, not one per entry: an empty queue costs a few idle groups), each group's threads
// sharing one segment's pixels.
fn raster_queued(first: u32, groups: u32, lane: u32, hair_pass: bool) {
    let queued = min(atomicLoad(&queue.count), raster.queue_capacity);
    for (var entry = first; entry < queued; entry = entry + groups) {
        let segment = queue.entries[entry];
        let work = segment_work(segment);
        let setup = segment_setup(work.quad, work.box);
        let strand = strand_coverage(work.strand);
        for (var n = lane; n < work.pixels; n = n + RASTER_WORKGROUP) {
            let px = box_pixel(work.box, n);
            if (quad_near(work.quad, px)) {
                cover_pixel(setup, strand, segment, px, hair_pass);
            }
        }
    }
}

@compute @workgroup_size(RASTER_WORKGROUP)
fn cs_depth(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    raster_segment(id.x + id.y * groups.x * RASTER_WORKGROUP, false);
}

@compute @workgroup_size(RASTER_WORKGROUP)
fn cs_hair(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    raster_segment(id.x + id.y * groups.x * RASTER_WORKGROUP, true);
}

@compute @workgroup_size(RASTER_WORKGROUP)
fn cs_depth_queued(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    raster_queued(group.x, groups.x, lane, false);
}

@compute @workgroup_size(RASTER_WORKGROUP)
fn cs_hair_queued(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    raster_queued(group.x, groups.x, lane, true);
}

// One thread per tile: lists the tiles the walk marked as the instances of the resolve's
// draw, so the resolve shades only those (a fullscreen draw per sample cost more than
// both walks on lavapipe). The list's order varies; the tiles do not overlap, so the
// picture does not.
@compute @workgroup_size(RASTER_WORKGROUP)
fn cs_hair_tiles(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let tile = id.x + id.y * groups.x * RASTER_WORKGROUP;
    let tiles = tile_count();
    if (tile == 0u) {
        atomicStore(&hair_tiles[0], 6u);
    }
    if (tile >= tiles || atomicLoad(&hair_tiles[4u + tiles + tile]) == 0u) {
        return;
    }
    let slot = atomicAdd(&hair_tiles[1], 1u);
    atomicStore(&hair_tiles[4u + slot], tile);
}
