// The hair as the key light sees it: the deformed ribbons at their true width (never the
// rigid roots), first as a depth map of the nearest hair, then additively into the deep
// opacity map: each fragment adds its opacity to every slab that ends behind it, so each
// channel holds the hair density accumulated from the first hair to that slab's end.
// Composed after `frame.wgsl` and `ribbon_geometry.wgsl`. (The opaque depth map before
// them draws the surfaces with `vs_surface_depth` of `surfaces.wgsl`.)

// The first hair's light depth (packed in a colour by `fs_hair_depth`).
@group(2) @binding(0) var first_hair: texture_2d<f32>;

struct ShadowVarying {
    @builtin(position) clip: vec4<f32>,
    @location(0) side: f32,
    @location(1) along: f32,
    @location(2) coverage: f32,
    @location(3) @interpolate(flat) strand: u32,
}

@vertex
fn vs_shadow(@builtin(vertex_index) vertex_index: u32, @builtin(instance_index) instance: u32) -> ShadowVarying {
    let p = ribbon_point(vertex_index, instance);
    var out: ShadowVarying;
    out.clip = p.clip;
    out.side = p.side;
    out.along = p.along;
    out.coverage = p.coverage;
    out.strand = p.strand;
    return out;
}

// Nearest hair: a fragment counts with probability equal to its opacity. The depth test
// keeps the nearest; its depth is also written as a colour the later passes can read.
@fragment
fn fs_hair_depth(v: ShadowVarying) -> @location(0) vec4<f32> {
    let alpha = ribbon_alpha(v.side, v.along, v.coverage);
    let cell = (u32(v.clip.x) & 0xffffu) | (u32(v.clip.y) << 16u);
    if (alpha <= hash_unit(cell ^ hash_u32(v.strand))) {
        discard;
    }
    return pack_depth(v.clip.z);
}

@fragment
fn fs_deep_opacity(v: ShadowVarying) -> @location(0) vec4<f32> {
    let alpha = ribbon_alpha(v.side, v.along, v.coverage);
    let first = unpack_depth(textureLoad(first_hair, vec2<i32>(v.clip.xy), 0));
    let behind = (v.clip.z - first) * frame.light_depth_range;
    return alpha * vec4<f32>(
        select(0.0, 1.0, behind <= frame.slab_ends.x),
        select(0.0, 1.0, behind <= frame.slab_ends.y),
        select(0.0, 1.0, behind <= frame.slab_ends.z),
        select(0.0, 1.0, behind <= frame.slab_ends.w),
    );
}
