//! The creature's tail as a [`SpringChain`] hanging from the body bone, with the body as a
//! capsule collider, so what swings in the demo is what the exported file carries.

use glam::{Quat, Vec3};

use super::{
    ChainSpec, Collider, ColliderGroup, ColliderShape, Frame, JointSpec, SpringChain, SpringError,
    SpringRig, SpringSettings, WorldCollider,
};
use crate::creature::Creature;

/// Real bones in the tail; one end point follows them.
pub const TAIL_BONES: usize = 5;
/// Name of the body bone the tail hangs from.
pub const BODY_BONE: &str = "body";

/// Names of the tail's joints, root first, the end point last.
pub fn tail_joint_names() -> Vec<String> {
    (0..TAIL_BONES)
        .map(|i| format!("tail_{i}"))
        .chain(std::iter::once("tail_end".to_string()))
        .collect()
}

/// The body bone's frame at rest (body-local equals world at rest).
pub fn body_rest_frame(creature: &Creature) -> Frame {
    Frame::from_translation(creature.body.center)
}

/// The tail chain: joints sampled evenly along the tail's centerline (`TAIL_BONES` bones
/// plus the end point), offsets in the body bone's frame.
pub fn tail_chain_spec(creature: &Creature, settings: SpringSettings) -> ChainSpec {
    let names = tail_joint_names();
    let mut prev = creature.body.center;
    let joints = names
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let p = creature.tail.centerline(i as f32 / TAIL_BONES as f32);
            let offset = p - prev;
            prev = p;
            JointSpec { name, offset }
        })
        .collect();
    ChainSpec {
        name: "tail".into(),
        anchor: BODY_BONE.into(),
        joints,
        settings,
        collider_groups: vec![0],
    }
}

/// The body as one capsule along its long (Z) axis, on the body bone, slightly inside the
/// ellipsoid so the tail's root does not start in contact.
pub fn body_collider(creature: &Creature) -> Collider {
    let r = creature.body.radii;
    let radius = r.x.min(r.y) * 0.9;
    let half = (r.z - radius).max(0.0);
    Collider {
        bone: BODY_BONE.into(),
        shape: ColliderShape::Capsule {
            offset: Vec3::new(0.0, 0.0, -half),
            tail: Vec3::new(0.0, 0.0, half),
            radius,
        },
    }
}

/// The creature's springs: the tail chain meeting the body collider group.
pub fn creature_spring_rig(creature: &Creature, settings: SpringSettings) -> SpringRig {
    SpringRig {
        chains: vec![tail_chain_spec(creature, settings)],
        colliders: vec![body_collider(creature)],
        groups: vec![ColliderGroup {
            name: "body".into(),
            colliders: vec![0],
        }],
    }
}

/// The live tail: a chain driven by the body's frame, colliding with the body.
#[derive(Debug, Clone)]
pub struct CreatureTail {
    chain: SpringChain,
    body: Collider,
    rest: Vec<Vec3>,
}

impl CreatureTail {
    /// The tail at rest on the body at rest.
    pub fn new(creature: &Creature, settings: SpringSettings) -> Result<Self, SpringError> {
        let chain = SpringChain::new(
            tail_chain_spec(creature, settings),
            body_rest_frame(creature),
        )?;
        let rest = chain.positions().to_vec();
        Ok(Self {
            chain,
            body: body_collider(creature),
            rest,
        })
    }

    /// Advances the tail by a frame of `dt` seconds with the body bone at `body` (world).
    pub fn advance(&mut self, dt: f32, body: Frame) -> usize {
        let colliders: [WorldCollider; 1] = [self.body.shape.to_world(&body)];
        self.chain.advance(dt, body, &colliders)
    }

    /// The joints' world positions, root first.
    pub fn positions(&self) -> &[Vec3] {
        self.chain.positions()
    }

    /// The tail bones' local rotations (see [`SpringChain::local_rotations`]).
    pub fn local_rotations(&self) -> Vec<Quat> {
        self.chain.local_rotations()
    }

    /// The underlying chain.
    pub fn chain(&self) -> &SpringChain {
        &self.chain
    }

    /// World frames of the tail bones `0..TAIL_BONES`: origin at the joint, rotation the
    /// bone's world rotation (the identity at rest, where body-local equals world).
    pub fn bone_frames(&self) -> Vec<Frame> {
        let mut world = self.chain.anchor().rotation;
        self.chain
            .local_rotations()
            .into_iter()
            .zip(self.chain.positions())
            .take(TAIL_BONES)
            .map(|(local, &p)| {
                world = (world * local).normalize();
                Frame {
                    rotation: world,
                    translation: p,
                }
            })
            .collect()
    }

    /// Where a body-local rest point on the tail at parameter `t` (0 root, 1 tip) is now:
    /// skinned to the two nearest bones with the same weights as the exported mesh, so fur
    /// on the tail follows the swing.
    pub fn deform(&self, rest_point: Vec3, t: f32) -> Vec3 {
        let frames = self.bone_frames();
        if frames.len() < TAIL_BONES || !t.is_finite() {
            return rest_point;
        }
        let skin = |b: usize| frames[b].point(rest_point - self.rest[b]);
        let u = t.clamp(0.0, 1.0) * TAIL_BONES as f32 - 0.5;
        if u <= 0.0 {
            skin(0)
        } else if u >= (TAIL_BONES - 1) as f32 {
            skin(TAIL_BONES - 1)
        } else {
            let b = u.floor() as usize;
            let f = u - b as f32;
            skin(b) * (1.0 - f) + skin(b + 1) * f
        }
    }
}
