// The strand rasteriser's binning (`render::strand_raster`): one thread per drawn segment
// sets it up on screen and adds its number to the list of every 8×8 tile it may touch.
// A list holds `raster.capacity` entries; an entry past that is counted (the tile's count
// keeps growing, and `counts.overflow_entries`), and the drawing pass then draws that tile
// by its slow path, which finds the tile's segments again itself. Composed after
// `frame.wgsl`, `ribbon_geometry.wgsl` and `strand_raster_segment.wgsl`.

@compute @workgroup_size(RASTER_WORKGROUP)
fn cs_bin(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let seg = id.x + id.y * groups.x * RASTER_WORKGROUP;
    if (seg >= drawn_count() * SEGMENTS) {
        return;
    }
    let s = drawn_strand(seg / SEGMENTS);
    if (culled_for_camera(s)) {
        return;
    }
    let size = vec2<f32>(f32(raster.width), f32(raster.height));
    let setup = screen_segment(seg, size);
    if (!setup.visible) {
        return;
    }
    let r = setup.segment;
    let reach = max(r.depth_width.z, r.depth_width.w) + 1.0;
    let lo = min(r.ends.xy, r.ends.zw) - vec2<f32>(reach);
    let hi = max(r.ends.xy, r.ends.zw) + vec2<f32>(reach);
    if (any(hi < vec2<f32>(0.0)) || any(lo >= size)) {
        return;
    }
    let tile = f32(STRAND_RASTER_TILE);
    let last = vec2<f32>(f32(raster.tiles_x - 1u), f32(raster.tiles_y - 1u));
    let t0 = vec2<u32>(clamp(floor(lo / tile), vec2<f32>(0.0), last));
    let t1 = vec2<u32>(clamp(floor(hi / tile), vec2<f32>(0.0), last));
    for (var ty = t0.y; ty <= t1.y; ty = ty + 1u) {
        for (var tx = t0.x; tx <= t1.x; tx = tx + 1u) {
            if (!segment_near_tile(r, vec2<f32>(f32(tx), f32(ty)) * tile)) {
                continue;
            }
            let t = ty * raster.tiles_x + tx;
            let slot = atomicAdd(&counts.count[t], 1u);
            if (slot < raster.capacity) {
                tile_items[t * raster.capacity + slot] = seg;
            } else {
                atomicAdd(&counts.overflow_entries, 1u);
            }
        }
    }
}
