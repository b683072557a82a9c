//! Where the face sits on the head: the eyes and the nose, as directions from the head's
//! centre, and the small ellipsoids that stand out of the head there. The renderer draws
//! them, the exported file carries them as meshes of their own, and the groom keeps the fur
//! around them short.

use super::RadialHead;
use glam::Vec3;

/// The eyes' base colour, linear RGB: the renderer's `albedo_of` for `MATERIAL_EYE` in
/// `shaders/surfaces.wgsl` (the exported file's "eyes" material carries it).
pub const EYE_COLOR: [f32; 3] = [0.012, 0.009, 0.006];
/// The nose's base colour, linear RGB: the renderer's `albedo_of` for `MATERIAL_NOSE`.
pub const NOSE_COLOR: [f32; 3] = [0.30, 0.09, 0.10];

/// The face's features on the radial head.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceLayout {
    /// Left and right eye: unit directions from the head's centre.
    pub eyes: [Vec3; 2],
    /// The nose, at the front of the muzzle: a unit direction from the head's centre.
    pub nose: Vec3,
}

impl Default for FaceLayout {
    fn default() -> Self {
        FaceLayout {
            eyes: [
                Vec3::new(0.36, 0.16, 0.92).normalize(),
                Vec3::new(-0.36, 0.16, 0.92).normalize(),
            ],
            nose: Vec3::new(0.0, -0.2, 1.0).normalize(),
        }
    }
}

/// One feature of the face: an ellipsoid in head space, its "out" axis along the head's
/// normal where it sits and its "up" axis as near head-up as that allows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceFeature {
    /// The ellipsoid's centre, head-local.
    pub center: Vec3,
    /// Unit direction of its "out" axis.
    pub out: Vec3,
    /// Radii along right, up and out.
    pub radii: Vec3,
}

impl FaceFeature {
    /// The point and the (unnormalised) outward normal at `d`, a unit direction in the
    /// ellipsoid's own axes (x right, y up, z out).
    pub fn at(&self, d: Vec3) -> (Vec3, Vec3) {
        let out = self.out.normalize_or(Vec3::Z);
        let right = Vec3::Y.cross(out).normalize_or(Vec3::X);
        let up = out.cross(right);
        let r = self.radii;
        let local = Vec3::new(d.x * r.x, d.y * r.y, d.z * r.z);
        let p = self.center + right * local.x + up * local.y + out * local.z;
        let ln = Vec3::new(d.x / r.x, d.y / r.y, d.z / r.z);
        (p, right * ln.x + up * ln.y + out * ln.z)
    }
}

impl FaceLayout {
    /// How close head direction `u` is to an eye: 1 at an eye's centre, falling to 1/e
    /// about 12° away.
    pub fn eye_weight(&self, u: Vec3) -> f32 {
        self.eyes
            .iter()
            .map(|e| ((u.dot(*e) - 1.0) / 0.022).exp())
            .fold(0.0, f32::max)
    }

    /// The two eyes on `head`: just off the skin, taller than wide, flat toward the front.
    pub fn eye_features(&self, head: &RadialHead) -> [FaceFeature; 2] {
        self.eyes.map(|dir| {
            let s = head.surface(dir);
            FaceFeature {
                center: s.position + s.normal * 0.012,
                out: s.normal,
                radii: Vec3::new(0.042, 0.046, 0.026),
            }
        })
    }

    /// The nose on `head`: wider than tall, at the front of the muzzle.
    pub fn nose_feature(&self, head: &RadialHead) -> FaceFeature {
        let s = head.surface(self.nose);
        FaceFeature {
            center: s.position + s.normal * 0.03,
            out: s.normal,
            radii: Vec3::new(0.034, 0.022, 0.022),
        }
    }
}
