//! What the renderer draws of the hand: capsules with a material each.

use glam::Vec3;

/// The surface a hand shape is drawn with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandMaterial {
    /// Skin: palm, fingers, thumb, forearm.
    Skin,
    /// Fingernails.
    Nail,
    /// The sleeve over the forearm.
    Sleeve,
}

impl HandMaterial {
    /// A suggested base colour, linear RGB.
    pub fn base_color(self) -> Vec3 {
        match self {
            HandMaterial::Skin => Vec3::new(0.62, 0.38, 0.27),
            HandMaterial::Nail => Vec3::new(0.85, 0.66, 0.60),
            HandMaterial::Sleeve => Vec3::new(0.05, 0.09, 0.18),
        }
    }
}

/// One capsule to draw: the segment `a`–`b` thickened by `radius`, world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandShape {
    /// One end of the segment.
    pub a: Vec3,
    /// The other end.
    pub b: Vec3,
    /// Radius, metres.
    pub radius: f32,
    /// What it is made of.
    pub material: HandMaterial,
}
