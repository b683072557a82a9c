//! The tail's bones: their names in the skeleton, the spring parameters each carries (in
//! VRM's own terms, so what is tuned is what the file carries), and which bones a point of
//! the tail follows (the weights of the exported mesh and of tail fur alike).

use super::TAIL_BONES;

/// Name of the node between the body and the tail's first bone; turning it swishes the tail.
pub const TAIL_BASE: &str = "tail_base";

/// Names of the tail's joints, root first, the end point last.
pub fn tail_joint_names() -> Vec<String> {
    (0..TAIL_BONES)
        .map(|i| format!("tail_{i}"))
        .chain(std::iter::once("tail_end".to_string()))
        .collect()
}

/// The tail's spring parameters, per bone (root first), in VRM's own terms: what is tuned
/// here is what the file carries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TailSettings {
    /// `stiffness` of each bone, metres per second back toward its rest direction.
    pub stiffness: [f32; TAIL_BONES],
    /// `gravityPower` of each bone, metres per second downward.
    pub gravity_power: [f32; TAIL_BONES],
    /// `dragForce` of each bone: fraction of the motion lost per 1/60 s step.
    pub drag_force: [f32; TAIL_BONES],
    /// `hitRadius` of each bone's tail against the body, metres.
    pub hit_radius: [f32; TAIL_BONES],
}

impl Default for TailSettings {
    /// A lively tail: stiff at the root, looser toward the tip, light drag so a swing
    /// carries through a few back-and-forths, gravity that sags the curl by a few
    /// centimetres. See `tests/spring_creature_tail.rs` for what these numbers do.
    fn default() -> Self {
        Self {
            stiffness: [4.0, 3.5, 2.9, 2.4, 1.9],
            gravity_power: [0.2; TAIL_BONES],
            drag_force: [0.1; TAIL_BONES],
            hit_radius: [0.05, 0.045, 0.04, 0.035, 0.03],
        }
    }
}

impl TailSettings {
    /// The same parameters on every bone.
    pub fn uniform(stiffness: f32, gravity_power: f32, drag_force: f32, hit_radius: f32) -> Self {
        Self {
            stiffness: [stiffness; TAIL_BONES],
            gravity_power: [gravity_power; TAIL_BONES],
            drag_force: [drag_force; TAIL_BONES],
            hit_radius: [hit_radius; TAIL_BONES],
        }
    }
}

/// The blend of tail bones a point at tail parameter `t` follows: `u = t·TAIL_BONES − 0.5`,
/// bone 0 below `u = 0`, the last bone above `u = TAIL_BONES − 1`, else the two around it.
pub(crate) fn tail_weights(t: f32) -> ([usize; 2], [f32; 2]) {
    let u = t.clamp(0.0, 1.0) * TAIL_BONES as f32 - 0.5;
    if u <= 0.0 {
        ([0, 0], [1.0, 0.0])
    } else if u >= (TAIL_BONES - 1) as f32 {
        ([TAIL_BONES - 1, 0], [1.0, 0.0])
    } else {
        let b = u.floor();
        let f = u - b;
        ([b as usize, b as usize + 1], [1.0 - f, f])
    }
}
