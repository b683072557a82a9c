//! A skinned body built in code: an upright tube on two bones that bends at its middle, with
//! a two-colour base colour texture. Tests, benches and examples grow fur on it without a
//! file, so the skinned path is exercised exactly as a file's body would be.

use super::{BodyMesh, BodyMotion, BodyTexture, SkinPose};
use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

/// The shape of a [`skinned_cylinder`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CylinderSpec {
    /// Radius, metres.
    pub radius: f32,
    /// Height, metres: the tube runs from `base` up by this much.
    pub height: f32,
    /// Height of its bottom rim, metres.
    pub base: f32,
    /// Vertices around.
    pub segments: u32,
    /// Rings of vertices from bottom to top (at least 2).
    pub rings: u32,
    /// The largest bend of the upper bone, radians (about +X).
    pub bend: f32,
    /// Seconds of one back-and-forth bend.
    pub period: f64,
}

impl Default for CylinderSpec {
    fn default() -> Self {
        CylinderSpec {
            radius: 0.15,
            height: 1.0,
            base: -0.6,
            segments: 32,
            rings: 25,
            bend: 0.7,
            period: 2.0,
        }
    }
}

/// The cylinder's motion: the upper bone swings back and forth about its joint at mid
/// height, `bend · sin(2π t / period)` about +X; the lower bone stays put.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CylinderBend {
    pivot: Vec3,
    bend: f32,
    period: f64,
}

impl BodyMotion for CylinderBend {
    fn pose_at(&self, seconds: f64) -> SkinPose {
        let phase = (std::f64::consts::TAU * seconds / self.period.max(1e-6)).sin();
        let angle = self.bend * phase as f32;
        let upper = Mat4::from_translation(self.pivot)
            * Mat4::from_quat(Quat::from_rotation_x(angle))
            * Mat4::from_translation(-self.pivot);
        SkinPose {
            joints: vec![Mat4::IDENTITY, upper],
        }
    }
}

/// The colours of the cylinder's texture: its upper half (v < 0.5) and its lower half,
/// sRGB bytes.
pub const CYLINDER_COLORS: [[u8; 4]; 2] = [[214, 120, 40, 255], [70, 110, 200, 255]];

/// An upright open tube of `spec`'s size on two joints (0 at its bottom rim, 1 at mid
/// height, child of 0), its vertices weighted from joint 0 below a quarter of its height
/// to joint 1 above three quarters, linearly between; UVs run around (u) and from the top
/// down (v), over a texture whose upper half is [`CYLINDER_COLORS`]`[0]` and lower half
/// `[1]`. Returns the mesh and the motion that bends it.
pub fn skinned_cylinder(spec: &CylinderSpec) -> (BodyMesh, CylinderBend) {
    let segments = spec.segments.max(3);
    let rings = spec.rings.max(2);
    let mut mesh = BodyMesh {
        joint_count: 2,
        joint_positions: vec![
            Vec3::new(0.0, spec.base, 0.0),
            Vec3::new(0.0, spec.base + spec.height * 0.5, 0.0),
        ],
        joint_parents: vec![None, Some(0)],
        material_names: vec!["skin".into()],
        base_color_texture: Some(BodyTexture {
            width: 2,
            height: 2,
            texels: vec![
                CYLINDER_COLORS[0],
                CYLINDER_COLORS[0],
                CYLINDER_COLORS[1],
                CYLINDER_COLORS[1],
            ],
        }),
        ..BodyMesh::default()
    };
    // One extra column repeats the first, so the UVs close around without a jump.
    let columns = segments + 1;
    for r in 0..rings {
        let s = r as f32 / (rings - 1) as f32;
        let y = spec.base + spec.height * s;
        let upper = ((s - 0.25) / 0.5).clamp(0.0, 1.0);
        for c in 0..columns {
            let a = std::f32::consts::TAU * (c % segments) as f32 / segments as f32;
            let normal = Vec3::new(a.sin(), 0.0, a.cos());
            mesh.positions
                .push(Vec3::new(0.0, y, 0.0) + normal * spec.radius);
            mesh.normals.push(normal);
            mesh.uvs
                .push(Vec2::new(c as f32 / segments as f32, 1.0 - s));
            mesh.colors.push(Vec4::ONE);
            mesh.joints.push([0, 1, 0, 0]);
            mesh.weights.push([1.0 - upper, upper, 0.0, 0.0]);
        }
    }
    for r in 0..rings - 1 {
        for c in 0..segments {
            let a = r * columns + c;
            let b = a + 1;
            let (d, e) = (a + columns, b + columns);
            // Counter-clockwise seen from outside (+normal).
            mesh.triangles.push([a, b, e]);
            mesh.triangles.push([a, e, d]);
        }
    }
    mesh.triangle_materials = vec![0; mesh.triangles.len()];
    let motion = CylinderBend {
        pivot: mesh.joint_positions[1],
        bend: spec.bend,
        period: spec.period,
    };
    (mesh, motion)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangles_face_outward_and_weights_sum_to_one() {
        let (mesh, _) = skinned_cylinder(&CylinderSpec::default());
        for t in &mesh.triangles {
            let [a, b, c] = t.map(|i| mesh.positions[i as usize]);
            let n = (b - a).cross(c - a);
            let centre = (a + b + c) / 3.0;
            let out = Vec3::new(centre.x, 0.0, centre.z);
            assert!(n.dot(out) > 0.0, "triangle {t:?} faces inward");
        }
        for w in &mesh.weights {
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn the_bend_moves_the_top_and_not_the_bottom() {
        let spec = CylinderSpec::default();
        let (mesh, motion) = skinned_cylinder(&spec);
        let pose = motion.pose_at(spec.period / 4.0);
        let (bottom, _) = pose.skin_vertex(&mesh, 0);
        let top = mesh.positions.len() - 1;
        let (moved, _) = pose.skin_vertex(&mesh, top);
        assert!((bottom - mesh.positions[0]).length() < 1e-6);
        assert!((moved - mesh.positions[top]).length() > 0.1 * spec.height);
    }
}
