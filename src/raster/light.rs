//! The key light's hair maps by the same machinery, seen from the light (orthographic,
//! depth 0 near … 1 far): the first hair's depth per texel, and the deep opacity behind it,
//! as `shaders/shadow.wgsl` draws them and `shaders/shadow_lookup.wgsl` reads them. The
//! first hair is the nearest fragment whose opacity beats the ribbons' own per-strand,
//! per-texel dither (`fs_hair_depth`: the same hash, so the same choice); each channel of
//! the deep opacity is the sum of the opacities of the fragments no farther than its slab's
//! end behind that first hair (`fs_deep_opacity`).

use super::bins::{self, BinStats, Grid, TILE, TILE_PIXELS, TileKernel, entry_segment};
use super::coverage::fragment;
use super::lanes::Lanes;
use super::segments::{ScreenPoint, Segment, Strands, project};
use super::view::RasterView;
use super::{RasterError, RasterOptions};
use std::marker::PhantomData;
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
    /// point in RGB of an `Rgba8Unorm` texel; WGSL `pack_depth`).
    pub fn first_hair_rgba8(&self) -> Vec<u8> {
        self.first_hair
            .iter()
            .flat_map(|&d| {
                let x = (d.clamp(0.0, 1.0) * 16_777_215.0) as u32;
                [(x >> 16) as u8, (x >> 8) as u8, x as u8, 0]
            })
            .collect()
    }
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
    if !(slabs.depth_range.is_finite() && slabs.depth_range > 0.0)
        || !slabs.ends.iter().all(|e| e.is_finite())
        || !ordered
    {
        return Err(RasterError::View(
            "the light's depth range must be a positive number and its slab ends finite and increasing"
                .into(),
        ));
    }
    let points = project(strands, light, false);
    let grid = Grid::new(light.width, light.height);
    let mut tiles = vec![[1.0, 0.0, 0.0, 0.0, 0.0]; grid.tiles() * TILE_PIXELS];
    let stats = if options.simd {
        let k = LightKernel::<f32x8>::new(&points, &grid, strands, slabs);
        bins::draw(&points, &grid, options.bin_capacity, &k, &mut tiles)
    } else {
        let k = LightKernel::<f32>::new(&points, &grid, strands, slabs);
        bins::draw(&points, &grid, options.bin_capacity, &k, &mut tiles)
    };
    let texels = light.width as usize * light.height as usize;
    let mut maps = LightMaps {
        size: light.width,
        first_hair: Vec::with_capacity(texels),
        deep_opacity: Vec::with_capacity(texels),
    };
    for y in 0..light.height {
        for x in 0..light.width {
            let tile = (y / TILE * grid.across + x / TILE) as usize;
            let t = tiles[tile * TILE_PIXELS + ((y % TILE) * TILE + x % TILE) as usize];
            maps.first_hair.push(t[0]);
            maps.deep_opacity.push([t[1], t[2], t[3], t[4]]);
        }
    }
    Ok((maps, stats))
}

struct LightKernel<'a, L> {
    points: &'a [ScreenPoint],
    across: u32,
    order: Option<&'a [u32]>,
    tip_fade: f32,
    slabs: LightSlabs,
    lanes: PhantomData<L>,
}

struct LightTile<L> {
    x0: u32,
    y0: u32,
    first: Vec<L>,
    opacity: Vec<[L; 4]>,
}

impl<'a, L: Lanes> LightKernel<'a, L> {
    const GROUPS: usize = TILE as usize / L::WIDTH;

    fn new(points: &'a [ScreenPoint], grid: &Grid, s: &'a Strands, slabs: &LightSlabs) -> Self {
        LightKernel {
            points,
            across: grid.across,
            order: s.order,
            tip_fade: s.style.tip_fade,
            slabs: *slabs,
            lanes: PhantomData,
        }
    }
}

impl<L: Lanes + Send + Sync> TileKernel for LightKernel<'_, L> {
    type State = LightTile<L>;
    type Pixel = [f32; 5];
    const PASSES: usize = 2;

    fn begin(&self, tile: usize) -> LightTile<L> {
        let groups = TILE_PIXELS / L::WIDTH;
        LightTile {
            x0: (tile % self.across as usize) as u32 * TILE,
            y0: (tile / self.across as usize) as u32 * TILE,
            first: vec![L::splat(1.0); groups],
            opacity: vec![[L::splat(0.0); 4]; groups],
        }
    }

    fn feed(&self, state: &mut LightTile<L>, pass: usize, entries: &[u64], _in_order: bool) {
        let offsets: [f32; TILE as usize] = std::array::from_fn(|i| i as f32 + 0.5);
        let range = L::splat(self.slabs.depth_range);
        for &e in entries {
            let (k, j) = entry_segment(e);
            let Some(seg) = Segment::new(self.points, k, j, None) else {
                continue;
            };
            let strand = self.order.map_or(k as u32, |o| o[k]);
            let strand_hash = hash_u32(strand);
            let first_row = (seg.y_min - state.y0 as f32).floor().max(0.0) as usize;
            let last = (seg.y_max - state.y0 as f32).floor().min(TILE as f32 - 1.0);
            if last < 0.0 {
                continue;
            }
            for y in first_row..=last as usize {
                let py = L::splat((state.y0 + y as u32) as f32 + 0.5);
                for g in 0..Self::GROUPS {
                    let px = L::load(&offsets[g * L::WIDTH..]) + L::splat(state.x0 as f32);
                    let f = fragment(&seg, px, py, self.tip_fade);
                    // Light depth (forward): the nearness negated back.
                    let z = L::splat(0.0) - f.near;
                    let at = y * Self::GROUPS + g;
                    if pass == 0 {
                        let mut dither = [0.0f32; TILE as usize];
                        for (lane, d) in dither.iter_mut().enumerate().take(L::WIDTH) {
                            let x = state.x0 + (g * L::WIDTH + lane) as u32;
                            let cell = (x & 0xffff) | ((state.y0 + y as u32) << 16);
                            *d = hash_unit(cell ^ strand_hash);
                        }
                        let counts = L::and(f.alpha.gt(L::load(&dither)), z.lt(state.first[at]));
                        state.first[at] = L::select(counts, z, state.first[at]);
                    } else {
                        let behind = (z - state.first[at]) * range;
                        for (i, o) in state.opacity[at].iter_mut().enumerate() {
                            let slab = L::splat(self.slabs.ends[i]);
                            *o = *o + L::select(behind.gt(slab), L::splat(0.0), f.alpha);
                        }
                    }
                }
            }
        }
    }

    fn end(&self, state: LightTile<L>, out: &mut [[f32; 5]]) -> u64 {
        for (i, (first, opacity)) in state.first.iter().zip(&state.opacity).enumerate() {
            let mut lanes = [[0.0f32; TILE as usize]; 5];
            first.store(&mut lanes[0]);
            for c in 0..4 {
                opacity[c].store(&mut lanes[c + 1]);
            }
            for lane in 0..L::WIDTH {
                out[i * L::WIDTH + lane] = std::array::from_fn(|c| lanes[c][lane]);
            }
        }
        0
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
