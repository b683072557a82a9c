//! The scene's lighting. The coat's fixed colours are the creature's
//! ([`crate::creature::Srgb`]); re-exported here, where the renderer has always found them.

use glam::Vec3;

pub use crate::creature::{Srgb, srgb_to_linear};

/// The linear colour behind the creature.
pub const BACKGROUND: Vec3 = Vec3::new(0.030, 0.034, 0.044);

/// The scene's lights: a key light that casts shadows, an unshadowed fill, and ambient
/// light from the sky and the ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lighting {
    /// Unit direction toward the key light (normalised when used).
    pub key_direction: Vec3,
    /// The key light's irradiance on a surface facing it. At π a white Lambertian
    /// surface facing the light shows exactly white before ambient and tone mapping.
    pub key_irradiance: f32,
    /// The key light's linear colour.
    pub key_color: Vec3,
    /// Unit direction toward the fill light.
    pub fill_direction: Vec3,
    /// The fill light's irradiance.
    pub fill_irradiance: f32,
    /// Ambient radiance from above.
    pub sky: Vec3,
    /// Ambient radiance from below.
    pub ground: Vec3,
    /// Multiplies the linear result before tone mapping.
    pub exposure: f32,
}

impl Default for Lighting {
    fn default() -> Self {
        Lighting {
            key_direction: Vec3::new(0.55, 0.75, 0.45).normalize(),
            key_irradiance: 2.6,
            key_color: Vec3::new(1.0, 0.96, 0.9),
            fill_direction: Vec3::new(-0.6, 0.25, 0.5).normalize(),
            fill_irradiance: 0.55,
            sky: Vec3::new(0.11, 0.12, 0.14),
            ground: Vec3::new(0.05, 0.045, 0.04),
            exposure: 1.0,
        }
    }
}

impl Lighting {
    /// Whether every number is finite and the directions are not zero.
    pub fn is_valid(&self) -> bool {
        let finite = self.key_direction.is_finite()
            && self.key_color.is_finite()
            && self.fill_direction.is_finite()
            && self.sky.is_finite()
            && self.ground.is_finite()
            && self.key_irradiance.is_finite()
            && self.fill_irradiance.is_finite()
            && self.exposure.is_finite();
        finite
            && self.key_direction.length_squared() > 1e-12
            && self.fill_direction.length_squared() > 1e-12
    }
}
