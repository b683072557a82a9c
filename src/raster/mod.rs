//! The strand rasteriser on the CPU, the native twin of the WGSL one: one sample per pixel,
//! analytic coverage from the distance of the pixel's centre to each segment's centre line
//! against the ribbons' tapered half-width, the nearest [`LAYERS`] fragments of a pixel
//! blended in depth order and the rest without order, a pixel closed once less than
//! [`EXIT_TRANSMITTANCE`] shows through. Tiles of 8×8 pixels are spread over threads
//! (rayon, a row of tiles a task); inside a tile, a row of eight pixels is one SIMD value
//! (`wide`), with a scalar path of the same operations that gives the same bits. Each
//! segment is set up once per tile it is listed in and visited only on the tile's rows it
//! can cover; rows and layers it leaves unchanged are skipped. Pure CPU: no device.
//!
//! One frame: [`draw_light_maps`] from the key light (the first hair's depth and the deep
//! opacity the hair's shading reads), then [`draw_picture`] from the camera over the
//! surfaces' depth, composited over their colour by [`Picture::composite`].
//!
//! Memory, all of it freed when a call returns (but the picture or maps it returns): 24 B
//! a drawn strand point ([`SCREEN_POINT_BYTES`]) and 4 B a drawn strand (its place among
//! them: strands are placed by where their root lands), 16 B a pixel of the picture (20 B a
//! texel of the light maps), each tile written straight into its place in the rows, 12 B
//! a tile (counts and list starts), and the binning pool, the frame's list entries but at
//! most `bin_capacity` × 8 B ([`ENTRY_BYTES`]): [`buffer_bytes`] adds them up. At
//! 1920×1080: 33.2 MB of picture, 0.4 MB of tiles, at most 33.6 MB of pool with the
//! default capacity, and 0.6 MB for 4,096 strands' points (62.2 MB for the full coat's
//! 420,032).

mod bins;
mod blend;
mod colors;
mod coverage;
mod lanes;
mod light;
mod picture;
mod segments;
mod tile;
mod view;

pub use bins::{BinStats, ENTRY_BYTES, TILE};
pub use blend::{EXIT_TRANSMITTANCE, LAYERS};
pub use colors::{pack_point_color, tone_map, unpack_point_color};
pub use light::{LightMaps, LightSlabs, draw_light_maps, hash_u32, hash_unit};
pub use picture::{Picture, draw_picture, linear_to_srgb, srgb_to_linear};
pub use segments::{Lod, SCREEN_POINT_BYTES, SEGMENTS, StrandStyle, Strands};
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

/// Entries the binning pool holds by default: 4 Mi, 32 MiB.
pub const DEFAULT_BIN_CAPACITY: usize = 1 << 22;

/// How a frame is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasterOptions {
    /// Eight pixels at a time in SIMD lanes (true), or one at a time (the scalar
    /// reference; the same bits, slower).
    pub simd: bool,
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

/// Bytes a frame holds at its peak: `points` drawn strand points projected and their
/// strands' places, a
/// `width × height` picture (16 B a pixel; a light map's 20 B a texel), the tiles' counts
/// and list starts, and a binning pool of `pool` entries: the frame's list entries
/// ([`BinStats::entries`]), at most the options' `bin_capacity`.
pub fn buffer_bytes(width: u32, height: u32, points: u64, pool: u64) -> u64 {
    let tiles = u64::from(width.div_ceil(TILE)) * u64::from(height.div_ceil(TILE));
    let pixel = 16;
    points * SCREEN_POINT_BYTES
        + points / crate::sim::POINTS_PER_STRAND as u64 * 4
        + u64::from(width) * u64::from(height) * pixel
        + tiles * 12
        + pool * ENTRY_BYTES
}
