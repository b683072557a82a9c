//! `SpringChain`: an anchored Verlet chain stepped at a fixed 120 Hz (seed 000's model).
//!
//! Per step: velocity (from the last step's motion) kept at `1 − damping` per second,
//! gravity added as an acceleration, each point pulled toward its rest place (the rest pose
//! bent from the anchor's frame) by a fraction `1 − e^(−stiffness·h)` that grows with
//! `stiffness`, then exact segment lengths, collisions, exact lengths again.

use glam::{Quat, Vec3};

use super::verlet::VerletStep;
use super::{Frame, SpringError, WorldCollider, check_finite, check_range};

/// Fixed simulation rate of spring chains, steps per second.
pub const STEP_HZ: f32 = 120.0;
/// Longest frame time `advance` accepts; longer frames (a hitch, a breakpoint) are clipped
/// so a spike cannot inject a burst of steps.
pub const MAX_FRAME_DT: f32 = 0.1;

/// Parameters of a chain, in our model's units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringSettings {
    /// Pull toward the rest pose, per second: each step moves a point the fraction
    /// `1 − e^(−stiffness/120)` of the way to its rest place. 0 = limp.
    pub stiffness: f32,
    /// Fraction of velocity lost per second, in `[0, 1]`.
    pub damping: f32,
    /// Gravity as an acceleration, m/s².
    pub gravity: Vec3,
    /// Radius of the chain's points for collisions, metres (VRM's `hitRadius`).
    pub radius: f32,
}

impl Default for SpringSettings {
    /// The creature's tail: a soft spring that droops and swings.
    fn default() -> Self {
        Self {
            stiffness: 2.0,
            damping: 0.8,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            radius: 0.02,
        }
    }
}

impl SpringSettings {
    /// Checks every parameter is finite and in range.
    pub fn validate(&self) -> Result<(), SpringError> {
        check_range(
            "stiffness",
            self.stiffness,
            0.0,
            1.0e5,
            "use 0 (limp) up to about 100 (stiff)",
        )?;
        check_range(
            "damping",
            self.damping,
            0.0,
            1.0,
            "use a fraction in [0, 1]",
        )?;
        check_finite("gravity", self.gravity)?;
        check_range(
            "radius",
            self.radius,
            0.0,
            1.0e3,
            "use a radius >= 0 in metres",
        )
    }

    /// The fraction of the way to its rest place a point moves in one step of `h` seconds.
    pub fn pull_fraction(&self, h: f32) -> f32 {
        1.0 - (-self.stiffness * h).exp()
    }

    /// The factor velocity keeps over one step of `h` seconds.
    pub fn velocity_keep(&self, h: f32) -> f32 {
        (1.0 - self.damping).max(0.0).powf(h)
    }
}

/// One joint of a chain at rest.
#[derive(Debug, Clone, PartialEq)]
pub struct JointSpec {
    /// Name of the bone (glTF node).
    pub name: String,
    /// Rest offset from the previous joint (for joint 0: from the anchor's origin), in the
    /// anchor's frame. Rest rotations are the identity, so this is also the node's
    /// translation in the file.
    pub offset: Vec3,
}

/// A chain as described in a file: which bones, where at rest, how springy.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainSpec {
    /// Name of the chain.
    pub name: String,
    /// Name of the bone the chain hangs from (the parent of joint 0).
    pub anchor: String,
    /// Joints from root to tip. Joint 0 follows the anchor rigidly; the last one is the end
    /// point (the tail of the last real bone).
    pub joints: Vec<JointSpec>,
    /// Spring parameters.
    pub settings: SpringSettings,
    /// Indices of the collider groups this chain meets.
    pub collider_groups: Vec<usize>,
}

impl ChainSpec {
    /// Checks the chain is usable: two joints or more, no zero segment, finite numbers.
    pub fn validate(&self) -> Result<(), SpringError> {
        if self.joints.len() < 2 {
            return Err(SpringError::TooFewJoints(
                self.name.clone(),
                self.joints.len(),
            ));
        }
        self.settings.validate()?;
        for (i, j) in self.joints.iter().enumerate() {
            check_finite("joint offset", j.offset)?;
            if i > 0 && j.offset.length() <= 1.0e-6 {
                return Err(SpringError::ZeroSegment(self.name.clone(), i));
            }
        }
        Ok(())
    }

    /// Rest positions of the joints in the anchor's frame.
    pub fn rest_positions(&self) -> Vec<Vec3> {
        let mut acc = Vec3::ZERO;
        self.joints
            .iter()
            .map(|j| {
                acc += j.offset;
                acc
            })
            .collect()
    }

    /// Segment lengths (`len[i]` joins joint `i − 1` to joint `i`; `len[0]` is 0).
    pub fn segment_lengths(&self) -> Vec<f32> {
        self.joints
            .iter()
            .enumerate()
            .map(|(i, j)| if i == 0 { 0.0 } else { j.offset.length() })
            .collect()
    }
}

/// A live chain: its description plus the state of its points.
#[derive(Debug, Clone)]
pub struct SpringChain {
    spec: ChainSpec,
    rest: Vec<Vec3>,
    lengths: Vec<f32>,
    pos: Vec<Vec3>,
    prev: Vec<Vec3>,
    anchor: Frame,
    accumulator: f32,
}

impl SpringChain {
    /// Length of one step, seconds.
    pub const STEP: f32 = 1.0 / STEP_HZ;

    /// A chain at rest under `anchor`.
    pub fn new(spec: ChainSpec, anchor: Frame) -> Result<Self, SpringError> {
        spec.validate()?;
        if !anchor.is_finite() {
            return Err(SpringError::BadParameter {
                what: "anchor frame".into(),
                value: f32::NAN,
                hint: "must be finite",
            });
        }
        let rest = spec.rest_positions();
        let lengths = spec.segment_lengths();
        let pos: Vec<Vec3> = rest.iter().map(|&r| anchor.point(r)).collect();
        Ok(Self {
            spec,
            rest,
            lengths,
            prev: pos.clone(),
            pos,
            anchor,
            accumulator: 0.0,
        })
    }

    /// The description the chain was made from.
    pub fn spec(&self) -> &ChainSpec {
        &self.spec
    }

    /// Changes the spring parameters (validated) without touching the state.
    pub fn set_settings(&mut self, settings: SpringSettings) -> Result<(), SpringError> {
        settings.validate()?;
        self.spec.settings = settings;
        Ok(())
    }

    /// World positions of the joints, root first.
    pub fn positions(&self) -> &[Vec3] {
        &self.pos
    }

    /// Overwrites the joint positions (e.g. to start from a pose); velocities become zero.
    /// Lengths are re-imposed from the anchored root. Non-finite input is ignored.
    pub fn set_positions(&mut self, positions: &[Vec3]) {
        if positions.len() != self.pos.len() || positions.iter().any(|p| !p.is_finite()) {
            return;
        }
        self.pos.copy_from_slice(positions);
        self.pos[0] = self.anchor.point(self.rest[0]);
        self.keep_lengths(&self.anchor.clone());
        self.prev.copy_from_slice(&self.pos);
    }

    /// Velocities of the joints over the last step, m/s.
    pub fn velocities(&self) -> Vec<Vec3> {
        self.pos
            .iter()
            .zip(&self.prev)
            .map(|(p, q)| (*p - *q) * STEP_HZ)
            .collect()
    }

    /// The anchor frame of the last step.
    pub fn anchor(&self) -> Frame {
        self.anchor
    }

    /// Rest positions of the joints in world space under the current anchor.
    pub fn rest_world(&self) -> Vec<Vec3> {
        self.rest.iter().map(|&r| self.anchor.point(r)).collect()
    }

    /// Puts the chain back at rest under `anchor`, with no velocity.
    pub fn reset(&mut self, anchor: Frame) {
        if !anchor.is_finite() {
            return;
        }
        self.anchor = anchor;
        for (i, r) in self.rest.iter().enumerate() {
            self.pos[i] = anchor.point(*r);
        }
        self.prev.copy_from_slice(&self.pos);
        self.accumulator = 0.0;
    }

    /// Advances by a frame of `dt` seconds: as many fixed 120 Hz steps as the accumulator
    /// holds (the frame time is clipped to [`MAX_FRAME_DT`]), moving the anchor from its
    /// last frame to `anchor` across them. Returns the number of steps taken. A non-finite
    /// `dt` or anchor takes no step.
    pub fn advance(&mut self, dt: f32, anchor: Frame, colliders: &[WorldCollider]) -> usize {
        if !dt.is_finite() || dt <= 0.0 || !anchor.is_finite() {
            return 0;
        }
        self.accumulator += dt.min(MAX_FRAME_DT);
        let steps = (self.accumulator * STEP_HZ + 1.0e-4).floor() as usize;
        if steps == 0 {
            return 0;
        }
        self.accumulator = (self.accumulator - steps as f32 * Self::STEP).max(0.0);
        let from = self.anchor;
        for s in 0..steps {
            let frame = from.lerp(&anchor, (s + 1) as f32 / steps as f32);
            self.step(frame, colliders);
        }
        steps
    }

    /// One fixed step of 1/120 s with the anchor at `anchor`.
    pub fn step(&mut self, anchor: Frame, colliders: &[WorldCollider]) {
        if !anchor.is_finite() {
            return;
        }
        let s = self.spec.settings;
        self.anchor = anchor;
        VerletStep::new(&s, Self::STEP).advance(&anchor, &self.rest, &mut self.pos, &mut self.prev);
        self.keep_lengths(&anchor);
        if !colliders.is_empty() {
            let r = s.radius;
            for i in 1..self.pos.len() {
                for c in colliders {
                    if let Some(q) = c.push_out(self.pos[i], r) {
                        self.pos[i] = q;
                    }
                }
            }
            self.keep_lengths(&anchor);
        }
    }

    /// Puts each joint at its exact rest distance from the one before, along the current
    /// direction (the rest direction when the two coincide).
    fn keep_lengths(&mut self, anchor: &Frame) {
        for i in 1..self.pos.len() {
            let fallback = anchor
                .vector(self.spec.joints[i].offset)
                .normalize_or(Vec3::NEG_Y);
            let dir = (self.pos[i] - self.pos[i - 1]).normalize_or(fallback);
            self.pos[i] = self.pos[i - 1] + dir * self.lengths[i];
        }
    }

    /// Local rotations of joints `0..n−1` that bend the rest pose onto the current points:
    /// joint 0 relative to the anchor, each next joint relative to the one before. The end
    /// point (last joint) has no rotation of its own and gets the identity.
    pub fn local_rotations(&self) -> Vec<Quat> {
        let n = self.pos.len();
        let mut out = Vec::with_capacity(n);
        let mut parent_world = self.anchor.rotation;
        for i in 0..n {
            if i + 1 == n {
                out.push(Quat::IDENTITY);
                break;
            }
            let rest_dir = (parent_world * self.spec.joints[i + 1].offset).normalize_or_zero();
            let cur_dir = (self.pos[i + 1] - self.pos[i]).normalize_or_zero();
            let swing = if rest_dir == Vec3::ZERO || cur_dir == Vec3::ZERO {
                Quat::IDENTITY
            } else {
                Quat::from_rotation_arc(rest_dir, cur_dir)
            };
            let world = (swing * parent_world).normalize();
            out.push((parent_world.inverse() * world).normalize());
            parent_world = world;
        }
        out
    }
}
