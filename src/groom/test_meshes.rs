//! Small bodies for the groom's unit tests: octahedra, wound outward, in one-bone meshes.

use crate::body::BodyMesh;
use glam::{Vec2, Vec3, Vec4};

/// An octahedron of `radius` about `centre`, wound outward, its vertices from `first`.
pub fn octahedron(
    radius: f32,
    centre: Vec3,
    first: u32,
    positions: &mut Vec<Vec3>,
    triangles: &mut Vec<[u32; 3]>,
) {
    let r = radius;
    positions.extend(
        [
            Vec3::new(r, 0.0, 0.0),
            Vec3::new(-r, 0.0, 0.0),
            Vec3::new(0.0, r, 0.0),
            Vec3::new(0.0, -r, 0.0),
            Vec3::new(0.0, 0.0, r),
            Vec3::new(0.0, 0.0, -r),
        ]
        .map(|p| p + centre),
    );
    for [a, b, c] in [
        [0, 2, 4],
        [2, 1, 4],
        [1, 3, 4],
        [3, 0, 4],
        [2, 0, 5],
        [1, 2, 5],
        [3, 1, 5],
        [0, 3, 5],
    ] {
        triangles.push([first + a, first + b, first + c]);
    }
}

/// A box from `min` to `max`, wound outward, its vertices from `first`.
pub fn cuboid(
    min: Vec3,
    max: Vec3,
    first: u32,
    positions: &mut Vec<Vec3>,
    triangles: &mut Vec<[u32; 3]>,
) {
    for k in 0..8 {
        positions.push(Vec3::new(
            if k & 1 == 0 { min.x } else { max.x },
            if k & 2 == 0 { min.y } else { max.y },
            if k & 4 == 0 { min.z } else { max.z },
        ));
    }
    let faces = [
        [0, 2, 3, 1], // -z
        [4, 5, 7, 6], // +z
        [0, 1, 5, 4], // -y
        [2, 6, 7, 3], // +y
        [0, 4, 6, 2], // -x
        [1, 3, 7, 5], // +x
    ];
    for [a, b, c, d] in faces {
        for t in [[a, b, c], [a, c, d]] {
            triangles.push(t.map(|i| first + i));
        }
    }
}

/// A one-bone body of `positions` and `triangles`, each vertex normal the mean of its
/// faces' (by their winding).
pub fn mesh(positions: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> BodyMesh {
    let n = positions.len();
    let mut normals = vec![Vec3::ZERO; n];
    for t in &triangles {
        let [a, b, c] = t.map(|v| positions[v as usize]);
        let face = (b - a).cross(c - a).normalize_or_zero();
        for &v in t {
            normals[v as usize] += face;
        }
    }
    BodyMesh {
        normals: normals.iter().map(|v| v.normalize_or_zero()).collect(),
        uvs: vec![Vec2::ZERO; n],
        colors: vec![Vec4::ONE; n],
        joints: vec![[0; 4]; n],
        weights: vec![[1.0, 0.0, 0.0, 0.0]; n],
        triangle_materials: vec![0; triangles.len()],
        material_names: vec!["skin".into()],
        joint_count: 1,
        joint_positions: vec![Vec3::ZERO],
        joint_parents: vec![None],
        base_color_texture: None,
        positions,
        triangles,
    }
}
