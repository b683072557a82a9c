//! A seeded three-dimensional value noise and its three-octave sum (the clump field).

use glam::Vec3;

fn hash(seed: u32, x: i32, y: i32, z: i32) -> f32 {
    // A small integer mix (PCG-style); bits, not quality, are what we need to repeat.
    let mut h = seed
        ^ (x as u32).wrapping_mul(0x8da6_b343)
        ^ (y as u32).wrapping_mul(0xd816_3841)
        ^ (z as u32).wrapping_mul(0xcb1a_b31f);
    h = h.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    h = ((h >> ((h >> 28) + 4)) ^ h).wrapping_mul(277_803_737);
    h = (h >> 22) ^ h;
    (h >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
}

fn smooth(t: f32) -> f32 {
    t * t * (3.0 - 2.0 * t)
}

/// Value noise in [−1, 1] with unit cell size.
pub fn value_noise(seed: u32, p: Vec3) -> f32 {
    let cell = p.floor();
    let f = p - cell;
    let (ix, iy, iz) = (cell.x as i32, cell.y as i32, cell.z as i32);
    let (u, v, w) = (smooth(f.x), smooth(f.y), smooth(f.z));
    let corner = |dx: i32, dy: i32, dz: i32| hash(seed, ix + dx, iy + dy, iz + dz);
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    let x00 = lerp(corner(0, 0, 0), corner(1, 0, 0), u);
    let x10 = lerp(corner(0, 1, 0), corner(1, 1, 0), u);
    let x01 = lerp(corner(0, 0, 1), corner(1, 0, 1), u);
    let x11 = lerp(corner(0, 1, 1), corner(1, 1, 1), u);
    lerp(lerp(x00, x10, v), lerp(x01, x11, v), w)
}

/// Three octaves of value noise at `frequency`, each twice as fine and half as strong;
/// roughly in [−1, 1].
pub fn clump_field(seed: u32, p: Vec3, frequency: f32) -> f32 {
    let mut sum = 0.0;
    let mut amp = 0.5714; // 1 / (1 + 1/2 + 1/4)
    let mut freq = frequency;
    for octave in 0..3u32 {
        sum += amp
            * value_noise(
                seed.wrapping_add(octave.wrapping_mul(0x9e37_79b9)),
                p * freq,
            );
        amp *= 0.5;
        freq *= 2.0;
    }
    sum
}
