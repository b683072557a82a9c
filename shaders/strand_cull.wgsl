// Which strands the camera cannot see, one invocation per strand, before the ribbon pass:
// a strand is culled when all six of its points lie behind the creature's body or head as
// the camera sees them, or all outside the same side of the view. The occluders are shrunk
// (by the ribbon's half width and a safety margin) so that they lie inside the drawn skin:
// a culled strand's every sample would have failed the depth test against the skin, and
// culling changes no pixel. The ribbon vertex shader moves a culled strand's vertices off
// screen, so its ten triangles cost no shading, setup or rasterisation. Composed after the
// prelude alone (`src/shaders.rs`: POINTS, CULL_WORKGROUP).
//
// The shadow passes draw every strand: the key light's maps are shared by everything that
// looks them up, and hair hidden from the camera still shades hair it can see.

// Rust twin: `render::strand_cull::CullUniforms` (encase).
struct CullUniforms {
    // World → clip for the camera.
    view_proj: mat4x4<f32>,
    // The camera's position, and the world size of one pixel at unit distance.
    eye: vec3<f32>,
    pixel_scale: f32,
    // Unit viewing direction, and the narrowest drawn ribbon in pixels.
    forward: vec3<f32>,
    min_pixels: f32,
    // World → body-local and world → head-local.
    body_inverse: mat4x4<f32>,
    head_inverse: mat4x4<f32>,
    // Body ellipsoid, body-local: centre and radii; and how many local units a world metre
    // can be at most (the body inverse's largest stretch).
    body_center: vec3<f32>,
    body_stretch: f32,
    body_radii: vec3<f32>,
    // The head inverse's largest stretch.
    head_stretch: f32,
    // Head sphere inside every bump of the head, head-local: centre and radius.
    head_center: vec3<f32>,
    head_radius: f32,
    // Ribbon width at the root as drawn (m, widened by the level of detail), and the
    // safety margin the occluders shrink by (m).
    root_width: f32,
    safety_margin: f32,
    // Strands bound, and 1 to cull (0 marks nothing hidden).
    strand_count: u32,
    enabled: u32,
}

@group(0) @binding(0) var<storage, read> cull_positions: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> culled: array<u32>;
@group(0) @binding(2) var<uniform> cull: CullUniforms;

// Whether the segment from `eye` to `p` (both in the occluder's unit-sphere space, the eye
// outside) enters the unit sphere before reaching `p`.
fn segment_enters_unit_sphere(eye: vec3<f32>, p: vec3<f32>) -> bool {
    let d = p - eye;
    let a = dot(d, d);
    let b = dot(eye, d);
    let c = dot(eye, eye) - 1.0;
    let disc = b * b - a * c;
    if (c <= 0.0 || disc <= 0.0 || a <= 0.0) {
        return false;
    }
    let t0 = (-b - sqrt(disc)) / a;
    return t0 > 0.0 && t0 < 1.0;
}

// Whether the ellipsoid `radii` about `center`, in the local space `inverse` maps the world
// to and shrunk by `shrink` local units, hides world point `p` from the eye.
fn hidden_by(p: vec3<f32>, inverse: mat4x4<f32>, center: vec3<f32>, radii: vec3<f32>, shrink: f32) -> bool {
    let r = radii - vec3<f32>(shrink);
    if (any(r <= vec3<f32>(0.0))) {
        return false;
    }
    let eye = ((inverse * vec4<f32>(cull.eye, 1.0)).xyz - center) / r;
    let q = ((inverse * vec4<f32>(p, 1.0)).xyz - center) / r;
    return segment_enters_unit_sphere(eye, q);
}

@compute @workgroup_size(CULL_WORKGROUP)
fn cull_strands(@builtin(global_invocation_id) id: vec3<u32>) {
    let s = id.x;
    if (s >= cull.strand_count) {
        return;
    }
    // The widest the ribbon is drawn at any of its points: its width, or the narrowest
    // drawn width in pixels where that is wider.
    var half_width = 0.5 * cull.root_width;
    for (var i = 0u; i < POINTS; i = i + 1u) {
        let p = cull_positions[s * POINTS + i].xyz;
        let distance = max(dot(p - cull.eye, cull.forward), 1e-4);
        half_width = max(half_width, 0.5 * cull.min_pixels * cull.pixel_scale * distance);
    }
    let margin = half_width + cull.safety_margin;
    // Shrinking the radii of an ellipsoid by δ leaves a gap a little under δ between the
    // axes; a quarter more keeps the gap above the margin for the creature's proportions.
    let body_shrink = 1.25 * margin * cull.body_stretch;
    let head_shrink = margin * cull.head_stretch;

    // Behind the body with every point, or behind the head with every point: the region
    // hidden by one convex occluder is convex, so a segment between two hidden points stays
    // hidden; a strand spanning both occluders could cross the gap between them.
    var behind_body = true;
    var behind_head = true;
    // Outside the left, right, bottom and top sides of the view, each by the margin.
    var outside = vec4<bool>(true);
    let m = transpose(cull.view_proj);
    var sides = array<vec4<f32>, 4>(m[3] + m[0], m[3] - m[0], m[3] + m[1], m[3] - m[1]);
    for (var i = 0u; i < POINTS; i = i + 1u) {
        let p = cull_positions[s * POINTS + i].xyz;
        behind_body = behind_body
            && hidden_by(p, cull.body_inverse, cull.body_center, cull.body_radii, body_shrink);
        behind_head = behind_head
            && hidden_by(p, cull.head_inverse, cull.head_center, vec3<f32>(cull.head_radius), head_shrink);
        for (var k = 0u; k < 4u; k = k + 1u) {
            let plane = sides[k];
            let distance = (dot(plane.xyz, p) + plane.w) / max(length(plane.xyz), 1e-12);
            outside[k] = outside[k] && distance < -margin;
        }
    }
    // Disabled, nothing is marked: chosen by `select`, not a branch on the uniform, which
    // lavapipe would compile the shader again for at every dispatch (`frame.wgsl`).
    let hidden = behind_body || behind_head || any(outside);
    culled[s] = select(0u, 1u, hidden && cull.enabled != 0u);
}
