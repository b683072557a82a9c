//! Invariants of a strand state, measured: stretch, floor and skin clearance, comb size,
//! NaNs, touched points and recovered strands. The default program prints them; tests
//! assert on them.

use super::POINTS_PER_STRAND;
use super::layout::GpuRoot;
use super::params::FurParams;
use super::reference::space_of;
use crate::creature::{
    CreaturePose, GpuCreaturePose, place_direction, place_point, root_transform,
};
use glam::{Vec4, Vec4Swizzles};

/// What a state measures.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StrandStats {
    /// Largest |segment length − rest segment length|, metres.
    pub max_stretch: f32,
    /// Deepest point below the floor, metres (0 when none is below).
    pub max_below_floor: f32,
    /// Deepest point below its required skin clearance, metres (0 when none is).
    pub max_below_skin: f32,
    /// Largest distance of a strand's point 0 from where its root sits on the pose, metres.
    pub max_root_offset: f32,
    /// Largest comb magnitude.
    pub max_comb: f32,
    /// Non-finite numbers found.
    pub non_finite: usize,
    /// Points the hand touched in the last step.
    pub touched_points: usize,
    /// Strands the solver reset to rest because their state was not finite, since the
    /// start (filled in by [`super::FurSim::stats`]; `measure` leaves it 0).
    pub recovered_strands: u64,
}

impl StrandStats {
    /// Measures `positions` and `comb` of strands grown from `roots`, with the creature at
    /// `pose` (the pose of the last step taken).
    pub fn measure(
        roots: &[GpuRoot],
        positions: &[Vec4],
        comb: &[Vec4],
        params: &FurParams,
        pose: &CreaturePose,
    ) -> Self {
        let pose = GpuCreaturePose::from(pose);
        Self::measure_in_frames(roots, positions, comb, params, |_, root| {
            root_transform(&pose, space_of(root), root.flow_tail.w)
        })
    }

    /// [`StrandStats::measure`] with each root's transform given by `frame` (strand index,
    /// root): a body's roots follow their skinned triangles, not a pivot.
    pub fn measure_in_frames(
        roots: &[GpuRoot],
        positions: &[Vec4],
        comb: &[Vec4],
        params: &FurParams,
        frame: impl Fn(usize, &GpuRoot) -> glam::Mat4,
    ) -> Self {
        let mut s = StrandStats::default();
        for (i, (root, points)) in roots
            .iter()
            .zip(positions.chunks(POINTS_PER_STRAND))
            .enumerate()
        {
            let m = frame(i, root);
            let root_w = place_point(&m, root.position_segment.xyz());
            let n_w = place_direction(&m, root.normal_space.xyz());
            let seg = root.position_segment.w;
            if !points[0].is_finite() {
                s.non_finite += 1;
            } else {
                s.max_root_offset = s.max_root_offset.max(points[0].xyz().distance(root_w));
            }
            for (i, pair) in points.windows(2).enumerate() {
                let (a, b) = (pair[0].xyz(), pair[1].xyz());
                if !(pair[1].is_finite()) {
                    s.non_finite += 1;
                    continue;
                }
                s.max_stretch = s.max_stretch.max(((b - a).length() - seg).abs());
                s.max_below_floor = s.max_below_floor.max(params.floor - b.y);
                let clearance = params.skin_offset * (i + 1) as f32;
                s.max_below_skin = s.max_below_skin.max(clearance - (b - root_w).dot(n_w));
                if pair[1].w > 0.5 {
                    s.touched_points += 1;
                }
            }
        }
        for c in comb {
            if c.is_finite() {
                s.max_comb = s.max_comb.max(c.xyz().length());
            } else {
                s.non_finite += 1;
            }
        }
        s
    }
}
