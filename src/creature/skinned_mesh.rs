//! The creature's skinned mesh for its file: the body ellipsoid on the spine, the head's
//! radial surface on the head, the paws on the hands and feet, and a tube around the tail's
//! centreline skinned to the two nearest tail bones (the weights tail fur follows too).
//! The surfaces are tessellated by [`super::tessellation`], in the exported layout. The
//! eyes and the nose are parts of their own (materials "eyes" and "nose", skinned to the
//! head), so a reader can tell them from the coat and leave them bare.

use super::face::{EYE_COLOR, FaceFeature, FaceLayout, NOSE_COLOR};
use super::pattern::pattern_at;
use super::tail_bones::tail_weights;
use super::tessellation::{
    GridLayout, GridSize, Seam, Winding, add_grid, sphere_direction, tessellate_part,
};
use super::{Creature, Part, TAIL_BONES};
use crate::rigged::{MeshPart, SkinnedMesh};
use crate::spring::Skeleton;
use glam::Vec3;

/// The body's and the head's grids (16 around, 12 from pole to pole).
const TRUNK_GRID: GridSize = GridSize::new(16, 12);
/// Each paw's grid.
const PAW_GRID: GridSize = GridSize::new(8, 6);
/// The tail tube's grid (12 around, 30 rings from root to tip).
const TAIL_GRID: GridSize = GridSize::new(12, 30);
/// Each eye's and the nose's grid (24 around, 12 from pole to pole).
const FACE_GRID: GridSize = GridSize::new(24, 12);

/// The creature's mesh, skinned to `skeleton`'s nodes (see [`super::creature_skeleton`]).
pub(super) fn creature_mesh(creature: &Creature, skeleton: &Skeleton) -> SkinnedMesh {
    let node = |name: &str| skeleton.index_of(name).unwrap_or(0) as u16;
    // The pattern is carried per vertex (COLOR_0), so the factor is white: a reader
    // multiplies the two.
    let mut mesh = SkinnedMesh {
        color: [1.0; 4],
        ..Default::default()
    };
    let paws = ["leftHand", "rightHand", "leftFoot", "rightFoot"];
    let tail: Vec<u16> = (0..TAIL_BONES)
        .map(|i| node(&format!("tail_{i}")))
        .collect();
    let parts = [(Part::Body, TRUNK_GRID), (Part::Head, TRUNK_GRID)]
        .into_iter()
        .chain((0..4).map(|i| (Part::Paw(i), PAW_GRID)))
        .chain([(Part::Tail, TAIL_GRID)]);
    for (part, grid) in parts {
        let bone = match part {
            Part::Body => node("spine"),
            Part::Head => node("head"),
            Part::Paw(i) => node(paws[usize::from(i.min(3))]),
            Part::Tail => 0,
        };
        let SkinnedMesh {
            positions,
            normals,
            joints,
            weights,
            indices,
            colors,
            ..
        } = &mut mesh;
        tessellate_part(
            creature,
            part,
            grid,
            GridLayout::Exported,
            positions,
            indices,
            |s| {
                normals.push(s.normal);
                // The coat's pattern where the vertex lies: its part's space before the
                // head moves onto its pivot, as the groom reads it at a root.
                colors.push(
                    pattern_at(creature, part, s.position, s.normal, s.tail_t)
                        .color()
                        .extend(1.0)
                        .to_array(),
                );
                if part == Part::Tail {
                    let (j, w) = tail_weights(s.tail_t);
                    // An unused slot names node 0: the validator flags a real joint with no
                    // weight.
                    let second = if w[1] > 0.0 { tail[j[1]] } else { 0 };
                    joints.push([tail[j[0]], second, 0, 0]);
                    weights.push([w[0], w[1], 0.0, 0.0]);
                } else {
                    joints.push([bone, 0, 0, 0]);
                    weights.push([1.0, 0.0, 0.0, 0.0]);
                }
                // The file is in body space: the head's surface moves onto its pivot.
                match part {
                    Part::Head => creature.head_pivot + s.position,
                    _ => s.position,
                }
            },
        );
    }
    let layout = FaceLayout::default();
    let head = node("head");
    let [left, right] = layout.eye_features(&creature.head);
    let eyes = [left, right].map(|e| face_part(creature, &e, head));
    mesh.parts.push(joined("eyes", EYE_COLOR, &eyes));
    let nose = face_part(creature, &layout.nose_feature(&creature.head), head);
    mesh.parts.push(joined("nose", NOSE_COLOR, &[nose]));
    mesh
}

/// A face feature's ellipsoid in body space at rest (where the file puts the head's
/// surface), every vertex on the head bone, its triangles wound outward.
fn face_part(creature: &Creature, feature: &FaceFeature, head: u16) -> MeshPart {
    let mut part = MeshPart::default();
    let mut normals = Vec::new();
    add_grid(
        &mut part.positions,
        &mut part.indices,
        FACE_GRID,
        Seam::Shared,
        Winding::RowFirst,
        |c, r| {
            let d = sphere_direction(
                c as f32 / FACE_GRID.columns as f32,
                r as f32 / FACE_GRID.rows as f32,
            );
            let (p, n) = feature.at(d);
            normals.push(n.normalize_or(Vec3::Z));
            creature.head_pivot + p
        },
    );
    for t in part.indices.chunks_exact_mut(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| i as usize);
        let p = &part.positions;
        let facing = (p[b] - p[a]).cross(p[c] - p[a]);
        if facing.dot(normals[a] + normals[b] + normals[c]) < 0.0 {
            t.swap(1, 2);
        }
    }
    let n = part.positions.len();
    part.normals = normals;
    part.joints = vec![[head, 0, 0, 0]; n];
    part.weights = vec![[1.0, 0.0, 0.0, 0.0]; n];
    part
}

/// `pieces` as one part with material `name` and linear base colour `color`.
fn joined(name: &str, color: [f32; 3], pieces: &[MeshPart]) -> MeshPart {
    let mut out = MeshPart {
        material: name.into(),
        color: [color[0], color[1], color[2], 1.0],
        ..MeshPart::default()
    };
    for p in pieces {
        let base = out.positions.len() as u32;
        out.positions.extend_from_slice(&p.positions);
        out.normals.extend_from_slice(&p.normals);
        out.joints.extend_from_slice(&p.joints);
        out.weights.extend_from_slice(&p.weights);
        out.indices.extend(p.indices.iter().map(|i| i + base));
    }
    out
}
