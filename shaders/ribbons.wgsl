// The ribbons pass: hair shading for `final` and `strands`, and the `contact` debug
// colouring (a separate entry point, so the diagnostic never touches the final shading).
// Composed after `frame.wgsl`, `hair_bsdf.wgsl`, `ribbon_geometry.wgsl`, `shadow_lookup.wgsl`.
//
// Hair is shaded per strand point, not per fragment nor per ribbon vertex: a ribbon is
// about a pixel wide, so the two vertices of a strand point see the same light, and
// everything the shading reads (the key light's visibility through the deep opacity map,
// the tangent, the strand's colour, the hand's occlusion) changes smoothly along the
// strand. A compute pass shades each drawn point once (`cs_shade_ribbons` in
// `ribbon_shading.wgsl`, `shade_strand_point` below, as the compute rasteriser's points
// are shaded); the vertex shader reads the colour back, and the fragment shader only turns
// the ribbon's opacity into coverage and tone-maps the interpolated colour. Shading in the
// vertex shader did the same work twice (both vertices of a point) on the stage a CPU
// rasteriser runs on one thread: it was about 40% of the ribbons' time on lavapipe.

struct RibbonVarying {
    @builtin(position) clip: vec4<f32>,
    // Linear HDR colour of the hair at this vertex.
    @location(0) color: vec3<f32>,
    @location(1) side: f32,
    @location(2) along: f32,
    @location(3) coverage: f32,
    @location(4) @interpolate(flat) strand: u32,
}

// Each drawn strand point's shaded colour (`pack_point_color`), written by the shading
// pass this frame: strand `s`, point `i` at `s * POINTS + i`.
@group(1) @binding(4) var<storage, read> shaded_points: array<u32>;

struct ColorOut {
    @location(0) color: vec4<f32>,
    @location(1) id: u32,
    @builtin(sample_mask) mask: u32,
}

// What shading a strand's points shares: everything that depends on the strand's root
// alone (its colour, the skin's normal there and the lights that only see that normal),
// worked out once a strand by the shading pass rather than again at each of its points.
struct StrandShading {
    albedo: vec3<f32>,
    // The world-space surface normal at the root.
    n: vec3<f32>,
    // The fill light and the ambient, before the ramp and the hand's occlusion.
    fill: vec3<f32>,
    ambient: vec3<f32>,
}

fn strand_shading(s: u32) -> StrandShading {
    var out: StrandShading;
    let random = strand_random(s);
    out.n = strand_normal(s);
    // Each strand's colour comes from its root's pattern, varied a little per strand.
    out.albedo = strand_albedo(s) * (0.86 + 0.28 * random);
    let fill_n = clamp((dot(out.n, frame.fill_dir) + 0.4) / 1.4, 0.0, 1.0);
    out.fill = out.albedo / PI * fill_n * frame.fill_irradiance;
    out.ambient = out.albedo * mix(frame.ground, frame.sky, 0.5 + 0.5 * out.n.y);
    return out;
}

// The shaded colour of the hair at strand point `p` (on the centre line of the strand
// `strand` describes), linear HDR, with the hand's occlusion there already known.
fn shade_hair(strand: StrandShading, p: RibbonPoint, occlusion: f32) -> vec3<f32> {
    let n = strand.n;
    let albedo = strand.albedo;
    let t = p.tangent;
    let to_eye = normalize(frame.eye - p.world);
    let l = frame.light_dir;

    // Light reaching into the coat falls off toward the roots.
    let ramp = mix(0.42, 1.0, sqrt(p.along));
    let visible = key_light_visibility(p.world);
    let light = frame.light_color * frame.light_irradiance;

    // Fur is lit like a volume, not like a lone cylinder: the strand's own diffuse
    // (sin of the angle to the light) blended with a wrapped term of the skin normal.
    let sin_tl = sqrt(max(0.0, 1.0 - dot(t, l) * dot(t, l)));
    let wrapped = clamp((dot(n, l) + 0.4) / 1.4, 0.0, 1.0);
    let diffuse = albedo / PI * mix(sin_tl, wrapped, 0.6);
    let specular = hair_specular(t, l, to_eye, albedo);
    // At silhouettes, light from behind shines through the tips.
    let rim = pow(1.0 - abs(dot(n, to_eye)), 3.0) * max(0.0, -dot(to_eye, l));
    let transmission = albedo * rim * 0.35 * p.along;
    let key = (diffuse + specular + transmission) * light * visible;

    return (key + strand.fill + strand.ambient) * ramp * occlusion;
}

// The shaded colour of point `i` of strand `s`, at `world` and running along `tangent`
// (`strand_tangent`), packed: on the strand's centre line, as the ribbons' vertices and
// the compute rasteriser's segments read it. `strand` is `strand_shading(s)`; `near_hand`
// is false only where the hand's occlusion is known to be 1 (`hand_reaches`), so its loop
// over the capsules is skipped.
fn shade_strand_point(strand: StrandShading, near_hand: bool, s: u32, i: u32, world: vec3<f32>, tangent: vec3<f32>) -> u32 {
    var p: RibbonPoint;
    p.world = world;
    p.tangent = tangent;
    p.along = f32(i) / f32(POINTS - 1u);
    p.strand = s;
    p.point = i;
    var occlusion = 1.0;
    if (near_hand) {
        occlusion = hand_occlusion(p.world);
    }
    return pack_point_color(shade_hair(strand, p, occlusion));
}

// The `contact` colouring: strands in a flat muted colour, the points the hand touched this
// step in red.
fn contact_color(p: RibbonPoint) -> vec3<f32> {
    let base = vec3<f32>(0.32, 0.30, 0.28) * mix(0.5, 1.0, p.along);
    let hot = vec3<f32>(1.0, 0.08, 0.05);
    return mix(base, hot, clamp(p.touched, 0.0, 1.0));
}

fn ribbon_varying(p: RibbonPoint, color: vec3<f32>) -> RibbonVarying {
    var out: RibbonVarying;
    out.clip = p.clip;
    out.color = color;
    out.side = p.side;
    out.along = p.along;
    out.coverage = p.coverage;
    out.strand = p.strand;
    return out;
}

@vertex
fn vs_ribbon(@builtin(vertex_index) vertex_index: u32, @builtin(instance_index) instance: u32) -> RibbonVarying {
    var p = ribbon_point(vertex_index, instance);
    if (p.strand >= frame.strand_count) {
        return ribbon_varying(p, vec3<f32>(0.0));
    }
    if (culled_for_camera(p.strand)) {
        // Hidden: off screen, so its triangles are dropped before any pixel.
        p.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return ribbon_varying(p, vec3<f32>(0.0));
    }
    return ribbon_varying(p, unpack_point_color(shaded_points[p.strand * POINTS + p.point]));
}

@vertex
fn vs_ribbon_contact(@builtin(vertex_index) vertex_index: u32, @builtin(instance_index) instance: u32) -> RibbonVarying {
    var p = ribbon_point(vertex_index, instance);
    if (p.strand < frame.strand_count && culled_for_camera(p.strand)) {
        p.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    }
    return ribbon_varying(p, contact_color(p));
}

fn coverage(v: RibbonVarying) -> u32 {
    return coverage_mask(ribbon_alpha(v.side, v.along, v.coverage), v.strand, v.clip.xy);
}

// With MSAA: the fragment covers the samples its opacity asks for.
@fragment
fn fs_final(v: RibbonVarying) -> ColorOut {
    var out: ColorOut;
    out.mask = coverage(v);
    if (out.mask == 0u) {
        discard;
    }
    out.color = vec4<f32>(tone_map(v.color), 1.0);
    out.id = ID_HAIR;
    return out;
}

@fragment
fn fs_contact(v: RibbonVarying) -> ColorOut {
    var out: ColorOut;
    out.mask = coverage(v);
    if (out.mask == 0u) {
        discard;
    }
    out.color = vec4<f32>(v.color, 1.0);
    out.id = ID_HAIR;
    return out;
}

// With one sample (and on OpenGL, whose shader translation cannot write the sample mask):
// the same coverage as stochastic transparency, the fragment kept or discarded.
struct SingleOut {
    @location(0) color: vec4<f32>,
    @location(1) id: u32,
}

@fragment
fn fs_final_single(v: RibbonVarying) -> SingleOut {
    if (coverage(v) == 0u) {
        discard;
    }
    return SingleOut(vec4<f32>(tone_map(v.color), 1.0), ID_HAIR);
}

@fragment
fn fs_contact_single(v: RibbonVarying) -> SingleOut {
    if (coverage(v) == 0u) {
        discard;
    }
    return SingleOut(vec4<f32>(v.color, 1.0), ID_HAIR);
}
