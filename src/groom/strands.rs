//! Strands made elsewhere (curves read from a `.usda`) turned into a body's roots: each
//! strand's root bound to the nearest point of the body, and its shape kept as the strand's
//! rest shape. The solver holds a strand's rest shape as one angle from the skin's normal
//! per segment, in the plane of the normal and the strand's flow, with equal segments; so
//! the flow is the strand's root-to-tip direction laid on the skin, each segment keeps its
//! angle in that plane (a curve that twists out of the plane is flattened onto it), and
//! the segments share the curve's length equally.

use super::bind::TriangleGrid;
use super::body_root::{BodyRoot, STRAND_POINTS, STRAND_SEGMENTS, surface_at};
use super::file::GroomFile;
use super::{GroomError, MAX_STRANDS};
use crate::body::BodyMesh;
use glam::Vec3;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The farthest a strand's root may lie from the body, as a share of the body's height:
/// past it the curves were not made on this body (or not in its units and place).
pub const MAX_ROOT_GAP_SHARE: f32 = 0.05;

/// One strand to grow as it is: its points in the body's fitted frame, metres.
#[derive(Clone, Debug, PartialEq)]
pub struct GroomStrand {
    /// Root to tip, evenly spaced along the strand.
    pub points: [Vec3; STRAND_POINTS],
    /// Its linear colour, where the file gives one (else the body's base colour at the root).
    pub color: Option<Vec3>,
}

/// How a body's coat is groomed when the body alone does not say.
#[derive(Clone, Debug, PartialEq)]
pub enum BodyGroomSource {
    /// Grown by the rules of a groom file (density, length, direction, masks …).
    File(GroomFile),
    /// These strands, each bound to the body where its root is nearest.
    Strands(Vec<GroomStrand>),
}

/// The roots for `strands` on `mesh` (see the module docs); `seed` draws each strand's
/// random value. An error for no strands or too many, a root that is not a finite point,
/// or a root farther from the body than [`MAX_ROOT_GAP_SHARE`] of its height.
pub fn roots_from_strands(
    mesh: &BodyMesh,
    strands: &[GroomStrand],
    seed: u64,
) -> Result<Vec<BodyRoot>, GroomError> {
    if strands.is_empty() || strands.len() > MAX_STRANDS {
        return Err(GroomError::StrandCount {
            count: strands.len(),
            max: MAX_STRANDS,
        });
    }
    let grid = TriangleGrid::new(mesh).map_err(|e| GroomError::Strands(e.to_string()))?;
    let height = mesh.rest_height();
    let max_gap = MAX_ROOT_GAP_SHARE * height;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut seen = Vec::new();
    let mut roots = Vec::with_capacity(strands.len());
    for (i, strand) in strands.iter().enumerate() {
        let random: f32 = rng.random();
        let p = &strand.points;
        if !p.iter().all(|q| q.is_finite()) {
            return Err(GroomError::Strands(format!(
                "strand {i} has a point that is not a finite number"
            )));
        }
        let bound = grid.nearest(p[0], &mut seen, i as u32);
        // A NaN distance (never from finite points) is refused too.
        if bound.distance.is_nan() || bound.distance > max_gap {
            return Err(GroomError::Strands(format!(
                "strand {i}'s root is {:.3} m from the body's surface, more than {:.0}% of \
                 its height ({:.3} m): were the curves made on this body, in its rest pose? \
                 They are placed as the body's file places it at rest (the same \
                 --body-height fit); a coat `pelt export` wrote with --animation is posed \
                 mid-motion: export it without --animation to read it back",
                bound.distance,
                MAX_ROOT_GAP_SHARE * 100.0,
                max_gap
            )));
        }
        let Some(surface) = surface_at(mesh, bound.triangle, bound.barycentrics) else {
            return Err(GroomError::Strands(format!(
                "strand {i}'s root lies on a triangle with no usable normal"
            )));
        };
        let segments: [Vec3; STRAND_SEGMENTS] = std::array::from_fn(|k| p[k + 1] - p[k]);
        let length: f32 = segments.iter().map(|s| s.length()).sum();
        if !(length.is_finite() && length > 0.0) {
            return Err(GroomError::Strands(format!("strand {i} has no length")));
        }
        let n = surface.normal;
        // The flow: the strand's reach laid on the skin; a strand standing straight up
        // takes any direction on the skin, since its shape does not lean.
        let reach = p[STRAND_POINTS - 1] - p[0];
        let flow = (reach - n * reach.dot(n))
            .try_normalize()
            .unwrap_or_else(|| n.any_orthonormal_vector());
        let angles = segments.map(|s| s.dot(flow).atan2(s.dot(n)));
        let color = strand.color.unwrap_or(surface.color);
        roots.push(BodyRoot {
            triangle: bound.triangle,
            barycentric: bound.barycentrics,
            position: surface.position,
            normal: n,
            flow,
            length,
            lift_root: angles[0],
            lift_tip: angles[STRAND_SEGMENTS - 1],
            random,
            color: if color.is_finite() {
                color.clamp(Vec3::ZERO, Vec3::ONE)
            } else {
                Vec3::splat(0.5)
            },
            rest_angles: Some(angles),
        });
    }
    Ok(roots)
}

/// The strand's points at rest as the solver lays them from `root` (before any step): each
/// segment `length / 5` long at its rest angle from the normal toward the flow.
pub fn rest_points(root: &BodyRoot) -> [Vec3; STRAND_POINTS] {
    let segment = root.length / STRAND_SEGMENTS as f32;
    let mut out = [root.position; STRAND_POINTS];
    for k in 0..STRAND_SEGMENTS {
        let a = match root.rest_angles {
            Some(a) => a[k],
            None => {
                let t = k as f32 / (STRAND_SEGMENTS - 1) as f32;
                root.lift_root + (root.lift_tip - root.lift_root) * t
            }
        };
        out[k + 1] = out[k] + (root.normal * a.cos() + root.flow * a.sin()) * segment;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::{CylinderSpec, skinned_cylinder};

    #[test]
    fn a_strand_on_the_skin_comes_back_as_its_rest_shape() {
        let spec = CylinderSpec::default();
        let (mesh, _) = skinned_cylinder(&spec);
        // A curve leaving the cylinder's side (+X) outward, bending down, evenly spaced.
        let root = Vec3::new(spec.radius, spec.base + 0.5 * spec.height, 0.0);
        let mut points = [root; STRAND_POINTS];
        let mut dir = Vec3::X;
        for k in 1..STRAND_POINTS {
            points[k] = points[k - 1] + dir * 0.02;
            dir = (dir + Vec3::NEG_Y * 0.6).normalize();
        }
        let roots = roots_from_strands(
            &mesh,
            &[GroomStrand {
                points,
                color: None,
            }],
            3,
        )
        .unwrap();
        let back = rest_points(&roots[0]);
        let gap = (roots[0].position - root).length();
        for (a, b) in back.iter().zip(&points) {
            // The cylinder is a polygon: the root moves onto its nearest facet.
            assert!((*a - *b).length() < gap + 1e-3, "{a} vs {b} (gap {gap})");
        }
        let far = GroomStrand {
            points: points.map(|p| p + Vec3::X * 0.3),
            color: None,
        };
        let e = roots_from_strands(&mesh, &[far], 3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("strand 0's root is"), "{e}");
    }
}
