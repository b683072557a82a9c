//! The coat pattern: four channels shared by skin and hair (cream, stripe, ear-tip, blush),
//! from the regions of each part: chest mask and dorsal stripe on the body, rings near the
//! tail's end.

use super::regions::{HeadRegions, chest_mask, smoothstep};
use super::{Creature, Part, Srgb};
use glam::Vec3;

/// The four pattern channels of one root, each in [0, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pattern {
    /// Pale belly, muzzle and chest.
    pub cream: f32,
    /// Darker stripes: forehead, dorsal stripe, tail rings.
    pub stripe: f32,
    /// Dark ear tips.
    pub ear_tip: f32,
    /// Pink cheek spots.
    pub blush: f32,
}

impl Pattern {
    /// The channels packed as four unorm bytes (cream in the low byte), as the GPU reads them.
    pub fn pack(&self) -> u32 {
        let q = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u32;
        q(self.cream) | (q(self.stripe) << 8) | (q(self.ear_tip) << 16) | (q(self.blush) << 24)
    }

    /// The coat's linear colour for these channels as the GPU reads them (each a byte, so
    /// quantised to 1/255), mixed as the renderer's `coat_color` in `shaders/frame.wgsl`:
    /// the main colour toward cream, stripe, darkened stripe at the ear tips, and blush.
    pub fn color(&self) -> Vec3 {
        let [cream, stripe, ear_tip, blush] =
            self.pack().to_le_bytes().map(|b| f32::from(b) / 255.0);
        let mut c = Srgb::MAIN.linear();
        c = c.lerp(Srgb::CREAM.linear(), cream);
        c = c.lerp(Srgb::STRIPE.linear(), stripe);
        // Ear tips: the stripe colour, darkened.
        c = c.lerp(Srgb::STRIPE.linear() * 0.45, ear_tip);
        c.lerp(Srgb::BLUSH.linear(), blush)
    }
}

/// The pattern at a root of `part` with part-space `position` and `normal`; `u` is the
/// tail parameter for the tail and the head direction for the head.
pub fn pattern_at(
    creature: &Creature,
    part: Part,
    position: Vec3,
    normal: Vec3,
    t: f32,
) -> Pattern {
    match part {
        Part::Head => {
            let u = (position - creature.head.center).normalize_or(Vec3::Y);
            let r = HeadRegions::at(&creature.head, u);
            // Three forehead stripes, between the ears, fading toward the face.
            let forehead = smoothstep(0.55, 0.8, u.y) * smoothstep(-0.4, 0.1, u.z);
            let stripes = (0.5 + 0.5 * (u.x * 38.0).cos()).powi(3) * forehead * (1.0 - r.ear);
            Pattern {
                cream: (r.muzzle + 0.7 * r.cheek + r.belly).min(1.0),
                stripe: stripes,
                ear_tip: smoothstep(0.45, 0.8, r.ear),
                blush: r.blush,
            }
        }
        Part::Body => {
            let dorsal = (-(position.x / 0.07).powi(2)).exp() * smoothstep(0.35, 0.8, normal.y);
            Pattern {
                cream: (chest_mask(normal) + smoothstep(-0.5, -0.85, normal.y)).min(1.0),
                stripe: dorsal,
                ..Pattern::default()
            }
        }
        Part::Paw(_) => Pattern {
            cream: smoothstep(0.0, 0.6, normal.z) * 0.8,
            ..Pattern::default()
        },
        Part::Tail => {
            // Rings near the end: a band in the middle of each ninth of the tail.
            let cell = (t * 9.0).fract();
            let rings = smoothstep(0.5, 0.6, t) * smoothstep(0.28, 0.18, (cell - 0.5).abs());
            Pattern {
                stripe: rings,
                cream: smoothstep(0.9, 0.98, t),
                ..Pattern::default()
            }
        }
    }
}
