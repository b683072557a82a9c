//! The body as the coat sees it: triangles at rest in metres, each vertex skinned to up to
//! four joints, and the pose that moves them (linear blend skinning, as glTF defines it).

use glam::{Mat4, Vec2, Vec3, Vec4};

/// Joints that move one vertex (glTF's `JOINTS_0` / `WEIGHTS_0`).
pub const JOINTS_PER_VERTEX: usize = 4;

/// A body's surface at rest: one triangle list in the body's fitted frame (metres, +Y up,
/// facing +Z), with what the groom, the solvers and the renderer read from it.
///
/// Every per-vertex array has `positions.len()` entries; `triangles` index into them.
/// An unskinned body has every vertex on joint 0 with weight 1 and one identity joint.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyMesh {
    /// Rest positions, metres.
    pub positions: Vec<Vec3>,
    /// Rest unit normals.
    pub normals: Vec<Vec3>,
    /// Texture coordinates of the base colour (0 where the file has none).
    pub uvs: Vec<Vec2>,
    /// Linear RGBA per vertex: the material's base colour factor times any vertex colour.
    pub colors: Vec<Vec4>,
    /// Joint indices into [`SkinPose::joints`] per vertex.
    pub joints: Vec<[u16; JOINTS_PER_VERTEX]>,
    /// Weights of those joints per vertex, summing to 1.
    pub weights: Vec<[f32; JOINTS_PER_VERTEX]>,
    /// Vertex indices, three per triangle, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
    /// The material each triangle uses (an index into [`BodyMesh::material_names`]).
    pub triangle_materials: Vec<u16>,
    /// Material names as the file gives them ("" for unnamed), for groom masks.
    pub material_names: Vec<String>,
    /// How many joints the skin has (1 for an unskinned body).
    pub joint_count: usize,
    /// Each joint's position in the bind pose, fitted frame (for combing along bones).
    pub joint_positions: Vec<Vec3>,
    /// Each joint's parent joint, `None` for a root of the skeleton.
    pub joint_parents: Vec<Option<u16>>,
    /// The base colour texture, if the material has one (multiply with `colors`).
    pub base_color_texture: Option<BodyTexture>,
}

impl BodyMesh {
    /// The rest pose's vertical extent, metres (0 for a mesh with no finite vertex or no
    /// height).
    pub fn rest_height(&self) -> f32 {
        let (lo, hi) = self
            .positions
            .iter()
            .map(|p| p.y)
            .filter(|y| y.is_finite())
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), y| {
                (lo.min(y), hi.max(y))
            });
        if hi > lo { hi - lo } else { 0.0 }
    }

    /// The joint standing highest at rest (the head, on most animals and people): the
    /// first of the largest height among the finite [`BodyMesh::joint_positions`]; `None`
    /// for a body with none.
    pub fn highest_joint(&self) -> Option<usize> {
        self.joint_positions
            .iter()
            .enumerate()
            .filter(|(_, p)| p.is_finite())
            .fold(None, |best: Option<(usize, f32)>, (j, p)| match best {
                Some((_, y)) if y >= p.y => best,
                _ => Some((j, p.y)),
            })
            .map(|(j, _)| j)
    }
}

/// An RGBA8 texture decoded from the body's file, sRGB-encoded as glTF stores base colour.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyTexture {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Texels row by row from the top (glTF's UV origin), `width * height` of them.
    pub texels: Vec<[u8; 4]>,
}

impl BodyTexture {
    /// The texel nearest `uv`, wrapped (glTF's default sampler repeats), as linear RGBA.
    /// Black where the texture is empty.
    pub fn sample(&self, uv: Vec2) -> Vec4 {
        if self.width == 0 || self.height == 0 || self.texels.is_empty() {
            return Vec4::new(0.0, 0.0, 0.0, 1.0);
        }
        let wrap = |t: f32, n: u32| -> usize {
            let f = if t.is_finite() { t - t.floor() } else { 0.0 };
            ((f * n as f32) as usize).min(n as usize - 1)
        };
        let (x, y) = (wrap(uv.x, self.width), wrap(uv.y, self.height));
        let [r, g, b, a] = self
            .texels
            .get(y * self.width as usize + x)
            .copied()
            .unwrap_or([0, 0, 0, 255]);
        let lin = crate::creature::srgb_to_linear;
        Vec4::new(lin(r), lin(g), lin(b), f32::from(a) / 255.0)
    }
}

/// How a body moves: its skinning matrices at any time. A file's animation implements it;
/// so does a test's body built in code.
pub trait BodyMotion: Send + Sync {
    /// The pose `seconds` after the start (looped by the motion itself where it loops).
    fn pose_at(&self, seconds: f64) -> SkinPose;
}

/// The skinning matrices of one pose: for each joint, bind space → posed space, in the
/// body's fitted frame (glTF's joint world matrix times its inverse bind matrix, conjugated
/// by the fit). A body's positions in [`BodyMesh`] are in the bind pose; the pose its file
/// shows with no animation is one more [`SkinPose`], not necessarily the identity.
#[derive(Clone, Debug, PartialEq)]
pub struct SkinPose {
    /// One matrix per joint, in [`BodyMesh`]'s joint order.
    pub joints: Vec<Mat4>,
}

impl SkinPose {
    /// The bind pose of a skin with `joint_count` joints: every matrix the identity.
    pub fn rest(joint_count: usize) -> Self {
        SkinPose {
            joints: vec![Mat4::IDENTITY; joint_count.max(1)],
        }
    }

    /// The blended skinning matrix of vertex `v` of `mesh` (linear blend skinning). A joint
    /// index past the pose's joints counts as the identity, so a bad index cannot panic.
    pub fn vertex_matrix(&self, mesh: &BodyMesh, v: usize) -> Mat4 {
        let (Some(joints), Some(weights)) = (mesh.joints.get(v), mesh.weights.get(v)) else {
            return Mat4::IDENTITY;
        };
        let mut m = Mat4::ZERO;
        for (j, w) in joints.iter().zip(weights) {
            let joint = self
                .joints
                .get(usize::from(*j))
                .copied()
                .unwrap_or(Mat4::IDENTITY);
            m += joint * *w;
        }
        m
    }

    /// Vertex `v` of `mesh` posed: its position and unit normal.
    pub fn skin_vertex(&self, mesh: &BodyMesh, v: usize) -> (Vec3, Vec3) {
        let m = self.vertex_matrix(mesh, v);
        let p = mesh.positions.get(v).copied().unwrap_or(Vec3::ZERO);
        let n = mesh.normals.get(v).copied().unwrap_or(Vec3::Y);
        (
            m.transform_point3(p),
            m.transform_vector3(n).normalize_or(Vec3::Y),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_vertex(joints: [u16; 4], weights: [f32; 4]) -> BodyMesh {
        BodyMesh {
            positions: vec![Vec3::new(1.0, 0.0, 0.0)],
            normals: vec![Vec3::X],
            uvs: vec![Vec2::ZERO],
            colors: vec![Vec4::ONE],
            joints: vec![joints],
            weights: vec![weights],
            triangles: vec![],
            triangle_materials: vec![],
            material_names: vec![],
            joint_count: 2,
            ..BodyMesh::default()
        }
    }

    #[test]
    fn half_weights_blend_two_translations() {
        let mesh = one_vertex([0, 1, 0, 0], [0.5, 0.5, 0.0, 0.0]);
        let pose = SkinPose {
            joints: vec![
                Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0)),
                Mat4::from_translation(Vec3::new(0.0, 0.0, 4.0)),
            ],
        };
        let (p, n) = pose.skin_vertex(&mesh, 0);
        assert!((p - Vec3::new(1.0, 1.0, 2.0)).length() < 1e-6, "{p}");
        assert!((n - Vec3::X).length() < 1e-6, "{n}");
    }

    #[test]
    fn a_joint_past_the_pose_counts_as_identity() {
        let mesh = one_vertex([9, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]);
        let pose = SkinPose {
            joints: vec![Mat4::from_translation(Vec3::Y)],
        };
        let (p, _) = pose.skin_vertex(&mesh, 0);
        assert!((p - Vec3::new(1.0, 0.0, 0.0)).length() < 1e-6, "{p}");
    }
}
