//! Binning: the screen in tiles of 8×8 pixels, each drawn segment listed in every tile it
//! can touch (its box, then the distance from the tile's centre to the segment), a tile's
//! list sorted nearest first. The lists live in one pool of bounded capacity: a frame
//! whose lists do not fit is drawn in several groups of tiles, each binned and drawn in
//! turn (the same picture, more scans of the segments), and a tile whose own list does not
//! fit is drawn by the slow path: its segments streamed in chunks of the pool's size, with
//! no early exit (which needs the whole list in depth order). Both are counted in
//! [`BinStats`]; nothing is dropped.

use super::segments::{SEGMENTS, ScreenPoint};
pub use super::tile::{TILE, TILE_PIXELS};
use crate::sim::POINTS_PER_STRAND;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Bytes of one list entry: a segment's depth key and number.
pub const ENTRY_BYTES: u64 = 8;

/// The tiles covering a target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Grid {
    pub width: u32,
    pub height: u32,
    pub across: u32,
    pub down: u32,
}

impl Grid {
    pub fn new(width: u32, height: u32) -> Self {
        Grid {
            width,
            height,
            across: width.div_ceil(TILE),
            down: height.div_ceil(TILE),
        }
    }

    pub fn tiles(&self) -> usize {
        self.across as usize * self.down as usize
    }
}

/// What binning did in one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BinStats {
    /// Segments that cover anything.
    pub segments: u64,
    /// List entries (a segment once for each tile it touches).
    pub entries: u64,
    /// Groups of tiles binned and drawn one after another (1 when every list fits).
    pub groups: u32,
    /// Entries a tile never read because all its pixels had closed (early exit) or the
    /// rest of its list lay behind the surfaces.
    pub skipped_entries: u64,
    /// Tiles whose own list was longer than the pool: drawn by the slow path.
    pub overflow_tiles: u32,
    /// Entries of those tiles.
    pub overflow_entries: u64,
}

/// A segment as binning sees it: its ends, how far its pixels reach from the centre line,
/// and its nearer end's nearness.
struct Extent {
    ax: f32,
    ay: f32,
    bx: f32,
    by: f32,
    reach: f32,
    nearest: f32,
}

/// Segment `j` of the `k`th drawn strand, its reach `slack` past its wider end's
/// half-width; `None` when it covers nothing (the same rule as `Segment::new`).
fn extent(points: &[ScreenPoint], k: usize, j: usize, slack: f32) -> Option<Extent> {
    let p0 = points[k * POINTS_PER_STRAND + j];
    let p1 = points[k * POINTS_PER_STRAND + j + 1];
    let (dx, dy) = (p1.x - p0.x, p1.y - p0.y);
    let len2 = dx * dx + dy * dy;
    let (h0, h1) = (p0.half(), p1.half());
    if h0 < 0.0 || h1 < 0.0 || len2 <= 1e-12 || !len2.is_finite() {
        return None;
    }
    Some(Extent {
        ax: p0.x,
        ay: p0.y,
        bx: p1.x,
        by: p1.y,
        reach: h0.max(h1) + slack,
        nearest: p0.near.max(p1.near),
    })
}

/// Calls `f` with every tile `e` can touch: within its box grown by its reach, and within
/// reach plus half a tile's diagonal of the tile's centre.
fn for_each_tile(e: &Extent, grid: &Grid, f: impl FnMut(usize)) {
    for_each_tile_in(e, grid, (0, grid.down - 1), f);
}

/// [`for_each_tile`] in the rows of tiles `rows` (inclusive) alone.
fn for_each_tile_in(e: &Extent, grid: &Grid, rows: (u32, u32), mut f: impl FnMut(usize)) {
    let t = TILE as f32;
    let (right, bottom) = (
        (e.ax.max(e.bx) + e.reach) / t,
        (e.ay.max(e.by) + e.reach) / t,
    );
    if !(right >= 0.0 && bottom >= 0.0) {
        return;
    }
    // Non-negative, so truncation is the floor.
    let x0 = ((e.ax.min(e.bx) - e.reach) / t).max(0.0) as u32;
    let x1 = (right as u32).min(grid.across - 1);
    let y0 = (((e.ay.min(e.by) - e.reach) / t).max(0.0) as u32).max(rows.0);
    let y1 = (bottom as u32).min(grid.down - 1).min(rows.1);
    if !(x0 <= x1 && y0 <= y1) {
        return;
    }
    let (dx, dy) = (e.bx - e.ax, e.by - e.ay);
    let inv = 1.0 / (dx * dx + dy * dy);
    let limit = e.reach + 0.5 * t * std::f32::consts::SQRT_2 + 0.01;
    for ty in y0..=y1 {
        for tx in x0..=x1 {
            let cx = (tx as f32 + 0.5) * t;
            let cy = (ty as f32 + 0.5) * t;
            let h = (((cx - e.ax) * dx + (cy - e.ay) * dy) * inv).clamp(0.0, 1.0);
            let (ex, ey) = (cx - (e.ax + dx * h), cy - (e.ay + dy * h));
            if ex * ex + ey * ey <= limit * limit {
                f((ty * grid.across + tx) as usize);
            }
        }
    }
}

/// A list entry: nearest first when sorted, the segment's number breaking ties, so the
/// sorted list is the same whatever order the threads filled it in.
fn entry(nearest: f32, segment: usize) -> u64 {
    // Nearness as an unsigned key that sorts like the float, then flipped: nearest first.
    let bits = nearest.to_bits();
    let ordered = if bits >> 31 == 1 {
        !bits
    } else {
        bits | 0x8000_0000
    };
    (u64::from(!ordered) << 32) | segment as u64
}

/// The segment an entry names: `(k, j)`, the strand in place `k` of the projected points
/// and its segment `j`.
pub(crate) fn entry_segment(entry: u64) -> (usize, usize) {
    let s = (entry & 0xffff_ffff) as usize;
    (s / SEGMENTS, s % SEGMENTS)
}

/// How a tile's segments reach its kernel.
pub(crate) trait TileKernel: Sync {
    /// What a tile keeps between its chunks of segments.
    type State: Send;
    /// One band of the output: the rows of pixels of one row of tiles, row-major.
    type Band<'a>: Send;
    /// Passes over a tile's segments (the light's maps need two: first hair, then the
    /// opacity behind it).
    const PASSES: usize;
    /// Pixels past a segment's half-width (its wider end's) that binning and each tile's
    /// rows allow for. A pixel is covered only inside the half-width, so any slack keeps
    /// the lists and the rows whole; less of it lists a segment in fewer tiles and visits
    /// fewer rows, but changes which entries a list holds (see each kernel for whether its
    /// pixels depend on that).
    const SLACK: f32;
    /// A tile's state before its segments (`tile` in row-major order).
    fn begin(&self, tile: usize) -> Self::State;
    /// Pass `pass` over some of the tile's segments: the whole list nearest first
    /// (`in_order`), or one chunk of it in no order (the slow path).
    fn feed(&self, state: &mut Self::State, pass: usize, entries: &[u64], in_order: bool);
    /// Writes the tile's pixels into its `band`, the tile's first column at pixel `x0`
    /// (pixels outside the target are not written); returns how many entries it left
    /// unread.
    fn end(&self, state: Self::State, band: &mut Self::Band<'_>, x0: usize) -> u64;
}

/// Strands in a block: binning notes the rows of tiles each block's segments touch, so a
/// group of tiles scans only the blocks that reach it (strands are placed by where their
/// root lands, so a block's segments lie close together).
pub const BLOCK_STRANDS: usize = 32;

/// Bytes binning holds beside the pool: a count and a list cursor a tile, and a row of
/// tiles' output band and list slice.
pub const TILE_BYTES: u64 = 8;
/// See [`TILE_BYTES`].
pub const TILE_ROW_BYTES: u64 = 32;
/// Bytes a block of [`BLOCK_STRANDS`] strands takes: its first and last row of tiles.
pub const BLOCK_BYTES: u64 = 8;

/// The rows of tiles (inclusive) a block's segments touch; empty (`first > last`) when
/// they touch none.
type BlockRows = (u32, u32);

/// What the scans for a group's lists read: the projected points, each block's rows of
/// tiles, and the kernel's slack.
struct Binned<'a> {
    points: &'a [ScreenPoint],
    blocks: &'a [BlockRows],
    slack: f32,
}

/// The segments of a block: its first and its end (segment numbers).
fn block_segments(block: usize, drawn: usize) -> std::ops::Range<usize> {
    let first = block * BLOCK_STRANDS;
    first * SEGMENTS..(first + BLOCK_STRANDS).min(drawn) * SEGMENTS
}

/// Draws every tile of `grid` with `kernel` into `bands` (one a row of tiles, top to
/// bottom), binning the drawn segments with at most `capacity` entries at a time. Rows of
/// tiles are spread over threads. Tiles no segment touches are left as they are: the
/// bands must hold the kernel's empty pixel.
pub(crate) fn draw<'a, K: TileKernel>(
    points: &[ScreenPoint],
    grid: &Grid,
    capacity: usize,
    kernel: &K,
    bands: &mut [K::Band<'a>],
) -> BinStats {
    let drawn = points.len() / POINTS_PER_STRAND;
    let across = grid.across as usize;
    let (counts, segments, blocks) = count(points, drawn, grid, K::SLACK);
    let binned = Binned {
        points,
        blocks: &blocks,
        slack: K::SLACK,
    };
    let mut stats = BinStats {
        segments,
        entries: counts.iter().map(|&c| u64::from(c)).sum(),
        ..BinStats::default()
    };
    let capacity = capacity.max(1);
    let mut first = 0;
    while first < counts.len() {
        stats.groups += 1;
        let own = counts[first] as usize;
        if own > capacity {
            stats.overflow_tiles += 1;
            stats.overflow_entries += own as u64;
            let band = &mut bands[first / across];
            let tile = (grid, first, own, capacity);
            draw_overflowing(&binned, tile, kernel, band);
            first += 1;
            continue;
        }
        // As many tiles as fit.
        let mut end = first;
        let mut total = 0usize;
        while end < counts.len() && total + counts[end] as usize <= capacity {
            total += counts[end] as usize;
            end += 1;
        }
        let mut entries = fill(&binned, grid, &counts, first..end, total);
        // Each row of tiles gets its tiles' lists, one slice (tiles are row-major, and a
        // tile's list follows the one before).
        let (top, bottom) = (first / across, (end - 1) / across);
        let row_tiles = |row: usize| (row * across).max(first)..((row + 1) * across).min(end);
        let mut rows: Vec<&mut [u64]> = Vec::with_capacity(bottom - top + 1);
        let mut rest = entries.as_mut_slice();
        for row in top..=bottom {
            let len: usize = counts[row_tiles(row)].iter().map(|&c| c as usize).sum();
            let (lists, tail) = rest.split_at_mut(len);
            rows.push(lists);
            rest = tail;
        }
        let counts = &counts;
        stats.skipped_entries += bands[top..=bottom]
            .par_iter_mut()
            .zip(rows)
            .enumerate()
            .map(|(r, (band, lists))| {
                let mut skipped = 0;
                let mut from = 0;
                for t in row_tiles(top + r) {
                    let to = from + counts[t] as usize;
                    let list = &mut lists[from..to];
                    from = to;
                    if list.is_empty() {
                        // Nothing to draw: the band holds the empty pixel already.
                        continue;
                    }
                    list.sort_unstable();
                    let mut state = kernel.begin(t);
                    for pass in 0..K::PASSES {
                        kernel.feed(&mut state, pass, list, true);
                    }
                    skipped += kernel.end(state, band, (t % across) * TILE as usize);
                }
                skipped
            })
            .sum::<u64>();
        first = end;
    }
    stats
}

/// Entries per tile, the segments that cover anything, and each block's rows of tiles.
fn count(
    points: &[ScreenPoint],
    drawn: usize,
    grid: &Grid,
    slack: f32,
) -> (Vec<u32>, u64, Vec<BlockRows>) {
    let counts: Vec<AtomicU32> = (0..grid.tiles()).map(|_| AtomicU32::new(0)).collect();
    let across = grid.across as usize;
    let (blocks, segments): (Vec<BlockRows>, Vec<u64>) = (0..drawn.div_ceil(BLOCK_STRANDS))
        .into_par_iter()
        .map(|b| {
            let (mut rows, mut segments) = ((u32::MAX, 0), 0);
            for s in block_segments(b, drawn) {
                let Some(e) = extent(points, s / SEGMENTS, s % SEGMENTS, slack) else {
                    continue;
                };
                segments += 1;
                for_each_tile(&e, grid, |t| {
                    counts[t].fetch_add(1, Ordering::Relaxed);
                    let row = (t / across) as u32;
                    rows = (rows.0.min(row), rows.1.max(row));
                });
            }
            (rows, segments)
        })
        .unzip();
    let counts = counts.into_iter().map(AtomicU32::into_inner).collect();
    (counts, segments.iter().sum(), blocks)
}

/// Calls `f` with every segment (its number and extent) of the blocks that reach the rows
/// of tiles `rows` (inclusive), and each tile of those rows it touches; blocks are spread
/// over threads.
fn for_each_entry_in(
    binned: &Binned,
    grid: &Grid,
    rows: (u32, u32),
    f: impl Fn(usize, &Extent, usize) + Sync,
) {
    let points = binned.points;
    let drawn = points.len() / POINTS_PER_STRAND;
    binned
        .blocks
        .par_iter()
        .enumerate()
        .for_each(|(b, &(top, bottom))| {
            if top > rows.1 || bottom < rows.0 {
                return;
            }
            for s in block_segments(b, drawn) {
                if let Some(e) = extent(points, s / SEGMENTS, s % SEGMENTS, binned.slack) {
                    for_each_tile_in(&e, grid, rows, |t| f(s, &e, t));
                }
            }
        });
}

/// The lists of `tiles` (`total` entries), each tile's after the one before.
fn fill(
    binned: &Binned,
    grid: &Grid,
    counts: &[u32],
    tiles: std::ops::Range<usize>,
    total: usize,
) -> Vec<u64> {
    let first = tiles.start;
    // Each tile's cursor starts where its list does and ends where it ends.
    let mut at = 0u32;
    let cursors: Vec<AtomicU32> = counts[tiles.clone()]
        .iter()
        .map(|&c| {
            let start = at;
            at += c;
            AtomicU32::new(start)
        })
        .collect();
    let slots: Vec<AtomicU64> = (0..total).map(|_| AtomicU64::new(0)).collect();
    // Only the rows of tiles the group spans are looked at.
    let across = grid.across as usize;
    let rows = ((first / across) as u32, ((tiles.end - 1) / across) as u32);
    for_each_entry_in(binned, grid, rows, |s, e, t| {
        if tiles.contains(&t) {
            let at = cursors[t - first].fetch_add(1, Ordering::Relaxed);
            slots[at as usize].store(entry(e.nearest, s), Ordering::Relaxed);
        }
    });
    // Collected in place: the atomics' allocation becomes the lists'.
    slots.into_iter().map(AtomicU64::into_inner).collect()
}

/// The slow path: `tile` = (its grid, its number, its `own` entries, which exceed the
/// pool's `capacity`), fed chunk by chunk for each pass, then written into its `band`.
/// Each chunk is the `capacity` entries that come next in the sorted list the fast path
/// would have read (found by a scan of the blocks that reach the tile, keeping the
/// smallest keys past the last chunk's), so the tile's fragments arrive in the same order
/// and what falls out of a pixel's kept layers blends as it would there.
fn draw_overflowing<K: TileKernel>(
    binned: &Binned,
    (grid, tile, own, capacity): (&Grid, usize, usize, usize),
    kernel: &K,
    band: &mut K::Band<'_>,
) {
    let (points, blocks) = (binned.points, binned.blocks);
    let drawn = points.len() / POINTS_PER_STRAND;
    let row = (tile / grid.across as usize) as u32;
    let mut state = kernel.begin(tile);
    let capacity = capacity.max(1);
    // One allocation, a heap while the chunk is gathered and its sorted list while fed.
    let mut chunk = std::collections::BinaryHeap::with_capacity(capacity + 1);
    for pass in 0..K::PASSES {
        let (mut fed, mut last) = (0, None);
        while fed < own {
            chunk.clear();
            let reaching = blocks
                .iter()
                .enumerate()
                .filter(|(_, r)| r.0 <= row && row <= r.1);
            for (b, _) in reaching {
                for s in block_segments(b, drawn) {
                    let Some(e) = extent(points, s / SEGMENTS, s % SEGMENTS, binned.slack) else {
                        continue;
                    };
                    let key = entry(e.nearest, s);
                    if last.is_some_and(|l| key <= l) {
                        continue;
                    }
                    let mut hit = false;
                    for_each_tile_in(&e, grid, (row, row), |t| hit |= t == tile);
                    if hit {
                        // The smallest keys seen: a max-heap dropping its largest.
                        chunk.push(key);
                        if chunk.len() > capacity {
                            chunk.pop();
                        }
                    }
                }
            }
            if chunk.is_empty() {
                break;
            }
            let mut sorted = std::mem::take(&mut chunk).into_sorted_vec();
            last = sorted.last().copied();
            kernel.feed(&mut state, pass, &sorted, false);
            fed += sorted.len();
            sorted.clear();
            chunk = std::collections::BinaryHeap::from(sorted);
        }
    }
    let x0 = (tile % grid.across as usize) * TILE as usize;
    kernel.end(state, band, x0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_sort_nearest_first_whatever_the_sign() {
        let mut e = [
            entry(-0.5, 3),
            entry(0.25, 1),
            entry(0.9, 2),
            entry(-2.0, 0),
        ];
        e.sort_unstable();
        let order: Vec<usize> = e.iter().map(|&x| (x & 0xffff_ffff) as usize).collect();
        assert_eq!(order, [2, 1, 3, 0]);
    }

    #[test]
    fn a_segment_is_listed_in_the_tiles_along_it_and_not_far_off() {
        let grid = Grid::new(64, 64);
        let e = Extent {
            ax: 2.0,
            ay: 2.0,
            bx: 60.0,
            by: 60.0,
            reach: 1.5,
            nearest: 0.5,
        };
        let mut tiles = Vec::new();
        for_each_tile(&e, &grid, |t| tiles.push(t));
        for d in 0..8 {
            assert!(tiles.contains(&(d * 8 + d)), "diagonal tile {d} missing");
        }
        // The far corners of the box lie 30+ pixels from the line.
        assert!(!tiles.contains(&7) && !tiles.contains(&56), "{tiles:?}");
    }
}
