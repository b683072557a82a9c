//! The fit: one uniform scale, a turn and a shift that stand the body as its file shows it
//! (the rest pose, no animation) `height` metres tall, feet at y = 0, centred on the y axis
//! in x and z. glTF's unit is the metre, but bodies come at any scale (a sample fox is 79
//! units tall). VRM 0.x avatars face −Z; they are turned half a turn about +Y to face +Z, as
//! VRM 1.0 avatars and Pelt's creature do.

use glam::{Mat4, Quat, Vec3};

/// How a body was fitted: fitted = translation + scale × turn × file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyFit {
    /// Metres per file unit.
    pub scale: f32,
    /// Whether the body was turned half a turn about +Y (a VRM 0.x avatar).
    pub turned: bool,
    /// The shift after scaling and turning, metres.
    pub translation: Vec3,
    /// The rest pose's height in the file's units.
    pub file_height: f32,
}

impl BodyFit {
    /// Fits points of the rest pose (file units) to `height` metres.
    pub fn new(
        rest_points: impl Iterator<Item = Vec3>,
        height: f32,
        turned: bool,
    ) -> Result<BodyFit, String> {
        let turn = turn(turned);
        let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for p in rest_points {
            let p = turn * p;
            lo = lo.min(p);
            hi = hi.max(p);
        }
        let file_height = hi.y - lo.y;
        if !(file_height.is_finite() && file_height > 0.0 && lo.is_finite() && hi.is_finite()) {
            return Err(
                "its rest pose has no height (every vertex at one level, or none finite), so it cannot be fitted to a height"
                    .into(),
            );
        }
        let scale = height / file_height;
        if !(scale.is_finite() && scale > 0.0) {
            return Err(format!(
                "its rest pose is {file_height} units tall, which cannot be scaled to {height} m"
            ));
        }
        let centre = (lo + hi) * 0.5 * scale;
        Ok(BodyFit {
            scale,
            turned,
            translation: Vec3::new(-centre.x, -lo.y * scale, -centre.z),
            file_height,
        })
    }

    /// The fit as a matrix: file space → fitted frame.
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(
            Vec3::splat(self.scale),
            turn(self.turned),
            self.translation,
        )
    }

    /// The inverse: fitted frame → file space. Composed from the parts rather than
    /// inverted through a determinant (the scale cubed), which overflows or vanishes in f32
    /// for a body far from a metre in its file's units.
    pub fn inverse(&self) -> Mat4 {
        Mat4::from_scale(Vec3::splat(self.scale.recip()))
            * Mat4::from_quat(turn(self.turned).inverse())
            * Mat4::from_translation(-self.translation)
    }
}

/// Half a turn about +Y, or none.
fn turn(turned: bool) -> Quat {
    if turned {
        Quat::from_rotation_y(std::f32::consts::PI)
    } else {
        Quat::IDENTITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_is_scaled_to_height_and_stood_on_the_floor() {
        let points = [Vec3::new(2.0, 10.0, 4.0), Vec3::new(6.0, 30.0, 8.0)];
        let fit = BodyFit::new(points.into_iter(), 1.5, false).unwrap();
        let m = fit.matrix();
        let (a, b) = (m.transform_point3(points[0]), m.transform_point3(points[1]));
        assert!((a - Vec3::new(-0.15, 0.0, -0.15)).length() < 1e-6, "{a}");
        assert!((b - Vec3::new(0.15, 1.5, 0.15)).length() < 1e-6, "{b}");
    }

    #[test]
    fn a_turned_body_faces_the_other_way() {
        let points = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.0, 2.0, -1.0)];
        let fit = BodyFit::new(points.into_iter(), 2.0, true).unwrap();
        let nose = fit.matrix().transform_point3(points[1]);
        assert!(nose.z > 0.4, "{nose}");
    }

    #[test]
    fn a_flat_body_cannot_be_fitted() {
        let points = [Vec3::ZERO, Vec3::X];
        assert!(BodyFit::new(points.into_iter(), 1.0, false).is_err());
    }
}
