//! Per pixel, the nearest [`LAYERS`] fragments kept sorted by depth and blended exactly
//! front to back; every fragment pushed out of them is blended behind the ones pushed out
//! before it (as TressFX blends its leftover fragments), and the whole rest behind the
//! kept layers. A tile's list is read nearest first, so what falls out arrives roughly
//! front to back: the near hair of the rest shows and the deep hair behind it is dimmed by
//! it, as the ribbons' samples show only the nearest hair (blended as one layer of their
//! mean colour instead, the deep, darker hair weighed as much as the near and a dense coat
//! came out several levels darker than the ribbons).
//! A tile reads its list nearest first (by each segment's nearer end) and stops once no
//! segment left can change a pixel by more than [`EXIT_TRANSMITTANCE`]: in every pixel,
//! less than that shows through the fragments already taken that lie in front of the next
//! segment's nearer end (every later segment is farther still), or the rest lies behind
//! the surfaces everywhere in the tile. The test counts only fragments surely in front, so
//! a segment near its pixel but listed late (its nearer end is elsewhere) is never lost.

use super::bins::{TILE, TILE_PIXELS, TileKernel, entry_segment};
use super::coverage::{along, hit, picture_alpha};
use super::lanes::Lanes;
use super::prefetch::AHEAD;
use super::segments::{Exposure, ScreenPoint, Segment, Shade, prefetch_segment};
use crate::sim::POINTS_PER_STRAND;
use std::marker::PhantomData;

/// Fragments a pixel keeps in depth order.
pub const LAYERS: usize = 4;
/// A tile stops reading its list once no segment left can show through by more than this.
pub const EXIT_TRANSMITTANCE: f32 = 0.001;

/// One kept fragment: nearness, opacity and colour.
#[derive(Clone, Copy)]
struct Layer<L> {
    near: L,
    alpha: L,
    rgb: [L; 3],
}

/// What a group of pixels (one lane each) holds while its tile is drawn.
#[derive(Clone, Copy)]
struct PixelState<L> {
    layers: [Layer<L>; LAYERS],
    /// The rest's premultiplied colour, each fragment behind those before it.
    rest_rgb: [L; 3],
    rest_t: L,
    /// The farthest nearness among the rest (+∞ while it is empty).
    rest_far: L,
    /// Nearness of the surfaces (a fragment counts where it is at least this near).
    surface: L,
}

/// A tile being drawn.
pub(crate) struct TileState<L> {
    x0: f32,
    y0: f32,
    pixels: Vec<PixelState<L>>,
    /// The farthest surface in the tile: a segment whose nearer end is farther is hidden
    /// in every pixel.
    surface_min: f32,
    /// Entries left unread.
    skipped: u64,
}

/// The camera's picture kernel.
pub(crate) struct PictureKernel<'a, L> {
    pub points: &'a [ScreenPoint],
    /// The strand in each place of `points`.
    pub places: &'a [u32],
    /// The strands' shaded colour words, indexed like their positions.
    pub colors: &'a [u32],
    pub across: u32,
    pub width: u32,
    pub height: u32,
    pub exposure: Exposure,
    pub tip_fade: f32,
    /// The surfaces' depth in the view's convention, row-major, or none.
    pub surface: Option<&'a [f32]>,
    /// Whether a greater depth is nearer (else the depth is negated into nearness).
    pub reversed_depth: bool,
    pub lanes: PhantomData<L>,
}

impl<L: Lanes> PictureKernel<'_, L> {
    /// Lane groups in a tile row.
    const GROUPS: usize = TILE as usize / L::WIDTH;

    /// The colours of segment `j` of the strand in place `k`, read from the caller's
    /// colour words.
    fn shade(&self, k: usize, j: usize) -> Shade {
        let at = self.places[k] as usize * POINTS_PER_STRAND + j;
        Segment::shade([self.colors[at], self.colors[at + 1]], self.exposure)
    }
}

impl<L: Lanes + Send + Sync> TileKernel for PictureKernel<'_, L> {
    type State = TileState<L>;
    type Band<'a> = &'a mut [[u16; 4]];
    const PASSES: usize = 1;
    // A whole pixel: the early exit is tested every few entries, so which entries a list
    // holds moves where the list stops, and with it the last bits of the picture. (The
    // rows of a tile are searched with `ROW_SLACK` alone: that changes no entry.)
    const SLACK: f32 = 1.0;

    fn begin(&self, tile: usize) -> TileState<L> {
        L::run(|| self.begin_tile(tile))
    }

    fn feed(&self, state: &mut TileState<L>, _pass: usize, entries: &[u64], in_order: bool) {
        L::run(|| self.feed_tile(state, entries, in_order))
    }

    fn end(&self, state: TileState<L>, band: &mut &mut [[u16; 4]], x0: usize) -> u64 {
        L::run(|| self.end_tile(state, band, x0))
    }
}

/// The kernel's steps, each inlined into [`Lanes::run`] (compiled with what the lanes
/// need of the CPU).
impl<L: Lanes> PictureKernel<'_, L> {
    #[inline(always)]
    fn begin_tile(&self, tile: usize) -> TileState<L> {
        let tx = (tile % self.across as usize) as u32;
        let ty = (tile / self.across as usize) as u32;
        let (x0, y0) = (tx * TILE, ty * TILE);
        let empty = Layer {
            near: L::splat(f32::NEG_INFINITY),
            alpha: L::splat(0.0),
            rgb: [L::splat(0.0); 3],
        };
        let mut surface_min = f32::INFINITY;
        let mut pixels = Vec::with_capacity(TILE_PIXELS / L::WIDTH);
        for y in 0..TILE {
            for g in 0..Self::GROUPS {
                let mut s = [0.0f32; TILE as usize];
                for (lane, v) in s.iter_mut().enumerate().take(L::WIDTH) {
                    let (x, y) = (x0 + (g * L::WIDTH + lane) as u32, y0 + y);
                    *v = if x >= self.width || y >= self.height {
                        // Outside the target: nothing is drawn there.
                        f32::INFINITY
                    } else {
                        self.surface.map_or(f32::NEG_INFINITY, |d| {
                            let z = d[(y * self.width + x) as usize];
                            if self.reversed_depth { z } else { -z }
                        })
                    };
                    surface_min = surface_min.min(*v);
                }
                pixels.push(PixelState {
                    layers: [empty; LAYERS],
                    rest_rgb: [L::splat(0.0); 3],
                    rest_t: L::splat(1.0),
                    rest_far: L::splat(f32::INFINITY),
                    surface: L::load(&s),
                });
            }
        }
        TileState {
            x0: x0 as f32,
            y0: y0 as f32,
            pixels,
            surface_min,
            skipped: 0,
        }
    }

    #[inline(always)]
    fn feed_tile(&self, state: &mut TileState<L>, entries: &[u64], in_order: bool) {
        let offsets: [f32; TILE as usize] = std::array::from_fn(|i| i as f32 + 0.5);
        for (n, &e) in entries.iter().enumerate() {
            if let Some(&ahead) = entries.get(n + AHEAD) {
                let (k, j) = entry_segment(ahead);
                prefetch_segment(self.points, k, j);
            }
            let (k, j) = entry_segment(e);
            let Some(seg) = Segment::new(self.points, k, j, self.tip_fade) else {
                continue;
            };
            if in_order {
                // Sorted nearest first: past a segment hidden everywhere in the tile, or
                // once every pixel is closed to it, nothing more shows.
                let closed = n % 4 == 0
                    && state
                        .pixels
                        .iter()
                        .all(|p| L::all(closed_behind(p, seg.nearest)));
                if closed || seg.nearest < state.surface_min {
                    state.skipped += (entries.len() - n) as u64;
                    break;
                }
            }
            let Some((top, bottom)) = seg.rows_in_tile(state.x0, state.y0) else {
                continue;
            };
            // The colours only once a pixel is covered.
            let mut shade = None;
            for y in top..=bottom {
                let ry = state.y0 + y as f32 + 0.5 - seg.ay;
                for g in 0..Self::GROUPS {
                    let rx = L::load(&offsets[g * L::WIDTH..]) + L::splat(state.x0 - seg.ax);
                    let Some(hit) = hit(&seg, rx, ry) else {
                        continue;
                    };
                    let alpha = picture_alpha(&seg, &hit);
                    let near = along(seg.near, seg.d_near, hit.t);
                    let p = &mut state.pixels[y * Self::GROUPS + g];
                    let drawn = L::and(alpha.gt(L::splat(0.0)), near.ge(p.surface));
                    if !L::any(drawn) {
                        continue;
                    }
                    let s = shade.get_or_insert_with(|| self.shade(k, j));
                    let rgb = [
                        along(s.color.x, s.d_color.x, hit.t),
                        along(s.color.y, s.d_color.y, hit.t),
                        along(s.color.z, s.d_color.z, hit.t),
                    ];
                    take(p, drawn, alpha, near, rgb);
                }
            }
        }
    }

    #[inline(always)]
    fn end_tile(&self, state: TileState<L>, band: &mut &mut [[u16; 4]], x0: usize) -> u64 {
        let width = self.width as usize;
        let rows = band.len() / width;
        for (i, p) in state.pixels.iter().enumerate() {
            let (rgb, t) = resolve(p);
            let mut lanes = [[0.0f32; TILE as usize]; 4];
            for c in 0..3 {
                rgb[c].store(&mut lanes[c]);
            }
            t.store(&mut lanes[3]);
            let (y, x) = (i / Self::GROUPS, (i % Self::GROUPS) * L::WIDTH + x0);
            for lane in 0..L::WIDTH {
                if y < rows && x + lane < width {
                    band[y * width + x + lane] =
                        std::array::from_fn(|c| half::f16::from_f32(lanes[c][lane]).to_bits());
                }
            }
        }
        state.skipped
    }
}

/// Whether less than [`EXIT_TRANSMITTANCE`] shows through the fragments a pixel has taken
/// that lie at least as near as `near`: then nothing at `near` or behind can change it by
/// more than that.
#[inline(always)]
fn closed_behind<L: Lanes>(p: &PixelState<L>, near: f32) -> L::Mask {
    let one = L::splat(1.0);
    let n = L::splat(near);
    let mut t = one;
    for layer in &p.layers {
        t = t * L::select(layer.near.ge(n), one - layer.alpha, one);
    }
    t = t * L::select(p.rest_far.ge(n), p.rest_t, one);
    t.lt(L::splat(EXIT_TRANSMITTANCE))
}

/// Takes a fragment into a pixel's layers: where it is `drawn` (some opacity, not behind
/// the surfaces), it is sorted into the kept layers and whatever falls out of them (it, or
/// the farthest kept) joins the rest, behind what joined it before.
#[inline(always)]
fn take<L: Lanes>(p: &mut PixelState<L>, drawn: L::Mask, alpha: L, near: L, rgb: [L; 3]) {
    let zero = L::splat(0.0);
    let mut carry = Layer {
        near: L::select(drawn, near, L::splat(f32::NEG_INFINITY)),
        alpha: L::select(drawn, alpha, zero),
        rgb: rgb.map(|c| L::select(drawn, c, zero)),
    };
    for layer in p.layers.iter_mut() {
        let swap = carry.near.gt(layer.near);
        if !L::any(swap) {
            // Kept as it is in every lane.
            continue;
        }
        let kept = Layer {
            near: L::select(swap, carry.near, layer.near),
            alpha: L::select(swap, carry.alpha, layer.alpha),
            rgb: std::array::from_fn(|c| L::select(swap, carry.rgb[c], layer.rgb[c])),
        };
        carry = Layer {
            near: L::select(swap, layer.near, carry.near),
            alpha: L::select(swap, layer.alpha, carry.alpha),
            rgb: std::array::from_fn(|c| L::select(swap, layer.rgb[c], carry.rgb[c])),
        };
        *layer = kept;
    }
    if !L::any(carry.alpha.gt(zero)) {
        // Nothing falls out of the kept layers: the rest is as it was.
        return;
    }
    for c in 0..3 {
        p.rest_rgb[c] = p.rest_rgb[c] + p.rest_t * carry.alpha * carry.rgb[c];
    }
    p.rest_t = p.rest_t * (L::splat(1.0) - carry.alpha);
    p.rest_far = L::select(carry.alpha.gt(zero), p.rest_far.min(carry.near), p.rest_far);
}

/// A pixel's premultiplied colour and transmittance: its layers front to back, then the
/// rest (premultiplied, in the order it fell out of them) behind them.
#[inline(always)]
fn resolve<L: Lanes>(p: &PixelState<L>) -> ([L; 3], L) {
    let one = L::splat(1.0);
    let mut t = one;
    let mut rgb = [L::splat(0.0); 3];
    for layer in &p.layers {
        let w = t * layer.alpha;
        for (sum, c) in rgb.iter_mut().zip(layer.rgb) {
            *sum = *sum + w * c;
        }
        t = t * (one - layer.alpha);
    }
    for (sum, c) in rgb.iter_mut().zip(p.rest_rgb) {
        *sum = *sum + t * c;
    }
    (rgb, t * p.rest_t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixel() -> PixelState<f32> {
        let empty = Layer {
            near: f32::NEG_INFINITY,
            alpha: 0.0,
            rgb: [0.0; 3],
        };
        PixelState {
            layers: [empty; LAYERS],
            rest_rgb: [0.0; 3],
            rest_t: 1.0,
            rest_far: f32::INFINITY,
            surface: f32::NEG_INFINITY,
        }
    }

    /// `take` where the fragment has opacity and is not behind the surface.
    fn put(p: &mut PixelState<f32>, alpha: f32, near: f32, rgb: [f32; 3]) {
        let drawn = alpha > 0.0 && near >= p.surface;
        take(p, drawn, alpha, near, rgb);
    }

    /// Exact front-to-back blending of (nearness, opacity, colour) sorted nearest first.
    fn exact(mut f: Vec<(f32, f32, [f32; 3])>) -> ([f32; 3], f32) {
        f.sort_by(|a, b| b.0.total_cmp(&a.0));
        let (mut t, mut rgb) = (1.0, [0.0; 3]);
        for (_, a, c) in f {
            for i in 0..3 {
                rgb[i] += t * a * c[i];
            }
            t *= 1.0 - a;
        }
        (rgb, t)
    }

    #[test]
    fn up_to_the_kept_layers_the_blend_is_exact_in_any_order() {
        let frags = vec![
            (0.3, 0.5, [1.0, 0.0, 0.0]),
            (0.9, 0.25, [0.0, 1.0, 0.0]),
            (0.1, 0.75, [0.0, 0.0, 1.0]),
            (0.6, 0.4, [0.5, 0.5, 0.5]),
        ];
        assert_eq!(frags.len(), LAYERS);
        let (want, want_t) = exact(frags.clone());
        for rotation in 0..frags.len() {
            let mut p = pixel();
            let mut order = frags.clone();
            order.rotate_left(rotation);
            for (n, a, c) in order {
                put(&mut p, a, n, c);
            }
            let (rgb, t) = resolve(&p);
            for c in 0..3 {
                assert!((rgb[c] - want[c]).abs() < 1e-6, "{rgb:?} against {want:?}");
            }
            assert!((t - want_t).abs() < 1e-6);
        }
    }

    #[test]
    fn past_the_kept_layers_the_far_ones_blend_in_the_order_they_fall_out() {
        let frags: Vec<_> = (0..LAYERS + 2)
            .map(|i| (1.0 - i as f32 * 0.1, 0.3, [i as f32, 0.0, 0.0]))
            .collect();
        let (want, want_t) = exact(frags.clone());
        // Nearest first, as a tile reads its list: the far ones fall out front to back,
        // and the blend is the exact one.
        let mut p = pixel();
        for &(n, a, c) in &frags {
            put(&mut p, a, n, c);
        }
        let (rgb, t) = resolve(&p);
        assert!((t - want_t).abs() < 1e-6);
        assert!(
            (rgb[0] - want[0]).abs() < 1e-5,
            "{} against {}",
            rgb[0],
            want[0]
        );
        // Farthest first: the farthest falls out first and is blended in front of the
        // next; transmittance is order-free.
        let mut p = pixel();
        for &(n, a, c) in frags.iter().rev() {
            put(&mut p, a, n, c);
        }
        let (rgb, t) = resolve(&p);
        assert!((t - want_t).abs() < 1e-6);
        let front = 0.7f32.powi(LAYERS as i32);
        let near_part: f32 = (0..LAYERS)
            .map(|i| 0.7f32.powi(i as i32) * 0.3 * i as f32)
            .sum();
        let (far, farther) = (LAYERS as f32, LAYERS as f32 + 1.0);
        let expected = near_part + front * (0.3 * farther + 0.7 * 0.3 * far);
        assert!(
            (rgb[0] - expected).abs() < 1e-5,
            "{} against {expected}",
            rgb[0]
        );
        assert!((rgb[0] - want[0]).abs() > 1e-4);
    }

    #[test]
    fn a_pixel_closes_only_to_what_lies_behind_its_opaque_fragments() {
        let mut p = pixel();
        put(&mut p, 0.9995, 0.6, [1.0; 3]);
        assert!(closed_behind(&p, 0.6) && closed_behind(&p, 0.2));
        // A segment that may still be nearer than the opaque fragment keeps it open.
        assert!(!closed_behind(&p, 0.7));
        // Past the kept layers, the rest counts once all of it is in front.
        let mut q = pixel();
        for i in 0..LAYERS + 3 {
            put(&mut q, 0.7, 0.9 - 0.01 * i as f32, [1.0; 3]);
        }
        assert!(closed_behind(&q, 0.5));
        assert!(!closed_behind(&q, 0.875));
        // Behind the surface: nothing is taken.
        let mut r = pixel();
        r.surface = 0.5;
        put(&mut r, 0.5, 0.4, [1.0; 3]);
        assert_eq!(resolve(&r).1, 1.0);
    }
}
