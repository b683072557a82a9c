//! The strands as the rasteriser draws them: its input (the solver's positions, six points
//! a strand, the drawn order and strand LOD, the points' shaded colours), each drawn point
//! projected once with the ribbons' width, taper, `min_pixels` floor and LOD weight
//! (`strand_point` in `shaders/ribbon_geometry.wgsl`, line for line), and a segment between
//! two projected points set up for the per-pixel coverage.

use super::RasterError;
use super::colors::{tone_map, unpack_point_color};
use super::prefetch::{AHEAD, prefetch};
use super::tile::TILE;
use super::view::RasterView;
use crate::sim::POINTS_PER_STRAND;
use glam::{Vec3, Vec4};
use rayon::prelude::*;

/// Segments of a strand.
pub const SEGMENTS: usize = POINTS_PER_STRAND - 1;

/// Strand level of detail, as the renderer's `StrandLod` gives it: the first `drawn` strands
/// of the drawn order, strand k weighted by `clamp((end − k) / fade, 0, 1)`, every width
/// times `width_scale`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lod {
    /// Strands drawn (a prefix of the order).
    pub drawn: u32,
    /// Where the fade ends.
    pub end: f32,
    /// Strands over which the weight falls from 1 to 0 (at least 1).
    pub fade: f32,
    /// Width multiplier.
    pub width_scale: f32,
}

impl Lod {
    /// Every one of `count` strands at its own width.
    pub fn all(count: u32) -> Self {
        Lod {
            drawn: count,
            end: count as f32 + 1.0,
            fade: 1.0,
            width_scale: 1.0,
        }
    }

    /// The weight of the `k`th strand drawn. WGSL twin: `drawn_weight`.
    pub fn weight(&self, k: u32) -> f32 {
        ((self.end - k as f32) / self.fade.max(1.0)).clamp(0.0, 1.0)
    }
}

/// The ribbons' shape: `RenderSettings`' `root_width`, `tip_width`, `tip_fade` and
/// `min_pixels`, the numbers the renderer puts in its frame uniforms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrandStyle {
    /// Width at the root, metres.
    pub root_width: f32,
    /// Width at the tip as a share of the root's.
    pub tip_width: f32,
    /// Share of the length, at the tip, over which a strand fades out.
    pub tip_fade: f32,
    /// Narrowest drawn width, pixels (thinner strands are drawn this wide and less opaque).
    pub min_pixels: f32,
}

impl Default for StrandStyle {
    /// The seed's ribbons: 3.4 mm at the root to 15% at the tip, the last 20% fading, at
    /// least a pixel wide.
    fn default() -> Self {
        StrandStyle {
            root_width: 0.0034,
            tip_width: 0.15,
            tip_fade: 0.2,
            min_pixels: 1.0,
        }
    }
}

/// One frame's strands.
#[derive(Clone, Copy, Debug)]
pub struct Strands<'a> {
    /// Six points a strand (xyz; w is ignored), the solver's layout.
    pub positions: &'a [Vec4],
    /// Each point's shaded colour packed as the shading pass writes it
    /// ([`pack_point_color`](super::pack_point_color)), indexed like `positions`; only the
    /// drawn strands' are read. Not read for light maps (an empty slice will do there).
    pub colors: &'a [u32],
    /// The drawn order (`strand_lod::drawn_order`): the k-th strand drawn is `order[k]`;
    /// `None` draws strand k as the k-th.
    pub order: Option<&'a [u32]>,
    /// Which strands are drawn, how opaque and how wide.
    pub lod: Lod,
    /// The ribbons' widths and fade.
    pub style: StrandStyle,
    /// Strands the camera cannot see (nonzero), one flag a strand, as the cull pass
    /// marks them (`shaders/strand_cull.wgsl`: wholly behind the creature's shrunk body
    /// or head, so none of their pixels would pass the surfaces' depth): left out of the
    /// picture before they are projected. `None` leaves none out (and the light's maps,
    /// which see the other side, always draw them).
    pub hidden: Option<&'a [u32]>,
}

impl Strands<'_> {
    /// Strands bound.
    pub fn count(&self) -> usize {
        self.positions.len() / POINTS_PER_STRAND
    }

    /// Strands drawn this frame.
    pub fn drawn(&self) -> usize {
        (self.lod.drawn as usize).min(self.count())
    }

    /// The strand drawn `k`th.
    pub(crate) fn strand(&self, k: usize) -> usize {
        self.order.map_or(k, |o| o[k] as usize)
    }

    /// Checks the buffers against each other and the numbers; `colors` only when `picture`.
    pub fn validate(&self, picture: bool) -> Result<(), RasterError> {
        let bad = |what: String| Err(RasterError::Strands(what));
        if !self.positions.len().is_multiple_of(POINTS_PER_STRAND) {
            return bad(format!(
                "{} positions are not a whole number of strands of {POINTS_PER_STRAND} points",
                self.positions.len()
            ));
        }
        if picture && self.colors.len() < self.positions.len() {
            return bad(format!(
                "{} shaded colours for {} points: give one colour a point",
                self.colors.len(),
                self.positions.len()
            ));
        }
        if let Some(hidden) = self.hidden
            && hidden.len() < self.count()
        {
            return bad(format!(
                "{} cull flags for {} strands: give one flag a strand",
                hidden.len(),
                self.count()
            ));
        }
        if let Some(order) = self.order {
            if order.len() < self.drawn() {
                return bad(format!(
                    "the drawn order names {} strands but {} are drawn",
                    order.len(),
                    self.drawn()
                ));
            }
            if let Some(s) = order[..self.drawn()]
                .iter()
                .find(|&&s| s as usize >= self.count())
            {
                return bad(format!(
                    "the drawn order names strand {s}, but there are {} strands",
                    self.count()
                ));
            }
        }
        let s = &self.style;
        let numbers = [
            s.root_width,
            s.tip_width,
            s.tip_fade,
            s.min_pixels,
            self.lod.end,
            self.lod.fade,
            self.lod.width_scale,
        ];
        if numbers.iter().any(|x| !x.is_finite()) || s.root_width <= 0.0 || s.min_pixels < 0.0 {
            return bad(
                "a width, fade or LOD number is not finite, or the root width is not positive"
                    .into(),
            );
        }
        Ok(())
    }
}

/// A drawn strand point on screen, 16 bytes: centre (pixels) and nearness (greater is
/// nearer) at full precision, half the drawn width (pixels; negative when the point is
/// behind the viewer) as a half-precision float, and true over drawn width times the LOD
/// weight (0 … 1) in 16-bit fixed point. Its colour stays in the caller's buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ScreenPoint {
    pub x: f32,
    pub y: f32,
    pub near: f32,
    half: u16,
    coverage: u16,
}

impl ScreenPoint {
    /// A point at (`x`, `y`) of nearness `near`, `half` its half-width and `coverage` its
    /// opacity share, each rounded to its stored precision.
    pub fn new(x: f32, y: f32, near: f32, half: f32, coverage: f32) -> Self {
        ScreenPoint {
            x,
            y,
            near,
            half: half::f16::from_f32(half).to_bits(),
            coverage: (coverage.clamp(0.0, 1.0) * 65535.0).round() as u16,
        }
    }

    /// Half the drawn width, pixels (negative: behind the viewer).
    #[inline(always)]
    pub fn half(&self) -> f32 {
        widen_half(self.half)
    }

    /// True over drawn width times the LOD weight.
    #[inline(always)]
    pub fn coverage(&self) -> f32 {
        f32::from(self.coverage) * (1.0 / 65535.0)
    }
}

/// The value of a half-precision float's bits, exactly as `half::f16::to_f32` gives it,
/// written out so that it inlines into the segments' set-up (the library's conversion is
/// a call chosen at run time).
#[inline(always)]
pub(crate) fn widen_half(bits: u16) -> f32 {
    let sign = u32::from(bits & 0x8000) << 16;
    let exponent = u32::from((bits >> 10) & 0x1f);
    let mantissa = u32::from(bits & 0x3ff);
    match exponent {
        // Zero and the subnormals: the mantissa in units of 2⁻²⁴ (exact in an f32).
        0 => f32::from_bits(sign | (mantissa as f32 * (1.0 / 16_777_216.0)).to_bits()),
        // Infinity and NaN.
        31 => f32::from_bits(sign | 0x7f80_0000 | (mantissa << 13)),
        _ => f32::from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13)),
    }
}

/// Bytes of one projected point.
pub const SCREEN_POINT_BYTES: u64 = std::mem::size_of::<ScreenPoint>() as u64;

/// Bytes a drawn strand's place (its strand's number) takes beside its points.
pub const PLACE_BYTES: u64 = 4;

/// Every drawn strand's points projected, strands placed by where their root lands on
/// screen (so a tile's segments lie near each other in memory), and the number of the
/// strand in each place (its index in the caller's buffers: the kernels read its colours
/// and hash it with one look-up).
pub(crate) fn project(strands: &Strands, view: &RasterView) -> (Vec<ScreenPoint>, Vec<u32>) {
    // The sort key above the drawn number: one word a strand, sorted by key.
    let drawn = strands.drawn();
    let hidden = strands.hidden.unwrap_or(&[]);
    let mut keys: Vec<u64> = (0..drawn)
        .into_par_iter()
        .filter(|&k| hidden.get(strands.strand(k)).is_none_or(|&f| f == 0))
        .map(|k| {
            if k + AHEAD < drawn {
                prefetch(
                    strands.positions,
                    strands.strand(k + AHEAD) * POINTS_PER_STRAND,
                );
            }
            let root = strands.positions[strands.strand(k) * POINTS_PER_STRAND].truncate();
            let p = view.project(root);
            let cell = |v: f32| (v / 16.0).clamp(0.0, 65535.0) as u32;
            let key = if p.w > 0.0 && p.x.is_finite() && p.y.is_finite() {
                morton(cell(p.x), cell(p.y))
            } else {
                u32::MAX
            };
            (u64::from(key) << 32) | k as u64
        })
        .collect();
    keys.par_sort_unstable();
    // Each strand's points written once, in place (no cleared buffer first).
    let out: Vec<[ScreenPoint; POINTS_PER_STRAND]> = keys
        .par_iter()
        .enumerate()
        .map(|(n, &key)| {
            // The strands are read in screen order: the ones a few places on are asked for.
            if let Some(&ahead) = keys.get(n + AHEAD) {
                let base = strands.strand(ahead as u32 as usize) * POINTS_PER_STRAND;
                prefetch(strands.positions, base);
                prefetch(strands.positions, base + POINTS_PER_STRAND - 1);
            }
            let k = key as u32 as usize;
            let base = strands.strand(k) * POINTS_PER_STRAND;
            let p = &strands.positions[base..base + POINTS_PER_STRAND];
            let weight = strands.lod.weight(k as u32);
            std::array::from_fn(|i| project_point(strands, view, p, i, weight))
        })
        .collect();
    let out = out.into_flattened();
    let places = keys
        .into_iter()
        .map(|key| strands.strand(key as u32 as usize) as u32)
        .collect();
    (out, places)
}

/// The bits of `x` and `y` (16 each) interleaved: nearby cells get nearby numbers.
fn morton(x: u32, y: u32) -> u32 {
    let spread = |mut v: u32| {
        v &= 0xffff;
        v = (v | (v << 8)) & 0x00ff_00ff;
        v = (v | (v << 4)) & 0x0f0f_0f0f;
        v = (v | (v << 2)) & 0x3333_3333;
        (v | (v << 1)) & 0x5555_5555
    };
    spread(x) | (spread(y) << 1)
}

/// Point `i` of a strand (`p`, its six points) drawn with LOD `weight`.
/// WGSL twin: `strand_point`, then the ribbon's two edge vertices projected.
fn project_point(
    strands: &Strands,
    view: &RasterView,
    p: &[Vec4],
    i: usize,
    weight: f32,
) -> ScreenPoint {
    let s = &strands.style;
    let at = p[i].truncate();
    let prev = p[i.max(1) - 1].truncate();
    let next = p[(i + 1).min(POINTS_PER_STRAND - 1)].truncate();
    let mut tangent = next - prev;
    let len = tangent.length();
    tangent = if len > 1e-9 { tangent / len } else { Vec3::Y };
    let side = tangent.cross(view.toward_viewer(at));
    let side_len = side.length();
    let across = if side_len > 1e-3 {
        side / side_len
    } else {
        let helper = if tangent.x.abs() > 0.9 {
            Vec3::Y
        } else {
            Vec3::X
        };
        tangent.cross(helper).normalize()
    };
    let along = i as f32 / (POINTS_PER_STRAND - 1) as f32;
    let width = s.root_width * strands.lod.width_scale * (1.0 + (s.tip_width - 1.0) * along);
    let drawn = width.max(s.min_pixels * view.pixel_size(at));
    let coverage = width / drawn * weight;
    let centre = view.project(at);
    let a = view.project(at + across * (0.5 * drawn));
    let b = view.project(at - across * (0.5 * drawn));
    let in_front = centre.w > 0.0 && a.w > 0.0 && b.w > 0.0;
    let half = if in_front {
        0.5 * hypot(a.x - b.x, a.y - b.y)
    } else {
        -1.0
    };
    ScreenPoint::new(centre.x, centre.y, centre.z, half, coverage)
}

/// `x.hypot(y)`, bit for bit, without a call into the maths library: for finite inputs the
/// squares are exact in `f64` (a float's 24-bit significand squared needs 48 bits), and the
/// square root of their sum rounded to `f32` is how glibc's `hypotf` computes it. Infinite
/// and NaN inputs, whose rules differ, are left to the library.
#[inline]
fn hypot(x: f32, y: f32) -> f32 {
    if !(x.is_finite() && y.is_finite()) {
        return x.hypot(y);
    }
    let (x, y) = (f64::from(x), f64::from(y));
    (x * x + y * y).sqrt() as f32
}

/// A segment set up for its pixels: the centre line from `a` along `d` (pixels), and each
/// value at its start and its change to the end. A pixel at parameter t ∈ [0, 1) along the
/// line (the ends are cut square, so neighbouring segments share no pixel twice) gets the
/// values at t. Everything that depends on the segment alone is worked out here, once per
/// tile it is drawn in, not once per pixel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Segment {
    pub ax: f32,
    pub ay: f32,
    pub dx: f32,
    pub dy: f32,
    pub inv_len2: f32,
    /// The reciprocal of the length (pixels).
    pub inv_len: f32,
    pub near: f32,
    pub d_near: f32,
    pub half: f32,
    pub d_half: f32,
    pub coverage: f32,
    pub d_coverage: f32,
    /// The tip fade before its clamp to 0 … 1 (`(1 − along) / tip_fade`), and its change.
    pub fade: f32,
    pub d_fade: f32,
    /// The nearness of its nearer end: the key tiles sort their segments by.
    pub nearest: f32,
    /// How far from the centre line its pixels can lie (pixels): its wider end's
    /// half-width and [`ROW_SLACK`].
    pub reach: f32,
}

/// The exposure the colours are tone-mapped with before blending, or none (they are
/// blended as given, linear).
pub(crate) type Exposure = Option<f32>;

/// A segment's colour at its start and its change to the end.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shade {
    pub color: Vec3,
    pub d_color: Vec3,
}

/// Pixels past a segment's half-width (its wider end's) that a tile's rows are searched
/// for its pixels ([`Segment::rows_in_tile`]). A pixel is covered only inside the
/// half-width, so rows farther off are left unchanged by it: a quarter pixel is far more
/// than the rounding of the coverage test, and a row it rules out would have been skipped
/// anyway, only later and at more cost.
pub(crate) const ROW_SLACK: f32 = 0.25;

/// Asks for the two points of segment `j` of the strand in place `k` ahead of
/// [`Segment::new`] (they may straddle a cache line).
#[inline(always)]
pub(crate) fn prefetch_segment(points: &[ScreenPoint], k: usize, j: usize) {
    let at = k * POINTS_PER_STRAND + j;
    prefetch(points, at);
    prefetch(points, at + 1);
}

impl Segment {
    /// Segment `j` of the strand in place `k` of the projected points, faded over the
    /// last `tip_fade` of the strand's length; `None` when it covers nothing (behind the
    /// viewer, or of no length on screen). Inlined into the kernels' loops: it runs once
    /// for every entry a tile reads.
    #[inline(always)]
    pub fn new(points: &[ScreenPoint], k: usize, j: usize, tip_fade: f32) -> Option<Self> {
        let p0 = points[k * POINTS_PER_STRAND + j];
        let p1 = points[k * POINTS_PER_STRAND + j + 1];
        let (dx, dy) = (p1.x - p0.x, p1.y - p0.y);
        let len2 = dx * dx + dy * dy;
        let (h0, h1) = (p0.half(), p1.half());
        if h0 < 0.0 || h1 < 0.0 || len2 <= 1e-12 || !len2.is_finite() {
            return None;
        }
        let (c0, c1) = (p0.coverage(), p1.coverage());
        let along = j as f32 / SEGMENTS as f32;
        let inv_fade = 1.0 / tip_fade.max(1e-4);
        let inv_len2 = 1.0 / len2;
        Some(Segment {
            ax: p0.x,
            ay: p0.y,
            dx,
            dy,
            inv_len2,
            inv_len: inv_len2.sqrt(),
            near: p0.near,
            d_near: p1.near - p0.near,
            half: h0,
            d_half: h1 - h0,
            coverage: c0,
            d_coverage: c1 - c0,
            fade: (1.0 - along) * inv_fade,
            d_fade: -(1.0 / SEGMENTS as f32) * inv_fade,
            nearest: p0.near.max(p1.near),
            reach: h0.max(h1) + ROW_SLACK,
        })
    }

    /// The colours of a segment from the packed colour words of its two ends, tone-mapped
    /// with `exposure`.
    pub fn shade(ends: [u32; 2], exposure: Exposure) -> Shade {
        let color = |w: u32| {
            let c = unpack_point_color(w);
            exposure.map_or(c, |e| tone_map(c, e))
        };
        let (c0, c1) = (color(ends[0]), color(ends[1]));
        Shade {
            color: c0,
            d_color: c1 - c0,
        }
    }

    /// The rows (inclusive, 0 … 7) of the tile whose top left pixel is (`x0`, `y0`) that the
    /// segment can cover: the part of its centre line within reach of the tile's columns,
    /// grown by its reach. `None` when it covers no pixel of the tile.
    pub fn rows_in_tile(&self, x0: f32, y0: f32) -> Option<(usize, usize)> {
        let tile = TILE as f32;
        let (left, right) = (x0 + 0.5 - self.reach, x0 + tile - 0.5 + self.reach);
        let (mut from, mut to) = (0.0f32, 1.0f32);
        if self.dx.abs() > 1e-6 {
            let a = (left - self.ax) / self.dx;
            let b = (right - self.ax) / self.dx;
            from = from.max(a.min(b));
            to = to.min(a.max(b));
            if from > to {
                return None;
            }
        } else if self.ax < left || self.ax > right {
            return None;
        }
        let (ya, yb) = (self.ay + self.dy * from, self.ay + self.dy * to);
        let (top, bottom) = (
            ya.min(yb) - self.reach - y0 - 0.5,
            ya.max(yb) + self.reach - y0 - 0.5,
        );
        if !(bottom >= 0.0 && top <= tile - 1.0) {
            return None;
        }
        // Within 0 … 7 here, so truncation rounds down (and, a whole row added, up).
        let top = top.max(0.0);
        let first = top as usize + usize::from(top > (top as usize) as f32);
        let last = (bottom.min(tile - 1.0)) as usize;
        (first <= last).then_some((first, last))
    }
}

#[cfg(test)]
mod tests {
    use super::{hypot, widen_half};
    use rand::{RngExt, SeedableRng};

    #[test]
    fn the_inline_hypot_is_the_librarys_bit_for_bit() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(32);
        let check = |x: f32, y: f32| {
            let (got, want) = (hypot(x, y), x.hypot(y));
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "hypot({x:e}, {y:e}): {got:e} against the library's {want:e}"
            );
        };
        // Any bit pattern (every exponent, subnormals, infinities and NaN), and screen-sized
        // differences (a few pixels either way), where the projection's values lie.
        for _ in 0..2_000_000 {
            check(f32::from_bits(rng.random()), f32::from_bits(rng.random()));
            let (x, y) = (rng.random::<f32>() - 0.5, rng.random::<f32>() - 0.5);
            let scale = f32::from_bits((rng.random_range(100u32..160)) << 23);
            check(x * scale, y * scale);
        }
        for special in [
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MAX,
        ] {
            check(special, 1.5);
            check(-2.5, special);
        }
    }

    #[test]
    fn every_half_float_widens_to_the_libraries_value() {
        for bits in 0..=u16::MAX {
            let want = half::f16::from_bits(bits).to_f32();
            let got = widen_half(bits);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{bits:#06x}: {got} against {want}"
            );
        }
    }
}
