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

// Rust twin: `render::strand_cull::CullUniforms` (encase). What every strand shares is
// worked out there, once a frame: the sides' planes, the occluders' spaces and the eye in them.
struct CullUniforms {
    // Rows: the view's left, right, bottom and top sides, each scaled so that its dot product
    // with (p, 1) is how far p lies inside that side in metres.
    sides: mat4x4<f32>,
    // The camera's position, and the world size of one pixel at unit distance.
    eye: vec3<f32>,
    pixel_scale: f32,
    // Unit viewing direction, and the narrowest drawn ribbon in pixels.
    forward: vec3<f32>,
    min_pixels: f32,
    // World → body-local and world → head-local, each with its occluder's centre at the
    // origin.
    body_local: mat4x4<f32>,
    head_local: mat4x4<f32>,
    // The eye in body-local space, and how many local units a world metre can be at most
    // (the body inverse's largest stretch).
    body_eye: vec3<f32>,
    body_stretch: f32,
    // Body ellipsoid radii, and the head inverse's largest stretch.
    body_radii: vec3<f32>,
    head_stretch: f32,
    // The eye in head-local space, and the radius of a sphere inside every bump of the head.
    head_eye: vec3<f32>,
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

// An occluder as one strand sees it: its ellipsoid shrunk, the scale that maps it onto the
// unit sphere, the eye in that sphere's space and the eye's `|e|² - 1` (the same for every
// point of the strand); `usable` false where the shrunk ellipsoid is gone or holds the eye.
struct Occluder {
    to_unit: vec3<f32>,
    eye: vec3<f32>,
    eye_c: f32,
    usable: bool,
}

// The ellipsoid of `radii` about the origin of the space `eye` is given in, shrunk by
// `shrink` local units.
fn occluder(eye: vec3<f32>, radii: vec3<f32>, shrink: f32) -> Occluder {
    let r = radii - vec3<f32>(shrink);
    let to_unit = 1.0 / max(r, vec3<f32>(1e-30));
    let e = eye * to_unit;
    let c = dot(e, e) - 1.0;
    return Occluder(to_unit, e, c, all(r > vec3<f32>(0.0)) && c > 0.0);
}

// Whether the segment from the eye to `q` (a point in the occluder's local space) enters
// the shrunk ellipsoid before reaching `q`: on the unit sphere, the nearer root t0 of
// |e + t d|² = 1 lies in (0, 1), tested as a·t0 in (0, a) with no division.
fn hides(o: Occluder, q: vec3<f32>) -> bool {
    let d = q * o.to_unit - o.eye;
    let a = dot(d, d);
    let b = dot(o.eye, d);
    let disc = b * b - a * o.eye_c;
    let entry = -b - sqrt(max(disc, 0.0));
    return o.usable && disc > 0.0 && a > 0.0 && entry > 0.0 && entry < a;
}

// What a strand's points have settled so far: whether every point so far lies behind the
// body, behind the head, and outside each side of the view.
struct Hidden {
    behind_body: bool,
    behind_head: bool,
    outside: vec4<bool>,
}

// `h` after one more point `p` (world, w = 1) of a strand whose ribbon is `margin` metres
// from its centre line at the widest.
fn visit(h: Hidden, p: vec4<f32>, body: Occluder, head: Occluder, margin: f32) -> Hidden {
    return Hidden(
        h.behind_body && hides(body, (cull.body_local * p).xyz),
        h.behind_head && hides(head, (cull.head_local * p).xyz),
        h.outside & (cull.sides * p < vec4<f32>(-margin)),
    );
}

// The strand's six points are loaded once each and walked in straight-line code, not by a
// loop over `POINTS` indexing the buffer: a CPU adapter runs an indexed loop lane by lane
// and the pass took twice as long (docs/architecture.md, "Costs behind the source's
// comments").
const_assert POINTS == 6u;

@compute @workgroup_size(CULL_WORKGROUP)
fn cull_strands(@builtin(global_invocation_id) id: vec3<u32>) {
    let s = id.x;
    if (s >= cull.strand_count) {
        return;
    }
    let first = s * POINTS;
    let p0 = vec4<f32>(cull_positions[first].xyz, 1.0);
    let p1 = vec4<f32>(cull_positions[first + 1u].xyz, 1.0);
    let p2 = vec4<f32>(cull_positions[first + 2u].xyz, 1.0);
    let p3 = vec4<f32>(cull_positions[first + 3u].xyz, 1.0);
    let p4 = vec4<f32>(cull_positions[first + 4u].xyz, 1.0);
    let p5 = vec4<f32>(cull_positions[first + 5u].xyz, 1.0);
    // The widest the ribbon is drawn at any of its points: its width, or the narrowest
    // drawn width in pixels at its farthest point where that is wider.
    let ahead = vec4<f32>(cull.forward, -dot(cull.eye, cull.forward));
    let farthest = max(
        max(max(dot(p0, ahead), dot(p1, ahead)), max(dot(p2, ahead), dot(p3, ahead))),
        max(max(dot(p4, ahead), dot(p5, ahead)), 1e-4),
    );
    let half_width = max(0.5 * cull.root_width, 0.5 * cull.min_pixels * cull.pixel_scale * farthest);
    let margin = half_width + cull.safety_margin;
    // Shrinking the radii of an ellipsoid by δ leaves a gap a little under δ between the
    // axes; a quarter more keeps the gap above the margin for the creature's proportions.
    let body = occluder(cull.body_eye, cull.body_radii, 1.25 * margin * cull.body_stretch);
    let head = occluder(cull.head_eye, vec3<f32>(cull.head_radius), margin * cull.head_stretch);

    // Behind the body with every point, or behind the head with every point: the region
    // hidden by one convex occluder is convex, so a segment between two hidden points stays
    // hidden; a strand spanning both occluders could cross the gap between them. Or outside
    // the same side of the view with every point, by the margin.
    var h = Hidden(body.usable, head.usable, vec4<bool>(true));
    h = visit(h, p0, body, head, margin);
    h = visit(h, p1, body, head, margin);
    h = visit(h, p2, body, head, margin);
    h = visit(h, p3, body, head, margin);
    h = visit(h, p4, body, head, margin);
    h = visit(h, p5, body, head, margin);
    // Disabled, nothing is marked: chosen by `select`, not a branch on the uniform, which
    // lavapipe would compile the shader again for at every dispatch (`frame.wgsl`).
    let hidden = h.behind_body || h.behind_head || any(h.outside);
    culled[s] = select(0u, 1u, hidden && cull.enabled != 0u);
}
