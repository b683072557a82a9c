//! The screen tile both the binning and the segments' set-up work in: a square of pixels
//! that one worker draws alone.

/// Pixels along a tile's side.
pub const TILE: u32 = 8;
/// Pixels in a tile.
pub const TILE_PIXELS: usize = (TILE * TILE) as usize;
