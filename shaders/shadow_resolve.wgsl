// Writes the compute-rasterised hair shadow (`shadow_raster.wgsl`) into the textures the
// lookups read: the first hair's depth packed as `fs_hair_depth` packs it, and the deep
// opacity slabs as floats. Draws only the tiles some hair covers (`vs_tile`, instances
// listed by `cs_hair_tiles`); the pass clears the rest to "no hair". Composed after
// `frame.wgsl` and `strand_segments.wgsl`.

@group(3) @binding(0) var<uniform> raster: RasterUniforms;
@group(3) @binding(1) var<storage, read> first_depth: array<u32>;
@group(3) @binding(2) var<storage, read> slab_opacity: array<vec4<u32>>;


struct ShadowMapsOut {
    @location(0) first_hair: vec4<f32>,
    @location(1) deep_opacity: vec4<f32>,
}

@fragment
fn fs_shadow_maps(@builtin(position) position: vec4<f32>) -> ShadowMapsOut {
    let px = vec2<u32>(position.xy);
    let i = px.y * raster.width + px.x;
    let stored = first_depth[i];
    var out: ShadowMapsOut;
    out.first_hair = pack_depth(select(1.0, bitcast<f32>(0xffffffffu - stored), stored != 0u));
    // The walk added each fragment to its first slab only; a slab holds every fragment in
    // front of its end, so the running sum.
    let own = slab_opacity[i];
    let cumulative = vec4<u32>(own.x, own.x + own.y, own.x + own.y + own.z, own.x + own.y + own.z + own.w);
    out.deep_opacity = vec4<f32>(cumulative) / 65536.0;
    return out;
}
