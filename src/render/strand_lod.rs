//! Strand level of detail: which strands a frame draws and how wide.
//!
//! The coat is drawn as a prefix of one fixed, seeded order of its strands
//! ([`drawn_order`], uploaded once, 4 bytes a strand), in which every prefix is spread
//! evenly over the body: the roots are in Morton order (neighbours on the skin are
//! neighbours in memory), and the order visits them by the bit-reversed rank of their
//! (seed-rotated) index, so the first 2^p strands are every 2^(b−p)-th root along the
//! Morton curve. Each frame picks how many to draw from the coat's size on screen
//! ([`StrandLod::choose`]); strands near the end of the prefix fade in and out over a band
//! (`drawn_weight` in `shaders/ribbon_geometry.wgsl`), so a changing count never pops; and
//! the drawn strands are widened to keep the coat's coverage.
//!
//! The widening: a strand of width w and length L covers w·L of the skin's area A, and n
//! strands placed independently leave a share exp(−n·w·L/A) of it bare (a Poisson
//! process). Keeping the bare share therefore needs n·w constant: a width scale linear in
//! the density ratio. Strands thinner than a pixel are drawn a pixel wide and
//! proportionally fainter, so there the scale raises their opacity, and the coverage of
//! overlapping strands (`coverage_mask`) adds opacities the same way. Real strands are not
//! independent (clumps share a direction, neighbours overlap), so the covering rate grows a
//! little slower than the count: fitting 1 − exp(−λ) to measured coverage
//! (`tests/strand_lod.rs`; the numbers are in `docs/architecture.md`, "Measured") gives
//! λ ∝ (n·w)^0.97 and a width scale of the ratio to the power 0.9 ([`WIDENING_EXPONENT`]),
//! which [`widening`] uses. The same scale makes a reduced tier look like the full coat:
//! its reference density is the full coat's ([`FULL_COAT_STRANDS`]). The scale is capped at
//! [`MAX_WIDENING`], beyond which a ribbon would be a leaf, and, where a policy asks
//! ([`LodPolicy::max_extra_pixels`]), at the scale that leaves the nearest strand no more
//! than that many pixels wider on screen than at its own width ([`width_cap`]): widened
//! past that, a few strands read as spikes, not as a denser coat.
//! The solver still steps every strand; only drawing is reduced.

use crate::render::Camera;
use crate::render::camera::CREATURE_CENTER;
use glam::Vec3;

/// Strands in the full coat: the density a reduced tier is widened to look like.
pub const FULL_COAT_STRANDS: u32 = crate::sim::StrandTier::Full.strands() as u32;

/// The seed of the drawn order the renderer uploads (any seed spreads every prefix
/// evenly; a fixed one keeps the pictures the same from run to run).
pub const DRAWN_ORDER_SEED: u64 = 0x5eed_10d0;

/// Share of the drawn count over which strands at the end of the prefix fade.
pub const FADE_BAND: f32 = 0.25;

/// Exponent of the width scale in the density ratio (see the module's documentation).
pub const WIDENING_EXPONENT: f32 = 0.9;

/// The widest a ribbon is drawn, as a multiple of its own width: far beyond this a strand
/// would be a leaf wider than it is long.
pub const MAX_WIDENING: f32 = 8.0;

/// Radius of a sphere around the creature that its coat fills on screen, metres.
const COAT_RADIUS: f32 = 0.55;

/// The order strands are drawn in: `order[k]` is the strand drawn k-th. `count` strands
/// in Morton order; every prefix is spread evenly along the Morton curve, so over the
/// body. Same `seed`, same order.
pub fn drawn_order(count: u32, seed: u64) -> Vec<u32> {
    if count == 0 {
        return Vec::new();
    }
    let bits = 32 - (count - 1).leading_zeros();
    let offset = (splitmix64(seed) % u64::from(count)) as u32;
    let rank = |i: u32| -> u32 {
        // Rotate by the seeded offset (so different seeds start at different roots), then
        // reverse the index's bits: a prefix of the ranks is an even stride of indices.
        let j = ((u64::from(i) + u64::from(offset)) % u64::from(count)) as u32;
        if bits == 0 {
            0
        } else {
            j.reverse_bits() >> (32 - bits)
        }
    };
    let mut order: Vec<u32> = (0..count).collect();
    // Ranks are distinct (bit reversal is a bijection on `bits` bits), so the order is too.
    order.sort_unstable_by_key(|&i| rank(i));
    order
}

/// SplitMix64: one well-mixed word from a seed.
fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The width scale that keeps the coverage of `drawn` strands (an effective count, the
/// fading ones counted by their weight) like that of `reference` strands: the density
/// ratio to the power `exponent` (1 for the thin Poisson layer, [`WIDENING_EXPONENT`]
/// measured on the coat).
pub fn widening(reference: f32, drawn: f32, exponent: f32) -> f32 {
    if drawn <= 0.0 || reference <= drawn {
        return 1.0;
    }
    (reference / drawn).powf(exponent).min(MAX_WIDENING)
}

/// The largest width scale that draws a strand `root_pixels` wide on screen (its root,
/// the widest point) at most `extra` pixels wider than at full density, where strands
/// narrower than `min_pixels` are drawn that wide: scale · w ≤ max(w, min_pixels) + extra.
/// At least 1 (never narrower than its own width).
pub fn width_cap(root_pixels: f32, min_pixels: f32, extra: f32) -> f32 {
    if root_pixels.is_nan() || root_pixels <= 0.0 {
        return 1.0;
    }
    ((root_pixels.max(min_pixels) + extra.max(0.0)) / root_pixels).max(1.0)
}

/// How the renderer chooses a frame's strands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodPolicy {
    /// Whether to draw fewer strands when the coat is small on screen.
    pub by_screen_size: bool,
    /// Drawn strands per pixel of the coat's disc on screen (more: denser, slower).
    pub strands_per_pixel: f32,
    /// Fewest strands drawn (when the coat is bound with more).
    pub min_drawn: u32,
    /// The coat density the drawn strands are widened to look like: `None` for the bound
    /// coat's own (no widening at full detail), `Some(FULL_COAT_STRANDS)` to make a reduced
    /// tier look like the full coat.
    pub reference_strands: Option<u32>,
    /// The width scale's exponent in the density ratio ([`widening`]).
    pub widening_exponent: f32,
    /// The most pixels a drawn strand may be widened past its own width on screen
    /// ([`width_cap`]); `None` for no bound but [`MAX_WIDENING`].
    pub max_extra_pixels: Option<f32>,
}

impl Default for LodPolicy {
    fn default() -> Self {
        LodPolicy {
            by_screen_size: true,
            strands_per_pixel: 1.0,
            min_drawn: 1024,
            reference_strands: None,
            widening_exponent: WIDENING_EXPONENT,
            max_extra_pixels: None,
        }
    }
}

impl LodPolicy {
    /// Every strand at its own width, whatever the size on screen: what a renderer draws
    /// until it is given a policy (so pictures stay what they were unless asked).
    pub fn whole_coat() -> Self {
        LodPolicy {
            by_screen_size: false,
            ..LodPolicy::default()
        }
    }
}

/// One frame's strand level of detail, as the shaders read it (`FrameUniforms`'s `lod_*`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrandLod {
    /// Strands drawn: the prefix of the drawn order the passes number their work over.
    pub drawn: u32,
    /// Where the fade ends: strand k of the order is drawn with weight
    /// `clamp((end − k) / fade, 0, 1)`.
    pub end: f32,
    /// Strands over which the weight falls from 1 to 0.
    pub fade: f32,
    /// Every drawn ribbon's width is multiplied by this.
    pub width_scale: f32,
}

impl StrandLod {
    /// Every one of `bound` strands, at their own width: what a renderer without LOD draws.
    pub fn all(bound: u32) -> Self {
        StrandLod {
            drawn: bound,
            end: bound as f32 + 1.0,
            fade: 1.0,
            width_scale: 1.0,
        }
    }

    /// The level for a target count `target` (fractional; clamped to the coat) of `bound`
    /// strands, widened toward `reference` strands' coverage. Continuous in `target`: the
    /// fade band slides over the order, and the width follows the weights' sum.
    pub fn for_count(bound: u32, target: f32, reference: u32, exponent: f32) -> Self {
        let n = bound as f32;
        let reference = reference.max(bound) as f32;
        if bound == 0 {
            return StrandLod::all(0);
        }
        let target = target.clamp(1.0, n);
        let fade = (FADE_BAND * target).max(1.0);
        // Where the fade must end for the weights to sum to the target: at the full count
        // it has slid past the last strand, so every strand has weight 1. The sum grows
        // with the end, so bisect.
        let (mut lo, mut hi) = (0.0f32, n + fade);
        for _ in 0..48 {
            let mid = 0.5 * (lo + hi);
            if effective_count(mid, fade, n) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let end = if target >= n { n + fade } else { hi };
        let drawn = (end.ceil() as u32).min(bound);
        StrandLod {
            drawn,
            end,
            fade,
            width_scale: widening(reference, effective_count(end, fade, n), exponent),
        }
    }

    /// The level for a coat of `bound` strands filling `coat_pixels` pixels on screen.
    pub fn choose(bound: u32, coat_pixels: f32, policy: &LodPolicy) -> Self {
        let reference = policy.reference_strands.unwrap_or(bound);
        let exponent = policy.widening_exponent;
        if !policy.by_screen_size {
            return StrandLod::for_count(bound, bound as f32, reference, exponent);
        }
        let wanted = (coat_pixels * policy.strands_per_pixel.max(0.0))
            .max(policy.min_drawn as f32)
            .min(bound as f32);
        StrandLod::for_count(bound, wanted, reference, exponent)
    }

    /// The level for a coat of `bound` strands seen by `camera` in a target `height` pixels
    /// tall ([`StrandLod::choose`] by its size on screen), its strands `root_width` metres
    /// wide at the root and drawn at least `min_pixels` wide; where the policy asks
    /// ([`LodPolicy::max_extra_pixels`]), the width scale is capped by [`width_cap`] at the
    /// coat's nearest point, so no strand is widened further than that on screen.
    pub fn for_view(
        bound: u32,
        camera: &Camera,
        height: u32,
        root_width: f32,
        min_pixels: f32,
        policy: &LodPolicy,
    ) -> Self {
        let mut lod =
            StrandLod::choose(bound, coat_pixels(camera, CREATURE_CENTER, height), policy);
        if let Some(extra) = policy.max_extra_pixels {
            let root = nearest_strand_pixels(camera, CREATURE_CENTER, height, root_width);
            lod.width_scale = lod.width_scale.min(width_cap(root, min_pixels, extra));
        }
        lod
    }

    /// The sum of the drawn strands' weights.
    pub fn effective(&self, bound: u32) -> f32 {
        effective_count(self.end, self.fade, bound as f32)
    }
}

/// Strands the key light's maps draw per texel of the coat's disc in them where a picture
/// asks for the light's own level of detail
/// ([`crate::render::RenderSettings::light_strands_per_texel`]). The maps hold the first
/// hair's depth and the hair's density in slabs behind it, both read filtered over texels
/// by the shading: more strands than texels there change the density's grain, not the
/// shadow, while each drawn strand costs the light's maps as much as the picture.
pub const LIGHT_STRANDS_PER_TEXEL: f32 = 1.0;

impl StrandLod {
    /// The level the key light's maps draw, given the camera's `camera` level of a coat of
    /// `bound` strands, the maps' `texel` (metres, orthographic) and at most `per_texel`
    /// strands a texel: the camera's where the coat's disc in the maps (0.55 m in radius,
    /// as for the camera) holds no more than that many of its strands, else a shorter
    /// prefix of the same order widened from the camera's width by the ratio of the counts
    /// itself (exponent 1, not the camera's [`WIDENING_EXPONENT`]): the deep opacity adds
    /// every strand's coverage, so the sum of the drawn widths is what keeps its density
    /// (the camera's exponent, fitted to the skin overlapping strands leave bare, would
    /// thin the shadows). Never fewer strands than [`MAX_WIDENING`] can widen to the
    /// camera's density, never more strands, nor narrower, than the camera's; a texel or
    /// density that is not a positive number leaves the camera's level.
    pub fn for_light(camera: StrandLod, bound: u32, texel: f32, per_texel: f32) -> Self {
        let usable = |v: f32| v.is_finite() && v > 0.0;
        if !(usable(texel) && usable(per_texel)) || bound == 0 {
            return camera;
        }
        let radius = COAT_RADIUS / texel;
        let seen = camera.effective(bound);
        let widest = camera.width_scale.max(1.0);
        let target = (std::f32::consts::PI * radius * radius * per_texel)
            .max(seen * widest / MAX_WIDENING.max(widest))
            .max(1.0);
        if target >= seen {
            return camera;
        }
        let light = StrandLod::for_count(bound, target, bound, 1.0);
        let extra = (seen / light.effective(bound).max(1.0)).max(1.0);
        StrandLod {
            width_scale: (camera.width_scale * extra).min(MAX_WIDENING.max(camera.width_scale)),
            ..light
        }
    }
}

/// The sum over k < n of `clamp((end − k) / fade, 0, 1)` (continuous approximation).
fn effective_count(end: f32, fade: f32, n: f32) -> f32 {
    let ramp = |x: f32| {
        // ∫₀ˣ clamp((end − k)/fade, 0, 1) dk
        let full = (end - fade).clamp(0.0, x);
        let upper = end.min(x);
        let partial = if upper > full {
            let w = |k: f32| (end - k) / fade;
            0.5 * (w(full) + w(upper)) * (upper - full)
        } else {
            0.0
        };
        full + partial
    };
    ramp(n)
}

/// The pixels a strand `width` metres wide spans at the coat's nearest point to `camera`
/// (the sphere around `center`) in a target `height` pixels tall: the widest any strand of
/// the coat is drawn.
pub fn nearest_strand_pixels(camera: &Camera, center: Vec3, height: u32, width: f32) -> f32 {
    let distance = ((center - camera.eye).length() - COAT_RADIUS).max(0.05);
    width / (distance * camera.pixel_scale(height))
}

/// Pixels the coat fills on screen: the disc of a sphere around the creature (centred at
/// `center`) seen by `camera` in a target `height` pixels tall.
pub fn coat_pixels(camera: &Camera, center: Vec3, height: u32) -> f32 {
    let distance = (center - camera.eye).length().max(COAT_RADIUS * 1.05);
    let radius_px = COAT_RADIUS / (distance * camera.pixel_scale(height));
    std::f32::consts::PI * radius_px * radius_px
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_light_draws_no_more_strands_than_texels_and_keeps_the_density() {
        let bound = 420_032;
        // 1024² maps over 2.6 m: the coat's disc holds about 147,000 texels.
        let texel = 2.6 / 1024.0;
        let disc = std::f32::consts::PI * (COAT_RADIUS / texel).powi(2);
        for camera in [
            StrandLod::all(bound),
            StrandLod::for_count(bound, 300_000.0, bound, WIDENING_EXPONENT),
            StrandLod::for_count(bound, 200_000.0, FULL_COAT_STRANDS, WIDENING_EXPONENT),
        ] {
            let light = StrandLod::for_light(camera, bound, texel, LIGHT_STRANDS_PER_TEXEL);
            let (seen, drawn) = (camera.effective(bound), light.effective(bound));
            assert!(
                (drawn - disc * LIGHT_STRANDS_PER_TEXEL).abs() < 0.01 * disc,
                "{drawn} strands for {disc} texels"
            );
            assert!(light.drawn <= camera.drawn);
            // The widths' sum, so the deep opacity's density, is the camera's.
            let ratio = drawn * light.width_scale / (seen * camera.width_scale);
            assert!((ratio - 1.0).abs() < 0.01, "density ×{ratio}");
        }
        // Fewer strands than texels: the camera's level, unchanged.
        let few = StrandLod::for_count(bound, 100_000.0, bound, WIDENING_EXPONENT);
        assert_eq!(StrandLod::for_light(few, bound, texel, 1.0), few);
        let small = StrandLod::all(65_536);
        assert_eq!(
            StrandLod::for_light(small, 65_536, 2.6 / 512.0 / 4.0, 1.0),
            small
        );
        // A texel that is no number leaves the camera's level.
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let all = StrandLod::all(bound);
            assert_eq!(StrandLod::for_light(all, bound, bad, 1.0), all, "{bad}");
            assert_eq!(StrandLod::for_light(all, bound, texel, bad), all, "{bad}");
        }
        // A density the widening cannot reach: no fewer strands than it can widen to the
        // camera's density, and the density kept.
        for camera in [StrandLod::all(bound), StrandLod::all(60_000)] {
            let n = camera.drawn;
            let light = StrandLod::for_light(camera, n, texel, 0.01);
            let drawn = light.effective(n);
            assert!(light.width_scale <= MAX_WIDENING + 1e-4, "{light:?}");
            let ratio = drawn * light.width_scale / camera.effective(n);
            assert!(
                (ratio - 1.0).abs() < 0.01,
                "{n}: density ×{ratio} at 0.01 a texel"
            );
        }
    }

    #[test]
    fn the_width_cap_leaves_a_strand_at_most_the_extra_pixels_wider() {
        for root in [0.1f32, 0.4, 0.66, 1.0, 1.7, 3.0, 12.0] {
            let cap = width_cap(root, 1.0, 1.0);
            // Drawn as wide as the renderer draws it: at least `min_pixels`.
            let full = root.max(1.0);
            let widened = (cap * root).max(1.0);
            assert!(widened <= full + 1.0 + 1e-4, "{root} px: {widened} px");
            // And no narrower than that bound needs.
            assert!(widened >= full + 1.0 - 1e-4, "{root} px: {widened} px");
        }
        assert_eq!(width_cap(2.0, 1.0, 0.0), 1.0);
        assert_eq!(width_cap(0.0, 1.0, 1.0), 1.0);
    }

    #[test]
    fn order_is_a_permutation_and_seeded() {
        for n in [1, 2, 3, 64, 1000, 4096] {
            let mut o = drawn_order(n, 7);
            assert_eq!(o.len(), n as usize);
            o.sort_unstable();
            assert!(o.iter().enumerate().all(|(i, &s)| i as u32 == s));
        }
        assert_eq!(drawn_order(1000, 3), drawn_order(1000, 3));
        assert_ne!(drawn_order(1000, 3), drawn_order(1000, 4));
    }

    #[test]
    fn full_count_draws_everything_at_weight_one() {
        let lod = StrandLod::for_count(4096, 4096.0, 4096, 1.0);
        assert_eq!(lod.drawn, 4096);
        assert!(lod.end - 4095.0 >= lod.fade);
        assert_eq!(lod.width_scale, 1.0);
    }

    #[test]
    fn weights_sum_to_the_target_and_widen() {
        let lod = StrandLod::for_count(4096, 1000.0, 4096, 0.9);
        assert!((lod.effective(4096) - 1000.0).abs() < 1.0, "{lod:?}");
        assert!((lod.width_scale - 4.096f32.powf(0.9)).abs() < 0.01);
        assert!(lod.drawn >= 1125 && lod.drawn <= 1126, "{lod:?}");
    }

    #[test]
    fn level_is_continuous_in_the_target() {
        let mut last = StrandLod::for_count(4096, 1.0, 4096, 1.0);
        for t in 2..=4200 {
            let lod = StrandLod::for_count(4096, t as f32, 4096, 1.0);
            assert!(
                (lod.effective(4096) - last.effective(4096)).abs() < 1.5,
                "{t}"
            );
            assert!((lod.width_scale - last.width_scale).abs() < 0.05, "{t}");
            last = lod;
        }
    }
}
