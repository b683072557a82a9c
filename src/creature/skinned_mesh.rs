//! The creature's skinned mesh for its file: the body ellipsoid on the spine, the head's
//! radial surface on the head, the paws on the hands and feet, and a tube around the tail's
//! centreline skinned to the two nearest tail bones (the weights tail fur follows too).
//! The surfaces are tessellated by [`super::tessellation`], in the exported layout.

use super::pattern::pattern_at;
use super::tail_bones::tail_weights;
use super::tessellation::{GridLayout, GridSize, tessellate_part};
use super::{Creature, Part, TAIL_BONES};
use crate::rigged::SkinnedMesh;
use crate::spring::Skeleton;

/// The body's and the head's grids (16 around, 12 from pole to pole).
const TRUNK_GRID: GridSize = GridSize::new(16, 12);
/// Each paw's grid.
const PAW_GRID: GridSize = GridSize::new(8, 6);
/// The tail tube's grid (12 around, 30 rings from root to tip).
const TAIL_GRID: GridSize = GridSize::new(12, 30);

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
    mesh
}
