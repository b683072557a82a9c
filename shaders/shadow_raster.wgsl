// The hair's shadow maps by compute: the first hair's light depth and the deep opacity
// slabs rasterised as the shadow pass's ribbons are (one sample at each texel centre, the
// same width, `ribbon_alpha` and dither), then written into the textures
// `shadow_lookup.wgsl` reads by a small fullscreen pass, so the lookups do not change.
// Composed after `frame.wgsl`, `ribbon_geometry.wgsl` and `strand_segments.wgsl`; drawn
// from the light's view.
//
// `cs_first_hair`: per texel, the nearest depth of a fragment kept with probability α
// (as `fs_hair_depth` keeps it), by an atomic max of the inverted depth bits.
// `cs_deep_opacity`: each fragment adds α to the first slab that ends behind it, in 16.16
// fixed point by an atomic add; the maps' writer sums the slabs in order, so each holds α
// of every fragment in front of its end as `fs_deep_opacity` accumulates it: order
// independent, so the same bytes every run (the hardware's f16 blending is not).

@group(3) @binding(0) var<uniform> raster: RasterUniforms;
// Per texel: 0xffffffff − the nearest kept hair depth's bits (0: none, the far plane).
@group(3) @binding(1) var<storage, read_write> first_depth: array<atomic<u32>>;
// Per texel and slab: the opacity of the fragments whose first slab behind them is this
// one, 16.16 fixed point (the maps hold the running sums).
@group(3) @binding(2) var<storage, read_write> slab_opacity: array<atomic<u32>>;
// The maps' indirect draw: four words of arguments (vertices, instances, 0, 0), then the
// numbers of the RESOLVE_TILE² tiles some hair covers (its instances), then a flag per
// tile that the first walk sets.
@group(3) @binding(3) var<storage, read_write> hair_tiles: array<atomic<u32>>;

// Flags the tile of texel `px` as holding hair.
fn mark_tile(px: vec2<i32>) {
    let tile = (u32(px.y) / RESOLVE_TILE) * tiles_across() + u32(px.x) / RESOLVE_TILE;
    let flag = 4u + tile_count() + tile;
    if (atomicLoad(&hair_tiles[flag]) == 0u) {
        atomicStore(&hair_tiles[flag], 1u);
    }
}

// The first hair's depth at texel `i` as the hardware's packed map stores it (24-bit).
fn first_hair_depth(i: u32) -> f32 {
    let stored = atomicLoad(&first_depth[i]);
    var d = 1.0;
    if (stored != 0u) {
        d = bitcast<f32>(0xffffffffu - stored);
    }
    return f32(u32(clamp(d, 0.0, 1.0) * 16777215.0)) / 16777215.0;
}

// The first slab that ends at or behind a fragment `behind` metres past the first hair (4:
// none). The fragment belongs to it and to every later one, since the slabs' ends only
// grow (`SLAB_ENDS`); the walk adds it to this slab alone and `fs_shadow_maps` sums the
// slabs in order, so a fragment costs one atomic add rather than up to four, with the
// same integers in the maps.
fn first_slab_behind(behind: f32) -> u32 {
    let ends = frame.slab_ends;
    return select(select(select(select(4u, 3u, behind <= ends.w), 2u, behind <= ends.z), 1u, behind <= ends.y), 0u, behind <= ends.x);
}

fn cover_texel(setup: SegmentSetup, s: u32, px: vec2<i32>, opacity_pass: bool) {
    let centre = vec2<f32>(px) + 0.5;
    let local = centre - setup.origin;
    for (var t = 0u; t < 2u; t = t + 1u) {
        let tri = setup_triangle(setup, t);
        if (!tri.valid) {
            continue;
        }
        let b = planes_at(tri, local);
        if (!all(b >= vec3<f32>(0.0))) {
            continue;
        }
        let depth = dot(b, tri.depth);
        if (!(depth >= 0.0 && depth <= 1.0)) {
            continue;
        }
        let w = planes_perspective(tri, local);
        let alpha = ribbon_alpha(dot(w, tri.side), dot(w, tri.along), dot(w, tri.coverage));
        let i = u32(px.y) * raster.width + u32(px.x);
        if (!opacity_pass) {
            mark_tile(px);
            let cell = (u32(centre.x) & 0xffffu) | (u32(centre.y) << 16u);
            if (alpha > hash_unit(cell ^ hash_u32(s))) {
                atomicMax(&first_depth[i], 0xffffffffu - bitcast<u32>(depth));
            }
        } else {
            let behind = (depth - first_hair_depth(i)) * frame.light_depth_range;
            let slab = first_slab_behind(behind);
            if (slab < 4u) {
                atomicAdd(&slab_opacity[4u * i + slab], u32(round(alpha * 65536.0)));
            }
        }
    }
}

fn shadow_segment(segment: u32, opacity_pass: bool) {
    if (segment >= drawn_count() * SEGMENTS) {
        return;
    }
    let nth = segment / SEGMENTS;
    let s = drawn_strand(nth);
    let size = vec2<u32>(raster.width, raster.height);
    let q = segment_quad(s, nth, segment % SEGMENTS, vec2<f32>(size));
    if (!q.visible) {
        return;
    }
    let box = quad_pixels(q, size);
    let setup = segment_setup(q, box);
    // Row by row, only the texels whose centre can lie inside the quad.
    var walk = span_walk_start(box);
    while (span_walk_next(&walk, q, box, 1u)) {
        cover_texel(setup, s, vec2<i32>(walk.x, walk.y), opacity_pass);
    }
}

@compute @workgroup_size(RASTER_WORKGROUP)
fn cs_first_hair(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    shadow_segment(id.x + id.y * groups.x * RASTER_WORKGROUP, false);
}

@compute @workgroup_size(RASTER_WORKGROUP)
fn cs_deep_opacity(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    shadow_segment(id.x + id.y * groups.x * RASTER_WORKGROUP, true);
}

// One thread per tile: lists the tiles the first walk marked as the instances of the
// maps' draw, so only those texels are written (the pass clears the rest).
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
