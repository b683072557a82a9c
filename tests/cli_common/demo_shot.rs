//! `pelt demo` in a window under Xvfb and the screenshots it saves: the command to add
//! arguments to, the pictures read back, and the pixels the petting hand changed.

use std::path::Path;
use std::process::Command;

/// `xvfb-run` starting `pelt demo` on a 1400×900 screen (room for its 1280×720 window);
/// add the demo's arguments and run it with [`super::run_under_xvfb`].
pub fn demo_under_xvfb() -> Command {
    let mut command = Command::new("xvfb-run");
    command
        .args(["-a", "-s", "-screen 0 1400x900x24"])
        .arg(env!("CARGO_BIN_EXE_pelt"))
        .arg("demo");
    command
}

/// Decodes an 8-bit RGB PNG (a screenshot) into (width, height, pixels).
pub fn read_rgb_png(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let pixels = buf[..info.buffer_size()]
        .chunks_exact(3)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, pixels)
}

/// The sum of two colours' channel differences, 0 to 765.
pub fn rgb_distance(a: [u8; 3], b: [u8; 3]) -> u32 {
    a.iter().zip(&b).map(|(x, y)| x.abs_diff(*y) as u32).sum()
}

/// What a petting hand changed between two pictures of the same frames, one petted and
/// one idle.
#[derive(Clone, Copy, Debug)]
pub struct HandPixels {
    /// Pixels far from their idle colour (channel differences summing over 80).
    pub changed: usize,
    /// Among them, pixels of the sleeve's blue (blue 25 over red, and over 70).
    pub sleeve: usize,
}

/// The pixels the hand changed from `idle` to `petted` (the same size).
pub fn hand_pixels(petted: &[[u8; 3]], idle: &[[u8; 3]]) -> HandPixels {
    let changed: Vec<[u8; 3]> = petted
        .iter()
        .zip(idle)
        .filter(|(a, b)| rgb_distance(**a, **b) > 80)
        .map(|(a, _)| *a)
        .collect();
    let sleeve = changed
        .iter()
        .filter(|p| p[2] as i32 > p[0] as i32 + 25 && p[2] > 70)
        .count();
    HandPixels {
        changed: changed.len(),
        sleeve,
    }
}
