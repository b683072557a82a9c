//! The SIMD mirror of the strand step; until its lanes land it steps each strand through
//! the scalar reference.

use super::layout::{GpuRoot, POINTS_PER_STRAND, StepUniforms};
use super::reference::step_strand;
use glam::Vec4;

/// Strands stepped together in SIMD lanes.
pub const LANES: usize = 8;

/// Steps `LANES` strands through `steps`.
pub fn step_lanes(
    steps: &[StepUniforms],
    roots: &[GpuRoot],
    latest: &mut [Vec4],
    older: &mut [Vec4],
    comb: &mut [Vec4],
) -> u32 {
    let n = POINTS_PER_STRAND;
    let mut r = 0;
    for (s, root) in roots.iter().enumerate() {
        r += step_strand(
            steps,
            root,
            &mut latest[s * n..(s + 1) * n],
            &mut older[s * n..(s + 1) * n],
            &mut comb[s],
        );
    }
    r
}
