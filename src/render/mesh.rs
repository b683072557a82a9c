//! Triangle meshes of the opaque surfaces: the creature's analytic parts tessellated in
//! their own spaces (so the GPU places them by the same pivots as the roots; the grids are
//! [`crate::creature::tessellation`]'s), the face, and the floor. One vertex format, [`SurfaceVertex`], for all of them and for the hand.

pub use crate::creature::tessellation::sphere_direction;
use crate::creature::tessellation::{
    GridLayout, GridSize, Seam, Winding, add_grid, tessellate_part,
};
use crate::creature::{Creature, FaceFeature, FaceLayout, Part, Space};
use crate::groom::pattern_at;
use crate::shaders;
use bytemuck::{Pod, Zeroable};
use glam::{Vec2, Vec3};

/// Which pivot a vertex or root follows. The numbers are the WGSL `SPACE_*` constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum VertexSpace {
    /// Body-local.
    Body = 0,
    /// Head-local.
    Head = 1,
    /// Body-local at rest, skinned to the tail bones by the tail parameter.
    Tail = 2,
    /// World space (the hand, the floor).
    World = 3,
}

/// A surface's material. The numbers are the WGSL `MATERIAL_*` constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Material {
    /// The creature's skin, coloured by the coat pattern.
    Coat = 0,
    /// A glossy eye.
    Eye = 1,
    /// The nose.
    Nose = 2,
    /// The hand's skin.
    Hand = 3,
    /// A fingernail.
    Nail = 4,
    /// The sleeve.
    Sleeve = 5,
    /// The floor.
    Floor = 6,
    /// A body other than the creature, its base colour per vertex in the pattern bytes
    /// (the square root of linear RGB; see [`body_surface`]).
    Body = 7,
}

/// One vertex of an opaque surface. WGSL twin: `SurfaceVertex` in `shaders/surfaces.wgsl`
/// (vertex attributes at these offsets).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct SurfaceVertex {
    /// Position in its space.
    pub position: [f32; 3],
    /// Unit normal in its space.
    pub normal: [f32; 3],
    /// Eyes: xyz the eye's centre, w 1; zero elsewhere.
    pub aux: [f32; 4],
    /// Pattern channels as unorm bytes (cream, stripe, ear tip, blush).
    pub pattern: [u8; 4],
    /// Tail parameter for tail-space vertices.
    pub tail_t: f32,
    /// Space in the low 8 bits, material in the next 8.
    pub space_material: u32,
}

impl SurfaceVertex {
    /// The vertex attributes, matching `shaders/surfaces.wgsl`.
    pub const ATTRIBUTES: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
        0 => Float32x3,
        1 => Float32x3,
        2 => Float32x4,
        3 => Unorm8x4,
        4 => Float32,
        5 => Uint32,
    ];

    /// A vertex of `material` in `space`.
    pub fn new(position: Vec3, normal: Vec3, space: VertexSpace, material: Material) -> Self {
        SurfaceVertex {
            position: position.to_array(),
            normal: normal.normalize_or(Vec3::Y).to_array(),
            aux: [0.0; 4],
            pattern: [0; 4],
            tail_t: 0.0,
            space_material: space as u32 | ((material as u32) << 8),
        }
    }
}

/// A body's surface posed by `pose`, in world space: each vertex's base colour (the
/// texture at its UV times its vertex colour) in its pattern bytes as the square root of
/// linear RGB, which `shaders/surfaces.wgsl` squares back. The texture is sampled per
/// vertex, not per pixel.
pub fn body_surface(mesh: &crate::body::BodyMesh, pose: &crate::body::SkinPose) -> Mesh {
    let vertices = (0..mesh.positions.len())
        .map(|v| {
            let (p, n) = pose.skin_vertex(mesh, v);
            let uv = mesh.uvs.get(v).copied().unwrap_or(Vec2::ZERO);
            let texture = mesh
                .base_color_texture
                .as_ref()
                .map(|t| t.sample(uv))
                .unwrap_or(glam::Vec4::ONE);
            let color = texture * mesh.colors.get(v).copied().unwrap_or(glam::Vec4::ONE);
            let byte = |c: f32| (c.clamp(0.0, 1.0).sqrt() * 255.0).round() as u8;
            let mut vertex = SurfaceVertex::new(p, n, VertexSpace::World, Material::Body);
            vertex.pattern = [byte(color.x), byte(color.y), byte(color.z), 255];
            vertex
        })
        .collect();
    let count = mesh.positions.len() as u32;
    let indices = mesh
        .triangles
        .iter()
        .filter(|t| t.iter().all(|&i| i < count))
        .flatten()
        .copied()
        .collect();
    Mesh { vertices, indices }
}

/// Triangles with 32-bit indices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// The vertices.
    pub vertices: Vec<SurfaceVertex>,
    /// Three indices per triangle.
    pub indices: Vec<u32>,
}

impl Mesh {
    /// Appends a grid of `columns × rows` vertices made by `vertex(u, v)` with u, v in
    /// [0, 1], joined into quads; `wrap_u` joins the last column to the first.
    pub fn add_grid(
        &mut self,
        columns: u32,
        rows: u32,
        wrap_u: bool,
        mut vertex: impl FnMut(f32, f32) -> SurfaceVertex,
    ) {
        let seam = if wrap_u { Seam::Shared } else { Seam::Repeated };
        add_grid(
            &mut self.vertices,
            &mut self.indices,
            GridSize::new(columns, rows),
            seam,
            Winding::RowFirst,
            |c, r| vertex(c as f32 / columns as f32, r as f32 / rows as f32),
        );
    }

    /// Turns every triangle to wind counter-clockwise seen from the side its vertex normals
    /// face, so the surface pass can cull back faces (the analytic parameterisations wind
    /// either way). Triangles of no area, at the poles of a sphere grid, are left alone.
    pub fn orient_outward(&mut self) {
        for tri in self.indices.chunks_exact_mut(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| self.vertices[i as usize]);
            let p = |v: SurfaceVertex| Vec3::from(v.position);
            let facing = (p(b) - p(a)).cross(p(c) - p(a));
            let normal = Vec3::from(a.normal) + Vec3::from(b.normal) + Vec3::from(c.normal);
            if facing.dot(normal) < 0.0 {
                tri.swap(1, 2);
            }
        }
    }

    /// Appends another mesh.
    pub fn append(&mut self, other: &Mesh) {
        let base = self.vertices.len() as u32;
        self.vertices.extend_from_slice(&other.vertices);
        self.indices.extend(other.indices.iter().map(|i| i + base));
    }
}

/// The pattern channels as the vertex's unorm bytes, in `Pattern::pack`'s order.
fn pattern_bytes(p: crate::groom::Pattern) -> [u8; 4] {
    p.pack().to_le_bytes()
}

/// The creature's skin: head, body, paws and tail, each in its own space, with the coat
/// pattern at every vertex, wound outward. `detail` scales the tessellation (1 is the
/// default).
pub fn creature_skin(creature: &Creature, detail: f32) -> Mesh {
    let n = |base: f32| ((base * detail).round() as u32).max(4);
    let mut mesh = Mesh::default();
    let paws = (0..4).map(|i| (Part::Paw(i), GridSize::new(n(40.0), n(24.0))));
    let parts = [
        (Part::Head, GridSize::new(n(112.0), n(72.0))),
        (Part::Body, GridSize::new(n(96.0), n(56.0))),
    ]
    .into_iter()
    .chain(paws)
    .chain([(Part::Tail, GridSize::new(n(40.0), n(96.0)))]);
    for (part, grid) in parts {
        let space = match part.space() {
            Space::Head => VertexSpace::Head,
            Space::Body => VertexSpace::Body,
            Space::Tail => VertexSpace::Tail,
        };
        tessellate_part(
            creature,
            part,
            grid,
            GridLayout::Rendered,
            &mut mesh.vertices,
            &mut mesh.indices,
            |s| {
                let mut vertex = SurfaceVertex::new(s.position, s.normal, space, Material::Coat);
                let pattern = pattern_at(creature, part, s.position, s.normal, s.tail_t);
                vertex.pattern = pattern_bytes(pattern);
                vertex.tail_t = s.tail_t;
                vertex
            },
        );
    }
    mesh.orient_outward();
    mesh
}

/// A face feature's ellipsoid (its radii times `swell`), in head space.
fn oriented_ellipsoid(
    feature: FaceFeature,
    swell: f32,
    material: Material,
    eye: bool,
    grid: (u32, u32),
) -> Mesh {
    let feature = FaceFeature {
        radii: feature.radii * swell,
        ..feature
    };
    let center = feature.center;
    let mut mesh = Mesh::default();
    mesh.add_grid(grid.0, grid.1, true, |u, v| {
        // Sphere axes: x right, y up, z out.
        let (p, n) = feature.at(sphere_direction(u, v));
        let mut vertex = SurfaceVertex::new(p, n, VertexSpace::Head, material);
        if eye {
            vertex.aux = [center.x, center.y, center.z, 1.0];
        }
        vertex
    });
    mesh
}

/// Facets around (and from pole to pole) of the eyes and the nose at full detail.
const FACE_GRID: (u32, u32) = (32, 18);

/// The eyes' and the nose's share of their full detail at `detail` (1 the finest, as
/// `mesh_lod::DETAILS`): they follow the skin down to half, then stay there. At half
/// (16 × 9 facets) an eye's outline lies within 0.8 mm of the ellipsoid, under a pixel at
/// every size that level is chosen for; coarser, a small eye would turn visibly polygonal.
pub fn face_detail(detail: f32) -> f32 {
    if detail.is_nan() {
        return 1.0;
    }
    detail.clamp(0.5, 1.0)
}

/// The eyes and the nose, in head space, standing out of the short fur around them, wound
/// outward, tessellated at `detail` of their full facets ([`face_detail`]).
pub fn face(creature: &Creature, layout: &FaceLayout, detail: f32) -> Mesh {
    let head = &creature.head;
    let detail = face_detail(detail);
    let facets = |n: u32| ((n as f32 * detail).round() as u32).max(4);
    let grid = (facets(FACE_GRID.0), facets(FACE_GRID.1));
    // Seen face-on, a coarse ellipsoid's outline is the polygon through its vertices on
    // the meridian (2 × rows sides) and encloses less than the full mesh's: the radii grow
    // to give it the same area (1.0 at full detail, 0.8% at half).
    let area = |sides: u32| {
        let step = std::f32::consts::TAU / sides as f32;
        step.sin() / step
    };
    let swell = (area(2 * FACE_GRID.1) / area(2 * grid.1)).sqrt();
    let mut mesh = Mesh::default();
    for eye in layout.eye_features(head) {
        mesh.append(&oriented_ellipsoid(eye, swell, Material::Eye, true, grid));
    }
    let nose = layout.nose_feature(head);
    mesh.append(&oriented_ellipsoid(
        nose,
        swell,
        Material::Nose,
        false,
        grid,
    ));
    mesh.orient_outward();
    mesh
}

/// The floor's centre on the ground plane (x, z), metres: under the creature.
pub const FLOOR_CENTER: Vec2 = Vec2::new(shaders::FLOOR_CENTER_X, shaders::FLOOR_CENTER_Z);
/// The floor's radius, metres.
pub const FLOOR_RADIUS: f32 = 4.0;
/// Distances from [`FLOOR_CENTER`] over which the floor fades into the background, metres
/// (WGSL `FLOOR_FADE_START`, `FLOOR_FADE_END`, read by `fs_matte`).
pub const FLOOR_FADE: (f32, f32) = (shaders::FLOOR_FADE_START, shaders::FLOOR_FADE_END);

/// The floor the solver keeps strands above: a disc at height `y`, world space, with
/// triangles facing up and down.
///
/// Coarse on purpose: 16 sides and 2 rings, 128 triangles with the underside (the 32 at
/// the centre degenerate). Everything the floor's vertices carry is constant over it or
/// affine in the position, so interpolates exactly (the hand's soft occlusion, which
/// would not, is not applied to the floor: `surface_occlusion` in `surfaces.wgsl`); and
/// the floor has faded into the background (`fs_matte`, [`FLOOR_FADE`]) well
/// inside the 16-gon's inscribed circle, so its edge is never seen. Few triangles on
/// purpose: each costs a CPU rasteriser about as much as a skin triangle, whatever pixels
/// it covers.
pub fn floor(y: f32, center: Vec2, radius: f32) -> Mesh {
    let mut mesh = Mesh::default();
    mesh.add_grid(16, 2, true, |u, v| {
        let phi = u * std::f32::consts::TAU;
        let r = radius * v;
        let p = Vec3::new(center.x + r * phi.cos(), y, center.y + r * phi.sin());
        SurfaceVertex::new(p, Vec3::Y, VertexSpace::World, Material::Floor)
    });
    mesh.orient_outward();
    // Seen from below too (a free camera may go there), shaded the same.
    let underside: Vec<u32> = mesh
        .indices
        .chunks_exact(3)
        .flat_map(|t| [t[0], t[2], t[1]])
        .collect();
    mesh.indices.extend(underside);
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_covers_all_of_it_that_is_seen() {
        // Everything nearer the centre than the fade's end must lie on the floor: there
        // its colour is not yet the background's, so an edge there would show.
        let mesh = floor(0.0, FLOOR_CENTER, FLOOR_RADIUS);
        let corner = |i: u32| {
            let p = mesh.vertices[i as usize].position;
            Vec2::new(p[0], p[2]) - FLOOR_CENTER
        };
        let mut nearest_edge = f32::INFINITY;
        for t in mesh.indices.chunks_exact(3) {
            for k in 0..3 {
                let (a, b) = (corner(t[k]), corner(t[(k + 1) % 3]));
                // An edge on the rim: both ends at the radius.
                if a.length() > 0.99 * FLOOR_RADIUS && b.length() > 0.99 * FLOOR_RADIUS {
                    let mid = (a + b) * 0.5;
                    nearest_edge = nearest_edge.min(mid.length());
                }
            }
        }
        assert!(
            nearest_edge.is_finite() && nearest_edge > FLOOR_FADE.1 * 1.05,
            "the rim comes within {nearest_edge} m of the centre; the floor fades out by {} m",
            FLOOR_FADE.1
        );
        // And it is cheap: a few dozen triangles, not thousands.
        assert!(
            mesh.indices.len() / 3 <= 128,
            "{} triangles",
            mesh.indices.len() / 3
        );
    }

    #[test]
    fn the_face_coarsens_to_half_and_no_further() {
        let creature = Creature::default();
        let layout = FaceLayout::default();
        let triangles = |detail: f32| face(&creature, &layout, detail).indices.len() / 3;
        let full = triangles(1.0);
        assert!(triangles(0.71) < full);
        assert!(triangles(0.5) * 3 < full);
        assert_eq!(triangles(0.35), triangles(0.5));
        assert_eq!(triangles(0.0), triangles(0.5));
        assert_eq!(triangles(f32::NAN), full);
    }
}
