//! Morton (Z-order) ordering of roots by their rest position in body space, so that a hand
//! touching a patch of fur touches strands that sit together in memory: few GPU waves and
//! few CPU cache lines enter the contact path.

use super::StrandRoot;
use crate::creature::Creature;
use glam::Vec3;

/// Bits per axis of the Morton code (30 bits in all).
const BITS: u32 = 10;

/// Spreads the low 10 bits of `v` to every third bit.
fn spread(v: u32) -> u32 {
    let mut x = v & 0x3ff;
    x = (x | (x << 16)) & 0x0300_00ff;
    x = (x | (x << 8)) & 0x0300_f00f;
    x = (x | (x << 4)) & 0x030c_30c3;
    (x | (x << 2)) & 0x0924_9249
}

/// The Morton code of `p` within the box `lo..hi`, 10 bits per axis (x lowest).
pub fn morton_code(p: Vec3, lo: Vec3, hi: Vec3) -> u32 {
    let cells = ((1u32 << BITS) - 1) as f32;
    let q =
        ((p - lo) / (hi - lo).max(Vec3::splat(1e-9)) * cells).clamp(Vec3::ZERO, Vec3::splat(cells));
    spread(q.x as u32) | (spread(q.y as u32) << 1) | (spread(q.z as u32) << 2)
}

/// Sorts `roots` by the Morton code of their rest position in body space. The sort is
/// stable, so equal codes keep their sampling order and the result is deterministic.
pub fn sort_by_morton(creature: &Creature, roots: &mut [StrandRoot]) {
    let body = |r: &StrandRoot| creature.to_body(r.part, r.position);
    let (lo, hi) = roots.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), r| (lo.min(body(r)), hi.max(body(r))),
    );
    roots.sort_by_cached_key(|r| morton_code(body(r), lo, hi));
}
