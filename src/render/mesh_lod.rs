//! Surfaces by screen size: the creature's skin tessellated at a few levels of detail,
//! built once, one chosen per frame by the coat's size on screen.
//!
//! On a CPU rasteriser a triangle costs about half a microsecond whether it covers a pixel
//! or not, so a skin of ~41,000 triangles seen a few hundred pixels tall spends most of its
//! time on triangles smaller than a pixel. A level is chosen so that a triangle covers at
//! least [`PIXELS_PER_TRIANGLE`] pixels of the coat's disc on screen; the analytic
//! surface's curvature is gentle, so a coarser grid's silhouette moves by less than a
//! pixel at the size it is chosen for. The key light's opaque depth map always uses
//! [`SHADOW_LEVEL`]: the coarse grid lies within about a millimetre of the fine one,
//! well inside the map's 6 mm depth bias, so the shadow's edges move by about a
//! millimetre and no acne appears.

/// Tessellation detail of each level (1 is the full mesh), finest first.
pub const DETAILS: [f32; 4] = [1.0, 0.71, 0.5, 0.35];

/// The level the key light's opaque depth map draws.
pub const SHADOW_LEVEL: usize = 3;

/// Pixels of the coat's disc on screen per skin triangle, at least.
pub const PIXELS_PER_TRIANGLE: f32 = 6.0;

/// The coarsest level with at least one triangle per [`PIXELS_PER_TRIANGLE`] pixels of a
/// coat filling `coat_pixels`, given each level's triangle count (finest first).
pub fn skin_level(coat_pixels: f32, triangles: &[u32]) -> usize {
    let wanted = coat_pixels / PIXELS_PER_TRIANGLE;
    (0..triangles.len())
        .rev()
        .find(|&l| triangles[l] as f32 >= wanted)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn larger_on_screen_picks_finer_levels() {
        let tris = [40_000, 20_000, 10_000, 5_000];
        assert_eq!(skin_level(1e6, &tris), 0);
        assert_eq!(skin_level(200_000.0, &tris), 0);
        assert_eq!(skin_level(100_000.0, &tris), 1);
        assert_eq!(skin_level(50_000.0, &tris), 2);
        assert_eq!(skin_level(1_000.0, &tris), 3);
    }
}
