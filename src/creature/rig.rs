//! The creature's rig: a skeleton over the analytic body (hips, spine, chest, neck, head,
//! four legs, a swishable tail base and the tail bones), the tail as a spring under VRM's
//! rule ([`crate::spring::VrmSpring`]) meeting the body as a capsule collider, and the
//! humanoid map: with the skinned mesh, the rigged body ([`RiggedBody`]) that
//! `pelt export` writes ([`crate::vrm::creature_glb`]).
//!
//! What swings on screen is what the file carries: the live tail
//! ([`super::CreatureTail`]) runs this rig's spring, the `VRMC_springBone` rule itself, so
//! the exported creature's tail moves in three-vrm as it does here.

use glam::Vec3;

use super::skinned_mesh::creature_mesh;
use super::tail_bones::{TAIL_BASE, TailSettings, tail_joint_names};
use super::{Creature, TAIL_BONES};
use crate::rigged::{Avatar, AvatarMeta, HUMAN_BONES, RiggedBody};
use crate::spring::{
    ChainEnd, NodeTransform, Skeleton, SkeletonNode, SpringError, SpringRig, VrmChain, VrmCollider,
    VrmColliderGroup, VrmColliderShape, VrmJoint, VrmSpringRig,
};

/// Name of the skeleton's root node: the creature's body space.
pub const ROOT_NODE: &str = "creature";
/// Name of the body bone the tail hangs from (the humanoid's hips).
pub const BODY_BONE: &str = "hips";

/// A node of the layout: name, parent's name, rest position in body space.
struct Placed {
    name: String,
    parent: Option<String>,
    at: Vec3,
}

fn placed(name: &str, parent: Option<&str>, at: Vec3) -> Placed {
    Placed {
        name: name.into(),
        parent: parent.map(String::from),
        at,
    }
}

/// Where the skeleton's nodes sit at rest, derived from the creature's shapes.
fn layout(creature: &Creature) -> Vec<Placed> {
    let body = &creature.body;
    let (c, r) = (body.center, body.radii);
    let hips = c + Vec3::new(0.0, 0.0, -0.5 * r.z);
    let chest = c + Vec3::new(0.0, 0.05 * r.y, 0.5 * r.z);
    let head = creature.head_pivot;
    let mut nodes = vec![
        placed(ROOT_NODE, None, Vec3::ZERO),
        placed(BODY_BONE, Some(ROOT_NODE), hips),
        placed("spine", Some(BODY_BONE), c),
        placed("chest", Some("spine"), chest),
        placed("neck", Some("chest"), chest.lerp(head, 0.5)),
        placed("head", Some("neck"), head),
    ];
    // Legs: from under the body down to each paw's centre. Front legs are the humanoid's
    // arms, hind legs its legs; left is +X (the creature faces +Z).
    for (side, kind, paw) in [
        ("left", "Arm", 0),
        ("right", "Arm", 1),
        ("left", "Leg", 2),
        ("right", "Leg", 3),
    ] {
        let p = creature.paws[paw].center;
        let top = Vec3::new(p.x, c.y - 0.3 * r.y, p.z);
        let (parent, end) = if kind == "Arm" {
            ("chest", "Hand")
        } else {
            (BODY_BONE, "Foot")
        };
        let upper = format!("{side}Upper{kind}");
        let lower = format!("{side}Lower{kind}");
        nodes.push(placed(&upper, Some(parent), top));
        nodes.push(placed(&lower, Some(&upper), top.lerp(p, 0.6)));
        nodes.push(placed(&format!("{side}{end}"), Some(&lower), p));
    }
    let tail = &creature.tail;
    nodes.push(placed(TAIL_BASE, Some(BODY_BONE), tail.centerline(0.0)));
    let mut parent = TAIL_BASE.to_string();
    for (i, name) in tail_joint_names().into_iter().enumerate() {
        let p = tail.centerline(i as f32 / TAIL_BONES as f32);
        nodes.push(placed(&name, Some(&parent), p));
        parent = name;
    }
    nodes
}

/// The creature's skeleton, every rest rotation the identity: root, hips, spine, chest,
/// neck, head, three bones per leg, the tail base, the tail bones and the tail's end.
pub fn creature_skeleton(creature: &Creature) -> Result<Skeleton, SpringError> {
    let nodes = layout(creature);
    let index = |name: &str| nodes.iter().position(|n| n.name == name);
    let mut out = Vec::with_capacity(nodes.len());
    for n in &nodes {
        let p = n.parent.as_deref().and_then(index);
        let base = p.map_or(Vec3::ZERO, |p| nodes[p].at);
        out.push(SkeletonNode {
            name: n.name.clone(),
            parent: p,
            rest: NodeTransform::from_translation(n.at - base),
        });
    }
    Skeleton::new(out)
}

/// The body as one capsule along its long (Z) axis, on the hips, slightly inside the
/// ellipsoid so the tail's root does not start in contact.
pub fn body_collider(creature: &Creature, skeleton: &Skeleton) -> VrmCollider {
    let r = creature.body.radii;
    let radius = r.x.min(r.y) * 0.9;
    let half = (r.z - radius).max(0.0);
    let hips = skeleton.index_of(BODY_BONE).unwrap_or(0);
    let hips_at = Vec3::from(skeleton.rest_world(glam::Affine3A::IDENTITY)[hips].translation);
    let center = creature.body.center - hips_at;
    VrmCollider {
        node: hips,
        shape: VrmColliderShape::capsule(
            center + Vec3::new(0.0, 0.0, -half),
            center + Vec3::new(0.0, 0.0, half),
            radius,
        ),
    }
}

/// The creature's springs: the tail chain (per-bone `settings`) meeting the body collider.
pub fn creature_spring_rig(
    creature: &Creature,
    settings: &TailSettings,
) -> Result<VrmSpringRig, SpringError> {
    let skeleton = creature_skeleton(creature)?;
    let names = tail_joint_names();
    let node = |name: &str| {
        skeleton
            .index_of(name)
            .ok_or_else(|| SpringError::BadSkeleton(format!("no node `{name}`")))
    };
    let mut joints = Vec::with_capacity(TAIL_BONES);
    for (i, name) in names[..TAIL_BONES].iter().enumerate() {
        joints.push(VrmJoint {
            node: node(name)?,
            stiffness: settings.stiffness[i],
            gravity_power: settings.gravity_power[i],
            gravity_dir: Vec3::NEG_Y,
            drag_force: settings.drag_force[i],
            hit_radius: settings.hit_radius[i],
        });
    }
    let end = ChainEnd::Node(node(&names[TAIL_BONES])?);
    let collider = body_collider(creature, &skeleton);
    let rig = VrmSpringRig {
        skeleton,
        chains: vec![VrmChain {
            name: "tail".into(),
            joints,
            end,
            collider_groups: vec![0],
            center: None,
        }],
        colliders: vec![collider],
        groups: vec![VrmColliderGroup {
            name: "body".into(),
            colliders: vec![0],
        }],
    };
    rig.validate()?;
    Ok(rig)
}

/// The humanoid map: every human bone the skeleton has a node of (its bones are named as
/// the humanoid names them; front legs are the arms, hind legs the legs).
pub fn creature_humanoid(skeleton: &Skeleton) -> Vec<(String, usize)> {
    HUMAN_BONES
        .iter()
        .filter_map(|(b, _)| skeleton.index_of(b).map(|n| (b.to_string(), n)))
        .collect()
}

/// What `pelt export` writes: the options of the creature's rigged body.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CreatureExport {
    /// Seed recorded in the body's generator string (the rig itself has no random part).
    pub seed: u64,
    /// Also describe the avatar (meta and humanoid), which makes the file a full VRM 1.0.
    pub vrm: bool,
    /// The tail's spring parameters.
    pub tail: TailSettings,
}

impl Default for CreatureExport {
    fn default() -> Self {
        Self {
            seed: 1,
            vrm: false,
            tail: TailSettings::default(),
        }
    }
}

/// The creature's rigged body: skeleton, tail spring, skinned mesh and, with `options.vrm`,
/// the avatar description.
pub fn creature_body(
    creature: &Creature,
    options: &CreatureExport,
) -> Result<RiggedBody, SpringError> {
    let springs = creature_spring_rig(creature, &options.tail)?;
    let mesh = creature_mesh(creature, &springs.skeleton);
    let avatar = options.vrm.then(|| Avatar {
        meta: AvatarMeta::pelt("Pelt creature"),
        humanoid: creature_humanoid(&springs.skeleton),
    });
    Ok(RiggedBody {
        springs,
        chains: SpringRig::default(),
        mesh: Some(mesh),
        avatar,
        generator: format!("pelt {} (seed {})", env!("CARGO_PKG_VERSION"), options.seed),
    })
}
