//! A body of the user's as the hand's target: its mesh posed at the coat's time, for the
//! pointer's rays and the fingers' probes. Posing skins every vertex, so it happens only
//! when a ray or the hand needs the pose of a new time, not on every step of an idle hand.

use crate::body::{BodyHit, BodyRays};
use crate::creature::Ray;
use crate::sim::FurBody;

/// A body and its triangles posed for rays.
#[derive(Clone)]
pub struct BodyTarget {
    body: FurBody,
    rays: BodyRays,
    /// The time the rays are posed at (`None`: not yet posed).
    posed_at: Option<f64>,
    /// The time asked for, seconds of the body's motion.
    time: f64,
}

impl std::fmt::Debug for BodyTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BodyTarget")
            .field("body", &self.body)
            .field("time", &self.time)
            .field("posed_at", &self.posed_at)
            .finish()
    }
}

impl BodyTarget {
    /// `body`, to be posed at the start of its motion.
    pub fn new(body: FurBody) -> Self {
        BodyTarget {
            rays: BodyRays::new(&body.mesh),
            body,
            posed_at: None,
            time: 0.0,
        }
    }

    /// The body's motion time the next rays see (a time that is not finite is ignored).
    pub fn set_time(&mut self, seconds: f64) {
        if seconds.is_finite() {
            self.time = seconds;
        }
    }

    /// Poses the triangles at the time asked for, unless they already are.
    pub fn pose(&mut self) {
        if self.posed_at != Some(self.time) {
            let pose = self.body.motion.pose_at(self.time);
            self.rays.set_pose(&self.body.mesh, &pose);
            self.posed_at = Some(self.time);
        }
    }

    /// The nearest hit of `ray` at the time asked for.
    pub fn raycast(&mut self, ray: &Ray) -> Option<BodyHit> {
        self.pose();
        self.rays.raycast(ray)
    }

    /// The triangles as last posed.
    pub fn rays(&self) -> &BodyRays {
        &self.rays
    }

    /// The body.
    pub fn body(&self) -> &FurBody {
        &self.body
    }
}
