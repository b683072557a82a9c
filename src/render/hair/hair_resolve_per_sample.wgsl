// The compute rasteriser's resolve in one draw where the adapter shades per sample
// (wgpu's `MULTISAMPLED_SHADING`): reading `sample_index` runs the fragment once per MSAA
// sample, each writing its own sample's winner, the same bytes as the draw per sample of
// `hair_resolve.wgsl` (whose module this is appended to) at a quarter of the draws: on
// lavapipe a draw over the hair's tiles cost about 2 ms before any shading.

@fragment
fn fs_resolve(@builtin(position) position: vec4<f32>, @builtin(sample_index) sample: u32) -> ResolveOut {
    return resolve_sample(position, sample);
}
