// The ribbon colour pass: hair shading for `final` and `strands`, and the `contact` debug
// colouring (a separate entry point, so the diagnostic never touches the final shading).
// Needs `render_frame.wgsl`, `hair_bsdf.wgsl`, `ribbon_geometry.wgsl`, `shadow_lookup.wgsl`.

struct RibbonVarying {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) tangent: vec3<f32>,
    @location(2) side: f32,
    @location(3) along: f32,
    @location(4) coverage: f32,
    @location(5) @interpolate(flat) strand: u32,
    @location(6) touched: f32,
}

struct ColorOut {
    @location(0) color: vec4<f32>,
    @location(1) id: u32,
    @builtin(sample_mask) mask: u32,
}

@vertex
fn vs_ribbon(@builtin(vertex_index) vertex_index: u32, @builtin(instance_index) instance: u32) -> RibbonVarying {
    let p = ribbon_point(vertex_index, instance);
    var out: RibbonVarying;
    out.clip = p.clip;
    out.world = p.world;
    out.tangent = p.tangent;
    out.side = p.side;
    out.along = p.along;
    out.coverage = p.coverage;
    out.strand = p.strand;
    out.touched = p.touched;
    return out;
}

// The shaded colour of a hair fragment, linear HDR.
fn shade_hair(v: RibbonVarying) -> vec3<f32> {
    let s = v.strand;
    let random = strand_random(s);
    let n = strand_normal(s);
    let t = normalize(v.tangent);
    let to_eye = normalize(frame.eye.xyz - v.world);
    let l = frame.light_dir.xyz;

    // Each strand's colour comes from its root's pattern, varied a little per strand.
    let albedo = coat_color(strand_pattern(s)) * (0.86 + 0.28 * random);
    // Light reaching into the coat falls off toward the roots.
    let ramp = mix(0.42, 1.0, sqrt(v.along));
    let visible = key_light_visibility(v.world);
    let occlusion = hand_occlusion(v.world);
    let light = frame.light_color.rgb * frame.light_dir.w;

    // Fur is lit like a volume, not like a lone cylinder: the strand's own diffuse
    // (sin of the angle to the light) blended with a wrapped term of the skin normal.
    let sin_tl = sqrt(max(0.0, 1.0 - dot(t, l) * dot(t, l)));
    let wrapped = clamp((dot(n, l) + 0.4) / 1.4, 0.0, 1.0);
    let diffuse = albedo / PI * mix(sin_tl, wrapped, 0.6);
    let specular = hair_specular(t, l, to_eye, albedo);
    // At silhouettes, light from behind shines through the tips.
    let rim = pow(1.0 - abs(dot(n, to_eye)), 3.0) * max(0.0, -dot(to_eye, l));
    let transmission = albedo * rim * 0.35 * v.along;
    let key = (diffuse + specular + transmission) * light * visible;

    let fill_n = clamp((dot(n, frame.fill_dir.xyz) + 0.4) / 1.4, 0.0, 1.0);
    let fill = albedo / PI * fill_n * frame.fill_dir.w;
    let ambient = albedo * mix(frame.ground.rgb, frame.sky.rgb, 0.5 + 0.5 * n.y);
    return (key + fill + ambient) * ramp * occlusion;
}

// The `contact` colouring: strands in a flat muted colour, the points the hand touched this
// step in red.
fn contact_color(v: RibbonVarying) -> vec3<f32> {
    let base = vec3<f32>(0.32, 0.30, 0.28) * mix(0.5, 1.0, v.along);
    let hot = vec3<f32>(1.0, 0.08, 0.05);
    return mix(base, hot, clamp(v.touched, 0.0, 1.0));
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
    out.color = vec4<f32>(tone_map(shade_hair(v)), 1.0);
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
    out.color = vec4<f32>(contact_color(v), 1.0);
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
    return SingleOut(vec4<f32>(tone_map(shade_hair(v)), 1.0), ID_HAIR);
}

@fragment
fn fs_contact_single(v: RibbonVarying) -> SingleOut {
    if (coverage(v) == 0u) {
        discard;
    }
    return SingleOut(vec4<f32>(contact_color(v), 1.0), ID_HAIR);
}
