// The surfaces pass: the creature's skin (tessellated from its analytic parts and shaded
// with the coat's palette and pattern channels), its eyes and nose, the hand, and the floor.
// One vertex format for all; each vertex names its space (which pivot it follows) and its
// material (MATERIAL_* of the prelude, `src/shaders.rs`). Composed after `frame.wgsl` and
// `shadow_lookup.wgsl`; the shadow pass draws the same vertices from the key light through
// `vs_surface_depth`.

// The user's environment map (group 1; `src/render/environment.rs`): with one, the ambient
// term reads its irradiance and the eyes and nose reflect its radiance; without one
// (`enabled` 0) the built-in sky and ground light them. The strands never read it.
struct Environment {
    enabled: u32,
    strength: f32,
    pad: vec2<f32>,
}
@group(1) @binding(0) var<uniform> environment: Environment;
@group(1) @binding(1) var environment_radiance: texture_2d<f32>;
@group(1) @binding(2) var environment_irradiance: texture_2d<f32>;
@group(1) @binding(3) var environment_sampler: sampler;

// Where direction `d` lands on an equirectangular map: u around the vertical axis from −Z,
// v from straight up (0) to straight down (1). Rust twin: `direction` in environment.rs.
fn equirect_uv(d: vec3<f32>) -> vec2<f32> {
    let u = atan2(d.x, -d.z) / (2.0 * PI) + 0.5;
    let v = acos(clamp(d.y, -1.0, 1.0)) / PI;
    return vec2<f32>(u, v);
}

// Ambient light on a surface facing `n`.
fn ambient_light(n: vec3<f32>) -> vec3<f32> {
    if (environment.enabled == 1u) {
        let e = textureSampleLevel(environment_irradiance, environment_sampler, equirect_uv(n), 0.0);
        return e.rgb * environment.strength;
    }
    return mix(frame.ground, frame.sky, 0.5 + 0.5 * n.y);
}

// Light reflected toward the eye along the mirror direction `r`.
fn reflected_light(r: vec3<f32>) -> vec3<f32> {
    if (environment.enabled == 1u) {
        let e = textureSampleLevel(environment_radiance, environment_sampler, equirect_uv(r), 0.0);
        return e.rgb * environment.strength;
    }
    return mix(frame.ground, frame.sky * 1.6, smoothstep(-0.2, 0.6, r.y));
}

struct SurfaceVertex {
    // In its space (part-local for the creature, world for the hand and the floor).
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // Eyes: xyz the eye's centre (they narrow toward it), w 1. Unused elsewhere.
    @location(2) aux: vec4<f32>,
    // Pattern channels (cream, stripe, ear tip, blush).
    @location(3) pattern: vec4<f32>,
    // Tail parameter, for vertices in tail space.
    @location(4) tail_t: f32,
    // Low 8 bits: space; next 8: material.
    @location(5) space_material: u32,
}

struct SkinVarying {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // The key light's map coordinates (uv, depth) of the point lifted 2 mm off the surface:
    // affine in the world position (the light is orthographic), so interpolating them is
    // exact and saves a matrix product per pixel.
    @location(2) light: vec3<f32>,
    // What does not need the pixel's precision (all of it smooth over the mesh): the fill
    // and ambient light times the albedo, and the key light's colour times the albedo, both
    // with the hand's occlusion applied.
    @location(3) soft: vec3<f32>,
    @location(4) key: vec3<f32>,
    @location(5) @interpolate(flat) material: u32,
}

struct ColorOut {
    @location(0) color: vec4<f32>,
    @location(1) id: u32,
}

struct Placed {
    world: vec3<f32>,
    normal: vec3<f32>,
    clip: vec4<f32>,
    material: u32,
}

fn place(v: SurfaceVertex) -> Placed {
    var out: Placed;
    let space = v.space_material & 0xffu;
    out.material = (v.space_material >> 8u) & 0xffu;
    var local = v.position;
    if (out.material == MATERIAL_EYE && v.aux.w > 0.5) {
        // Narrowing eyes: squash toward the eye's centre along the head's up axis.
        let offset = local - v.aux.xyz;
        local = local - vec3<f32>(0.0, offset.y * 0.85 * clamp(frame.eye_narrowing, 0.0, 1.0), 0.0);
    }
    let m = space_matrix(space, v.tail_t);
    out.world = (m * vec4<f32>(local, 1.0)).xyz;
    out.normal = normalize((m * vec4<f32>(v.normal, 0.0)).xyz);
    out.clip = view.view_proj * vec4<f32>(out.world, 1.0);
    return out;
}

fn albedo_of(material: u32, pattern: vec4<f32>) -> vec3<f32> {
    switch material {
        case MATERIAL_EYE: {
            return vec3<f32>(0.012, 0.009, 0.006);
        }
        case MATERIAL_NOSE: {
            return vec3<f32>(0.30, 0.09, 0.10);
        }
        case MATERIAL_HAND: {
            return vec3<f32>(0.62, 0.38, 0.27);
        }
        case MATERIAL_NAIL: {
            return vec3<f32>(0.80, 0.58, 0.52);
        }
        case MATERIAL_SLEEVE: {
            return vec3<f32>(0.05, 0.08, 0.16);
        }
        case MATERIAL_FLOOR: {
            return vec3<f32>(0.20, 0.19, 0.18);
        }
        case MATERIAL_BODY: {
            // A body's base colour per vertex, stored as the square root of linear (so
            // dark colours keep their steps in eight bits).
            return pattern.rgb * pattern.rgb;
        }
        default: {
            // The creature's skin wears the coat's colours, a little deeper than the hair.
            return coat_color(pattern) * 0.8;
        }
    }
}

// The hand's soft occlusion on a surface; the hand's own surfaces lie on its capsules and
// must not darken themselves.
fn surface_occlusion(material: u32, world: vec3<f32>) -> f32 {
    // The floor neither: its vertices are metres apart (`mesh::floor`), so a hand near one
    // would darken a streak metres long. The key light's shadow of the hand still falls on
    // it.
    if (material == MATERIAL_HAND || material == MATERIAL_NAIL || material == MATERIAL_SLEEVE
        || material == MATERIAL_FLOOR) {
        return 1.0;
    }
    return hand_occlusion(world);
}

@vertex
fn vs_surface(v: SurfaceVertex) -> SkinVarying {
    let p = place(v);
    var out: SkinVarying;
    out.clip = p.clip;
    out.world = p.world;
    out.normal = p.normal;
    out.material = p.material;
    out.light = light_coord(p.world + p.normal * 0.002);
    let n = p.normal;
    let albedo = albedo_of(p.material, v.pattern);
    let occlusion = surface_occlusion(p.material, p.world);
    let fill = max(dot(n, frame.fill_dir), 0.0) * frame.fill_irradiance;
    let ambient = ambient_light(n);
    out.soft = (albedo / PI * fill + albedo * ambient) * occlusion;
    out.key = albedo / PI * frame.light_color * frame.light_irradiance * occlusion;
    return out;
}

// Depth only, from the key light: skin, face and hand cast the opaque shadow.
@vertex
fn vs_surface_depth(v: SurfaceVertex) -> @builtin(position) vec4<f32> {
    return place(v).clip;
}

// A glossy highlight and a sky reflection for the wet-looking eyes and nose.
fn gloss(n: vec3<f32>, to_eye: vec3<f32>, visible: f32, power: f32) -> vec3<f32> {
    let h = normalize(frame.light_dir + to_eye);
    let spec = pow(max(dot(n, h), 0.0), power) * (power + 8.0) / (8.0 * PI);
    let r = reflect(-to_eye, n);
    let env = reflected_light(r);
    let fresnel = 0.04 + 0.96 * pow(1.0 - max(dot(n, to_eye), 0.0), 5.0);
    return frame.light_color * frame.light_irradiance * spec * visible * 0.08 + env * fresnel;
}

// The diffuse surface: the smooth terms from the vertices plus the key light's lambert
// term and visibility, which carry the per-pixel detail.
struct Lit {
    color: vec3<f32>,
    normal: vec3<f32>,
    visible: f32,
}

fn shade_surface(v: SkinVarying) -> Lit {
    var out: Lit;
    out.normal = normalize(v.normal);
    out.visible = key_light_visibility_at(v.light);
    let lambert = max(dot(out.normal, frame.light_dir), 0.0);
    out.color = v.soft + v.key * (lambert * out.visible);
    return out;
}

fn surface_id(material: u32) -> u32 {
    switch material {
        case MATERIAL_EYE, MATERIAL_NOSE: {
            return ID_FACE;
        }
        case MATERIAL_HAND, MATERIAL_NAIL, MATERIAL_SLEEVE: {
            return ID_HAND;
        }
        case MATERIAL_FLOOR: {
            return ID_FLOOR;
        }
        default: {
            return ID_SKIN;
        }
    }
}

// Skin, hand, sleeve and floor: no gloss, so the few glossy pixels cost the many nothing.
@fragment
fn fs_matte(v: SkinVarying) -> ColorOut {
    var out: ColorOut;
    var color = tone_map(shade_surface(v).color);
    if (v.material == MATERIAL_FLOOR) {
        // The floor fades into the background away from the creature.
        let far = smoothstep(FLOOR_FADE_START, FLOOR_FADE_END, length(v.world.xz - vec2<f32>(FLOOR_CENTER_X, FLOOR_CENTER_Z)));
        color = mix(color, frame.background, far);
    }
    out.color = vec4<f32>(color, 1.0);
    out.id = surface_id(v.material);
    return out;
}

// Eyes, nose and nails: the diffuse surface plus a highlight and a sky reflection, under
// the hand's occlusion like the rest of their light.
@fragment
fn fs_glossy(v: SkinVarying) -> ColorOut {
    let lit = shade_surface(v);
    var power = 80.0;
    var strength = 0.3;
    if (v.material == MATERIAL_EYE) {
        power = 400.0;
        strength = 1.0;
    } else if (v.material == MATERIAL_NOSE) {
        power = 60.0;
        strength = 0.5;
    }
    let to_eye = normalize(frame.eye - v.world);
    let occlusion = surface_occlusion(v.material, v.world);
    let glossy = gloss(lit.normal, to_eye, lit.visible, power) * (strength * occlusion);
    var out: ColorOut;
    out.color = vec4<f32>(tone_map(lit.color + glossy), 1.0);
    out.id = surface_id(v.material);
    return out;
}
