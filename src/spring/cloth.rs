//! `ClothGrid`: seed 002's ClothWarp. Vertical chains ("warps") are joined side by side into
//! a grid: side springs (Hooke) between neighbouring warps, and collision of each cell's two
//! triangles against the colliders, so a collider cannot slip between warps. `close_loop`
//! joins the last warp to the first (a skirt); branch points copy the local motion of their
//! eldest sibling.

use glam::{Quat, Vec3};

use super::chain::{MAX_FRAME_DT, STEP_HZ};
use super::verlet::VerletStep;
use super::{Frame, SpringError, SpringSettings, WorldCollider, check_range};

/// Rounds of triangle collision and length projection per step.
const COLLISION_ROUNDS: usize = 4;

/// Parameters of a cloth grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClothSettings {
    /// The warps' own spring settings (stiffness, damping, gravity) and the cloth's
    /// thickness for collisions (`radius`).
    pub warp: SpringSettings,
    /// Fraction of a side spring's stretch undone per step, in `[0, 1]` (Hooke's law on the
    /// distance between neighbouring warps).
    pub side_stiffness: f32,
    /// Join the last warp to the first (needs 3 warps or more).
    pub close_loop: bool,
}

impl Default for ClothSettings {
    fn default() -> Self {
        Self {
            warp: SpringSettings::default(),
            side_stiffness: 0.5,
            close_loop: false,
        }
    }
}

#[derive(Debug, Clone)]
struct Warp {
    rest: Vec<Vec3>,
    lengths: Vec<f32>,
    pos: Vec<Vec3>,
    prev: Vec<Vec3>,
}

#[derive(Debug, Clone)]
struct Branch {
    warp: usize,
    row: usize,
    rest_offset: Vec3,
    pos: Vec3,
}

/// Warps joined into a grid of cells with side springs and triangle collision.
#[derive(Debug, Clone)]
pub struct ClothGrid {
    warps: Vec<Warp>,
    rows: usize,
    pairs: Vec<(usize, usize)>,
    side_rest: Vec<Vec<f32>>,
    settings: ClothSettings,
    anchor: Frame,
    accumulator: f32,
    branches: Vec<Branch>,
}

impl ClothGrid {
    /// A grid from warps given as rest positions in the anchor's frame, root first. The
    /// grid uses as many rows as the shortest warp has; longer warps are cut to it.
    pub fn new(
        warps: &[Vec<Vec3>],
        settings: ClothSettings,
        anchor: Frame,
    ) -> Result<Self, SpringError> {
        settings.warp.validate()?;
        check_range(
            "side_stiffness",
            settings.side_stiffness,
            0.0,
            1.0,
            "use a fraction in [0, 1]",
        )?;
        let rows = warps.iter().map(Vec::len).min().unwrap_or(0);
        if warps.len() < 2 || rows < 2 {
            return Err(SpringError::TooFewWarps(warps.len()));
        }
        if settings.close_loop && warps.len() < 3 {
            return Err(SpringError::LoopTooSmall(warps.len()));
        }
        if !anchor.is_finite() {
            return Err(SpringError::BadParameter {
                what: "anchor frame".into(),
                value: f32::NAN,
                hint: "must be finite",
            });
        }
        let mut out = Vec::with_capacity(warps.len());
        for (w, rest) in warps.iter().enumerate() {
            let rest: Vec<Vec3> = rest[..rows].to_vec();
            let mut lengths = vec![0.0];
            for j in 1..rows {
                super::check_finite("warp point", rest[j])?;
                let l = (rest[j] - rest[j - 1]).length();
                if l <= 1.0e-6 {
                    return Err(SpringError::ZeroSegment(format!("warp {w}"), j));
                }
                lengths.push(l);
            }
            let pos: Vec<Vec3> = rest.iter().map(|&r| anchor.point(r)).collect();
            out.push(Warp {
                rest,
                lengths,
                prev: pos.clone(),
                pos,
            });
        }
        let n = out.len();
        let mut pairs: Vec<(usize, usize)> = (0..n - 1).map(|w| (w, w + 1)).collect();
        if settings.close_loop {
            pairs.push((n - 1, 0));
        }
        let side_rest = pairs
            .iter()
            .map(|&(a, b)| {
                (0..rows)
                    .map(|j| (out[a].rest[j] - out[b].rest[j]).length())
                    .collect()
            })
            .collect();
        Ok(Self {
            warps: out,
            rows,
            pairs,
            side_rest,
            settings,
            anchor,
            accumulator: 0.0,
            branches: Vec::new(),
        })
    }

    /// Number of warps.
    pub fn warp_count(&self) -> usize {
        self.warps.len()
    }

    /// Number of rows (points per warp).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The pairs of warps joined by side springs and cells: `(w, w + 1)`, and `(last, 0)`
    /// when the loop is closed.
    pub fn pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    /// World positions of warp `w`'s points, root first (empty when out of range).
    pub fn warp_positions(&self, w: usize) -> &[Vec3] {
        self.warps.get(w).map(|w| w.pos.as_slice()).unwrap_or(&[])
    }

    /// Adds a branch point hanging from point `(warp, row)` at `rest_offset` (anchor frame);
    /// it copies the local motion of its eldest sibling `(warp, row + 1)`: no velocity of its
    /// own and no collision. Returns its index.
    pub fn add_branch(
        &mut self,
        warp: usize,
        row: usize,
        rest_offset: Vec3,
    ) -> Result<usize, SpringError> {
        if warp >= self.warps.len() {
            return Err(SpringError::IndexOutOfRange(
                "branch warp".into(),
                warp,
                self.warps.len(),
            ));
        }
        if row + 1 >= self.rows {
            return Err(SpringError::IndexOutOfRange(
                "branch row (needs an eldest sibling below it)".into(),
                row,
                self.rows - 1,
            ));
        }
        super::check_finite("branch offset", rest_offset)?;
        let parent = self.warps[warp].pos[row];
        self.branches.push(Branch {
            warp,
            row,
            rest_offset,
            pos: parent + self.anchor.vector(rest_offset),
        });
        Ok(self.branches.len() - 1)
    }

    /// World positions of the branch points, in the order they were added.
    pub fn branch_positions(&self) -> Vec<Vec3> {
        self.branches.iter().map(|b| b.pos).collect()
    }

    /// Advances by a frame of `dt` seconds at the fixed 120 Hz (clipped like
    /// [`super::SpringChain::advance`]). Returns the steps taken.
    pub fn advance(&mut self, dt: f32, anchor: Frame, colliders: &[WorldCollider]) -> usize {
        if !dt.is_finite() || dt <= 0.0 || !anchor.is_finite() {
            return 0;
        }
        self.accumulator += dt.min(MAX_FRAME_DT);
        let steps = (self.accumulator * STEP_HZ + 1.0e-4).floor() as usize;
        self.accumulator = (self.accumulator - steps as f32 / STEP_HZ).max(0.0);
        let from = self.anchor;
        for s in 0..steps {
            self.step(from.lerp(&anchor, (s + 1) as f32 / steps as f32), colliders);
        }
        steps
    }

    /// One fixed step: Verlet per warp, side springs, lengths, triangle collision, lengths,
    /// branches.
    pub fn step(&mut self, anchor: Frame, colliders: &[WorldCollider]) {
        if !anchor.is_finite() {
            return;
        }
        let verlet = VerletStep::new(&self.settings.warp, 1.0 / STEP_HZ);
        self.anchor = anchor;
        for w in &mut self.warps {
            verlet.advance(&anchor, &w.rest, &mut w.pos, &mut w.prev);
        }
        self.side_springs();
        self.keep_lengths();
        if !colliders.is_empty() {
            // Contact and exact lengths fight each other; a few rounds let them agree, so a
            // collider pushing steadily cannot work its way through a cell.
            for _ in 0..COLLISION_ROUNDS {
                self.collide(colliders);
                self.keep_lengths();
            }
        }
        self.update_branches();
    }

    fn side_springs(&mut self) {
        let k = self.settings.side_stiffness;
        for (p, &(a, b)) in self.pairs.iter().enumerate() {
            for j in 1..self.rows {
                let pa = self.warps[a].pos[j];
                let pb = self.warps[b].pos[j];
                let d = pb - pa;
                let len = d.length();
                if len <= 1.0e-9 {
                    continue;
                }
                let corr = d * ((len - self.side_rest[p][j]) / len * 0.5 * k);
                self.warps[a].pos[j] += corr;
                self.warps[b].pos[j] -= corr;
            }
        }
    }

    fn keep_lengths(&mut self) {
        for w in &mut self.warps {
            for j in 1..w.pos.len() {
                let fallback = (w.rest[j] - w.rest[j - 1]).normalize_or(Vec3::NEG_Y);
                let dir = (w.pos[j] - w.pos[j - 1]).normalize_or(fallback);
                w.pos[j] = w.pos[j - 1] + dir * w.lengths[j];
            }
        }
    }

    fn collide(&mut self, colliders: &[WorldCollider]) {
        let thickness = self.settings.warp.radius;
        for pi in 0..self.pairs.len() {
            let (a, b) = self.pairs[pi];
            for j in 0..self.rows - 1 {
                // Two triangles per cell: (a_j, b_j, b_j+1) and (a_j, b_j+1, a_j+1).
                let cells = [
                    [(a, j), (b, j), (b, j + 1)],
                    [(a, j), (b, j + 1), (a, j + 1)],
                ];
                for tri_ids in cells {
                    for c in colliders {
                        let tri = tri_ids.map(|(w, r)| self.warps[w].pos[r]);
                        let Some((d, weights)) = c.triangle_contact(tri, thickness) else {
                            continue;
                        };
                        // Move the free vertices (not the anchored row 0) so the touching
                        // point moves by `d`.
                        let sum: f32 = tri_ids
                            .iter()
                            .zip(weights)
                            .filter(|((_, r), _)| *r > 0)
                            .map(|(_, wt)| wt * wt)
                            .sum();
                        if sum <= 1.0e-6 {
                            continue;
                        }
                        for ((w, r), wt) in tri_ids.iter().zip(weights) {
                            if *r > 0 {
                                self.warps[*w].pos[*r] += d * (wt / sum);
                            }
                        }
                    }
                }
            }
        }
    }

    fn update_branches(&mut self) {
        let anchor = self.anchor;
        for b in &mut self.branches {
            let w = &self.warps[b.warp];
            let rest_dir = anchor
                .vector(w.rest[b.row + 1] - w.rest[b.row])
                .normalize_or_zero();
            let cur_dir = (w.pos[b.row + 1] - w.pos[b.row]).normalize_or_zero();
            let swing = if rest_dir == Vec3::ZERO || cur_dir == Vec3::ZERO {
                Quat::IDENTITY
            } else {
                Quat::from_rotation_arc(rest_dir, cur_dir)
            };
            b.pos = w.pos[b.row] + swing * anchor.vector(b.rest_offset);
        }
    }
}
