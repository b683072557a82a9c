//! What the USD stage holds, gathered from the groom and the posed creature: each strand's
//! colour, root normal and random value, the tapering widths, and the skin in world space,
//! placed by the same transforms the renderer and the solver use.

use super::{CoatCurves, SkinMesh};
use crate::creature::{
    Creature, CreaturePose, GpuCreaturePose, Space, place_direction, place_point, root_transform,
};
use crate::groom::{Pattern, StrandRoot};
use crate::render::RenderSettings;
use crate::render::mesh::{VertexSpace, creature_skin};
use crate::sim::POINTS_PER_STRAND;
use glam::Vec3;

/// The coat's linear colour for pattern channels as the GPU reads them (each a byte, so
/// quantised to 1/255), mixed as the renderer's `coat_color` in `shaders/frame.wgsl`.
pub fn coat_color(pattern: &Pattern) -> Vec3 {
    pattern.color()
}

/// Each strand's colour, world root normal under `pose`, and random value, with the
/// renderer's widths (`settings.root_width` at the root, tapering linearly to
/// `settings.tip_width` of it at the tip).
pub fn coat_curves(
    roots: &[StrandRoot],
    pose: &CreaturePose,
    settings: &RenderSettings,
) -> CoatCurves {
    let gpu_pose = GpuCreaturePose::from(pose);
    let last = (POINTS_PER_STRAND - 1) as f32;
    let widths = std::array::from_fn(|i| {
        let t = i as f32 / last;
        settings.root_width * (1.0 + (settings.tip_width - 1.0) * t)
    });
    CoatCurves {
        colors: roots.iter().map(|r| coat_color(&r.pattern)).collect(),
        root_normals: roots
            .iter()
            .map(|r| place_direction(&root_transform(&gpu_pose, r.space(), r.tail_t), r.normal))
            .collect(),
        random: roots.iter().map(|r| r.random).collect(),
        widths,
    }
}

/// The creature's skin (`detail` 1 is the renderer's tessellation) posed by `pose`, in
/// world space, coloured by the coat pattern.
pub fn skin_mesh(creature: &Creature, pose: &CreaturePose, detail: f32) -> SkinMesh {
    let mesh = creature_skin(creature, detail);
    let gpu_pose = GpuCreaturePose::from(pose);
    let mut skin = SkinMesh {
        indices: mesh.indices,
        ..SkinMesh::default()
    };
    for v in &mesh.vertices {
        let space = match v.space_material & 0xff {
            s if s == VertexSpace::Head as u32 => Space::Head,
            s if s == VertexSpace::Tail as u32 => Space::Tail,
            _ => Space::Body,
        };
        let m = root_transform(&gpu_pose, space, v.tail_t);
        skin.points.push(place_point(&m, Vec3::from(v.position)));
        skin.normals.push(place_direction(&m, Vec3::from(v.normal)));
        let [cream, stripe, ear_tip, blush] = v.pattern.map(|b| f32::from(b) / 255.0);
        skin.colors.push(coat_color(&Pattern {
            cream,
            stripe,
            ear_tip,
            blush,
        }));
    }
    skin
}
