//! The creature tessellated: each part's surface sampled on a grid of rows and columns and
//! joined into triangles. The renderer's skin mesh and the skinned mesh of the exported file
//! are both made here, each from its own callback per vertex (pattern and space for the
//! renderer, bones and weights for the file).
//!
//! The two meshes have always been laid out differently, and both are kept bit for bit (the
//! pictures and the files do not change), so a grid comes in two layouts ([`GridLayout`]):
//! the renderer's, rows from the south pole with the seam column shared and the tail framed
//! by its Frenet frame; and the file's, rows from the north pole with the seam column
//! repeated, the opposite winding and the tail tube framed by a parallel-transported normal.

use glam::{Vec2, Vec3};

use super::{Creature, Part, SurfacePoint};

/// Columns (around) and rows (from pole to pole, or from the tail's root to its tip).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridSize {
    /// Vertices around a row (one more when the seam is repeated).
    pub columns: u32,
    /// Quads from the first row to the last (there are `rows + 1` rows of vertices).
    pub rows: u32,
}

impl GridSize {
    /// `columns` around, `rows` along.
    pub const fn new(columns: u32, rows: u32) -> Self {
        Self { columns, rows }
    }
}

/// Whether a grid closed around (longitude) shares its seam column or repeats it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seam {
    /// The last column joins the first: `columns` vertices a row.
    Shared,
    /// The first column is repeated at the end: `columns + 1` vertices a row (what a file's
    /// texture coordinates would need).
    Repeated,
}

/// How each quad `(c, r)`–`(c + 1, r + 1)` of a grid is split into two triangles, named by
/// its corners `(column, row)`: `00`, `10` (next column), `01` (next row), `11`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Winding {
    /// `(00, 01, 10)` and `(10, 01, 11)`.
    RowFirst,
    /// `(00, 10, 01)` and `(10, 11, 01)`: the same triangles, wound the other way.
    ColumnFirst,
}

/// Appends a grid of vertices made by `vertex(column, row)`, row by row, and its
/// triangles (indices offset by the vertices already in `vertices`).
pub fn add_grid<V>(
    vertices: &mut Vec<V>,
    indices: &mut Vec<u32>,
    size: GridSize,
    seam: Seam,
    winding: Winding,
    mut vertex: impl FnMut(u32, u32) -> V,
) {
    let GridSize { columns, rows } = size;
    let base = vertices.len() as u32;
    let per_row = match seam {
        Seam::Shared => columns,
        Seam::Repeated => columns + 1,
    };
    for r in 0..=rows {
        for c in 0..per_row {
            vertices.push(vertex(c, r));
        }
    }
    for r in 0..rows {
        for c in 0..columns {
            let c1 = match seam {
                Seam::Shared => (c + 1) % columns,
                Seam::Repeated => c + 1,
            };
            let i00 = base + r * per_row + c;
            let i10 = base + r * per_row + c1;
            let i01 = base + (r + 1) * per_row + c;
            let i11 = base + (r + 1) * per_row + c1;
            indices.extend_from_slice(&match winding {
                Winding::RowFirst => [i00, i01, i10, i10, i01, i11],
                Winding::ColumnFirst => [i00, i10, i01, i10, i11, i01],
            });
        }
    }
}

/// A unit direction from sphere coordinates: `u` around (longitude), `v` from the south
/// pole (0) to the north pole (1).
pub fn sphere_direction(u: f32, v: f32) -> Vec3 {
    let phi = u * std::f32::consts::TAU;
    let theta = v * std::f32::consts::PI;
    let ring = theta.sin();
    Vec3::new(ring * phi.cos(), -theta.cos(), ring * phi.sin())
}

/// Where and how a part's grid samples its surface, and how the grid is joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridLayout {
    /// The renderer's: row `r` at `v = r / rows` from the south pole
    /// ([`sphere_direction`]), the seam shared, [`Winding::RowFirst`]; the tail's rings from
    /// its surface map ([`super::TailShape::surface`], Frenet-framed).
    Rendered,
    /// The exported mesh's: row `r` at `θ = π r / rows` from the north pole, the seam
    /// repeated, [`Winding::ColumnFirst`]; the tail a tube of radius at least 1 mm around
    /// its centreline, its rings framed by a normal transported along it so they do not
    /// twist.
    Exported,
}

/// One vertex of the tessellated creature, in its part's space (head-local for the head,
/// body-local for the rest).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceSample {
    /// Position in the part's space.
    pub position: Vec3,
    /// Outward unit normal.
    pub normal: Vec3,
    /// The tail parameter (0 root, 1 tip) on the tail; 0 elsewhere.
    pub tail_t: f32,
}

/// Appends the grid of `part`'s surface, `size` columns by rows in `layout`, each vertex
/// made from its sample by `vertex`.
pub fn tessellate_part<V>(
    creature: &Creature,
    part: Part,
    size: GridSize,
    layout: GridLayout,
    vertices: &mut Vec<V>,
    indices: &mut Vec<u32>,
    mut vertex: impl FnMut(SurfaceSample) -> V,
) {
    let GridSize { columns, rows } = size;
    let (seam, winding) = match layout {
        GridLayout::Rendered => (Seam::Shared, Winding::RowFirst),
        GridLayout::Exported => (Seam::Repeated, Winding::ColumnFirst),
    };
    let rings = match (part, layout) {
        (Part::Tail, GridLayout::Exported) => transported_rings(creature, rows),
        _ => Vec::new(),
    };
    let on_surface = |s: SurfacePoint, tail_t| SurfaceSample {
        position: s.position,
        normal: s.normal,
        tail_t,
    };
    add_grid(vertices, indices, size, seam, winding, |c, r| {
        vertex(match (part, layout) {
            (Part::Tail, GridLayout::Rendered) => {
                let (u, v) = (c as f32 / columns as f32, r as f32 / rows as f32);
                let psi = u * std::f32::consts::TAU;
                on_surface(creature.tail.surface(Vec2::new(v, psi)), v)
            }
            (Part::Tail, GridLayout::Exported) => {
                let ring = &rings[r as usize];
                let a = std::f32::consts::TAU * c as f32 / columns as f32;
                let dir = ring.normal * a.cos() + ring.binormal * a.sin();
                SurfaceSample {
                    position: ring.center + dir * ring.radius,
                    normal: dir,
                    tail_t: ring.t,
                }
            }
            (_, GridLayout::Rendered) => {
                let (u, v) = (c as f32 / columns as f32, r as f32 / rows as f32);
                on_surface(creature.surface(part, sphere_direction(u, v)), 0.0)
            }
            (_, GridLayout::Exported) => {
                let theta = std::f32::consts::PI * r as f32 / rows as f32;
                let phi = std::f32::consts::TAU * c as f32 / columns as f32;
                let (sin_theta, cos_theta) = (theta.sin(), theta.cos());
                let u = Vec3::new(sin_theta * phi.cos(), cos_theta, sin_theta * phi.sin());
                on_surface(creature.surface(part, u), 0.0)
            }
        })
    });
}

/// One ring of the exported tail tube.
struct Ring {
    t: f32,
    center: Vec3,
    normal: Vec3,
    binormal: Vec3,
    radius: f32,
}

/// The rings of the exported tail tube at `t = i / rows`, root first.
fn transported_rings(creature: &Creature, rows: u32) -> Vec<Ring> {
    let tail = &creature.tail;
    let mut normal_ref = Vec3::Y;
    (0..=rows)
        .map(|i| {
            let t = i as f32 / rows as f32;
            let e = 1.0e-3;
            let tangent = (tail.centerline((t + e).min(1.0)) - tail.centerline((t - e).max(0.0)))
                .normalize_or(Vec3::NEG_Z);
            // Parallel transport of a reference normal keeps the rings from twisting.
            let normal = (normal_ref - tangent * normal_ref.dot(tangent))
                .normalize_or(tangent.any_orthonormal_vector());
            normal_ref = normal;
            Ring {
                t,
                center: tail.centerline(t),
                normal,
                binormal: tangent.cross(normal),
                radius: tail.radius(t).max(1.0e-3),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(seam: Seam, winding: Winding) -> (Vec<(u32, u32)>, Vec<u32>) {
        let (mut vertices, mut indices) = (vec![(99, 99)], Vec::new());
        add_grid(
            &mut vertices,
            &mut indices,
            GridSize::new(4, 3),
            seam,
            winding,
            |c, r| (c, r),
        );
        (vertices, indices)
    }

    #[test]
    fn a_shared_seam_joins_the_last_column_to_the_first() {
        let (vertices, indices) = grid(Seam::Shared, Winding::RowFirst);
        assert_eq!(vertices.len(), 1 + 4 * 4);
        assert_eq!(indices.len(), 4 * 3 * 6);
        assert!(
            indices.iter().all(|&i| (1..17).contains(&i)),
            "offset past the base"
        );
        // The last quad of the first row reaches back to column 0.
        let last = &indices[3 * 6..4 * 6];
        assert!(last.contains(&1) && last.contains(&4));
        assert_eq!(vertices[4], (3, 0));
    }

    #[test]
    fn a_repeated_seam_adds_a_column_and_the_windings_are_mirrors() {
        let (vertices, row_first) = grid(Seam::Repeated, Winding::RowFirst);
        let (_, column_first) = grid(Seam::Repeated, Winding::ColumnFirst);
        assert_eq!(vertices.len(), 1 + 5 * 4);
        assert_eq!(vertices[5], (4, 0));
        for (a, b) in row_first.chunks(3).zip(column_first.chunks(3)) {
            assert_eq!([a[0], a[2], a[1]], [b[0], b[1], b[2]]);
        }
    }

    #[test]
    fn the_exported_tail_starts_at_the_root_and_ends_at_the_tip() {
        let creature = Creature::default();
        let (mut vertices, mut indices) = (Vec::new(), Vec::new());
        let size = GridSize::new(12, 30);
        tessellate_part(
            &creature,
            Part::Tail,
            size,
            GridLayout::Exported,
            &mut vertices,
            &mut indices,
            |s| s,
        );
        assert_eq!(vertices.len(), 13 * 31);
        assert_eq!(vertices[0].tail_t, 0.0);
        assert_eq!(vertices[vertices.len() - 1].tail_t, 1.0);
        for s in &vertices {
            let axis = creature.tail.centerline(s.tail_t);
            let radius = creature.tail.radius(s.tail_t).max(1.0e-3);
            assert!(((s.position - axis).length() - radius).abs() < 1e-5);
            assert!((s.normal.length() - 1.0).abs() < 1e-5);
        }
    }
}
