// The compute rasteriser's nearest-sample keeping where the adapter has 64-bit atomic max
// (`SHADER_INT64_ATOMIC_MIN_MAX`): replaces the block between the NEAREST SAMPLE markers
// of `hair_raster.wgsl`. One atomic max of (depth bits << 32 | inverted code) keeps the
// nearest depth and, among equal depths, the lowest code: the winner of the 32-bit path's
// two walks in one walk, in the same bytes (little-endian: code word, then depth word).

@group(3) @binding(1) var<storage, read_write> sample_nearest: array<atomic<u64>>;

fn keep_sample(slot: u32, bits: u32, code: u32, hair_pass: bool) {
    atomicMax(&sample_nearest[slot], (u64(bits) << 32u) | u64(code));
}

fn kept_depth_bits(slot: u32) -> u32 {
    return u32(atomicLoad(&sample_nearest[slot]) >> 32u);
}
