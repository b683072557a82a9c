//! Rays against a skinned body at its current pose, for the pointer and the hand's fingers:
//! a bounding-volume tree built once over the bind pose's triangles and refitted to each
//! pose (the tree's shape kept, its boxes recomputed bottom-up from the skinned vertices).
//! Posing is linear in the mesh's size, and a ray visits only the boxes it crosses; a hit is
//! exact on the posed triangles, however far the pose is from the bind pose (only the
//! boxes' overlap grows with the deformation, never the answer's error).

use super::mesh::{BodyMesh, SkinPose};
use crate::creature::Ray;
use glam::Vec3;

/// Triangles per leaf of the tree.
const LEAF_TRIANGLES: usize = 4;

/// A node of the tree: its bounds, and either its triangles (a leaf) or its two children.
#[derive(Clone, Copy, Debug)]
struct Node {
    min: Vec3,
    max: Vec3,
    /// A leaf's first triangle in the tree's order, or an inner node's left child (its
    /// right child is `second`).
    first: u32,
    /// A leaf's triangle count; 0 for an inner node.
    count: u32,
    /// An inner node's right child.
    second: u32,
}

/// Where a ray met the posed body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyHit {
    /// Distance along the ray, metres.
    pub distance: f32,
    /// The hit point.
    pub point: Vec3,
    /// The body's outward unit normal there: the skinned vertex normals blended at the
    /// hit, or the triangle's own normal (counter-clockwise seen from outside) where the
    /// file's normals point the other way.
    pub normal: Vec3,
    /// The triangle hit, an index into [`BodyMesh::triangles`].
    pub triangle: u32,
    /// Its three vertex indices.
    pub vertices: [u32; 3],
    /// The hit's barycentric coordinates in that triangle (they sum to 1), so the same spot
    /// can be found again at another pose ([`BodyRays::surface_at`]).
    pub barycentric: Vec3,
}

/// A body's triangles at one pose, as rays see them.
#[derive(Clone, Debug, Default)]
pub struct BodyRays {
    /// The triangles (vertex indices) in the tree's order; only those whose indices name
    /// vertices of the mesh.
    triangles: Vec<[u32; 3]>,
    /// Each of those triangles' index in the mesh.
    ids: Vec<u32>,
    nodes: Vec<Node>,
    /// The vertices at the current pose.
    positions: Vec<Vec3>,
    /// Their unit normals at the current pose.
    normals: Vec<Vec3>,
}

impl BodyRays {
    /// The tree over `mesh`'s triangles in its bind pose (the positions as stored), posed
    /// there. A triangle naming a vertex the mesh does not have is left out.
    pub fn new(mesh: &BodyMesh) -> Self {
        let count = mesh.positions.len();
        let (triangles, ids): (Vec<[u32; 3]>, Vec<u32>) = mesh
            .triangles
            .iter()
            .enumerate()
            .filter(|(_, t)| t.iter().all(|&i| (i as usize) < count))
            .map(|(k, t)| (*t, k as u32))
            .unzip();
        let mut rays = BodyRays {
            triangles,
            ids,
            nodes: Vec::new(),
            positions: mesh.positions.clone(),
            normals: (0..count)
                .map(|v| {
                    mesh.normals
                        .get(v)
                        .copied()
                        .unwrap_or(Vec3::ZERO)
                        .normalize_or_zero()
                })
                .collect(),
        };
        rays.build();
        rays
    }

    /// Moves the triangles to `pose` (linear blend skinning, as the solvers pose the roots)
    /// and refits the tree's boxes to them.
    pub fn set_pose(&mut self, mesh: &BodyMesh, pose: &SkinPose) {
        let count = self.positions.len().min(mesh.positions.len());
        for v in 0..count {
            let (p, n) = pose.skin_vertex(mesh, v);
            self.positions[v] = p;
            self.normals[v] = n;
        }
        self.refit();
    }

    /// How many triangles rays can hit.
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    /// Whether no triangle can be hit.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// The nearest hit of `ray` ahead of its origin with the posed triangles (either side
    /// of each). A ray that is not finite, and triangles with no area or a vertex that is
    /// not finite, hit nothing.
    pub fn raycast(&self, ray: &Ray) -> Option<BodyHit> {
        self.raycast_counting(ray, &mut 0)
    }

    /// [`BodyRays::raycast`], adding to `tests` the boxes and triangles it tested: what a
    /// caller bounds its work by on a body whose triangles pile up or span it.
    pub fn raycast_counting(&self, ray: &Ray, tests: &mut u64) -> Option<BodyHit> {
        self.raycast_within(ray, f32::INFINITY, tests)
    }

    /// [`BodyRays::raycast_counting`] for hits nearer than `reach` (in units of the ray's
    /// direction) only: the boxes beyond it are never opened, so a caller that only cares
    /// about near hits pays for those alone.
    pub fn raycast_within(&self, ray: &Ray, reach: f32, tests: &mut u64) -> Option<BodyHit> {
        if !(ray.origin.is_finite() && ray.direction.is_finite()) || self.nodes.is_empty() {
            return None;
        }
        let inverse = ray.direction.recip();
        let mut best: Option<(f32, usize, f32, f32)> = None;
        // The tree's depth is at most log2 of the triangles (median splits), so the stack
        // stays short.
        let mut stack = Vec::with_capacity(64);
        stack.push(0u32);
        while let Some(n) = stack.pop() {
            *tests += 1;
            let node = &self.nodes[n as usize];
            let limit = best.map_or(reach, |b| b.0);
            if !box_hit(ray.origin, inverse, node.min, node.max, limit) {
                continue;
            }
            if node.count > 0 {
                let range = node.first as usize..(node.first + node.count) as usize;
                *tests += u64::from(node.count);
                for k in range {
                    let [a, b, c] = self.corners(k);
                    if let Some((t, u, v)) = triangle_hit(ray, a, b, c)
                        && t < best.map_or(reach, |b| b.0)
                    {
                        best = Some((t, k, u, v));
                    }
                }
            } else {
                // The nearer child is popped first.
                let (near, far) = {
                    let centre = |i: u32| {
                        let c = &self.nodes[i as usize];
                        (c.min + c.max - 2.0 * ray.origin).dot(ray.direction)
                    };
                    if centre(node.first) <= centre(node.second) {
                        (node.first, node.second)
                    } else {
                        (node.second, node.first)
                    }
                };
                stack.push(far);
                stack.push(near);
            }
        }
        let (distance, k, u, v) = best?;
        let barycentric = Vec3::new(1.0 - u - v, u, v);
        let vertices = self.triangles[k];
        let (point, normal) = self.surface_at(vertices, barycentric)?;
        Some(BodyHit {
            distance,
            // On the triangle, not along the ray: the same point `surface_at` gives.
            point,
            normal,
            triangle: self.ids[k],
            vertices,
            barycentric,
        })
    }

    /// The spot at `barycentric` in the triangle of `vertices` at the current pose: its
    /// point and outward unit normal (see [`BodyHit::normal`]). `None` for a vertex the mesh
    /// does not have or a spot that is not finite.
    pub fn surface_at(&self, vertices: [u32; 3], barycentric: Vec3) -> Option<(Vec3, Vec3)> {
        let p = |i: u32| self.positions.get(i as usize).copied();
        let n = |i: u32| self.normals.get(i as usize).copied();
        let (a, b, c) = (p(vertices[0])?, p(vertices[1])?, p(vertices[2])?);
        let w = barycentric;
        let point = a * w.x + b * w.y + c * w.z;
        let face = (b - a).cross(c - a).normalize_or_zero();
        let smooth = (n(vertices[0])? * w.x + n(vertices[1])? * w.y + n(vertices[2])? * w.z)
            .normalize_or_zero();
        let normal = if smooth.dot(face) > 0.0 || face == Vec3::ZERO {
            smooth
        } else {
            face
        };
        (point.is_finite() && normal.is_finite() && normal != Vec3::ZERO).then_some((point, normal))
    }

    /// The posed corners of the tree's triangle `k`.
    fn corners(&self, k: usize) -> [Vec3; 3] {
        self.triangles[k].map(|i| self.positions[i as usize])
    }

    /// The bounds of the tree's triangles `range` at the current pose; vertices that are
    /// not finite are left out (their triangles hit nothing).
    fn bounds(&self, range: std::ops::Range<usize>) -> (Vec3, Vec3) {
        let mut lo = Vec3::INFINITY;
        let mut hi = Vec3::NEG_INFINITY;
        for k in range {
            for p in self.corners(k) {
                if p.is_finite() {
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
            }
        }
        (lo, hi)
    }

    /// Builds the tree over the current positions: each node's triangles split at the
    /// median of their centres along its box's longest side.
    fn build(&mut self) {
        self.nodes.clear();
        if self.triangles.is_empty() {
            return;
        }
        let (min, max) = self.bounds(0..self.triangles.len());
        self.nodes.push(Node {
            min,
            max,
            first: 0,
            count: self.triangles.len() as u32,
            second: 0,
        });
        // Nodes still to split; children are always pushed after their parent, so a walk
        // of the list backwards meets every child before its parent (see `refit`).
        let mut pending = vec![0usize];
        while let Some(n) = pending.pop() {
            let Node {
                min,
                max,
                first,
                count,
                ..
            } = self.nodes[n];
            if (count as usize) <= LEAF_TRIANGLES {
                continue;
            }
            let axis = (max - min).max_position().min(2);
            let (start, end) = (first as usize, (first + count) as usize);
            let middle = start + (end - start) / 2;
            let positions = &self.positions;
            let centre = |t: &[u32; 3]| {
                t.iter()
                    .map(|&i| positions[i as usize][axis])
                    .filter(|x| x.is_finite())
                    .sum::<f32>()
            };
            // Triangles and their mesh indices move together.
            let mut order: Vec<usize> = (start..end).collect();
            order.select_nth_unstable_by(middle - start, |&x, &y| {
                centre(&self.triangles[x]).total_cmp(&centre(&self.triangles[y]))
            });
            let triangles: Vec<[u32; 3]> = order.iter().map(|&k| self.triangles[k]).collect();
            let ids: Vec<u32> = order.iter().map(|&k| self.ids[k]).collect();
            self.triangles[start..end].copy_from_slice(&triangles);
            self.ids[start..end].copy_from_slice(&ids);
            let left = self.nodes.len();
            for (from, to) in [(start, middle), (middle, end)] {
                let (min, max) = self.bounds(from..to);
                self.nodes.push(Node {
                    min,
                    max,
                    first: from as u32,
                    count: (to - from) as u32,
                    second: 0,
                });
            }
            self.nodes[n] = Node {
                first: left as u32,
                count: 0,
                second: left as u32 + 1,
                ..self.nodes[n]
            };
            pending.push(left);
            pending.push(left + 1);
        }
    }

    /// Recomputes every box from the current positions, children before parents.
    fn refit(&mut self) {
        for n in (0..self.nodes.len()).rev() {
            let node = self.nodes[n];
            let (min, max) = if node.count > 0 {
                self.bounds(node.first as usize..(node.first + node.count) as usize)
            } else {
                let (a, b) = (
                    self.nodes[node.first as usize],
                    self.nodes[node.second as usize],
                );
                (a.min.min(b.min), a.max.max(b.max))
            };
            self.nodes[n].min = min;
            self.nodes[n].max = max;
        }
    }
}

/// Whether the ray (origin, inverse direction) crosses the box `min..max` before `limit`.
/// An empty box (min above max) is never crossed.
fn box_hit(origin: Vec3, inverse: Vec3, min: Vec3, max: Vec3, limit: f32) -> bool {
    if !(min.cmple(max).all()) {
        return false;
    }
    let (mut near, mut far) = (0.0f32, limit);
    for axis in 0..3 {
        let a = (min[axis] - origin[axis]) * inverse[axis];
        let b = (max[axis] - origin[axis]) * inverse[axis];
        if a.is_nan() || b.is_nan() {
            // 0 × ∞: the ray runs parallel to this slab with its origin on one of the
            // slab's planes, so it lies on the box's face: the slab does not constrain it
            // (a ray aimed through a vertex meets every box there this way).
            if origin[axis] < min[axis] || origin[axis] > max[axis] {
                return false;
            }
            continue;
        }
        near = near.max(a.min(b));
        far = far.min(a.max(b));
    }
    near <= far
}

/// How far outside a triangle's edges, in barycentric units, a hit still counts: a ray
/// aimed through a shared vertex or edge must hit one of the triangles there, and rounding
/// can put it a few ulps outside each.
const EDGE_SLACK: f32 = 1e-5;

/// The two-sided Möller–Trumbore test: distance and the barycentric u, v of the hit of
/// `ray` with the triangle `a b c`, if it is ahead of the origin. A triangle with no area
/// or a corner that is not finite is never hit.
fn triangle_hit(ray: &Ray, a: Vec3, b: Vec3, c: Vec3) -> Option<(f32, f32, f32)> {
    let (e1, e2) = (b - a, c - a);
    let p = ray.direction.cross(e2);
    let det = e1.dot(p);
    // Zero for a ray in the triangle's plane or a triangle with no area; not finite for a
    // corner that is not.
    if !(det.abs() > f32::MIN_POSITIVE && det.is_finite()) {
        return None;
    }
    let inverse = det.recip();
    let s = ray.origin - a;
    let u = s.dot(p) * inverse;
    if !((-EDGE_SLACK..=1.0 + EDGE_SLACK).contains(&u)) {
        return None;
    }
    let q = s.cross(e1);
    let v = ray.direction.dot(q) * inverse;
    if !(v >= -EDGE_SLACK && u + v <= 1.0 + EDGE_SLACK) {
        return None;
    }
    let t = e2.dot(q) * inverse;
    // Back onto the triangle: a hit within the slack lies on its edge.
    let u = u.clamp(0.0, 1.0);
    let v = v.clamp(0.0, 1.0 - u);
    (t >= 0.0 && t.is_finite()).then_some((t, u, v))
}
