// The ribbons' shading pass: every drawn strand's points shaded once, by compute, into the
// buffer the camera's ribbons read their colours from (`shaded_points` in `ribbons.wgsl`).
// Composed after the snippets of `ribbons.wgsl` and `ribbons.wgsl` itself, whose
// `strand_shading` and `shade_strand_point` do the work. Strands the cull pass hid are skipped: their ribbons
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
    // What the points share, once: the root's terms, and whether the hand comes near
    // enough to shade any of them (a ball about the root holding every point).
    let strand = strand_shading(s);
    let root = positions[s * POINTS].xyz;
    var reach = 0.0;
    for (var i = 1u; i < POINTS; i = i + 1u) {
        reach = max(reach, distance(positions[s * POINTS + i].xyz, root));
    }
    let near_hand = hand_reaches(root, reach);
    // Each point read once: the tangent's neighbours (the point itself at either end, as
    // `strand_point` takes them) carried along the strand.
    var prev = root;
    var here = root;
    for (var i = 0u; i < POINTS; i = i + 1u) {
        let next = positions[s * POINTS + min(i + 1u, POINTS - 1u)].xyz;
        let tangent = strand_tangent(prev, next);
        shaded_points_out[s * POINTS + i] = shade_strand_point(strand, near_hand, s, i, here, tangent);
        prev = here;
        here = next;
    }
}
