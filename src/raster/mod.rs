//! The strand rasteriser on the CPU, the native twin of the WGSL one: one sample per pixel,
//! analytic coverage from the distance of the pixel's centre to each segment's centre line
//! against the ribbons' tapered half-width, the nearest [`LAYERS`] fragments of a pixel
//! blended in depth order and the rest behind them in the order it falls out of them, a
//! pixel closed once less than [`EXIT_TRANSMITTANCE`] shows through. Tiles of 8×8 pixels are spread over threads
//! (rayon, a row of tiles a task); inside a tile, a row of eight pixels is one SIMD value
//! (`wide`), with a scalar path of the same operations that gives the same bits. Each
//! segment is set up once per tile it is listed in and visited only on the tile's rows it
//! can cover; rows and layers it leaves unchanged are skipped. A tile asks for the points
//! of the segments a few entries ahead of the one it draws (its list jumps about them).
//! Pure CPU: no device.
//!
//! One frame: [`draw_light_maps`] from the key light (the first hair's depth and the deep
//! opacity the hair's shading reads), then [`draw_picture`] from the camera over the
//! surfaces' depth, composited over their colour by [`Picture::composite`].
//!
//! Memory, all of it freed when a call returns (but the picture or maps it returns): 16 B
//! a drawn strand point ([`SCREEN_POINT_BYTES`]: position and depth in full, half-width
//! and opacity share in 16 bits; the colours are read from the caller's buffer) and 4 B a
//! drawn strand (its place among them: strands are placed by where their root lands), 8 B
//! a pixel of the picture (half floats, [`PICTURE_PIXEL_BYTES`]; 20 B a texel of the
//! light maps), each tile written straight into its place in the rows, 8 B a tile and
//! 32 B a row of tiles (counts, list cursors, bands), 8 B a block of 32 strands (the rows
//! of tiles it reaches), and the binning pool, the frame's list entries but at most
//! `bin_capacity` × 8 B ([`ENTRY_BYTES`]); besides, each thread's scratch for the tile it
//! draws (tens of kB). [`buffer_bytes`] and [`light_buffer_bytes`] add them up; the
//! numbers at 1920×1080 are in docs/library.md.

#[cfg(target_arch = "x86_64")]
mod avx;
mod bins;
mod blend;
mod colors;
mod coverage;
mod lane_choice;
mod lanes;
mod light;
mod picture;
mod prefetch;
mod segments;
mod tile;
mod view;

pub use bins::{BLOCK_STRANDS, BinStats, ENTRY_BYTES, TILE};
pub use blend::{EXIT_TRANSMITTANCE, LAYERS};
pub use colors::{pack_point_color, tone_map, unpack_point_color};
pub use light::{LightMaps, LightSlabs, draw_light_maps, hash_u32, hash_unit};
pub use picture::{PICTURE_PIXEL_BYTES, Picture, draw_picture, linear_to_srgb, srgb_to_linear};
pub use segments::{Lod, PLACE_BYTES, SCREEN_POINT_BYTES, SEGMENTS, StrandStyle, Strands};
pub use view::RasterView;

use thiserror::Error;

/// What went wrong drawing.
#[derive(Debug, Error)]
pub enum RasterError {
    /// A target of no pixels or too many.
    #[error(
        "a {width}×{height} target is not possible: width and height must be between 1 and 16384"
    )]
    Size {
        /// Width asked for.
        width: u32,
        /// Height asked for.
        height: u32,
    },
    /// A view that cannot be drawn from.
    #[error("bad view: {0}")]
    View(String),
    /// Strands that do not match their buffers or numbers out of range.
    #[error("cannot draw these strands: {0}")]
    Strands(String),
    /// A surface depth that does not match the picture.
    #[error("bad surface depth: {0}")]
    Surface(String),
    /// Options out of range.
    #[error("raster options out of range: {0}")]
    Options(String),
}

/// Entries the binning pool holds by default: 0.5 Mi, 4 MiB. A frame with more entries
/// is binned and drawn in groups of tiles, each group scanning only the blocks of strands
/// that reach its rows.
pub const DEFAULT_BIN_CAPACITY: usize = 1 << 19;

/// How a frame is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasterOptions {
    /// Eight pixels at a time in SIMD lanes (true), or one at a time (the scalar
    /// reference; the same bits, slower).
    pub simd: bool,
    /// With `simd`, on an x86-64 CPU that has AVX (checked at run time): the eight lanes in
    /// one AVX register (true), or in two SSE registers as on any x86-64 (false). The same
    /// bits either way; elsewhere ignored.
    pub avx: bool,
    /// List entries binned at once (each segment once per tile it touches). Past it, tiles
    /// are drawn in groups, and a tile whose own list is longer by the slow path.
    pub bin_capacity: usize,
    /// Tone-map each point's colour with this exposure before blending, as the ribbons
    /// tone-map each fragment (`final`, `strands`); none blends the colours as given.
    pub exposure: Option<f32>,
}

impl Default for RasterOptions {
    fn default() -> Self {
        RasterOptions {
            simd: true,
            avx: true,
            bin_capacity: DEFAULT_BIN_CAPACITY,
            exposure: None,
        }
    }
}

impl RasterOptions {
    /// Checks the numbers.
    pub fn validate(&self) -> Result<(), RasterError> {
        if self.bin_capacity == 0 || self.bin_capacity > u32::MAX as usize {
            return Err(RasterError::Options(format!(
                "a binning pool of {} entries: give between 1 and {}",
                self.bin_capacity,
                u32::MAX
            )));
        }
        if let Some(e) = self.exposure
            && !(e.is_finite() && e >= 0.0)
        {
            return Err(RasterError::Options(format!(
                "exposure {e} must be a number at least 0"
            )));
        }
        Ok(())
    }
}

/// Bytes a camera picture holds at its peak: `points` drawn strand points projected and
/// their strands' places and blocks, a `width × height` picture
/// ([`PICTURE_PIXEL_BYTES`] a pixel), the tiles' counts and cursors and the rows' bands,
/// and a binning pool of `pool` entries: the frame's list entries ([`BinStats::entries`]),
/// at most the options' `bin_capacity`.
pub fn buffer_bytes(width: u32, height: u32, points: u64, pool: u64) -> u64 {
    frame_bytes(width, height, points, pool) + pixels(width, height) * PICTURE_PIXEL_BYTES
}

/// Bytes the light's maps hold at their peak: [`buffer_bytes`] with maps of
/// `size × size` texels (4 B of first hair and 16 B of deep opacity a texel) in place of
/// the picture.
pub fn light_buffer_bytes(size: u32, points: u64, pool: u64) -> u64 {
    frame_bytes(size, size, points, pool) + pixels(size, size) * 20
}

fn pixels(width: u32, height: u32) -> u64 {
    u64::from(width) * u64::from(height)
}

/// Everything but the output: points, places, blocks, tiles, rows and the pool.
fn frame_bytes(width: u32, height: u32, points: u64, pool: u64) -> u64 {
    let grid = bins::Grid::new(width, height);
    let strands = points / crate::sim::POINTS_PER_STRAND as u64;
    points * SCREEN_POINT_BYTES
        + strands * PLACE_BYTES
        + strands.div_ceil(BLOCK_STRANDS as u64) * bins::BLOCK_BYTES
        + grid.tiles() as u64 * bins::TILE_BYTES
        + u64::from(grid.down) * bins::TILE_ROW_BYTES
        + pool * ENTRY_BYTES
}
