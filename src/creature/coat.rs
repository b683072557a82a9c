//! The coat's fixed colours, shared by skin and hair on screen and by the exported mesh:
//! the main colour, the cream, the stripes and the blush, as the seed gives them (sRGB), and
//! their linear values the shaders and files use.

use glam::Vec3;

/// One of the coat's fixed colours, as the seed gives them (sRGB hex).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Srgb(pub u32);

impl Srgb {
    /// The coat's main colour, `#f2903b`.
    pub const MAIN: Srgb = Srgb(0xf2903b);
    /// The cream of belly, muzzle and chest, `#fff3e2`.
    pub const CREAM: Srgb = Srgb(0xfff3e2);
    /// Stripes, ear tips and tail rings, `#c8521a`.
    pub const STRIPE: Srgb = Srgb(0xc8521a);
    /// The cheeks' blush, `#ff8b9c`.
    pub const BLUSH: Srgb = Srgb(0xff8b9c);

    /// The three 8-bit channels.
    pub fn bytes(self) -> [u8; 3] {
        [(self.0 >> 16) as u8, (self.0 >> 8) as u8, self.0 as u8]
    }

    /// The colour in linear light (what the shaders compute with).
    pub fn linear(self) -> Vec3 {
        let [r, g, b] = self.bytes();
        Vec3::new(srgb_to_linear(r), srgb_to_linear(g), srgb_to_linear(b))
    }
}

/// One 8-bit sRGB channel to linear light.
pub fn srgb_to_linear(c: u8) -> f32 {
    let c = f32::from(c) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}
