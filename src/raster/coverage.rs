//! Analytic coverage: how much of a pixel a segment covers, from the distance of the
//! pixel's centre to the segment's centre line. The ribbons (`shaders/ribbons.wgsl`) cover
//! the MSAA samples inside the quad, as many as the fragment's opacity asks for, and that
//! opacity is the soft edge `1 − side⁴` evaluated at the pixel's centre times the tip fade
//! and the sub-pixel coverage (`ribbon_alpha`). One sample per pixel models the first
//! factor as the overlap of a pixel-wide box with the ribbon's width, and keeps the second
//! as the ribbons have it:
//!
//! `alpha = overlap(d, h) · max(1 − (d/h)⁴, 0) · fade · coverage` with
//! `overlap(d, h) = clamp(min(d + ½, h) − max(d − ½, −h), 0, 1)`,
//!
//! `d` the distance in pixels, `h` the drawn half-width in pixels, both interpolated along
//! the segment at the pixel's parameter `t`; the pixel counts for the segment only for
//! `t ∈ [0, 1)` and `d < h`, so the ends are square and a strand's joints are drawn once.
//! The light's maps are drawn by the ribbons with one sample a texel, not four: there the
//! overlap factor is left out (a texel is in or out by its centre, as the rasteriser
//! decides), which keeps a thin strand's total opacity the ribbons' in the light's maps.

use super::lanes::Lanes;
use super::segments::Segment;

/// Where a segment lies against a row of pixels: each pixel's parameter along it, its
/// distance from the centre line and the half-width there (pixels), and which pixels it
/// covers at all (their centre projects into [0, 1) and lies inside the half-width).
pub(crate) struct Hit<L: Lanes> {
    pub t: L,
    pub d: L,
    pub h: L,
    pub cover: L::Mask,
}

/// `seg` against the pixel centres `rx` (their x less the segment's start) on the row
/// whose centre lies `ry` below the segment's start; `None` when it covers none of them.
#[inline(always)]
pub(crate) fn hit<L: Lanes>(seg: &Segment, rx: L, ry: f32) -> Option<Hit<L>> {
    let t = (rx * L::splat(seg.dx) + L::splat(ry * seg.dy)) * L::splat(seg.inv_len2);
    let d = (rx * L::splat(seg.dy) - L::splat(ry * seg.dx)).abs() * L::splat(seg.inv_len);
    let h = L::splat(seg.half) + L::splat(seg.d_half) * t;
    let inside = L::and(t.ge(L::splat(0.0)), t.lt(L::splat(1.0)));
    let cover = L::and(inside, d.lt(h));
    L::any(cover).then_some(Hit { t, d, h, cover })
}

/// The overlap of a pixel-wide box at distance `d` with a band of half-width `h` (both in
/// pixels), times the soft edge at the centre: the per-pixel coverage before the fade.
#[inline(always)]
pub(crate) fn profile<L: Lanes>(d: L, h: L) -> L {
    let half = L::splat(0.5);
    let overlap = ((d + half).min(h) - (d - half).max(L::splat(0.0) - h)).clamp01();
    overlap * edge(d, h)
}

/// The ribbons' soft edge `max(1 − (d/h)⁴, 0)` at distance `d` from a band of half-width
/// `h`: what one sample at the pixel centre sees (the light's maps, drawn by the ribbons
/// without MSAA).
#[inline(always)]
pub(crate) fn edge<L: Lanes>(d: L, h: L) -> L {
    let s = d / h;
    let s2 = s * s;
    (L::splat(1.0) - s2 * s2).max(L::splat(0.0))
}

/// The opacity `hit` gives before its profile: the tip fade times the coverage along the
/// segment, clamped to 0 … 1.
#[inline(always)]
pub(crate) fn weight<L: Lanes>(seg: &Segment, t: L) -> L {
    let fade = (L::splat(seg.fade) + L::splat(seg.d_fade) * t).clamp01();
    let coverage = L::splat(seg.coverage) + L::splat(seg.d_coverage) * t;
    (fade * coverage).clamp01()
}

/// The camera's opacity of the covered pixels of `hit` (0 elsewhere): the pixel box's
/// overlap with the band (the share of the ribbons' MSAA samples inside it) times the
/// edge and the weight.
#[inline(always)]
pub(crate) fn picture_alpha<L: Lanes>(seg: &Segment, hit: &Hit<L>) -> L {
    let alpha = profile(hit.d, hit.h) * weight(seg, hit.t);
    L::select(hit.cover, alpha, L::splat(0.0))
}

/// The light's opacity of the covered pixels of `hit` (0 elsewhere): one sample at the
/// centre, so the edge times the weight, as the ribbons' shadow passes have it.
#[inline(always)]
pub(crate) fn light_alpha<L: Lanes>(seg: &Segment, hit: &Hit<L>) -> L {
    let alpha = edge(hit.d, hit.h) * weight(seg, hit.t);
    L::select(hit.cover, alpha, L::splat(0.0))
}

/// A value at the start of a segment with `change` to its end, at parameters `t`.
#[inline(always)]
pub(crate) fn along<L: Lanes>(start: f32, change: f32, t: L) -> L {
    L::splat(start) + L::splat(change) * t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pixel_wide_ribbon_keeps_the_ribbons_energy() {
        // Integrated across, a ribbon one pixel wide covers ∫ overlap · edge: the box of
        // the pixel against the ribbon's width, times its soft edge at the centre.
        let steps = 20_000;
        let sum: f32 = (0..steps)
            .map(|i| {
                let d = -2.0 + 4.0 * (i as f32 + 0.5) / steps as f32;
                profile(d.abs(), 0.5) * 4.0 / steps as f32
            })
            .sum();
        // 2 ∫₀^½ (1 − d)(1 − 16 d⁴) dd = 0.6333…
        assert!((sum - 0.633_333).abs() < 1e-3, "{sum}");
        // Wide ribbons cover their centre fully and nothing a pixel past their edge.
        assert_eq!(profile(0.0f32, 4.0), 1.0);
        assert_eq!(profile(4.6f32, 4.0), 0.0);
    }
}
