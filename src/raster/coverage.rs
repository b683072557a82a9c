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
//! `t ∈ [0, 1)`, so the ends are square and a strand's joints are drawn once.

use super::lanes::Lanes;
use super::segments::Segment;

/// One segment's fragment at a row of pixels: its opacity (0 where it covers nothing) and
/// its nearness and colour there.
pub(crate) struct Fragment<L: Lanes> {
    pub alpha: L,
    pub near: L,
    pub rgb: [L; 3],
}

/// The overlap of a pixel-wide box at distance `d` with a band of half-width `h` (both in
/// pixels), times the soft edge at the centre: the per-pixel coverage before the fade.
pub(crate) fn profile<L: Lanes>(d: L, h: L) -> L {
    let half = L::splat(0.5);
    let overlap = ((d + half).min(h) - (d - half).max(L::splat(0.0) - h)).clamp01();
    let s = d / h;
    let s2 = s * s;
    let edge = (L::splat(1.0) - s2 * s2).max(L::splat(0.0));
    overlap * edge
}

/// The fragment of `seg` at the pixel centres (`px`, `py`), with `inv_tip_fade` the
/// reciprocal of the faded share of the length.
pub(crate) fn fragment<L: Lanes>(seg: &Segment, px: L, py: L, tip_fade: f32) -> Fragment<L> {
    let rx = px - L::splat(seg.ax);
    let ry = py - L::splat(seg.ay);
    let (dx, dy) = (L::splat(seg.dx), L::splat(seg.dy));
    let t = (rx * dx + ry * dy) * L::splat(seg.inv_len2);
    let inside = L::and(t.ge(L::splat(0.0)), t.lt(L::splat(1.0)));
    let inv_len = L::splat(seg.inv_len2.sqrt());
    let d = (rx * dy - ry * dx).abs() * inv_len;
    let h = L::splat(seg.half) + L::splat(seg.d_half) * t;
    let along = L::splat(seg.along) + L::splat(seg.d_along) * t;
    let fade = ((L::splat(1.0) - along) / L::splat(tip_fade.max(1e-4))).clamp01();
    let coverage = L::splat(seg.coverage) + L::splat(seg.d_coverage) * t;
    let alpha = profile(d, h) * (fade * coverage).clamp01();
    let alpha = L::select(inside, alpha, L::splat(0.0));
    let c = |v: f32, dv: f32| L::splat(v) + L::splat(dv) * t;
    Fragment {
        alpha,
        near: L::splat(seg.near) + L::splat(seg.d_near) * t,
        rgb: [
            c(seg.color.x, seg.d_color.x),
            c(seg.color.y, seg.d_color.y),
            c(seg.color.z, seg.d_color.z),
        ],
    }
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
