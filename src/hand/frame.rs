//! The hand's frame on the fur: where its origin sits and which ways are thumb, up and
//! fingers, built from a target, a normal and a stroke direction that may be degenerate.

use glam::Vec3;

/// An orthonormal frame: `side × up = forward` (right-handed), origin on the palm's
/// underside. See [`super::HandDimensions`] for the hand-local axes it maps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandFrame {
    /// The origin, world space.
    pub origin: Vec3,
    /// Hand-local +x: toward the thumb.
    pub side: Vec3,
    /// Hand-local +y: away from the fur.
    pub up: Vec3,
    /// Hand-local +z: along the fingers.
    pub forward: Vec3,
}

impl HandFrame {
    /// The frame at `origin` with `up` along `normal` and `forward` along `forward_hint`
    /// made perpendicular to it. Degenerate input falls back instead of producing NaN: a
    /// zero or non-finite normal takes `previous`'s up (else +Y), a forward hint along the
    /// normal or zero takes `previous`'s forward (else any perpendicular), and a
    /// non-finite origin takes `previous`'s (else the world origin).
    pub fn new(
        origin: Vec3,
        normal: Vec3,
        forward_hint: Vec3,
        previous: Option<&HandFrame>,
    ) -> Self {
        let up = unit(normal).or(previous.map(|p| p.up)).unwrap_or(Vec3::Y);
        let in_plane = |v: Vec3| unit(v - up * v.dot(up));
        let forward = in_plane(forward_hint)
            .or_else(|| previous.and_then(|p| in_plane(p.forward)))
            .unwrap_or_else(|| up.any_orthonormal_vector());
        let origin = if origin.is_finite() {
            origin
        } else {
            previous.map_or(Vec3::ZERO, |p| p.origin)
        };
        HandFrame {
            origin,
            side: up.cross(forward),
            up,
            forward,
        }
    }

    /// A hand-local point in world space.
    pub fn point(&self, local: Vec3) -> Vec3 {
        self.origin + self.direction(local)
    }

    /// A hand-local direction in world space.
    pub fn direction(&self, local: Vec3) -> Vec3 {
        self.side * local.x + self.up * local.y + self.forward * local.z
    }

    /// A world point's hand-local coordinates.
    pub fn local_point(&self, world: Vec3) -> Vec3 {
        let d = world - self.origin;
        Vec3::new(d.dot(self.side), d.dot(self.up), d.dot(self.forward))
    }
}

/// `v` normalised, or `None` when it is too short or not finite to have a direction.
fn unit(v: Vec3) -> Option<Vec3> {
    let len = v.length();
    (len.is_finite() && len > 1e-6).then(|| v / len)
}
