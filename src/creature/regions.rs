//! The coat's regions, shared by the flow (which way fur lies) and the coat pattern (what
//! colour it is): how much a head direction belongs to the muzzle, cheeks, ears, belly,
//! fluff and blush spots, and the body's chest mask.

use super::{Bump, RadialHead};
use glam::Vec3;

/// Hermite step from 0 at `e0` to 1 at `e1` (either order), clamped outside.
pub(crate) fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// How much a head direction belongs to each groom region, each in [0, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HeadRegions {
    /// Around the muzzle.
    pub muzzle: f32,
    /// On either cheek.
    pub cheek: f32,
    /// On either ear.
    pub ear: f32,
    /// Under the chin and throat.
    pub belly: f32,
    /// The back of the head, where the fur is fluffiest.
    pub fluff: f32,
    /// A tighter spot on each cheek.
    pub blush: f32,
}

impl HeadRegions {
    /// The region weights along head direction `u` (unit, from the head centre).
    pub fn at(head: &RadialHead, u: Vec3) -> Self {
        let cheek = head.cheeks[0].weight(u).max(head.cheeks[1].weight(u));
        let blush_spot = |b: &Bump| {
            let c = (b.direction + Vec3::new(0.0, 0.15, 0.1)).normalize();
            ((u.dot(c) - 1.0) / 0.012).exp()
        };
        HeadRegions {
            muzzle: head.muzzle.weight(u),
            cheek,
            ear: head.ears[0].weight(u).max(head.ears[1].weight(u)),
            belly: smoothstep(0.45, 0.75, -u.y) * smoothstep(-0.3, 0.2, u.z),
            fluff: smoothstep(0.1, 0.6, -u.z),
            blush: blush_spot(&head.cheeks[0]).max(blush_spot(&head.cheeks[1])),
        }
    }
}

/// The body's chest mask: the front of the body, below the neck, fading up the sides.
pub fn chest_mask(normal: Vec3) -> f32 {
    smoothstep(0.15, 0.55, normal.z) * smoothstep(0.7, 0.2, normal.y)
}
