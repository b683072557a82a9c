//! The camera's picture of the hair: premultiplied colour and transmittance per pixel in
//! half precision (8 bytes a pixel, the texture the renderer composites from), and its
//! composite over the surfaces (`out = hair + T · surface`).

#[cfg(target_arch = "x86_64")]
use super::avx::Avx8;
use super::bins::{self, BinStats, Grid, TILE};
use super::blend::PictureKernel;
use super::lane_choice::LaneChoice;
use super::lanes::Lanes;
use super::segments::{ScreenPoint, Strands, project};
use super::view::RasterView;
use super::{RasterError, RasterOptions};
use std::marker::PhantomData;
use wide::f32x8;

/// The hair as the camera sees it, before the surfaces.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// Row-major: each pixel's premultiplied linear RGB and transmittance, as the bits of
    /// half-precision floats.
    pixels: Vec<[u16; 4]>,
}

/// Bytes of one pixel of a [`Picture`].
pub const PICTURE_PIXEL_BYTES: u64 = std::mem::size_of::<[u16; 4]>() as u64;

/// A half-precision pixel as four floats.
fn widen(p: [u16; 4]) -> [f32; 4] {
    p.map(|h| half::f16::from_bits(h).to_f32())
}

impl Picture {
    /// Pixel (x, y) (origin top left): premultiplied RGB and transmittance; none outside.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[f32; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        Some(widen(self.pixels[(y * self.width + x) as usize]))
    }

    /// Every pixel, row-major, as floats (a copy twice the picture's size).
    pub fn rows(&self) -> Vec<[f32; 4]> {
        self.pixels.iter().map(|&p| widen(p)).collect()
    }

    /// Every pixel, row-major, as the bits of half-precision floats (RGBA): what an
    /// `Rgba16Float` texture holds.
    pub fn half_rows(&self) -> &[[u16; 4]] {
        &self.pixels
    }

    /// The hair over the surfaces' colour (`surface`, row-major linear RGB): hair + T ·
    /// surface. `None` when `surface` is not one colour a pixel.
    pub fn composite(&self, surface: &[[f32; 3]]) -> Option<Vec<[f32; 3]>> {
        if surface.len() != self.width as usize * self.height as usize {
            return None;
        }
        Some(
            self.pixels
                .iter()
                .zip(surface)
                .map(|(&h, s)| {
                    let h = widen(h);
                    std::array::from_fn(|c| h[c] + h[3] * s[c])
                })
                .collect(),
        )
    }

    /// [`Picture::composite`] over an 8-bit sRGB picture (`rgba`, 4 bytes a pixel, as the
    /// renderer's `Image` holds it), decoded to linear, blended and encoded again; alpha
    /// kept. `None` when `rgba` is not 4 bytes a pixel.
    pub fn composite_srgb8(&self, rgba: &[u8]) -> Option<Vec<u8>> {
        if rgba.len() != self.width as usize * self.height as usize * 4 {
            return None;
        }
        let mut out = rgba.to_vec();
        for (&h, px) in self.pixels.iter().zip(out.chunks_mut(4)) {
            let h = widen(h);
            for c in 0..3 {
                let s = srgb_to_linear(f32::from(px[c]) / 255.0);
                px[c] = (linear_to_srgb(h[c] + h[3] * s) * 255.0).round() as u8;
            }
        }
        Some(out)
    }
}

/// sRGB transfer function, decoded.
pub fn srgb_to_linear(v: f32) -> f32 {
    if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

/// sRGB transfer function, encoded (clamped to 0 … 1).
pub fn linear_to_srgb(v: f32) -> f32 {
    let v = v.clamp(0.0, 1.0);
    if v <= 0.003_130_8 {
        v * 12.92
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    }
}

/// Draws the camera's picture of `strands` seen from `view`, hidden where
/// `surface_depth` (row-major, the renderer's depth buffer: reversed, 0 where nothing is)
/// is nearer.
pub fn draw_picture(
    strands: &Strands,
    view: &RasterView,
    options: &RasterOptions,
    surface_depth: Option<&[f32]>,
) -> Result<(Picture, BinStats), RasterError> {
    view.validate()?;
    strands.validate(true)?;
    options.validate()?;
    let pixels = view.width as usize * view.height as usize;
    if let Some(d) = surface_depth
        && d.len() != pixels
    {
        return Err(RasterError::Surface(format!(
            "{} depths for a {}×{} picture: give one depth a pixel",
            d.len(),
            view.width,
            view.height
        )));
    }
    let (points, places) = project(strands, view);
    let grid = Grid::new(view.width, view.height);
    // No hair: nothing added, everything shows through.
    let clear = [0, 0, 0, half::f16::ONE.to_bits()];
    let mut pixels = vec![clear; pixels];
    let mut bands: Vec<&mut [[u16; 4]]> = pixels
        .chunks_mut(view.width as usize * TILE as usize)
        .collect();
    let frame = (&points[..], &places[..]);
    let draw = (&grid, &mut bands[..]);
    let stats = match LaneChoice::for_options(options) {
        LaneChoice::Scalar => draw_in::<f32>(frame, view, options, strands, surface_depth, draw),
        LaneChoice::Wide => draw_in::<f32x8>(frame, view, options, strands, surface_depth, draw),
        #[cfg(target_arch = "x86_64")]
        LaneChoice::Avx => draw_in::<Avx8>(frame, view, options, strands, surface_depth, draw),
    };
    Ok((
        Picture {
            width: view.width,
            height: view.height,
            pixels,
        },
        stats,
    ))
}

/// Draws the picture's tiles in lanes `L` into `bands`.
fn draw_in<'a, L: Lanes + Send + Sync>(
    (points, places): (&'a [ScreenPoint], &'a [u32]),
    view: &RasterView,
    options: &RasterOptions,
    strands: &Strands<'a>,
    surface: Option<&'a [f32]>,
    (grid, bands): (&Grid, &mut [&mut [[u16; 4]]]),
) -> BinStats {
    let kernel = PictureKernel::<L> {
        points,
        places,
        colors: strands.colors,
        across: grid.across,
        width: view.width,
        height: view.height,
        reversed_depth: view.reversed_depth,
        exposure: options.exposure,
        tip_fade: strands.style.tip_fade,
        surface,
        lanes: PhantomData,
    };
    bins::draw(points, grid, options.bin_capacity, &kernel, bands)
}
