// Which strands the camera cannot see, one invocation per strand, before the ribbon pass:
// a strand is culled when all six of its points lie behind the creature's body or head as
// the camera sees them, or all outside the same side of the view. The occluders are shrunk
// (by the ribbon's half width and a safety margin) so that they lie inside the drawn skin:
// a culled strand's every sample would have failed the depth test against the skin, and
// culling changes no pixel. The ribbon vertex shader moves a culled strand's vertices off
// screen, so its ten triangles cost no shading, setup or rasterisation. Self-contained.
//
// The shadow passes draw every strand: the key light's maps are shared by everything that
// looks them up, and hair hidden from the camera still shades hair it can see.

// Rust twin: `render::culling::CullUniforms` (encase).
struct CullUniforms {
    // World → clip for the camera.
    view_proj: mat4x4<f32>,
    // xyz: camera position; w: world size of one pixel at unit distance.
    eye: vec4<f32>,
    // xyz: unit viewing direction; w: narrowest drawn ribbon in pixels.
    forward: vec4<f32>,
    // World → body-local and world → head-local.
    body_inverse: mat4x4<f32>,
    head_inverse: mat4x4<f32>,
    // Body ellipsoid, body-local: xyz centre; radii in `body_radii.xyz`, and in its w how
    // many local units a world metre can be at most (the inverse's largest stretch).
    body_center: vec4<f32>,
    body_radii: vec4<f32>,
    // Head sphere inside every bump of the head, head-local: xyz centre, w radius.
    head: vec4<f32>,
    // x: ribbon width at the root (m), y: the head inverse's largest stretch, z: safety
    // margin (m), w: unused.
    params: vec4<f32>,
    // x: strand count, y: 1 to cull, 0 to draw everything.
    counts: vec4<u32>,
}

const CULL_POINTS: u32 = 6u;

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
    let eye = ((inverse * vec4<f32>(cull.eye.xyz, 1.0)).xyz - center) / r;
    let q = ((inverse * vec4<f32>(p, 1.0)).xyz - center) / r;
    return segment_enters_unit_sphere(eye, q);
}

@compute @workgroup_size(64)
fn cull_strands(@builtin(global_invocation_id) id: vec3<u32>) {
    let s = id.x;
    if (s >= cull.counts.x) {
        return;
    }
    if (cull.counts.y == 0u) {
        culled[s] = 0u;
        return;
    }
    // The widest the ribbon is drawn at any of its points: its width, or the narrowest
    // drawn width in pixels where that is wider.
    var half_width = 0.5 * cull.params.x;
    for (var i = 0u; i < CULL_POINTS; i = i + 1u) {
        let p = cull_positions[s * CULL_POINTS + i].xyz;
        let distance = max(dot(p - cull.eye.xyz, cull.forward.xyz), 1e-4);
        half_width = max(half_width, 0.5 * cull.forward.w * cull.eye.w * distance);
    }
    let margin = half_width + cull.params.z;
    // Shrinking the radii of an ellipsoid by δ leaves a gap a little under δ between the
    // axes; a quarter more keeps the gap above the margin for the creature's proportions.
    let body_shrink = 1.25 * margin * cull.body_radii.w;
    let head_shrink = margin * cull.params.y;

    // Behind the body with every point, or behind the head with every point: the region
    // hidden by one convex occluder is convex, so a segment between two hidden points stays
    // hidden; a strand spanning both occluders could cross the gap between them.
    var behind_body = true;
    var behind_head = true;
    // Outside the left, right, bottom and top sides of the view, each by the margin.
    var outside = vec4<bool>(true);
    let m = transpose(cull.view_proj);
    var sides = array<vec4<f32>, 4>(m[3] + m[0], m[3] - m[0], m[3] + m[1], m[3] - m[1]);
    for (var i = 0u; i < CULL_POINTS; i = i + 1u) {
        let p = cull_positions[s * CULL_POINTS + i].xyz;
        behind_body = behind_body
            && hidden_by(p, cull.body_inverse, cull.body_center.xyz, cull.body_radii.xyz, body_shrink);
        behind_head = behind_head
            && hidden_by(p, cull.head_inverse, cull.head.xyz, vec3<f32>(cull.head.w), head_shrink);
        for (var k = 0u; k < 4u; k = k + 1u) {
            let plane = sides[k];
            let distance = (dot(plane.xyz, p) + plane.w) / max(length(plane.xyz), 1e-12);
            outside[k] = outside[k] && distance < -margin;
        }
    }
    culled[s] = select(0u, 1u, behind_body || behind_head || any(outside));
}
