//! One curve of a `BasisCurves` prim as the solver's strand: the curve evaluated by its
//! basis (linear, or cubic B-spline, Catmull-Rom or Bézier as USD defines them), then
//! [`POINTS_PER_STRAND`] points placed evenly by arc length, root to tip.
//!
//! Cubic segments are walked at [`STEPS_PER_SEGMENT`] even parameter steps and the arc
//! length measured along that polyline; for a strand-like curve the polyline's length is
//! within a part in a thousand of the curve's.

use crate::sim::POINTS_PER_STRAND;
use glam::Vec3;

/// Parameter steps a cubic segment is walked in.
pub const STEPS_PER_SEGMENT: usize = 32;

/// How a curve's control points make its shape (USD's `type`, `basis` and `wrap`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CurveBasis {
    /// Straight segments through every point.
    Linear,
    /// Uniform cubic B-spline; `pinned` ends pass through the first and last points.
    Bspline {
        /// USD's `wrap = "pinned"`.
        pinned: bool,
    },
    /// Catmull-Rom through the inner points; `pinned` through every point.
    CatmullRom {
        /// USD's `wrap = "pinned"`.
        pinned: bool,
    },
    /// Cubic Bézier, three points a segment after the first (`4, 7, 10, …` points).
    Bezier,
}

impl CurveBasis {
    /// The fewest control points one curve of this basis has, and whether `n` is a count
    /// it takes.
    pub fn takes(self, n: usize) -> bool {
        match self {
            CurveBasis::Linear => n >= 2,
            CurveBasis::Bspline { pinned } | CurveBasis::CatmullRom { pinned } => {
                n >= if pinned { 2 } else { 4 }
            }
            CurveBasis::Bezier => n >= 4 && (n - 4).is_multiple_of(3),
        }
    }

    /// The counts a curve of this basis takes, in words (for errors).
    pub fn counts_in_words(self) -> &'static str {
        match self {
            CurveBasis::Linear => "at least 2 points",
            CurveBasis::Bspline { pinned: true } | CurveBasis::CatmullRom { pinned: true } => {
                "at least 2 points"
            }
            CurveBasis::Bspline { .. } | CurveBasis::CatmullRom { .. } => "at least 4 points",
            CurveBasis::Bezier => "4, 7, 10, … points (3 a segment after the first)",
        }
    }

    /// How many values a `varying` primvar has for a curve of `n` points (one per
    /// segment end).
    pub fn varying_count(self, n: usize) -> usize {
        match self {
            CurveBasis::Linear => n,
            CurveBasis::Bspline { pinned } | CurveBasis::CatmullRom { pinned } => {
                if pinned {
                    n
                } else {
                    n.saturating_sub(2)
                }
            }
            CurveBasis::Bezier => (n.saturating_sub(1)) / 3 + 1,
        }
    }
}

/// The point at `t` in [0, 1] of the cubic segment with control points `p` under `basis`.
pub fn cubic_point(basis: CurveBasis, p: [Vec3; 4], t: f32) -> Vec3 {
    let (t2, t3) = (t * t, t * t * t);
    let s = 1.0 - t;
    let w = match basis {
        CurveBasis::Bspline { .. } => [
            s * s * s / 6.0,
            (3.0 * t3 - 6.0 * t2 + 4.0) / 6.0,
            (-3.0 * t3 + 3.0 * t2 + 3.0 * t + 1.0) / 6.0,
            t3 / 6.0,
        ],
        CurveBasis::CatmullRom { .. } => [
            0.5 * (-t3 + 2.0 * t2 - t),
            0.5 * (3.0 * t3 - 5.0 * t2 + 2.0),
            0.5 * (-3.0 * t3 + 4.0 * t2 + t),
            0.5 * (t3 - t2),
        ],
        CurveBasis::Bezier => [s * s * s, 3.0 * s * s * t, 3.0 * s * t2, t3],
        CurveBasis::Linear => [s, t, 0.0, 0.0],
    };
    p[0] * w[0] + p[1] * w[1] + p[2] * w[2] + p[3] * w[3]
}

/// The curve through `control` under `basis` as a polyline, into `out` (cleared first).
/// `control` must hold a count the basis takes ([`CurveBasis::takes`]).
pub fn polyline(basis: CurveBasis, control: &[Vec3], out: &mut Vec<Vec3>) {
    out.clear();
    let n = control.len();
    let mut walk = |p: [Vec3; 4], first: bool| {
        let start = if first { 0 } else { 1 };
        for k in start..=STEPS_PER_SEGMENT {
            out.push(cubic_point(basis, p, k as f32 / STEPS_PER_SEGMENT as f32));
        }
    };
    match basis {
        CurveBasis::Linear => out.extend_from_slice(control),
        CurveBasis::Bezier => {
            for (i, seg) in (0..n.saturating_sub(1) / 3).enumerate() {
                let at = seg * 3;
                walk(
                    [
                        control[at],
                        control[at + 1],
                        control[at + 2],
                        control[at + 3],
                    ],
                    i == 0,
                );
            }
        }
        CurveBasis::Bspline { pinned } | CurveBasis::CatmullRom { pinned } => {
            // Pinned ends: a phantom point mirrored past each end, so the curve starts and
            // ends on the end points.
            let at = |i: isize| -> Vec3 {
                if pinned {
                    if i < 0 {
                        return 2.0 * control[0] - control[1];
                    }
                    if i as usize >= n {
                        return 2.0 * control[n - 1] - control[n - 2];
                    }
                }
                control[i as usize]
            };
            let (first, last) = if pinned {
                (-1isize, n as isize - 2)
            } else {
                (0, n as isize - 3)
            };
            for i in first..last {
                walk([at(i), at(i + 1), at(i + 2), at(i + 3)], i == first);
            }
        }
    }
}

/// [`POINTS_PER_STRAND`] points evenly spaced by arc length along `line`, root first, or
/// `None` where the line has no length (or is not finite).
pub fn even_by_arc_length(line: &[Vec3]) -> Option<[Vec3; POINTS_PER_STRAND]> {
    let total: f32 = line.windows(2).map(|w| w[0].distance(w[1])).sum();
    if !(total.is_finite() && total > 0.0) {
        return None;
    }
    let mut out = [Vec3::ZERO; POINTS_PER_STRAND];
    out[0] = line[0];
    out[POINTS_PER_STRAND - 1] = line[line.len() - 1];
    let (mut walked, mut seg) = (0.0f32, 0usize);
    for (k, slot) in out
        .iter_mut()
        .enumerate()
        .take(POINTS_PER_STRAND - 1)
        .skip(1)
    {
        let want = total * k as f32 / (POINTS_PER_STRAND - 1) as f32;
        // Forward to the segment holding the wanted length.
        while seg + 2 < line.len() && walked + line[seg].distance(line[seg + 1]) < want {
            walked += line[seg].distance(line[seg + 1]);
            seg += 1;
        }
        let length = line[seg].distance(line[seg + 1]);
        let t = if length > 0.0 {
            ((want - walked) / length).clamp(0.0, 1.0)
        } else {
            0.0
        };
        *slot = line[seg].lerp(line[seg + 1], t);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_straight_line_is_cut_into_even_fifths() {
        let line = [
            Vec3::ZERO,
            Vec3::new(0.1, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
        ];
        let out = even_by_arc_length(&line).unwrap();
        for (k, p) in out.iter().enumerate() {
            let want = Vec3::new(k as f32 / 5.0, 0.0, 0.0);
            assert!((*p - want).length() < 1e-6, "{k}: {p}");
        }
        assert!(even_by_arc_length(&[Vec3::ONE, Vec3::ONE]).is_none());
    }

    #[test]
    fn pinned_and_bezier_curves_start_and_end_on_their_end_points() {
        let c = [
            Vec3::ZERO,
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(1.0, 2.0, 0.0),
            Vec3::new(2.0, 2.0, 1.0),
        ];
        for basis in [
            CurveBasis::Bspline { pinned: true },
            CurveBasis::CatmullRom { pinned: true },
            CurveBasis::Bezier,
        ] {
            let mut line = Vec::new();
            polyline(basis, &c, &mut line);
            assert!(line[0].distance(c[0]) < 1e-6, "{basis:?}: {}", line[0]);
            assert!(line[line.len() - 1].distance(c[3]) < 1e-5, "{basis:?}");
        }
        // An unpinned B-spline starts at (P0 + 4 P1 + P2) / 6.
        let mut line = Vec::new();
        polyline(CurveBasis::Bspline { pinned: false }, &c, &mut line);
        assert!(line[0].distance((c[0] + 4.0 * c[1] + c[2]) / 6.0) < 1e-6);
        assert!(CurveBasis::Bezier.takes(7) && !CurveBasis::Bezier.takes(6));
    }
}
