//! The body's distance field as the solvers read it: per step, each bone grid's joint frame
//! (computed once on the host in f32, so every solver reads the same bits), per root up to
//! [`CANDIDATES`] grids to ask, and the one scalar sample both CPU paths call (the SIMD
//! lanes call it per lane, so they agree with the reference by construction). WGSL twin:
//! `field_sample` in `shaders/strand_step.wgsl`, operation for operation.
//!
//! A point is pushed out along the field's normal to the clearance after the stiffness
//! blend, and a segment whose projected end is still below it is turned about its parent
//! (length kept), as the skin plane does for the root's own plane.

use crate::body::{BodyField, BodyMesh, GpuBoneGrid, SkinPose};
use bytemuck::{Pod, Zeroable};
use glam::{Mat3, Mat4, Vec3, Vec4};

/// Grids one root asks at most (see [`candidate_grids`]).
pub const CANDIDATES: usize = crate::shaders::FIELD_CANDIDATES as usize;

/// A candidate slot that names no grid (WGSL `NO_GRID`).
pub const NO_GRID: u32 = crate::shaders::NO_GRID;

/// One grid's joint in one step's pose, as every solver reads it. WGSL twin: `GridFrame`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuGridFrame {
    /// World → the grid's cells for points: the joint's skinning matrix inverted (world →
    /// bind frame), then the grid's lowest node moved to the origin and the cell size
    /// divided out, so node (i, j, k) sits at (i, j, k). Folded here once per grid and step,
    /// so a reading neither subtracts the origin nor divides by the cell.
    pub to_bind: Mat4,
    /// Columns 0..2: bind → world for gradients (the inverse transpose of the matrix's
    /// linear part); column 3: x the matrix's mean scale (bind metres → world metres), y 1
    /// where the matrix can be inverted and 0 where the grid has no opinion.
    pub normal_scale: Mat4,
}

/// The frames of every grid of `field` in `pose`, appended to `out` (one per grid, in grid
/// order): a step's slot. A grid whose cell size is not a positive finite number gets a
/// frame with no opinion.
pub fn grid_frames(field: &BodyField, pose: &SkinPose, out: &mut Vec<GpuGridFrame>) {
    out.extend(field.grids.iter().map(|g| {
        let m = pose
            .joints
            .get(g.dims_joint[3] as usize)
            .copied()
            .unwrap_or(Mat4::IDENTITY);
        let linear = Mat3::from_mat4(m);
        let det = linear.determinant();
        let [ox, oy, oz, cell] = g.origin_cell;
        let to_cells = Mat4::from_scale(Vec3::splat(1.0 / cell))
            * Mat4::from_translation(-Vec3::new(ox, oy, oz));
        let usable = det.is_finite()
            && det.abs() > 1e-12
            && m.is_finite()
            && cell > 0.0
            && cell.is_finite()
            && to_cells.is_finite();
        if !usable {
            return GpuGridFrame {
                to_bind: Mat4::IDENTITY,
                normal_scale: Mat4::ZERO,
            };
        }
        let normal = linear.inverse().transpose();
        GpuGridFrame {
            to_bind: to_cells * m.inverse(),
            normal_scale: Mat4::from_cols(
                normal.x_axis.extend(0.0),
                normal.y_axis.extend(0.0),
                normal.z_axis.extend(0.0),
                Vec4::new(det.abs().cbrt(), 1.0, 0.0, 0.0),
            ),
        }
    }));
}

/// The grids a root on triangle `triangle` of `mesh` at `barycentric`, with a strand
/// `reach` metres long, asks, in order: the distinct grids of its corners' dominant joints,
/// then the other grids whose box (the bone's part plus its margin, in the bind pose) lies
/// within `reach` of the root, nearest box first (a box holding the root is at distance
/// zero; ties go to the nearer box centre), then the grids of the corners' parents;
/// [`NO_GRID`] in the slots left. A joint with no grid (it owns no triangle) is skipped. The
/// boxes bring in the neighbouring parts a strand can reach (a leg's fur against the
/// belly), which its own bone's grid does not see.
pub fn candidate_grids(
    field: &BodyField,
    mesh: &BodyMesh,
    triangle: u32,
    barycentric: Vec3,
    reach: f32,
) -> [u32; CANDIDATES] {
    let mut out = [NO_GRID; CANDIDATES];
    let Some(t) = mesh.triangles.get(triangle as usize) else {
        return out;
    };
    let grid_of = |joint: u32| {
        field
            .grids
            .iter()
            .position(|g| g.dims_joint[3] == joint)
            .map(|i| i as u32)
    };
    let corner = |k: usize| {
        mesh.positions
            .get(t[k] as usize)
            .copied()
            .unwrap_or(Vec3::ZERO)
    };
    let root = corner(0) * barycentric.x + corner(1) * barycentric.y + corner(2) * barycentric.z;
    let owners = t.map(|v| crate::body::dominant_joint(mesh, v));
    let parents = owners.map(|j| {
        mesh.joint_parents
            .get(j as usize)
            .copied()
            .flatten()
            .map(u32::from)
    });
    let reach = if reach.is_finite() {
        reach.max(0.0)
    } else {
        0.0
    };
    // Grids whose box lies within the strand's reach, by the distance from the root to the
    // box, then to the box's centre.
    let mut near: Vec<(f32, f32, u32)> = field
        .grids
        .iter()
        .enumerate()
        .filter_map(|(i, g)| {
            let lo = Vec3::new(g.origin_cell[0], g.origin_cell[1], g.origin_cell[2]);
            let span = Vec3::new(
                g.dims_joint[0].saturating_sub(1) as f32,
                g.dims_joint[1].saturating_sub(1) as f32,
                g.dims_joint[2].saturating_sub(1) as f32,
            ) * g.origin_cell[3];
            let hi = lo + span;
            let to_box = root.distance(root.clamp(lo, hi));
            (to_box <= reach).then(|| (to_box, root.distance((lo + hi) * 0.5), i as u32))
        })
        .collect();
    near.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then(a.1.total_cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
    let mut k = 0;
    let ordered = owners
        .into_iter()
        .filter_map(grid_of)
        .chain(near.into_iter().map(|(_, _, g)| g))
        .chain(parents.into_iter().flatten().filter_map(grid_of));
    for g in ordered {
        if k < CANDIDATES && !out[..k].contains(&g) {
            out[k] = g;
            k += 1;
        }
    }
    out
}

/// The field for a batch of steps: every grid, its values, and per step one frame per grid
/// (step `j`'s grid `g` at `frames[j · grids.len() + g]`).
#[derive(Clone, Copy, Debug)]
pub struct FieldSteps<'a> {
    /// The grids' headers.
    pub grids: &'a [GpuBoneGrid],
    /// Every grid's node values.
    pub values: &'a [f32],
    /// The frames, step by step.
    pub frames: &'a [GpuGridFrame],
}

impl<'a> FieldSteps<'a> {
    /// The frames from step `first` on.
    pub fn from_step(&self, first: usize) -> FieldSteps<'a> {
        let start = (first * self.grids.len()).min(self.frames.len());
        FieldSteps {
            frames: &self.frames[start..],
            ..*self
        }
    }
}

/// Whether sample `d` beats `best` (the field's rule, [`crate::body::PosedField::sample`]):
/// inside beats outside, then the nearer surface.
fn nearer(d: f32, best: f32) -> bool {
    let (inside, best_inside) = (d < 0.0, best < 0.0);
    if inside != best_inside {
        return inside;
    }
    d.abs() < best.abs()
}

/// One grid's reading at a point: the signed distance (world metres) and what its normal
/// needs (the cell's corner values and the point's place in the cell), so the normal is
/// worked out for the winning grid only ([`Reading::normal`]).
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    /// Signed distance, world metres (negative inside).
    pub distance: f32,
    grid: usize,
    corners: [f32; 8],
    fraction: [f32; 3],
}

impl Reading {
    /// The unit outward normal (world) at the point read, zero where the field is flat
    /// there. Every product and sum in a fixed order, as the WGSL twin's.
    pub fn normal(&self, field: &FieldSteps<'_>, j: usize) -> Vec3 {
        let Some(frame) = field.frames.get(j * field.grids.len() + self.grid) else {
            return Vec3::ZERO;
        };
        let ns = &frame.normal_scale;
        let [v000, v100, v010, v110, v001, v101, v011, v111] = self.corners;
        let [_, fy, fz] = self.fraction;
        let (gy0, gy1) = (1.0 - fy, fy);
        let (gz0, gz1) = (1.0 - fz, fz);
        let CellBlend {
            x00,
            x10,
            x01,
            x11,
            y0,
            y1,
        } = cell_blend(&self.corners, self.fraction);
        let dx00 = v100 - v000;
        let dx10 = v110 - v010;
        let dx01 = v101 - v001;
        let dx11 = v111 - v011;
        let ddx = (dx00 * gy0 + dx10 * gy1) * gz0 + (dx01 * gy0 + dx11 * gy1) * gz1;
        let ddy = (x10 - x00) * gz0 + (x11 - x01) * gz1;
        let ddz = y1 - y0;
        // The gradient's direction only: the cell divides all three alike and the length
        // is normalised away.
        let wx = ns.x_axis.x * ddx + ns.y_axis.x * ddy + ns.z_axis.x * ddz;
        let wy = ns.x_axis.y * ddx + ns.y_axis.y * ddy + ns.z_axis.y * ddz;
        let wz = ns.x_axis.z * ddx + ns.y_axis.z * ddy + ns.z_axis.z * ddz;
        let len = (wx * wx + wy * wy + wz * wz).sqrt();
        if len > 1e-20 {
            Vec3::new(wx / len, wy / len, wz / len)
        } else {
            Vec3::ZERO
        }
    }
}

/// A cell's trilinear blend at `fraction` (x, then y, then z), the partial sums the value
/// and the normal both need: `x··` blended along x, `y·` then along y (the value is
/// `y0·(1 − fz) + y1·fz`). One place, so the value and the normal blend alike, in the
/// order the WGSL twin `cell_blend` follows.
struct CellBlend {
    x00: f32,
    x10: f32,
    x01: f32,
    x11: f32,
    y0: f32,
    y1: f32,
}

fn cell_blend(corners: &[f32; 8], fraction: [f32; 3]) -> CellBlend {
    let [v000, v100, v010, v110, v001, v101, v011, v111] = *corners;
    let [fx, fy, _] = fraction;
    let (gx0, gx1) = (1.0 - fx, fx);
    let (gy0, gy1) = (1.0 - fy, fy);
    let x00 = v000 * gx0 + v100 * gx1;
    let x10 = v010 * gx0 + v110 * gx1;
    let x01 = v001 * gx0 + v101 * gx1;
    let x11 = v011 * gx0 + v111 * gx1;
    CellBlend {
        x00,
        x10,
        x01,
        x11,
        y0: x00 * gy0 + x10 * gy1,
        y1: x01 * gy0 + x11 * gy1,
    }
}

/// One grid's reading at `p` in step `j`; `None` outside its box or where its frame has no
/// opinion. Every product and sum is written out in a fixed order (no fused multiply-add)
/// so the WGSL twin can follow.
fn grid_sample(field: &FieldSteps<'_>, j: usize, g: usize, p: Vec3) -> Option<Reading> {
    let grid = field.grids.get(g)?;
    let frame = field.frames.get(j * field.grids.len() + g)?;
    let ns = &frame.normal_scale;
    if ns.w_axis.y < 0.5 {
        return None;
    }
    let m = &frame.to_bind;
    let mut base = [0u32; 3];
    let mut f = [0.0f32; 3];
    for a in 0..3 {
        let dims = grid.dims_joint[a];
        if dims < 2 {
            return None;
        }
        let last = (dims - 1) as f32;
        // The point's coordinate along axis `a` in the grid's cells (the frame holds the
        // origin and the cell size), one axis at a time so a point off the box stops at
        // the first axis it leaves.
        let row = m.row(a);
        let u = row.x * p.x + row.y * p.y + row.z * p.z + row.w;
        if !(u >= 0.0 && u <= last) {
            return None;
        }
        // `u` is not negative here, so truncation is its floor (WGSL: `floor`), and the
        // cell's first node an exact small integer: the same bits, without a floor call.
        let b = (u as u32).min(dims - 2);
        base[a] = b;
        f[a] = u - b as f32;
    }
    let (nx, ny) = (grid.dims_joint[0] as usize, grid.dims_joint[1] as usize);
    let at = |x: u32, y: u32, z: u32| -> f32 {
        let i = grid.offset[0] as usize + (z as usize * ny + y as usize) * nx + x as usize;
        field.values.get(i).copied().unwrap_or(f32::INFINITY)
    };
    let [bx, by, bz] = base;
    let corners = [
        at(bx, by, bz),
        at(bx + 1, by, bz),
        at(bx, by + 1, bz),
        at(bx + 1, by + 1, bz),
        at(bx, by, bz + 1),
        at(bx + 1, by, bz + 1),
        at(bx, by + 1, bz + 1),
        at(bx + 1, by + 1, bz + 1),
    ];
    let CellBlend { y0, y1, .. } = cell_blend(&corners, f);
    let (gz0, gz1) = (1.0 - f[2], f[2]);
    let value = y0 * gz0 + y1 * gz1;
    Some(Reading {
        distance: value * ns.w_axis.x,
        grid: g,
        corners,
        fraction: f,
    })
}

/// The reading at `p` in step `j` through the grids `candidates` names, in order, that
/// wins the field's rule; `None` where no candidate's grid reaches.
pub fn field_reading(
    field: &FieldSteps<'_>,
    j: usize,
    candidates: [u32; CANDIDATES],
    p: Vec3,
) -> Option<Reading> {
    let mut best: Option<Reading> = None;
    for g in candidates {
        if g == NO_GRID {
            continue;
        }
        if let Some(r) = grid_sample(field, j, g as usize, p)
            && best.is_none_or(|b| nearer(r.distance, b.distance))
        {
            best = Some(r);
        }
    }
    best
}

/// The field at `p` in step `j` through the grids `candidates` names, in order: the
/// signed distance (world metres, negative inside) and unit outward normal of the sample
/// that wins the field's rule; `None` where no candidate's grid reaches.
pub fn field_sample(
    field: &FieldSteps<'_>,
    j: usize,
    candidates: [u32; CANDIDATES],
    p: Vec3,
) -> Option<(f32, Vec3)> {
    field_reading(field, j, candidates, p).map(|r| (r.distance, r.normal(field, j)))
}

/// Where [`push_out`] left a point: the point, and how far it is known to clear the
/// clearance there (`None` where its last round moved it, so nothing is known).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pushed {
    /// The point.
    pub x: Vec3,
    /// The field's reading at `x` less the clearance, where the push read it there.
    pub spare: Option<f32>,
}

/// `x` pushed out along the field's normal until it is `clearance` outside the body
/// (unchanged where it already is, or where no grid answers).
pub fn push_out(
    field: &FieldSteps<'_>,
    j: usize,
    candidates: [u32; CANDIDATES],
    x: Vec3,
    clearance: f32,
) -> Pushed {
    let mut x = x;
    for _ in 0..PUSH_ROUNDS {
        match field_reading(field, j, candidates, x) {
            Some(r) if r.distance < clearance => {
                let n = r.normal(field, j);
                let s = clearance - r.distance;
                x = Vec3::new(x.x + n.x * s, x.y + n.y * s, x.z + n.z * s);
            }
            Some(r) => {
                return Pushed {
                    x,
                    // NaN never clears: such a reading skips nothing.
                    spare: Some(r.distance - clearance).filter(|s| *s >= 0.0),
                };
            }
            None => return Pushed { x, spare: None },
        }
    }
    Pushed { x, spare: None }
}

/// Whether a point pushed to `pushed` and since moved to `x` surely still clears the
/// clearance, so the turn need not read the field again: it moved less than half of what
/// it had to spare (the field changes by at most about the distance moved; the half
/// allows for a seam between grids and the trilinear cells).
pub fn still_clear(pushed: &Pushed, x: Vec3) -> bool {
    match pushed.spare {
        Some(spare) => {
            let d = x - pushed.x;
            let moved_sq = d.x * d.x + d.y * d.y + d.z * d.z;
            let half = 0.5 * spare;
            moved_sq < half * half
        }
        None => false,
    }
}

/// Rounds of [`push_out`]: one step along the normal is exact for a flat surface; the
/// second corrects for curvature and for a seam between two bones' grids.
pub const PUSH_ROUNDS: usize = crate::shaders::FIELD_PUSH_ROUNDS as usize;

/// The unit direction of the segment from `parent` to `x` (length `seg`), turned about the
/// parent toward the field's normal at `x` just enough that, to first order, its end is
/// `clearance` outside the body; `None` where the end already is, or no grid answers.
pub fn turn_min_dot(
    field: &FieldSteps<'_>,
    j: usize,
    candidates: [u32; CANDIDATES],
    x: Vec3,
    parent: Vec3,
    seg: f32,
    clearance: f32,
) -> Option<(Vec3, Vec3, f32)> {
    let r = field_reading(field, j, candidates, x)?;
    let d = r.distance;
    // NaN is never below: such a sample turns nothing.
    let below = d < clearance;
    if !below {
        return None;
    }
    let n = r.normal(field, j);
    if n == Vec3::ZERO {
        return None;
    }
    let dir = Vec3::new(
        (x.x - parent.x) / seg,
        (x.y - parent.y) / seg,
        (x.z - parent.z) / seg,
    );
    let along = dir.x * n.x + dir.y * n.y + dir.z * n.z;
    Some((dir, n, along + (clearance - d) / seg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    fn one_grid(cell: f32) -> BodyField {
        BodyField {
            grids: vec![GpuBoneGrid {
                origin_cell: [0.1, -0.2, 0.3, cell],
                dims_joint: [4, 5, 6, 0],
                offset: [0; 4],
            }],
            values: vec![0.0; 4 * 5 * 6],
        }
    }

    #[test]
    fn a_grid_frame_takes_the_posed_grids_nodes_to_their_cell_numbers() {
        let field = one_grid(0.05);
        let joint = Mat4::from_scale_rotation_translation(
            Vec3::splat(1.5),
            Quat::from_rotation_y(0.7) * Quat::from_rotation_x(-0.4),
            Vec3::new(0.3, 0.9, -0.2),
        );
        let pose = SkinPose {
            joints: vec![joint],
        };
        let mut frames = Vec::new();
        grid_frames(&field, &pose, &mut frames);
        assert_eq!(frames.len(), 1);
        assert_eq!(frames[0].normal_scale.w_axis.y, 1.0);
        let origin = Vec3::new(0.1, -0.2, 0.3);
        for node in [
            Vec3::ZERO,
            Vec3::new(3.0, 4.0, 5.0),
            Vec3::new(1.0, 2.0, 3.0),
        ] {
            let world = joint.transform_point3(origin + node * 0.05);
            let cells = frames[0].to_bind.transform_point3(world);
            assert!(
                cells.distance(node) < 1e-4,
                "node {node} reads as {cells} in the grid's cells"
            );
        }
    }

    #[test]
    fn a_grid_whose_cell_is_not_positive_has_no_opinion() {
        let pose = SkinPose {
            joints: vec![Mat4::IDENTITY],
        };
        for cell in [0.0, -0.05, f32::NAN, f32::INFINITY] {
            let mut frames = Vec::new();
            grid_frames(&one_grid(cell), &pose, &mut frames);
            assert_eq!(frames[0].normal_scale.w_axis.y, 0.0, "cell {cell}");
        }
    }

    #[test]
    fn a_pushed_point_is_read_again_once_it_moved_half_its_spare() {
        let at = Vec3::new(0.1, 0.2, 0.3);
        let pushed = Pushed {
            x: at,
            spare: Some(0.01),
        };
        assert!(still_clear(&pushed, at));
        assert!(still_clear(&pushed, at + Vec3::new(0.0, 0.0049, 0.0)));
        assert!(!still_clear(&pushed, at + Vec3::new(0.0, 0.0, -0.0051)));
        assert!(!still_clear(&pushed, at + Vec3::splat(0.003)));
        // Where the push's last round moved the point, nothing is known.
        let moved = Pushed { x: at, spare: None };
        assert!(!still_clear(&moved, at));
    }
}
