//! Roots made elsewhere (curves read from a file) bound to a body: each root to the nearest
//! point of the nearest triangle, as (triangle, barycentrics), the form the skinned solver
//! follows. A uniform grid over the triangles' bounding boxes finds the near ones: building
//! it is linear in the triangles (each listed in the cells its box touches), and a query
//! tests only the triangles in the rings of cells around the root until no unseen cell can
//! hold a nearer point.

use crate::body::BodyMesh;
use glam::{IVec3, Vec3};
use thiserror::Error;

/// The most cells a side of the grid has.
const MAX_CELLS_PER_AXIS: i32 = 128;
/// The most (cell, triangle) entries the grid holds; past it the cells grow.
const MAX_ENTRIES: usize = 1 << 25;

/// Where a root sits on the body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootBinding {
    /// The triangle, an index into [`BodyMesh::triangles`].
    pub triangle: u32,
    /// Weights of the triangle's three vertices (each ≥ 0, summing to 1).
    pub barycentrics: Vec3,
    /// How far the root is from that point, metres.
    pub distance: f32,
}

/// Why roots could not be bound.
#[derive(Debug, Error, PartialEq)]
pub enum BindError {
    /// No triangle with area and finite corners.
    #[error("the body has no triangle with an area to bind roots to")]
    NoTriangles,
    /// A root that is not a finite point.
    #[error("root {0} is not a finite point")]
    NotFinite(usize),
}

/// The body's usable triangles in a uniform grid.
pub struct TriangleGrid<'m> {
    mesh: &'m BodyMesh,
    /// Usable triangles' indices into the mesh.
    usable: Vec<u32>,
    origin: Vec3,
    cell: f32,
    dims: IVec3,
    /// Cell `i`'s entries are `entries[starts[i]..starts[i + 1]]` (indices into `usable`).
    starts: Vec<u32>,
    entries: Vec<u32>,
}

/// Corners of triangle `t`, if its indices are in range and its corners finite.
pub(super) fn corners(mesh: &BodyMesh, t: usize) -> Option<[Vec3; 3]> {
    let tri = mesh.triangles.get(t)?;
    let p = |i: u32| {
        mesh.positions
            .get(i as usize)
            .copied()
            .filter(|v| v.is_finite())
    };
    Some([p(tri[0])?, p(tri[1])?, p(tri[2])?])
}

impl<'m> TriangleGrid<'m> {
    /// The grid of `mesh`'s triangles that have an area and finite corners.
    pub fn new(mesh: &'m BodyMesh) -> Result<Self, BindError> {
        let mut usable = Vec::new();
        let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for t in 0..mesh.triangles.len() {
            let Some([a, b, c]) = corners(mesh, t) else {
                continue;
            };
            let area = (b - a).cross(c - a).length();
            if !(area.is_finite() && area > 0.0) {
                continue;
            }
            lo = lo.min(a.min(b).min(c));
            hi = hi.max(a.max(b).max(c));
            usable.push(t as u32);
        }
        if usable.is_empty() {
            return Err(BindError::NoTriangles);
        }
        let extent = (hi - lo).max(Vec3::splat(1e-6));
        // About two cells a triangle, no side past the cap.
        let target = (2.0 * usable.len() as f32).cbrt().max(1.0);
        let mut cell =
            (extent.max_element() / target).max(extent.max_element() / MAX_CELLS_PER_AXIS as f32);
        loop {
            let grid = Self::fill(mesh, &usable, lo, extent, cell);
            match grid {
                Some((dims, starts, entries)) => {
                    return Ok(TriangleGrid {
                        mesh,
                        usable,
                        origin: lo,
                        cell,
                        dims,
                        starts,
                        entries,
                    });
                }
                None => cell *= 2.0,
            }
        }
    }

    /// The cell range triangle corners `[a, b, c]` touch.
    fn cell_range(&self, pts: [Vec3; 3]) -> (IVec3, IVec3) {
        cell_range(self.origin, self.cell, self.dims, pts)
    }

    /// The cells and their entries at cell size `cell`, or `None` past [`MAX_ENTRIES`].
    #[allow(clippy::type_complexity)]
    fn fill(
        mesh: &BodyMesh,
        usable: &[u32],
        origin: Vec3,
        extent: Vec3,
        cell: f32,
    ) -> Option<(IVec3, Vec<u32>, Vec<u32>)> {
        let dims =
            ((extent / cell).ceil().as_ivec3()).clamp(IVec3::ONE, IVec3::splat(MAX_CELLS_PER_AXIS));
        let cells = (dims.x * dims.y * dims.z) as usize;
        let mut counts = vec![0u32; cells + 1];
        let mut total = 0usize;
        let index = |c: IVec3| (c.x + dims.x * (c.y + dims.y * c.z)) as usize;
        for &t in usable {
            let Some(pts) = corners(mesh, t as usize) else {
                continue;
            };
            let (a, b) = cell_range(origin, cell, dims, pts);
            let n = ((b - a + IVec3::ONE).element_product()) as usize;
            total += n;
            // One cell holds each triangle once, so a grid of one cell is always taken.
            if total > MAX_ENTRIES && cells > 1 {
                return None;
            }
            for z in a.z..=b.z {
                for y in a.y..=b.y {
                    for x in a.x..=b.x {
                        counts[index(IVec3::new(x, y, z))] += 1;
                    }
                }
            }
        }
        let mut starts = vec![0u32; cells + 1];
        for i in 0..cells {
            starts[i + 1] = starts[i] + counts[i];
        }
        let mut fill = starts.clone();
        let mut entries = vec![0u32; total];
        for (u, &t) in usable.iter().enumerate() {
            let Some(pts) = corners(mesh, t as usize) else {
                continue;
            };
            let (a, b) = cell_range(origin, cell, dims, pts);
            for z in a.z..=b.z {
                for y in a.y..=b.y {
                    for x in a.x..=b.x {
                        let i = index(IVec3::new(x, y, z));
                        entries[fill[i] as usize] = u as u32;
                        fill[i] += 1;
                    }
                }
            }
        }
        Some((dims, starts, entries))
    }

    /// The nearest point of the body to `p`.
    pub fn nearest(&self, p: Vec3, seen: &mut Vec<u32>, stamp: u32) -> RootBinding {
        seen.resize(self.usable.len(), u32::MAX);
        let (home, _) = self.cell_range([p; 3]);
        let mut best = RootBinding {
            triangle: self.usable[0],
            barycentrics: Vec3::new(1.0, 0.0, 0.0),
            distance: f32::INFINITY,
        };
        let max_ring = self.dims.max_element();
        for ring in 0..=max_ring {
            let lo = (home - IVec3::splat(ring)).max(IVec3::ZERO);
            let hi = (home + IVec3::splat(ring)).min(self.dims - IVec3::ONE);
            for z in lo.z..=hi.z {
                for y in lo.y..=hi.y {
                    for x in lo.x..=hi.x {
                        let c = IVec3::new(x, y, z);
                        if (c - home).abs().max_element() != ring {
                            continue;
                        }
                        let i = (x + self.dims.x * (y + self.dims.y * z)) as usize;
                        let range = self.starts[i] as usize..self.starts[i + 1] as usize;
                        for &u in &self.entries[range] {
                            if seen[u as usize] == stamp {
                                continue;
                            }
                            seen[u as usize] = stamp;
                            let t = self.usable[u as usize];
                            let Some([a, b, c]) = corners(self.mesh, t as usize) else {
                                continue;
                            };
                            let (q, bary) = closest_on_triangle(p, a, b, c);
                            let d = p.distance(q);
                            if d < best.distance {
                                best = RootBinding {
                                    triangle: t,
                                    barycentrics: bary,
                                    distance: d,
                                };
                            }
                        }
                    }
                }
            }
            // Every point outside the searched block of cells is at least this far.
            let block_lo = self.origin + (home - IVec3::splat(ring)).as_vec3() * self.cell;
            let block_hi = self.origin + (home + IVec3::splat(ring + 1)).as_vec3() * self.cell;
            let clearance = (p - block_lo).min(block_hi - p).min_element();
            if best.distance <= clearance {
                break;
            }
        }
        best
    }
}

/// The cells (clamped to the grid) that the box around `pts` touches.
fn cell_range(origin: Vec3, cell: f32, dims: IVec3, pts: [Vec3; 3]) -> (IVec3, IVec3) {
    let lo = pts[0].min(pts[1]).min(pts[2]);
    let hi = pts[0].max(pts[1]).max(pts[2]);
    let to_cell = |v: Vec3| {
        ((v - origin) / cell)
            .floor()
            .clamp(Vec3::ZERO, (dims - IVec3::ONE).as_vec3())
            .as_ivec3()
    };
    (to_cell(lo), to_cell(hi))
}

/// The point of triangle `a b c` nearest `p`, and its barycentrics (Ericson, "Real-Time
/// Collision Detection", 5.1.5: the Voronoi regions of corners, edges and face in turn).
pub fn closest_on_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (Vec3, Vec3) {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Vec3::X);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Vec3::Y);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (a + ab * v, Vec3::new(1.0 - v, v, 0.0));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Vec3::Z);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (a + ac * w, Vec3::new(1.0 - w, 0.0, w));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, Vec3::new(0.0, 1.0 - w, w));
    }
    let denom = 1.0 / (va + vb + vc);
    let (v, w) = (vb * denom, vc * denom);
    (a + ab * v + ac * w, Vec3::new(1.0 - v - w, v, w))
}

/// Each of `roots` bound to the nearest point of `mesh` (see the module docs for the cost).
pub fn bind_roots(roots: &[Vec3], mesh: &BodyMesh) -> Result<Vec<RootBinding>, BindError> {
    if let Some(i) = roots.iter().position(|r| !r.is_finite()) {
        return Err(BindError::NotFinite(i));
    }
    let grid = TriangleGrid::new(mesh)?;
    let mut seen = Vec::new();
    Ok(roots
        .iter()
        .enumerate()
        .map(|(i, &r)| grid.nearest(r, &mut seen, i as u32))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// A sphere-ish mesh: a UV sphere of radius 0.3 at (0, 1, 0).
    fn sphere() -> BodyMesh {
        let (rings, segs) = (12u32, 24u32);
        let mut positions = Vec::new();
        for r in 0..=rings {
            let v = std::f32::consts::PI * r as f32 / rings as f32;
            for s in 0..segs {
                let u = std::f32::consts::TAU * s as f32 / segs as f32;
                positions
                    .push(Vec3::new(v.sin() * u.cos(), v.cos(), v.sin() * u.sin()) * 0.3 + Vec3::Y);
            }
        }
        let mut triangles = Vec::new();
        for r in 0..rings {
            for s in 0..segs {
                let i = |r: u32, s: u32| r * segs + s % segs;
                triangles.push([i(r, s), i(r + 1, s), i(r + 1, s + 1)]);
                triangles.push([i(r, s), i(r + 1, s + 1), i(r, s + 1)]);
            }
        }
        BodyMesh {
            normals: vec![Vec3::Y; positions.len()],
            positions,
            triangles,
            ..BodyMesh::default()
        }
    }

    #[test]
    fn the_grid_finds_what_testing_every_triangle_finds() {
        let mesh = sphere();
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let roots: Vec<Vec3> = (0..400)
            .map(|_| {
                Vec3::new(rng.random(), rng.random(), rng.random()) * 1.6 - Vec3::splat(0.8)
                    + Vec3::Y
            })
            .collect();
        let bound = bind_roots(&roots, &mesh).unwrap();
        for (r, b) in roots.iter().zip(&bound) {
            let brute = (0..mesh.triangles.len())
                .filter_map(|t| corners(&mesh, t))
                .map(|[a, b, c]| r.distance(closest_on_triangle(*r, a, b, c).0))
                .fold(f32::INFINITY, f32::min);
            assert!(
                (b.distance - brute).abs() < 1e-6,
                "{r}: {} vs {brute}",
                b.distance
            );
            let [a, bb, c] = corners(&mesh, b.triangle as usize).unwrap();
            let w = b.barycentrics;
            let q = a * w.x + bb * w.y + c * w.z;
            assert!((r.distance(q) - b.distance).abs() < 1e-5);
            assert!(w.min_element() >= -1e-6 && (w.element_sum() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn a_body_with_no_area_and_a_root_at_infinity_are_errors() {
        let flat = BodyMesh {
            positions: vec![Vec3::ZERO; 3],
            triangles: vec![[0, 1, 2], [0, 1, 9]],
            ..BodyMesh::default()
        };
        assert_eq!(
            bind_roots(&[Vec3::ZERO], &flat),
            Err(BindError::NoTriangles)
        );
        assert_eq!(
            bind_roots(&[Vec3::ZERO, Vec3::NAN], &sphere()),
            Err(BindError::NotFinite(1))
        );
    }
}
