//! [`ClipWriter`]: an animated PNG (APNG) written frame by frame through the `png` crate.
//! Each frame after the first stores only the rectangle that changed since what a viewer
//! shows, its unchanged pixels transparent and blended over the last frame, so a still
//! background costs almost nothing. A `tolerance` (in 8-bit levels) lets pixels that moved
//! less than it keep what is shown: the coat's shimmer from frame to frame is then not
//! stored again, every shown pixel stays within `tolerance` of the rendered one, and the
//! file shrinks several times.

use std::io::Write;

/// Writes `frames` RGBA frames of `width × height`, each shown for `1 / fps` s, looping.
pub struct ClipWriter<W: Write> {
    writer: png::Writer<W>,
    width: u32,
    height: u32,
    tolerance: u8,
    /// What a viewer shows after the frames written so far.
    shown: Option<Vec<u8>>,
}

/// Whether pixel `new` differs from `shown` by more than `tolerance` in any channel.
fn differs(new: &[u8], shown: &[u8], tolerance: u8) -> bool {
    new.iter()
        .zip(shown)
        .any(|(a, b)| a.abs_diff(*b) > tolerance)
}

/// The smallest rectangle `(x, y, w, h)` holding every pixel where `a` and `b` differ, or
/// `None` when they are the same.
fn changed_rect(
    a: &[u8],
    b: &[u8],
    width: u32,
    height: u32,
    tolerance: u8,
) -> Option<(u32, u32, u32, u32)> {
    let (w, h) = (width as usize, height as usize);
    let row = |y: usize| y * w * 4..(y + 1) * w * 4;
    let row_changed = |y: usize| {
        a[row(y)]
            .chunks_exact(4)
            .zip(b[row(y)].chunks_exact(4))
            .any(|(p, q)| differs(p, q, tolerance))
    };
    let top = (0..h).find(|&y| row_changed(y))?;
    let bottom = (0..h).rev().find(|&y| row_changed(y))?;
    let column_changed = |x: usize| {
        (top..=bottom).any(|y| {
            let i = (y * w + x) * 4;
            differs(&a[i..i + 4], &b[i..i + 4], tolerance)
        })
    };
    let left = (0..w).find(|&x| column_changed(x))?;
    let right = (0..w).rev().find(|&x| column_changed(x))?;
    Some((
        left as u32,
        top as u32,
        (right - left + 1) as u32,
        (bottom - top + 1) as u32,
    ))
}

impl<W: Write> ClipWriter<W> {
    /// Starts a clip of `frames` frames (at least one) at `fps` frames a second, keeping
    /// shown pixels that are within `tolerance` levels of a new frame's (0: exact).
    pub fn new(
        out: W,
        width: u32,
        height: u32,
        frames: u32,
        fps: u16,
        tolerance: u8,
    ) -> Result<Self, png::EncodingError> {
        let mut encoder = png::Encoder::new(out, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        encoder.set_compression(png::Compression::High);
        encoder.set_animated(frames, 0)?;
        encoder.set_frame_delay(1, fps)?;
        Ok(ClipWriter {
            writer: encoder.write_header()?,
            width,
            height,
            tolerance,
            shown: None,
        })
    }

    /// Adds the next frame: `rgba` is `width × height` pixels, rows top to bottom (alpha is
    /// written as opaque).
    pub fn frame(&mut self, rgba: &[u8]) -> Result<(), png::EncodingError> {
        let mut frame = rgba.to_vec();
        frame.chunks_exact_mut(4).for_each(|p| p[3] = 255);
        let Some(shown) = &mut self.shown else {
            self.writer.write_image_data(&frame)?;
            self.shown = Some(frame);
            return Ok(());
        };
        // An unchanged frame still needs a frame: one pixel, transparent.
        let (x, y, w, h) = changed_rect(shown, &frame, self.width, self.height, self.tolerance)
            .unwrap_or((0, 0, 1, 1));
        let stride = self.width as usize * 4;
        let mut patch = Vec::with_capacity(w as usize * h as usize * 4);
        for row in y..y + h {
            let start = row as usize * stride + x as usize * 4;
            let end = start + w as usize * 4;
            for (new, old) in frame[start..end]
                .chunks_exact(4)
                .zip(shown[start..end].chunks_exact_mut(4))
            {
                // Pixels within the tolerance are transparent: blended over, they leave
                // what is shown.
                if differs(new, old, self.tolerance) {
                    patch.extend_from_slice(new);
                    old.copy_from_slice(new);
                } else {
                    patch.extend_from_slice(&[0, 0, 0, 0]);
                }
            }
        }
        // The frame's size and place are set before its fcTL chunk is written.
        self.writer.reset_frame_position()?;
        self.writer.set_frame_dimension(w, h)?;
        self.writer.set_frame_position(x, y)?;
        self.writer.set_blend_op(png::BlendOp::Over)?;
        self.writer.set_dispose_op(png::DisposeOp::None)?;
        self.writer.write_image_data(&patch)
    }

    /// Ends the file (every announced frame must have been written) and returns the output.
    pub fn finish(self) -> Result<(), png::EncodingError> {
        self.writer.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_changed_rectangle_is_tight() {
        let a = vec![0u8; 4 * 5 * 3];
        let mut b = a.clone();
        assert_eq!(changed_rect(&a, &b, 5, 3, 0), None);
        b[(5 + 3) * 4] = 9;
        b[(2 * 5 + 1) * 4 + 2] = 9;
        assert_eq!(changed_rect(&a, &b, 5, 3, 0), Some((1, 1, 3, 2)));
        assert_eq!(changed_rect(&a, &b, 5, 3, 9), None);
        b[4] = 10;
        assert_eq!(changed_rect(&a, &b, 5, 3, 9), Some((1, 0, 1, 1)));
    }
}
