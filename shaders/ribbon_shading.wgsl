// The ribbons' shading pass: every drawn strand's points shaded once, by compute, into the
// buffer the camera's ribbons read their colours from (`shaded_points` in `ribbons.wgsl`).
// Composed after the snippets of `ribbons.wgsl` and `ribbons.wgsl` itself, whose
// `shade_strand_point` does the work. Strands the cull pass hid are skipped: their ribbons
// are dropped before any pixel, so their colours are never read.

@group(3) @binding(0) var<storage, read_write> shaded_points_out: array<u32>;

@compute @workgroup_size(RASTER_WORKGROUP)
fn cs_shade_ribbons(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let nth = id.x + id.y * groups.x * RASTER_WORKGROUP;
    if (nth >= drawn_count()) {
        return;
    }
    let s = drawn_strand(nth);
    if (culled_for_camera(s)) {
        return;
    }
    for (var i = 0u; i < POINTS; i = i + 1u) {
        shaded_points_out[s * POINTS + i] = shade_strand_point(s, nth, i);
    }
}
