//! The strand points' shaded colours as the hair's shading pass writes them (one `u32` a
//! point, `pack_point_color` in `shaders/ribbon_geometry.wgsl`), and the tone map the
//! ribbons apply to each fragment (`tone_map` in `shaders/frame.wgsl`), so a picture drawn
//! here lands in the same space as the ribbons' colour target.

use glam::Vec3;

/// Linear HDR colour (0 … 8) in one word: the square roots of colour / 8 in 11, 11 and 10
/// bits. WGSL twin: `pack_point_color`.
pub fn pack_point_color(c: Vec3) -> u32 {
    let root = (c / 8.0).clamp(Vec3::ZERO, Vec3::ONE);
    let root = Vec3::new(root.x.sqrt(), root.y.sqrt(), root.z.sqrt());
    let q = (root * Vec3::new(2047.0, 2047.0, 1023.0)).round();
    q.x as u32 | ((q.y as u32) << 11) | ((q.z as u32) << 22)
}

/// The colour [`pack_point_color`] packed. WGSL twin: `unpack_point_color`.
pub fn unpack_point_color(word: u32) -> Vec3 {
    let q = Vec3::new(
        (word & 0x7ff) as f32,
        ((word >> 11) & 0x7ff) as f32,
        (word >> 22) as f32,
    );
    let root = q / Vec3::new(2047.0, 2047.0, 1023.0);
    8.0 * root * root
}

/// Linear HDR → display with `exposure`: the identity below 0.6, a hue-keeping shoulder
/// toward 1 above it. WGSL twin: `tone_map`.
pub fn tone_map(hdr: Vec3, exposure: f32) -> Vec3 {
    let c = (hdr * exposure).max(Vec3::ZERO);
    let peak = c.max_element();
    if peak <= 0.6 {
        return c;
    }
    let x = peak - 0.6;
    let mapped = 0.6 + 0.4 * x / (x + 0.4);
    c * (mapped / peak)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_colour_comes_back_within_its_quantisation() {
        for c in [
            Vec3::new(0.01, 0.2, 0.9),
            Vec3::new(1.5, 0.6, 0.05),
            Vec3::new(7.9, 0.0, 3.0),
        ] {
            let back = unpack_point_color(pack_point_color(c));
            // The step of the root code: 2 / code relative, at least one level.
            let tolerance = c * 0.01 + Vec3::splat(8.0 / (1023.0 * 1023.0) * 2.0);
            assert!(
                (back - c).abs().cmple(tolerance).all(),
                "{c} came back as {back}"
            );
        }
    }

    #[test]
    fn the_tone_map_keeps_dark_colours_and_rolls_off_bright_ones() {
        let dark = Vec3::new(0.1, 0.3, 0.5);
        assert_eq!(tone_map(dark, 1.0), dark);
        let bright = tone_map(Vec3::new(4.0, 2.0, 1.0), 1.0);
        assert!(bright.max_element() < 1.0 && bright.max_element() > 0.9);
        // Hue kept: the ratios stay.
        assert!((bright.x / bright.y - 2.0).abs() < 1e-5);
    }
}
