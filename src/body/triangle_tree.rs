//! Exact distances to a triangle soup and a robust inside test: a bounding-volume tree over
//! the triangles that answers the nearest surface point (branch and bound) and the
//! generalized winding number (Jacobson et al. 2013, with the far-field dipole of Barill et
//! al. 2018), which says "inside" sensibly even for a mesh with holes or open seams.

use glam::Vec3;

/// Triangles per leaf of the tree.
const LEAF_TRIANGLES: usize = 4;

/// A cluster whose centre lies farther than this many times its radius from the query is
/// summed as one dipole in the winding number (Barill et al.'s β): close enough to exact that
/// the inside test (winding above one half) does not change for a point off the surface
/// (the sum stays within a few hundredths of the exact one).
const FAR_FIELD_RATIO: f32 = 2.0;

/// A node of the tree: its bounds, and either its triangles (a leaf) or its two children.
#[derive(Clone, Copy, Debug)]
struct Node {
    min: Vec3,
    max: Vec3,
    /// First triangle of a leaf in the reordered list, or the first child of an inner node.
    first: u32,
    /// Triangles of a leaf; 0 for an inner node (whose children are `first` and `first + 1`).
    count: u32,
    /// Sum of the triangles' area vectors (half the cross product, outward for a mesh wound
    /// counter-clockwise seen from outside).
    area_normal: Vec3,
    /// Area-weighted centre of the triangles.
    centre: Vec3,
    /// Distance from `centre` to the farthest vertex below the node.
    radius: f32,
}

/// The nearest point of the surface to a query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Nearest {
    /// Distance to the surface, metres.
    pub distance: f32,
    /// The closest surface point.
    pub point: Vec3,
}

/// A bounding-volume tree over a list of triangles (each given by its three corners).
#[derive(Clone, Debug, Default)]
pub struct TriangleTree {
    triangles: Vec<[Vec3; 3]>,
    nodes: Vec<Node>,
}

impl TriangleTree {
    /// The tree over `triangles`. Degenerate triangles are kept (they have a nearest point
    /// and add nothing to the winding number).
    pub fn new(mut triangles: Vec<[Vec3; 3]>) -> Self {
        let mut nodes = Vec::with_capacity(2 * triangles.len() / LEAF_TRIANGLES + 1);
        if !triangles.is_empty() {
            nodes.push(leaf(&triangles, 0, triangles.len()));
            split(&mut nodes, &mut triangles, 0);
        }
        TriangleTree { triangles, nodes }
    }

    /// How many triangles the tree holds.
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    /// Whether the tree holds no triangle.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// The surface point nearest `p`, exact (every triangle that could be nearer than the best
    /// so far is measured); `None` for an empty tree.
    pub fn nearest(&self, p: Vec3) -> Option<Nearest> {
        self.nearest_counting(p, &mut 0)
    }

    /// [`TriangleTree::nearest`], adding the triangles it measured to `tests`: what the
    /// query cost, which a caller making many can hold to a budget (a pile of triangles in
    /// one place defeats the tree's pruning, and each query near it measures all of them).
    pub fn nearest_counting(&self, p: Vec3, tests: &mut u64) -> Option<Nearest> {
        let mut best = Nearest {
            distance: f32::INFINITY,
            point: p,
        };
        let mut best_sq = f32::INFINITY;
        let mut stack = vec![0usize];
        while let Some(n) = stack.pop() {
            let Some(node) = self.nodes.get(n) else {
                continue;
            };
            if box_distance_sq(node, p) >= best_sq {
                continue;
            }
            if node.count > 0 {
                let (a, b) = (node.first as usize, (node.first + node.count) as usize);
                *tests += u64::from(node.count);
                for t in &self.triangles[a..b] {
                    let q = closest_on_triangle(p, t);
                    let d = (q - p).length_squared();
                    if d < best_sq {
                        best_sq = d;
                        best.point = q;
                    }
                }
            } else {
                // Visit the nearer child first (pushed last) so the bound tightens sooner.
                let (l, r) = (node.first as usize, node.first as usize + 1);
                let dl = box_distance_sq(&self.nodes[l], p);
                let dr = box_distance_sq(&self.nodes[r], p);
                if dl < dr {
                    stack.extend([r, l]);
                } else {
                    stack.extend([l, r]);
                }
            }
        }
        if best_sq.is_finite() {
            best.distance = best_sq.sqrt();
            Some(best)
        } else {
            None
        }
    }

    /// The generalized winding number at `p`: about 1 inside a closed surface wound
    /// counter-clockwise seen from outside, 0 outside, and in between near holes.
    pub fn winding_number(&self, p: Vec3) -> f32 {
        self.winding_number_counting(p, &mut 0)
    }

    /// [`TriangleTree::winding_number`], adding the triangles and far-field clusters it
    /// summed to `tests` (as [`TriangleTree::nearest_counting`]).
    pub fn winding_number_counting(&self, p: Vec3, tests: &mut u64) -> f32 {
        if self.nodes.is_empty() {
            return 0.0;
        }
        self.solid_angle(0, p, tests) / (4.0 * std::f32::consts::PI)
    }

    /// Whether `p` is inside the surface: its winding number is above one half, the rule
    /// that degrades gracefully where the mesh is not closed.
    pub fn contains(&self, p: Vec3) -> bool {
        self.contains_counting(p, &mut 0)
    }

    /// [`TriangleTree::contains`], adding what its winding number summed to `tests`.
    pub fn contains_counting(&self, p: Vec3, tests: &mut u64) -> bool {
        self.winding_number_counting(p, tests) > 0.5
    }

    fn solid_angle(&self, n: usize, p: Vec3, tests: &mut u64) -> f32 {
        let node = &self.nodes[n];
        *tests += u64::from(node.count.max(1));
        if node.count > 0 {
            let (a, b) = (node.first as usize, (node.first + node.count) as usize);
            return self.triangles[a..b]
                .iter()
                .map(|t| triangle_solid_angle(p, t))
                .sum();
        }
        let to_centre = node.centre - p;
        let r = to_centre.length();
        if r > FAR_FIELD_RATIO * node.radius {
            return node.area_normal.dot(to_centre) / (r * r * r);
        }
        let first = node.first as usize;
        self.solid_angle(first, p, tests) + self.solid_angle(first + 1, p, tests)
    }
}

/// A leaf node over `triangles[start..end]`.
fn leaf(triangles: &[[Vec3; 3]], start: usize, end: usize) -> Node {
    let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    let (mut area_normal, mut weighted, mut area_sum) = (Vec3::ZERO, Vec3::ZERO, 0.0f32);
    for t in &triangles[start..end] {
        for v in t {
            min = min.min(*v);
            max = max.max(*v);
        }
        let an = 0.5 * (t[1] - t[0]).cross(t[2] - t[0]);
        let area = an.length();
        area_normal += an;
        weighted += (t[0] + t[1] + t[2]) / 3.0 * area;
        area_sum += area;
    }
    let centre = if area_sum > 0.0 {
        weighted / area_sum
    } else {
        0.5 * (min + max)
    };
    let radius = triangles[start..end]
        .iter()
        .flatten()
        .map(|v| v.distance(centre))
        .fold(0.0f32, f32::max);
    Node {
        min,
        max,
        first: start as u32,
        count: (end - start) as u32,
        area_normal,
        centre,
        radius,
    }
}

/// Splits node `n` (a leaf over its range) at the median centroid along its longest axis,
/// recursively, until leaves hold at most [`LEAF_TRIANGLES`].
fn split(nodes: &mut Vec<Node>, triangles: &mut [[Vec3; 3]], n: usize) {
    let (start, count) = (nodes[n].first as usize, nodes[n].count as usize);
    if count <= LEAF_TRIANGLES {
        return;
    }
    let extent = nodes[n].max - nodes[n].min;
    let axis = if extent.x >= extent.y && extent.x >= extent.z {
        0
    } else if extent.y >= extent.z {
        1
    } else {
        2
    };
    let key = |t: &[Vec3; 3]| t[0][axis] + t[1][axis] + t[2][axis];
    let mid = count / 2;
    triangles[start..start + count].select_nth_unstable_by(mid, |a, b| key(a).total_cmp(&key(b)));
    let left = leaf(triangles, start, start + mid);
    let right = leaf(triangles, start + mid, start + count);
    let first = nodes.len();
    nodes.push(left);
    nodes.push(right);
    nodes[n].first = first as u32;
    nodes[n].count = 0;
    split(nodes, triangles, first);
    split(nodes, triangles, first + 1);
}

/// Squared distance from `p` to the node's box (0 inside it).
fn box_distance_sq(node: &Node, p: Vec3) -> f32 {
    let d = (node.min - p).max(p - node.max).max(Vec3::ZERO);
    d.length_squared()
}

/// The solid angle triangle `t` subtends at `p`, signed by its winding (Van Oosterom and
/// Strackee): positive when `p` sees the triangle's back, as a point inside a closed,
/// outward-wound surface sees every triangle.
pub fn triangle_solid_angle(p: Vec3, t: &[Vec3; 3]) -> f32 {
    let (a, b, c) = (t[0] - p, t[1] - p, t[2] - p);
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let det = a.dot(b.cross(c));
    let div = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    2.0 * det.atan2(div)
}

/// The point of triangle `t` nearest `p` (Ericson, "Real-Time Collision Detection" 5.1.5):
/// the region of the triangle's Voronoi diagram `p` falls in decides vertex, edge or face.
pub fn closest_on_triangle(p: Vec3, t: &[Vec3; 3]) -> Vec3 {
    let (a, b, c) = (t[0], t[1], t[2]);
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return a + ab * (d1 / (d1 - d3));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return a + ac * (d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = va + vb + vc;
    if denom.abs() <= f32::MIN_POSITIVE {
        // A degenerate triangle: the nearest of its corners stands in for its face.
        return [a, b, c]
            .into_iter()
            .min_by(|x, y| x.distance_squared(p).total_cmp(&y.distance_squared(p)))
            .unwrap_or(a);
    }
    let (v, w) = (vb / denom, vc / denom);
    a + ab * v + ac * w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An octahedron of radius 1, wound counter-clockwise seen from outside.
    fn octahedron() -> Vec<[Vec3; 3]> {
        let (px, nx, py, ny, pz, nz) = (Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z);
        vec![
            [px, py, pz],
            [py, nx, pz],
            [nx, ny, pz],
            [ny, px, pz],
            [py, px, nz],
            [nx, py, nz],
            [ny, nx, nz],
            [px, ny, nz],
        ]
    }

    #[test]
    fn the_winding_number_is_one_inside_and_zero_outside() {
        let tree = TriangleTree::new(octahedron());
        let inside = tree.winding_number(Vec3::new(0.1, 0.2, -0.1));
        let outside = tree.winding_number(Vec3::new(1.0, 1.0, 0.5));
        assert!((inside - 1.0).abs() < 1e-4, "inside: {inside}");
        assert!(outside.abs() < 1e-4, "outside: {outside}");
    }

    #[test]
    fn the_nearest_point_matches_every_triangle_measured() {
        let tris = octahedron();
        let tree = TriangleTree::new(tris.clone());
        for p in [
            Vec3::new(2.0, 0.1, 0.3),
            Vec3::new(0.1, 0.1, 0.1),
            Vec3::new(-0.3, 1.5, -0.2),
        ] {
            let brute = tris
                .iter()
                .map(|t| closest_on_triangle(p, t).distance(p))
                .fold(f32::INFINITY, f32::min);
            let got = tree.nearest(p).map(|n| n.distance).unwrap_or(f32::NAN);
            assert!((got - brute).abs() < 1e-6, "{p}: {got} vs {brute}");
        }
    }

    #[test]
    fn a_point_above_a_face_projects_onto_it_and_beyond_a_corner_onto_the_corner() {
        let t = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let face = closest_on_triangle(Vec3::new(0.25, 0.25, 3.0), &t);
        assert!(face.distance(Vec3::new(0.25, 0.25, 0.0)) < 1e-6, "{face}");
        let corner = closest_on_triangle(Vec3::new(2.0, -1.0, 0.5), &t);
        assert!(corner.distance(Vec3::X) < 1e-6, "{corner}");
        let edge = closest_on_triangle(Vec3::new(1.0, 1.0, 0.0), &t);
        assert!(edge.distance(Vec3::new(0.5, 0.5, 0.0)) < 1e-6, "{edge}");
    }

    /// The octahedron split `levels` times (each triangle into four), pushed onto the unit
    /// sphere: a closed mesh with enough triangles for the far field to be used.
    fn ball(levels: u32) -> Vec<[Vec3; 3]> {
        let mut tris = octahedron();
        for _ in 0..levels {
            tris = tris
                .iter()
                .flat_map(|&[a, b, c]| {
                    let (ab, bc, ca) = (
                        (a + b).normalize(),
                        (b + c).normalize(),
                        (c + a).normalize(),
                    );
                    [[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]
                })
                .collect();
        }
        tris
    }

    #[test]
    fn the_far_field_winding_number_stays_near_the_exact_sum() {
        let tris = ball(4);
        let tree = TriangleTree::new(tris.clone());
        for k in 0..200 {
            let s = k as f32;
            let r = 0.05 + 1.9 * ((s * 0.618).fract());
            let dir = Vec3::new((s * 1.3).sin(), (s * 0.7).cos(), (s * 2.1).sin()).normalize();
            let p = dir * r;
            let exact: f32 = tris.iter().map(|t| triangle_solid_angle(p, t)).sum::<f32>()
                / (4.0 * std::f32::consts::PI);
            let fast = tree.winding_number(p);
            assert!(
                (fast - exact).abs() < 0.05,
                "{p}: tree {fast}, exact {exact}"
            );
            if (r - 1.0).abs() > 0.05 {
                assert_eq!(tree.contains(p), r < 1.0, "{p}: {fast}");
            }
        }
    }
}
