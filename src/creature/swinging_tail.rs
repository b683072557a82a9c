//! `CreatureTail`: the creature's tail swinging under VRM's spring rule as the body moves,
//! with the skinning transforms that carry tail fur along, and a swish (a wag when petted).

use glam::{Affine3A, Quat, Vec3};

use super::rig::creature_spring_rig;
use super::tail_bones::{TAIL_BASE, TailSettings, tail_joint_names, tail_weights};
use super::{Creature, TAIL_BONES};
use crate::spring::{Frame, NodeTransform, SpringError, VrmSpring};

/// Swish frequency, Hz: a relaxed wag.
pub(crate) const SWISH_HZ: f32 = 1.5;
/// How fast the swish amplitude follows [`CreatureTail::set_swish`], per second (it eases in
/// and out instead of snapping).
const SWISH_EASE: f32 = 4.0;

/// The live tail: the creature's skeleton run by [`VrmSpring`] at 60 Hz, its body moved by
/// the caller, the rendered pose interpolated between steps.
#[derive(Debug, Clone)]
pub struct CreatureTail {
    spring: VrmSpring,
    /// Node indices of the tail bones and the end point.
    joints: [usize; TAIL_BONES + 1],
    base: usize,
    base_rest: NodeTransform,
    /// Inverse rest world transform of each tail bone (body at identity).
    rest_inverse: [Affine3A; TAIL_BONES],
    swish_target: f32,
    swish: f32,
    /// The rendered pose, cached after each advance.
    world: Vec<Affine3A>,
    positions: [Vec3; TAIL_BONES + 1],
    skin: [Affine3A; TAIL_BONES],
}

impl CreatureTail {
    /// The tail at rest on the body at rest (body space = world).
    pub fn new(creature: &Creature, settings: TailSettings) -> Result<Self, SpringError> {
        let rig = creature_spring_rig(creature, &settings)?;
        let sk = &rig.skeleton;
        let find = |name: &str| {
            sk.index_of(name)
                .ok_or_else(|| SpringError::BadSkeleton(format!("no node `{name}`")))
        };
        let names = tail_joint_names();
        let mut joints = [0; TAIL_BONES + 1];
        for (slot, name) in joints.iter_mut().zip(&names) {
            *slot = find(name)?;
        }
        let base = find(TAIL_BASE)?;
        let base_rest = sk.nodes()[base].rest;
        let rest = sk.rest_world(Affine3A::IDENTITY);
        let rest_inverse = std::array::from_fn(|i| rest[joints[i]].inverse());
        let spring = VrmSpring::new(rig, Affine3A::IDENTITY)?;
        let mut tail = Self {
            spring,
            joints,
            base,
            base_rest,
            rest_inverse,
            swish_target: 0.0,
            swish: 0.0,
            world: Vec::new(),
            positions: [Vec3::ZERO; TAIL_BONES + 1],
            skin: [Affine3A::IDENTITY; TAIL_BONES],
        };
        tail.refresh();
        Ok(tail)
    }

    /// Advances the tail by a frame of `dt` seconds with the body at `body` (body space to
    /// world; the identity at rest): fixed 1/60 s steps, the body moved across them, the
    /// swish turning the tail's base. Returns the steps taken.
    pub fn advance(&mut self, dt: f32, body: impl Into<Frame>) -> usize {
        let body: Affine3A = body.into().into();
        let (base, rest) = (self.base, self.base_rest);
        let target = self.swish_target;
        let mut swish = self.swish;
        let steps = self.spring.advance_with(dt, body, |spring, time| {
            swish += (target - swish) * (1.0 - (-SWISH_EASE / 60.0).exp());
            let angle = swish * (std::f64::consts::TAU * SWISH_HZ as f64 * time).sin() as f32;
            let turned = NodeTransform {
                rotation: Quat::from_rotation_y(angle) * rest.rotation,
                ..rest
            };
            // The base is not a spring joint, so this cannot fail.
            let _ = spring.set_local(base, turned);
        });
        self.swish = swish;
        self.refresh();
        steps
    }

    /// Puts the tail back at rest under `body`, with no swing and no swish.
    pub fn reset(&mut self, body: impl Into<Frame>) {
        let body: Affine3A = body.into().into();
        let _ = self.spring.set_local(self.base, self.base_rest);
        let _ = self.spring.reset_at(body);
        self.swish = 0.0;
        self.refresh();
    }

    /// Sets the swish: the tail's base turns side to side by up to `amplitude` radians at
    /// 1.5 Hz (the creature wags when petted); 0 stops it. It eases in and out.
    pub fn set_swish(&mut self, amplitude: f32) {
        if amplitude.is_finite() {
            self.swish_target = amplitude.clamp(-1.0, 1.0);
        }
    }

    /// The swish amplitude asked for (the one in effect eases toward it).
    pub fn swish_target(&self) -> f32 {
        self.swish_target
    }

    fn refresh(&mut self) {
        self.world = self.spring.rendered_world();
        for (p, &n) in self.positions.iter_mut().zip(&self.joints) {
            *p = self.world[n].translation.into();
        }
        for i in 0..TAIL_BONES {
            self.skin[i] = self.world[self.joints[i]] * self.rest_inverse[i];
        }
    }

    /// The joints' world positions, root first, the end point last (rendered pose).
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// World frames of the tail bones: origin at the joint, rotation the bone's world
    /// rotation (the identity at rest with the body at rest).
    pub fn bone_frames(&self) -> Vec<Frame> {
        self.joints[..TAIL_BONES]
            .iter()
            .map(|&n| Frame::from_affine(&self.world[n]))
            .collect()
    }

    /// Per tail bone, the transform taking a body-space REST point to where it is now: the
    /// bone's current world transform times the inverse of its rest world transform. With
    /// the body at the identity and no swing, every entry is the identity. Tail fur is
    /// placed with these (see [`Self::deform`]).
    pub fn skinning(&self) -> [Affine3A; TAIL_BONES] {
        self.skin
    }

    /// The tail bones' local rotations, root first, and the identity for the end point.
    pub fn local_rotations(&self) -> Vec<Quat> {
        let local = self.spring.local_transforms();
        self.joints
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                if i < TAIL_BONES {
                    local[n].rotation
                } else {
                    Quat::IDENTITY
                }
            })
            .collect()
    }

    /// Where a body-space rest point on the tail at parameter `t` (0 root, 1 tip) is now:
    /// the blend of the two nearest bones' [`Self::skinning`] transforms, with the exported
    /// mesh's weights (`u = t·TAIL_BONES − 0.5`).
    pub fn deform(&self, rest_point: Vec3, t: f32) -> Vec3 {
        if !t.is_finite() {
            return rest_point;
        }
        let (b, w) = tail_weights(t);
        self.skin[b[0]].transform_point3(rest_point) * w[0]
            + self.skin[b[1]].transform_point3(rest_point) * w[1]
    }

    /// The spring running the tail (the whole creature skeleton).
    pub fn spring(&self) -> &VrmSpring {
        &self.spring
    }
}
