//! The body's distance field for the solvers: one signed distance grid per bone, rigid with
//! it, sampled through that joint's skinning matrix so the field follows any pose with no
//! rebuild.
//!
//! Each joint owns the triangles whose vertices it dominates (largest weight; a triangle
//! goes to every distinct dominant joint of its corners, so neighbouring parts overlap by a
//! ring of triangles and the seam is covered twice). Its grid covers those triangles' bind
//! box plus a margin, axis-aligned in the bind frame. A node outside the body (by the whole
//! body's generalized winding number in the bind pose, which stays sensible for meshes with
//! holes) holds the exact distance to the bone's own triangles. A node inside holds minus
//! the body's depth there, but only where the bone's own skin is the nearest (within two
//! cells); elsewhere it holds the distance to its own skin as if outside, since a rigid
//! grid that called its neighbours' volume inside would still call it so after the
//! neighbour moved away. The depth is the body's, not the distance to the bone's own skin:
//! within the two cells' slack the two differ by up to those two cells, and a grid that
//! read so deep just under a neighbour's skin would, interpolated across that skin, call
//! points outside it deep inside, and throw a strand there back and forth every step
//! (docs/architecture.md measures it).
//! A query maps the point back through each joint's skinning matrix. A grid that says
//! inside wins over one that says outside (posed parts overlap at a bent joint, burying one
//! part's surface in the other), and among grids on the same side the nearest surface
//! decides. At rest that is the body's exact signed distance (the most negative value would
//! not be: a point inside the torso is far from the arm's triangles, so the arm's grid holds
//! a deep negative there). Outside every bone's box the field has no opinion.
//!
//! The data is flat for the GPU: one `f32` array of every bone's nodes (x fastest) and one
//! [`GpuBoneGrid`] header per bone.

use super::mesh::{BodyMesh, SkinPose};
use super::triangle_tree::TriangleTree;
use bytemuck::{Pod, Zeroable};
use glam::{Mat3, Mat4, Vec3};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bounds and defaults of the per-bone grids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldOptions {
    /// Nodes along a bone's longest axis (2..=[`MAX_NODES_PER_AXIS`]); the other axes get as
    /// many as the same cell size needs.
    pub nodes_per_axis: u32,
    /// Metres the grid reaches beyond the bone's triangles (at least two cells are kept).
    pub margin: f32,
    /// The most nodes all the grids may hold together (at most [`MAX_FIELD_NODES`], which
    /// a larger value means): a body whose grids need more is refused with
    /// [`DistanceError::TooLarge`] before any node is measured.
    pub max_nodes: usize,
    /// The most triangles (and far-field clusters) the build may measure per node, on
    /// average over all the nodes: a body that needs more is refused with
    /// [`DistanceError::TooMuchWork`] once it has spent them. What bounds the build's time
    /// where the triangles defeat the tree's pruning (many piled on one spot: each query
    /// near them measures every one), which no estimate from their boxes catches.
    pub max_tests_per_node: u32,
}

/// Cells by which a bone's own skin may be farther than the body's nearest skin for a node
/// inside the body to still count as the bone's inside (covers the seam between parts,
/// whose triangles both grids hold).
const OWN_SLACK_CELLS: f32 = 2.0;

/// The most nodes all of a body's grids may hold together (32 MiB of values): what bounds
/// the memory and the build time of a body with very many bones.
pub const MAX_FIELD_NODES: usize = 8 << 20;

/// The most nodes a grid may have along one axis (memory per bone at most this cubed, four
/// bytes a node).
pub const MAX_NODES_PER_AXIS: u32 = 64;

impl Default for FieldOptions {
    fn default() -> Self {
        FieldOptions {
            nodes_per_axis: 32,
            margin: 0.02,
            max_nodes: MAX_FIELD_NODES,
            max_tests_per_node: MAX_TESTS_PER_NODE,
        }
    }
}

/// Why a body's distance field could not be built.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DistanceError {
    /// The mesh has no triangle.
    #[error("the body has no triangles, so it has no surface to keep the fur out of")]
    NoTriangles,
    /// A triangle names a vertex the mesh does not have.
    #[error(
        "triangle {triangle} names vertex {vertex}, but the body has {vertices} vertices: the mesh's index list is damaged"
    )]
    BadIndex {
        /// The triangle.
        triangle: usize,
        /// The vertex it names.
        vertex: u32,
        /// How many vertices there are.
        vertices: usize,
    },
    /// A vertex position is NaN or infinite.
    #[error("vertex {0} of the body is not a finite position: fix or re-export the mesh")]
    NotFinite(usize),
    /// The grids together would hold more than [`MAX_FIELD_NODES`].
    #[error(
        "the body's distance field would need {nodes} grid nodes over {bones} bones, more than the {limit} allowed: ask for fewer nodes per axis or merge small bones"
    )]
    TooLarge {
        /// Nodes the grids would hold.
        nodes: usize,
        /// Bones with triangles.
        bones: usize,
        /// The most nodes allowed.
        limit: usize,
    },
    /// The triangles cross each other so much that measuring the field would take far
    /// too long (each node's distance and winding number visit every triangle whose box
    /// holds it): long triangles spanning the body, as only a broken or hostile file has.
    #[error(
        "the body's triangles cross each other too much to measure its distance field: on average {per_cell} triangles' boxes hold each cell of the body's box (about {work} node and triangle pairs to measure, at most {limit}); long triangles spanning the body are the usual cause: re-export the mesh without them"
    )]
    Tangled {
        /// Triangle boxes holding a cell of the body's box, on average.
        per_cell: u64,
        /// The estimated pairs of grid nodes and triangles.
        work: u64,
        /// The most allowed.
        limit: u64,
    },
    /// The options are out of range.
    #[error(
        "a distance grid needs 2 to {MAX_NODES_PER_AXIS} nodes per axis and a finite margin of 0 or more metres (got {nodes} nodes, margin {margin})"
    )]
    BadOptions {
        /// Nodes asked for.
        nodes: u32,
        /// Margin asked for.
        margin: f32,
    },
    /// Measuring the field took more triangle tests than
    /// [`FieldOptions::max_tests_per_node`] allows, and was stopped: triangles piled on one
    /// spot (the same triangle many times over, as only a broken or hostile file has) make
    /// every query near them measure them all.
    #[error(
        "measuring the body's distance field was stopped after {tests} triangle tests (at most {limit}): many triangles piled on one spot are the usual cause; re-export the mesh without duplicated faces"
    )]
    TooMuchWork {
        /// Tests spent when the build stopped.
        tests: u64,
        /// The most allowed.
        limit: u64,
    },
}

/// One bone's grid as the GPU reads it (`array<BoneGrid>` in WGSL, 48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuBoneGrid {
    /// xyz: the lowest node's position in the bind frame; w: the cell size, metres.
    pub origin_cell: [f32; 4],
    /// xyz: nodes along x, y and z; w: the joint whose skinning matrix moves the grid.
    pub dims_joint: [u32; 4],
    /// x: the first node's index in [`BodyField::values`]; y, z, w: zero.
    pub offset: [u32; 4],
}

impl GpuBoneGrid {
    fn origin(&self) -> Vec3 {
        Vec3::new(
            self.origin_cell[0],
            self.origin_cell[1],
            self.origin_cell[2],
        )
    }

    fn dims(&self) -> [usize; 3] {
        [
            self.dims_joint[0] as usize,
            self.dims_joint[1] as usize,
            self.dims_joint[2] as usize,
        ]
    }

    /// The bind-frame value at `q` and its gradient (per metre), trilinear in the cell
    /// holding it; `None` when `q` lies outside the grid's box.
    fn sample(&self, values: &[f32], q: Vec3) -> Option<(f32, Vec3)> {
        let cell = self.origin_cell[3];
        let dims = self.dims();
        let g = (q - self.origin()) / cell;
        let mut base = [0usize; 3];
        let mut f = [0.0f32; 3];
        for a in 0..3 {
            let last = (dims[a] - 1) as f32;
            if !(g[a] >= 0.0 && g[a] <= last) {
                return None;
            }
            let b = g[a].floor().min(last - 1.0);
            base[a] = b as usize;
            f[a] = g[a] - b;
        }
        let at = |x: usize, y: usize, z: usize| -> f32 {
            let i = self.offset[0] as usize + (z * dims[1] + y) * dims[0] + x;
            values.get(i).copied().unwrap_or(f32::INFINITY)
        };
        let mut value = 0.0f32;
        let mut grad = Vec3::ZERO;
        for c in 0..8 {
            let (dx, dy, dz) = (c & 1, (c >> 1) & 1, c >> 2);
            let w = |d: usize, t: f32| if d == 1 { t } else { 1.0 - t };
            let s = |d: usize| if d == 1 { 1.0 } else { -1.0 };
            let (wx, wy, wz) = (w(dx, f[0]), w(dy, f[1]), w(dz, f[2]));
            let v = at(base[0] + dx, base[1] + dy, base[2] + dz);
            value += wx * wy * wz * v;
            grad += Vec3::new(s(dx) * wy * wz, wx * s(dy) * wz, wx * wy * s(dz)) * v;
        }
        Some((value, grad / cell))
    }
}

/// A body's signed distance field: per-bone grids rigid with their bones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyField {
    /// One header per bone that owns triangles.
    pub grids: Vec<GpuBoneGrid>,
    /// Every grid's node values, signed metres in the bind frame (negative inside).
    pub values: Vec<f32>,
}

impl BodyField {
    /// The field of `mesh` in its bind pose. Work: every node's exact distance to its bone's
    /// triangles and the body's winding number there (both through [`TriangleTree`]).
    pub fn build(mesh: &BodyMesh, options: FieldOptions) -> Result<Self, DistanceError> {
        let FieldOptions {
            nodes_per_axis: nodes,
            margin,
            max_nodes,
            max_tests_per_node,
        } = options;
        let limit = max_nodes.min(MAX_FIELD_NODES);
        let nodes_ok = (2..=MAX_NODES_PER_AXIS).contains(&nodes);
        if !(nodes_ok && margin >= 0.0 && margin.is_finite()) {
            return Err(DistanceError::BadOptions { nodes, margin });
        }
        if mesh.triangles.is_empty() {
            return Err(DistanceError::NoTriangles);
        }
        let vertices = mesh.positions.len();
        if let Some(v) = mesh.positions.iter().position(|p| !p.is_finite()) {
            return Err(DistanceError::NotFinite(v));
        }
        for (triangle, t) in mesh.triangles.iter().enumerate() {
            if let Some(&vertex) = t.iter().find(|&&v| v as usize >= vertices) {
                return Err(DistanceError::BadIndex {
                    triangle,
                    vertex,
                    vertices,
                });
            }
        }
        let corners = |t: &[u32; 3]| t.map(|v| mesh.positions[v as usize]);
        let body = TriangleTree::new(mesh.triangles.iter().map(corners).collect());

        // Every header first, so an oversized field is refused before any node is measured.
        let mut parts = vec![];
        let mut total = 0usize;
        for (joint, tris) in bone_triangles(mesh) {
            let part: Vec<[Vec3; 3]> = tris.iter().map(|&t| corners(&mesh.triangles[t])).collect();
            let header = grid_header(&part, joint, nodes, margin, total);
            total += header.dims().iter().product::<usize>();
            parts.push((header, part));
        }
        if total > limit {
            return Err(DistanceError::TooLarge {
                nodes: total,
                bones: parts.len(),
                limit,
            });
        }
        let per_cell = triangles_per_cell(&mesh.positions, &mesh.triangles);
        let work = per_cell.saturating_mul(total as u64);
        if work > MAX_FIELD_WORK {
            return Err(DistanceError::Tangled {
                per_cell,
                work,
                limit: MAX_FIELD_WORK,
            });
        }
        // The queries' own cost, counted as they go: a node past the budget is not
        // measured, and the build fails once the grid it belongs to is done.
        let spent = AtomicU64::new(0);
        let max_tests = u64::from(max_tests_per_node).saturating_mul(total as u64);
        let over = |spent: &AtomicU64| spent.load(Ordering::Relaxed) > max_tests;
        let mut field = BodyField::default();
        for (header, part) in parts {
            let part = TriangleTree::new(part);
            let dims = header.dims();
            let (origin, cell) = (header.origin(), header.origin_cell[3]);
            let count = dims[0] * dims[1] * dims[2];
            let node_values: Vec<f32> = (0..count)
                .into_par_iter()
                .map(|i| {
                    if over(&spent) {
                        return f32::NAN;
                    }
                    let (x, y, z) = (
                        i % dims[0],
                        (i / dims[0]) % dims[1],
                        i / (dims[0] * dims[1]),
                    );
                    let p = origin + Vec3::new(x as f32, y as f32, z as f32) * cell;
                    let mut tests = 0;
                    let value = node_value(&part, &body, p, cell, &mut tests);
                    spent.fetch_add(tests, Ordering::Relaxed);
                    value
                })
                .collect();
            if over(&spent) {
                return Err(DistanceError::TooMuchWork {
                    tests: spent.load(Ordering::Relaxed),
                    limit: max_tests,
                });
            }
            field.values.extend(node_values);
            field.grids.push(header);
        }
        Ok(field)
    }

    /// Bytes the field holds (headers and values), what a GPU copy of it weighs.
    pub fn memory_bytes(&self) -> usize {
        self.values.len() * size_of::<f32>() + self.grids.len() * size_of::<GpuBoneGrid>()
    }

    /// The field in `pose`, with each joint's inverse computed once for many queries.
    pub fn posed(&self, pose: &SkinPose) -> PosedField<'_> {
        let frames = self
            .grids
            .iter()
            .map(|g| {
                let m = pose
                    .joints
                    .get(g.dims_joint[3] as usize)
                    .copied()
                    .unwrap_or(Mat4::IDENTITY);
                let linear = Mat3::from_mat4(m);
                let det = linear.determinant();
                // A joint whose matrix cannot be inverted has no opinion anywhere.
                let usable = det.is_finite() && det.abs() > 1e-12;
                JointFrame {
                    to_bind: if usable { m.inverse() } else { Mat4::NAN },
                    normal_to_world: linear.inverse().transpose(),
                    scale: det.abs().cbrt(),
                }
            })
            .collect();
        PosedField {
            field: self,
            frames,
        }
    }

    /// Signed distance (metres, negative inside) from `p` to the body in `pose`; `None` where
    /// no bone's grid reaches (at least the margin away from the body at rest).
    pub fn signed_distance(&self, pose: &SkinPose, p: Vec3) -> Option<f32> {
        self.posed(pose).signed_distance(p)
    }

    /// `p` moved out along the field's gradient until it is `clearance` metres outside the
    /// body in `pose` (unchanged where it already is, or where no grid reaches).
    pub fn push_out(&self, pose: &SkinPose, p: Vec3, clearance: f32) -> Vec3 {
        self.posed(pose).push_out(p, clearance)
    }
}

/// One grid's joint in a pose: world → bind for points, bind → world for gradients, and
/// the matrix's mean scale that turns bind metres into world metres.
#[derive(Clone, Copy, Debug)]
struct JointFrame {
    to_bind: Mat4,
    normal_to_world: Mat3,
    scale: f32,
}

/// A [`BodyField`] in one pose.
#[derive(Clone, Debug)]
pub struct PosedField<'a> {
    field: &'a BodyField,
    frames: Vec<JointFrame>,
}

/// Rounds of [`PosedField::push_out`]: one step along the gradient is exact for a flat
/// surface; the second corrects for curvature and for a seam between two bones' grids.
const PUSH_ROUNDS: usize = 3;

impl PosedField<'_> {
    /// The signed distance at `p` and its unit outward direction (world frame): of the grids
    /// that reach `p`, the nearest surface among those that say inside, else the nearest
    /// among those that say outside; `None` outside every grid.
    pub fn sample(&self, p: Vec3) -> Option<(f32, Vec3)> {
        let mut best: Option<(f32, Vec3)> = None;
        for (grid, frame) in self.field.grids.iter().zip(&self.frames) {
            let q = frame.to_bind.transform_point3(p);
            let Some((v, g)) = grid.sample(&self.field.values, q) else {
                continue;
            };
            let d = v * frame.scale;
            if best.is_none_or(|(b, _)| nearer(d, b)) {
                best = Some((d, (frame.normal_to_world * g).normalize_or_zero()));
            }
        }
        best
    }

    /// Signed distance from `p` to the posed body, metres (negative inside).
    pub fn signed_distance(&self, p: Vec3) -> Option<f32> {
        self.sample(p).map(|(d, _)| d)
    }

    /// `p` moved out along the gradient until it is `clearance` outside the body.
    pub fn push_out(&self, p: Vec3, clearance: f32) -> Vec3 {
        let mut x = p;
        for _ in 0..PUSH_ROUNDS {
            match self.sample(x) {
                Some((d, n)) if d < clearance && n != Vec3::ZERO => x += n * (clearance - d),
                _ => break,
            }
        }
        x
    }
}

/// Whether sample `d` beats sample `best` in the field's rule: a grid that says inside
/// beats one that says outside (where posed parts overlap, one part's surface lies inside
/// the other: only the union of the parts is the body), and of two that agree on the side,
/// the nearer surface decides.
fn nearer(d: f32, best: f32) -> bool {
    match (d < 0.0, best < 0.0) {
        (true, false) => true,
        (false, true) => false,
        _ => d.abs() < best.abs(),
    }
}

/// The joint that dominates vertex `v` of `mesh`: the first of largest weight, so ties
/// resolve the same on every run (joint 0 for a vertex with no skin). Its grid is the one
/// that holds the vertex's triangles.
pub fn dominant_joint(mesh: &BodyMesh, v: u32) -> u32 {
    let v = v as usize;
    let (Some(joints), Some(weights)) = (mesh.joints.get(v), mesh.weights.get(v)) else {
        return 0;
    };
    let mut best = 0;
    for k in 1..joints.len() {
        if weights[k] > weights[best] {
            best = k;
        }
    }
    u32::from(joints[best])
}

/// For each joint that dominates at least one vertex, the triangles with a corner it
/// dominates, in joint order.
fn bone_triangles(mesh: &BodyMesh) -> Vec<(u32, Vec<usize>)> {
    let dominant = |v: u32| dominant_joint(mesh, v);
    let mut by_joint: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
    for (t, tri) in mesh.triangles.iter().enumerate() {
        let mut owners = tri.map(dominant);
        owners.sort_unstable();
        for (k, &j) in owners.iter().enumerate() {
            if k == 0 || owners[k - 1] != j {
                by_joint.entry(j).or_default().push(t);
            }
        }
    }
    by_joint.into_iter().collect()
}

/// The value of a node at `p` of a grid over `part` (a bone's own triangles, in the body
/// `body`), cells of `cell` metres; the triangles measured are added to `tests`.
fn node_value(
    part: &TriangleTree,
    body: &TriangleTree,
    p: Vec3,
    cell: f32,
    tests: &mut u64,
) -> f32 {
    let d = part
        .nearest_counting(p, tests)
        .map_or(f32::INFINITY, |n| n.distance);
    if !body.contains_counting(p, tests) {
        return d;
    }
    // Inside, the bone claims only the volume its own skin bounds: where another part's
    // skin is nearer (the bind pose's thigh seen from the torso's grid), the node says
    // outside, so when that part moves away its old volume is not still called the body by
    // this rigid grid. Where it claims, it claims the body's depth, never more: the
    // distance to its own skin can be two cells deeper there, and interpolated across the
    // neighbour's skin that depth would reach outside it.
    let body_d = body
        .nearest_counting(p, tests)
        .map_or(f32::INFINITY, |n| n.distance);
    if d <= body_d + OWN_SLACK_CELLS * cell {
        -body_d
    } else {
        d
    }
}

/// The most triangle tests (and far-field clusters) a field's build may spend per node by
/// default ([`FieldOptions::max_tests_per_node`]). Bodies as modelled spend 50 to 215 a
/// node (a 576-triangle fox, a 2,624-triangle bumpy sphere, Pelt's creature), so a body
/// refused by it costs at most about twenty times what such a body of as many nodes costs.
pub const MAX_TESTS_PER_NODE: u32 = 4096;

/// The most pairs of grid nodes and triangles a field may cost to measure (how many
/// triangles' boxes hold a cell of a coarse lattice over the body, on average, times the
/// nodes): a minute or so of two cores. Bodies as modelled cost
/// a few per node (each node's queries visit the few triangles near it); only triangles
/// crossing the whole body come near it.
pub const MAX_FIELD_WORK: u64 = 500_000_000;

/// Cells of a lattice over the body's box, along its longest side, for
/// [`triangles_per_cell`].
const WORK_CELLS: f32 = 32.0;

/// On average, how many triangles' bounding boxes hold a cell of a lattice over the
/// body's box (rounded up): what a distance or winding-number query near there cannot
/// prune, so the field's cost is about this times its nodes.
fn triangles_per_cell(positions: &[Vec3], triangles: &[[u32; 3]]) -> u64 {
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for p in positions {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let cell = ((hi - lo).max_element() / WORK_CELLS).max(1e-9);
    let dims = ((hi - lo) / cell).floor() + Vec3::ONE;
    let index = |v: Vec3| {
        ((v - lo) / cell)
            .floor()
            .clamp(Vec3::ZERO, dims - Vec3::ONE)
    };
    let covered: f64 = triangles
        .iter()
        .map(|t| {
            let corners = t.map(|v| positions[v as usize]);
            let min = corners[0].min(corners[1]).min(corners[2]);
            let max = corners[0].max(corners[1]).max(corners[2]);
            let span = index(max) - index(min) + Vec3::ONE;
            f64::from(span.x) * f64::from(span.y) * f64::from(span.z)
        })
        .sum();
    let cells = f64::from(dims.x) * f64::from(dims.y) * f64::from(dims.z);
    (covered / cells).ceil() as u64
}

/// The header of a grid over `part`'s bind box grown by the margin (at least two cells),
/// its cell from the longest side and `nodes`, centred on the box.
fn grid_header(
    part: &[[Vec3; 3]],
    joint: u32,
    nodes: u32,
    margin: f32,
    offset: usize,
) -> GpuBoneGrid {
    let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for v in part.iter().flatten() {
        min = min.min(*v);
        max = max.max(*v);
    }
    let steps = (nodes - 1) as f32;
    let side = (max - min).max_element().max(1e-6);
    // The longest side plus the margin at both ends spans every step; where that leaves a
    // margin under two cells, the margin becomes two cells (when the grid has room for it).
    let mut cell = (side + 2.0 * margin) / steps;
    if margin < 2.0 * cell && steps > 4.0 {
        cell = side / (steps - 4.0);
    }
    let margin = margin
        .max(2.0 * cell)
        .min(0.5 * (steps * cell - side).max(0.0));
    let (lo, hi) = (min - Vec3::splat(margin), max + Vec3::splat(margin));
    let mut dims = [0u32; 3];
    let mut origin = [0.0f32; 3];
    for a in 0..3 {
        let span = hi[a] - lo[a];
        let n = ((span / cell).ceil() as u32 + 1).clamp(2, nodes);
        dims[a] = n;
        origin[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * (n - 1) as f32 * cell;
    }
    GpuBoneGrid {
        origin_cell: [origin[0], origin[1], origin[2], cell],
        dims_joint: [dims[0], dims[1], dims[2], joint],
        offset: [offset as u32, 0, 0, 0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_triangle_goes_to_each_distinct_dominant_joint_of_its_corners() {
        let mesh = BodyMesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
            joints: vec![[0, 1, 0, 0], [2, 1, 0, 0], [2, 0, 0, 0], [1, 0, 0, 0]],
            weights: vec![
                [0.4, 0.6, 0.0, 0.0],
                [0.5, 0.5, 0.0, 0.0],
                [1.0, 0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0, 0.0],
            ],
            triangles: vec![[0, 1, 2], [1, 2, 3], [1, 1, 1]],
            joint_count: 3,
            ..BodyMesh::default()
        };
        // Vertex 0 is joint 1's (the larger weight), 1 joint 2's (a tie keeps the first),
        // 2 joint 2's, 3 joint 1's.
        let parts = bone_triangles(&mesh);
        assert_eq!(parts, vec![(1, vec![0, 1]), (2, vec![0, 1, 2])]);
    }

    #[test]
    fn inside_beats_outside_and_the_nearer_surface_beats_the_farther() {
        assert!(nearer(-0.3, 0.01), "a grid that says inside wins");
        assert!(!nearer(0.01, -0.3));
        assert!(nearer(-0.01, -0.3), "inside both: the nearer surface");
        assert!(nearer(0.01, 0.3), "outside both: the nearer surface");
        assert!(!nearer(0.3, 0.01));
    }

    #[test]
    fn triangles_crossing_the_whole_body_are_refused_before_any_node_is_measured() {
        use crate::body::cylinder::{CylinderSpec, skinned_cylinder};
        let spec = CylinderSpec {
            segments: 64,
            rings: 8,
            ..CylinderSpec::default()
        };
        let (mut mesh, _) = skinned_cylinder(&spec);
        // The tube as modelled: each triangle's box holds a cell or two of the lattice.
        let modelled = triangles_per_cell(&mesh.positions, &mesh.triangles);
        assert!(modelled <= 4, "{modelled} triangles a cell");
        assert!(BodyField::build(&mesh, FieldOptions::default()).is_ok());
        // Long triangles from the bottom rim to the top one, all across the tube.
        let (segments, top) = (64u32, 64 * 7);
        mesh.triangles = (0..200_000u32)
            .map(|i| {
                [
                    i % segments,
                    top + (i * 7 + 3) % segments,
                    (i * 13 + 5) % segments,
                ]
            })
            .collect();
        mesh.triangle_materials = vec![0; mesh.triangles.len()];
        let tangled = triangles_per_cell(&mesh.positions, &mesh.triangles);
        assert!(tangled > 10_000, "{tangled} triangles a cell");
        // Refused from the boxes alone, before a node is measured (the field would take
        // minutes).
        match BodyField::build(&mesh, FieldOptions::default()) {
            Err(DistanceError::Tangled {
                per_cell,
                work,
                limit,
            }) => {
                assert!(per_cell > 10_000, "{per_cell} triangles a cell");
                assert!(work > limit);
            }
            other => panic!(
                "not refused as tangled: {:?}",
                other.map(|f| f.memory_bytes())
            ),
        }
    }

    #[test]
    fn a_grid_spans_its_part_and_margin_within_its_nodes() {
        let part = [[
            Vec3::ZERO,
            Vec3::new(0.4, 0.0, 0.0),
            Vec3::new(0.0, 0.1, 0.05),
        ]];
        let g = grid_header(&part, 3, 32, 0.02, 100);
        let cell = g.origin_cell[3];
        assert_eq!((g.dims_joint[3], g.offset[0]), (3, 100));
        assert!(g.dims_joint[..3].iter().all(|&d| d <= 32), "{g:?}");
        let lo = g.origin();
        let hi = lo
            + Vec3::new(
                (g.dims_joint[0] - 1) as f32,
                (g.dims_joint[1] - 1) as f32,
                (g.dims_joint[2] - 1) as f32,
            ) * cell;
        // The part's box grown by the margin (and at least two cells) lies inside the grid.
        let margin = 0.02f32.max(2.0 * cell) - 1e-5;
        assert!(lo.cmple(Vec3::splat(-margin)).all(), "{lo} {cell}");
        assert!(
            hi.cmpge(Vec3::new(0.4, 0.1, 0.05) + margin).all(),
            "{hi} {cell}"
        );
        // The longest side takes every node.
        assert_eq!(g.dims_joint[0], 32);
    }
}
