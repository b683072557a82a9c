//! The key light's hair maps by the same machinery, seen from the light (orthographic,
//! depth 0 near … 1 far): the first hair's depth per texel, and the deep opacity behind it,
//! as `shaders/shadow.wgsl` draws them and `shaders/shadow_lookup.wgsl` reads them. The
//! first hair is the nearest fragment whose opacity beats the ribbons' own per-strand,
//! per-texel dither (`fs_hair_depth`: the same hash, so the same choice); each channel of
//! the deep opacity is the sum of the opacities of the fragments no farther than its slab's
//! end behind that first hair (`fs_deep_opacity`). Those passes draw one sample a texel,
//! so a fragment's opacity here is the soft edge at the texel's centre, without the
//! camera's box overlap ([`coverage`](super::coverage)). A tile reads its list nearest
//! first and stops each pass once nothing left can change it: the first hair once every
//! texel has one at least as near as the next segment, the slabs once that segment lies
//! past the last slab behind the farthest first hair.

#[cfg(target_arch = "x86_64")]
use super::avx::Avx8;
use super::bins::{self, BinStats, Grid, TILE, TILE_PIXELS, TileKernel, entry_segment};
use super::coverage::{along, hit, light_alpha};
use super::lane_choice::LaneChoice;
use super::lanes::Lanes;
use super::prefetch::AHEAD;
use super::segments::{ROW_SLACK, ScreenPoint, Segment, Strands, prefetch_segment, project};
use super::view::RasterView;
use super::{RasterError, RasterOptions};
use rayon::prelude::*;
use wide::f32x8;

/// What the light's maps need beyond the view: the light's depth range (metres from depth
/// 0 to 1, the renderer's `light_frame`) and the slabs' ends (metres behind the first hair,
/// the renderer's `SLAB_ENDS`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightSlabs {
    /// Metres from light depth 0 to 1.
    pub depth_range: f32,
    /// Each slab's end, metres behind the first hair, increasing.
    pub ends: [f32; 4],
}

/// The hair's light maps, row-major, `size × size` texels.
#[derive(Clone, Debug, PartialEq)]
pub struct LightMaps {
    /// Texels a side.
    pub size: u32,
    /// The first hair's light depth (0 … 1), 1 where no hair is: the value
    /// `unpack_depth` gives of the `first_hair` texture.
    pub first_hair: Vec<f32>,
    /// Cumulative opacity up to each slab's end: the `deep_opacity` texture's four
    /// channels.
    pub deep_opacity: Vec<[f32; 4]>,
}

impl LightMaps {
    /// The first hair's depth as the renderer's `first_hair` texture holds it (24-bit fixed
    /// point in RGB of an `Rgba8Unorm` texel; WGSL `pack_depth`): one texel's four bytes a
    /// word, in memory order, written over `out` (kept by the caller from frame to frame,
    /// so a map's megabytes are not allocated again).
    pub fn first_hair_texels_into(&self, out: &mut Vec<u32>) {
        out.resize(self.first_hair.len(), 0);
        out.par_chunks_mut(PACK_CHUNK)
            .zip(self.first_hair.par_chunks(PACK_CHUNK))
            .for_each(|(texels, depths)| {
                for (texel, &d) in texels.iter_mut().zip(depths) {
                    *texel = pack_depth(d);
                }
            });
    }
}

/// Texels packed by one task (a light map holds a million or more).
const PACK_CHUNK: usize = 1 << 14;

/// `depth` (0 … 1) as 24-bit fixed point in the bytes R, G, B of a texel (A = 0; R the
/// most significant), as one word whose bytes in memory are the texel's.
fn pack_depth(depth: f32) -> u32 {
    let x = (depth.clamp(0.0, 1.0) * 16_777_215.0) as u32;
    u32::from_ne_bytes([(x >> 16) as u8, (x >> 8) as u8, x as u8, 0])
}

/// Small integer hash. WGSL twin: `hash_u32` in `shaders/frame.wgsl`.
pub fn hash_u32(v: u32) -> u32 {
    let state = v.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
    (word >> 22) ^ word
}

/// A hash as a number in [0, 1). WGSL twin: `hash_unit`.
pub fn hash_unit(v: u32) -> f32 {
    (hash_u32(v) >> 8) as f32 / 16_777_216.0
}

/// Draws the hair's light maps of `strands` (colours not read) seen from `light`.
pub fn draw_light_maps(
    strands: &Strands,
    light: &RasterView,
    slabs: &LightSlabs,
    options: &RasterOptions,
) -> Result<(LightMaps, BinStats), RasterError> {
    light.validate()?;
    strands.validate(false)?;
    options.validate()?;
    let ordered = slabs.ends.windows(2).all(|w| w[0] <= w[1]);
    let good = slabs.depth_range.is_finite()
        && slabs.depth_range > 0.0
        && slabs.ends.iter().all(|e| e.is_finite())
        && ordered;
    if !good {
        return Err(RasterError::View(
            "the light's depth range must be a positive number and its slab ends finite and increasing"
                .into(),
        ));
    }
    let (points, places) = project(strands, light);
    let grid = Grid::new(light.width, light.height);
    let texels = light.width as usize * light.height as usize;
    let mut maps = LightMaps {
        size: light.width,
        first_hair: vec![1.0; texels],
        deep_opacity: vec![[0.0; 4]; texels],
    };
    let band = light.width as usize * TILE as usize;
    let mut bands: Vec<LightBand> = maps
        .first_hair
        .chunks_mut(band)
        .zip(maps.deep_opacity.chunks_mut(band))
        .collect();
    let frame = (&points[..], &places[..], &grid, strands, slabs);
    let capacity = options.bin_capacity;
    let stats = match LaneChoice::for_options(options) {
        LaneChoice::Scalar => draw_in::<f32>(frame, capacity, &mut bands),
        LaneChoice::Wide => draw_in::<f32x8>(frame, capacity, &mut bands),
        #[cfg(target_arch = "x86_64")]
        LaneChoice::Avx => draw_in::<Avx8>(frame, capacity, &mut bands),
    };
    Ok((maps, stats))
}

/// Draws the maps' tiles in lanes `L`.
fn draw_in<L: Lanes + Send + Sync>(
    (points, places, grid, strands, slabs): Frame<'_>,
    capacity: usize,
    bands: &mut [LightBand<'_>],
) -> BinStats {
    let kernel = LightKernel::<L>::new(points, places, grid, strands, slabs);
    bins::draw(points, grid, capacity, &kernel, bands)
}

/// What the light's kernel reads: the projected points, their strands, the tiles, the
/// strands' style and the slabs.
type Frame<'a> = (
    &'a [ScreenPoint],
    &'a [u32],
    &'a Grid,
    &'a Strands<'a>,
    &'a LightSlabs,
);

/// Segments a tile keeps set up between its two passes: a thread's scratch stays bounded
/// whatever the length of its tile's list.
const CACHED_SEGMENTS: usize = 1024;

/// A row of tiles of the maps: its rows of first-hair depths and of deep opacities.
type LightBand<'a> = (&'a mut [f32], &'a mut [[f32; 4]]);

struct LightKernel<'a, L> {
    points: &'a [ScreenPoint],
    /// The strand in each place of `points`.
    places: &'a [u32],
    across: u32,
    width: u32,
    tip_fade: f32,
    slabs: LightSlabs,
    /// The pixel centres' x within a tile, a lane group at a time.
    columns: [L; TILE as usize],
}

/// A tile's texels while it is drawn, row-major: the first hair's depth and the opacity in
/// each slab.
struct LightTile {
    x0: u32,
    y0: u32,
    first: [f32; TILE_PIXELS],
    opacity: [[f32; TILE_PIXELS]; 4],
    /// The farthest first hair in the tile (1 while a texel has none).
    farthest: f32,
    skipped: u64,
    /// The first [`CACHED_SEGMENTS`] segments of the tile's list as pass 0 set them up,
    /// for pass 1 (which sets up the rest again).
    segments: Vec<Option<Segment>>,
}

impl<'a, L: Lanes> LightKernel<'a, L> {
    const GROUPS: usize = TILE as usize / L::WIDTH;

    fn new(
        points: &'a [ScreenPoint],
        places: &'a [u32],
        grid: &Grid,
        s: &'a Strands,
        slabs: &LightSlabs,
    ) -> Self {
        let offsets: [f32; TILE as usize] = std::array::from_fn(|i| i as f32 + 0.5);
        LightKernel {
            points,
            places,
            across: grid.across,
            width: grid.width,
            tip_fade: s.style.tip_fade,
            slabs: *slabs,
            columns: L::run(|| {
                std::array::from_fn(|g| {
                    L::load(&offsets[(g * L::WIDTH).min(TILE as usize - L::WIDTH)..])
                })
            }),
        }
    }

    /// Pass 0: the nearest fragment of each texel that beats the ribbons' dither of its
    /// strand and texel (drawn only for the texels the fragment could win).
    #[inline(always)]
    fn first_hair(&self, state: &mut LightTile, seg: &Segment, strand: u32, rows: (usize, usize)) {
        let strand_hash = hash_u32(strand);
        let (x0, y0) = (state.x0 as f32, state.y0 as f32);
        let mut changed = false;
        for y in rows.0..=rows.1 {
            let ry = y0 + y as f32 + 0.5 - seg.ay;
            for g in 0..Self::GROUPS {
                let rx = self.columns[g] + L::splat(x0 - seg.ax);
                let Some(hit) = hit(seg, rx, ry) else {
                    continue;
                };
                let alpha = light_alpha(seg, &hit);
                // Light depth (forward): the nearness negated back.
                let z = L::splat(0.0) - along(seg.near, seg.d_near, hit.t);
                let at = y * TILE as usize + g * L::WIDTH;
                let first = L::load(&state.first[at..]);
                let mut lanes = L::bits(L::and(alpha.gt(L::splat(0.0)), z.lt(first)));
                if lanes == 0 {
                    continue;
                }
                let (mut a, mut d) = ([0.0f32; TILE as usize], [0.0f32; TILE as usize]);
                alpha.store(&mut a);
                z.store(&mut d);
                while lanes != 0 {
                    let lane = lanes.trailing_zeros() as usize;
                    lanes &= lanes - 1;
                    let x = state.x0 + (g * L::WIDTH + lane) as u32;
                    let cell = (x & 0xffff) | ((state.y0 + y as u32) << 16);
                    if a[lane] > hash_unit(cell ^ strand_hash) {
                        state.first[at + lane] = d[lane];
                        changed = true;
                    }
                }
            }
        }
        if changed {
            state.farthest = farthest::<L>(&state.first);
        }
    }

    /// Pass 1: each fragment's opacity added to every slab that ends no nearer than it,
    /// behind the texel's first hair.
    #[inline(always)]
    fn deep_opacity(&self, state: &mut LightTile, seg: &Segment, rows: (usize, usize)) {
        let range = L::splat(self.slabs.depth_range);
        let (x0, y0) = (state.x0 as f32, state.y0 as f32);
        for y in rows.0..=rows.1 {
            let ry = y0 + y as f32 + 0.5 - seg.ay;
            for g in 0..Self::GROUPS {
                let rx = self.columns[g] + L::splat(x0 - seg.ax);
                let Some(hit) = hit(seg, rx, ry) else {
                    continue;
                };
                let alpha = light_alpha(seg, &hit);
                let z = L::splat(0.0) - along(seg.near, seg.d_near, hit.t);
                let at = y * TILE as usize + g * L::WIDTH;
                let behind = (z - L::load(&state.first[at..])) * range;
                for (i, o) in state.opacity.iter_mut().enumerate() {
                    let slab = L::splat(self.slabs.ends[i]);
                    let sum = L::load(&o[at..]) + L::select(behind.gt(slab), L::splat(0.0), alpha);
                    sum.store(&mut o[at..]);
                }
            }
        }
    }
}

/// The farthest of a tile's first hairs, a lane group at a time. The depths are never NaN,
/// so the maximum is the same value whatever the order it is taken in.
#[inline(always)]
fn farthest<L: Lanes>(first: &[f32; TILE_PIXELS]) -> f32 {
    let mut m = L::load(first);
    for at in (L::WIDTH..TILE_PIXELS).step_by(L::WIDTH) {
        m = m.max(L::load(&first[at..]));
    }
    let mut lanes = [f32::NEG_INFINITY; TILE as usize];
    m.store(&mut lanes);
    lanes.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v))
}

impl<L: Lanes + Send + Sync> TileKernel for LightKernel<'_, L> {
    type State = LightTile;
    type Band<'a> = LightBand<'a>;
    const PASSES: usize = 2;
    // The rows' slack: entries that cover nothing leave both passes and their early exits
    // as they were (each tests every entry against the state alone), so the maps do not
    // depend on them.
    const SLACK: f32 = ROW_SLACK;

    fn begin(&self, tile: usize) -> LightTile {
        L::run(|| self.begin_tile(tile))
    }

    fn feed(&self, state: &mut LightTile, pass: usize, entries: &[u64], in_order: bool) {
        L::run(|| self.feed_tile(state, pass, entries, in_order))
    }

    fn end(&self, state: LightTile, band: &mut LightBand<'_>, x0: usize) -> u64 {
        L::run(|| self.end_tile(state, band, x0))
    }
}

/// The kernel's steps, each inlined into [`Lanes::run`] (compiled with what the lanes
/// need of the CPU).
impl<L: Lanes> LightKernel<'_, L> {
    #[inline(always)]
    fn begin_tile(&self, tile: usize) -> LightTile {
        LightTile {
            x0: (tile % self.across as usize) as u32 * TILE,
            y0: (tile / self.across as usize) as u32 * TILE,
            first: [1.0; TILE_PIXELS],
            opacity: [[0.0; TILE_PIXELS]; 4],
            farthest: 1.0,
            skipped: 0,
            segments: Vec::new(),
        }
    }

    #[inline(always)]
    fn feed_tile(&self, state: &mut LightTile, pass: usize, entries: &[u64], in_order: bool) {
        let (x0, y0) = (state.x0 as f32, state.y0 as f32);
        // A whole list comes twice (once a pass) and is set up once; a chunk of the slow
        // path's is set up each time.
        let cached = if in_order && pass == 1 {
            std::mem::take(&mut state.segments)
        } else {
            Vec::new()
        };
        for (n, &e) in entries.iter().enumerate() {
            // Pass 1 reads the cached set-ups first: only the points past them are asked for.
            if n + AHEAD >= cached.len()
                && let Some(&ahead) = entries.get(n + AHEAD)
            {
                let (k, j) = entry_segment(ahead);
                prefetch_segment(self.points, k, j);
            }
            let (k, j) = entry_segment(e);
            let seg = match cached.get(n) {
                Some(&seg) => seg,
                None => Segment::new(self.points, k, j, self.tip_fade),
            };
            if in_order && pass == 0 && n < CACHED_SEGMENTS {
                if n == 0 {
                    state
                        .segments
                        .reserve_exact(entries.len().min(CACHED_SEGMENTS));
                }
                state.segments.push(seg);
            }
            let Some(seg) = seg else {
                continue;
            };
            if in_order {
                // Sorted nearest first: every later fragment lies at least as far as this
                // segment's nearer end. In pass 0 none can beat a first hair at least as
                // near in any texel; in pass 1 none can land in a slab once that end lies
                // past the last slab behind the farthest first hair.
                let nearest = 0.0 - seg.nearest;
                let done = if pass == 0 {
                    nearest >= state.farthest
                } else {
                    (nearest - state.farthest) * self.slabs.depth_range > self.slabs.ends[3]
                };
                if done {
                    state.skipped += (entries.len() - n) as u64;
                    break;
                }
            }
            let Some(rows) = seg.rows_in_tile(x0, y0) else {
                continue;
            };
            if pass == 0 {
                let strand = self.places[k];
                self.first_hair(state, &seg, strand, rows);
            } else {
                self.deep_opacity(state, &seg, rows);
            }
        }
    }

    #[inline(always)]
    fn end_tile(&self, state: LightTile, band: &mut LightBand<'_>, x0: usize) -> u64 {
        let (first, deep) = band;
        let width = self.width as usize;
        let rows = first.len() / width;
        let tile = TILE as usize;
        for y in 0..rows.min(tile) {
            for x in 0..tile.min(width.saturating_sub(x0)) {
                let (at, i) = (y * width + x0 + x, y * tile + x);
                first[at] = state.first[i];
                deep[at] = std::array::from_fn(|c| state.opacity[c][i]);
            }
        }
        state.skipped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dither_spreads_over_the_unit_interval() {
        let values: Vec<f32> = (0..4096u32).map(|v| hash_unit(v ^ hash_u32(7))).collect();
        assert!(values.iter().all(|v| (0.0..1.0).contains(v)));
        let mean = values.iter().sum::<f32>() / values.len() as f32;
        let low = values.iter().filter(|&&v| v < 0.1).count();
        assert!((mean - 0.5).abs() < 0.02, "mean {mean}");
        assert!((330..490).contains(&low), "{low} of 4096 below 0.1");
    }
}
