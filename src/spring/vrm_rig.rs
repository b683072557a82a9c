//! `VrmSpringRig`: springs in VRM's own terms, as `VRMC_springBone` 1.0 (and VRM 0.x's
//! `secondaryAnimation`) describe them: chains of joints on the nodes of a [`Skeleton`],
//! each joint with its own stiffness, gravity, drag and hit radius, the colliders on nodes
//! and the groups springs meet them by. [`super::VrmSpring`] runs it.

use std::collections::HashMap;

use glam::Vec3;

use super::{Skeleton, SpringError, VrmColliderShape, check_finite, check_range};

/// Length of the tail VRM 0.x gives a leaf bone, metres (along the bone's own offset).
pub const VIRTUAL_TAIL_LENGTH: f32 = 0.07;
/// Most joints one chain may have.
pub const MAX_CHAIN_JOINTS: usize = 1024;
/// Most chains, colliders or collider groups a rig may have.
pub const MAX_RIG_ITEMS: usize = 4096;

/// One swinging joint: a node and the VRM parameters of the bone from it to the next joint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VrmJoint {
    /// The node this joint rotates.
    pub node: usize,
    /// `stiffness`: metres per second the tail is pushed back toward its rest direction.
    pub stiffness: f32,
    /// `gravityPower`: metres per second the tail is pushed along `gravity_dir`.
    pub gravity_power: f32,
    /// `gravityDir`, world space (used as written: three-vrm does not normalise it).
    pub gravity_dir: Vec3,
    /// `dragForce`: fraction of last frame's motion lost each frame, in `[0, 1]`.
    pub drag_force: f32,
    /// `hitRadius`: radius of the tail's sphere against colliders, metres.
    pub hit_radius: f32,
}

impl VrmJoint {
    /// A joint on `node` with the specification's default parameters (stiffness 1, no
    /// gravity, drag 0.5, hit radius 0).
    pub fn new(node: usize) -> Self {
        Self {
            node,
            stiffness: 1.0,
            gravity_power: 0.0,
            gravity_dir: Vec3::NEG_Y,
            drag_force: 0.5,
            hit_radius: 0.0,
        }
    }

    /// Checks every parameter is finite and within the specification's range.
    pub fn validate(&self) -> Result<(), SpringError> {
        check_range(
            "stiffness",
            self.stiffness,
            0.0,
            1.0e6,
            "use 0 (limp) or more",
        )?;
        check_range(
            "gravityPower",
            self.gravity_power,
            0.0,
            1.0e6,
            "use 0 or more; turn gravityDir to change the direction",
        )?;
        check_finite("gravityDir", self.gravity_dir)?;
        check_range(
            "dragForce",
            self.drag_force,
            0.0,
            1.0,
            "use a fraction in [0, 1]",
        )?;
        check_range(
            "hitRadius",
            self.hit_radius,
            0.0,
            1.0e6,
            "use a radius >= 0",
        )
    }
}

/// Where a chain's last bone points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainEnd {
    /// A node (VRM 1.0: the last entry of `joints`, whose parameters are not used).
    Node(usize),
    /// VRM 0.x's virtual tail: [`VIRTUAL_TAIL_LENGTH`] along the last bone's own rest
    /// translation, in its local frame.
    Virtual,
}

/// One spring: joints root to tip, each a strict descendant of the one before.
#[derive(Debug, Clone, PartialEq)]
pub struct VrmChain {
    /// Name.
    pub name: String,
    /// The swinging joints, root first (at least one).
    pub joints: Vec<VrmJoint>,
    /// What the last joint's bone points at.
    pub end: ChainEnd,
    /// Indices of the collider groups this chain meets, in order (the order colliders are
    /// applied in).
    pub collider_groups: Vec<usize>,
    /// The node whose space inertia is computed in (`center`), or `None` for world space.
    pub center: Option<usize>,
}

impl VrmChain {
    /// The node each joint's bone points at: the next joint's node, then the end.
    pub fn child_of(&self, k: usize) -> Option<usize> {
        match self.joints.get(k + 1) {
            Some(j) => Some(j.node),
            None => match self.end {
                ChainEnd::Node(n) => Some(n),
                ChainEnd::Virtual => None,
            },
        }
    }
}

/// A collider on a node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VrmCollider {
    /// The node carrying it.
    pub node: usize,
    /// Its shape in the node's frame.
    pub shape: VrmColliderShape,
}

/// A named set of colliders that springs refer to.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VrmColliderGroup {
    /// Name.
    pub name: String,
    /// Indices into the rig's colliders.
    pub colliders: Vec<usize>,
}

/// A skeleton with VRM springs, colliders and collider groups.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VrmSpringRig {
    /// The nodes the springs and colliders live on.
    pub skeleton: Skeleton,
    /// The springs, in file order.
    pub chains: Vec<VrmChain>,
    /// The colliders.
    pub colliders: Vec<VrmCollider>,
    /// The collider groups.
    pub groups: Vec<VrmColliderGroup>,
}

impl VrmSpringRig {
    /// Checks the rig can run: node and group indices in range, every joint a strict
    /// descendant of the one before, parameters in range, invertible transforms on the
    /// nodes springs read, and no node in two chains (the specification forbids it, skipped
    /// nodes between joints included). The specification also wants `center` to be the
    /// first joint or one of its ancestors; three-vrm runs any center, and so does Pelt
    /// (the readers note one that is not).
    pub fn validate(&self) -> Result<(), SpringError> {
        let nodes = self.skeleton.len();
        let in_range = |what: String, i: usize, len: usize| {
            if i < len {
                Ok(())
            } else {
                Err(SpringError::IndexOutOfRange(what, i, len))
            }
        };
        for (what, n, max) in [
            ("chains", self.chains.len(), MAX_RIG_ITEMS),
            ("colliders", self.colliders.len(), MAX_RIG_ITEMS),
            ("collider groups", self.groups.len(), MAX_RIG_ITEMS),
        ] {
            if n > max {
                return Err(SpringError::TooMany(what, n, max));
            }
        }
        for (i, c) in self.colliders.iter().enumerate() {
            in_range(format!("collider {i} node"), c.node, nodes)?;
            c.shape.validate()?;
        }
        for g in &self.groups {
            for &c in &g.colliders {
                in_range(
                    format!("collider group `{}`", g.name),
                    c,
                    self.colliders.len(),
                )?;
            }
        }
        let mut owner: HashMap<usize, usize> = HashMap::new();
        for (ci, chain) in self.chains.iter().enumerate() {
            let name = &chain.name;
            if chain.joints.is_empty() {
                return Err(SpringError::TooFewJoints(name.clone(), 0));
            }
            if chain.joints.len() > MAX_CHAIN_JOINTS {
                return Err(SpringError::TooMany(
                    "joints in one chain",
                    chain.joints.len(),
                    MAX_CHAIN_JOINTS,
                ));
            }
            for &g in &chain.collider_groups {
                in_range(
                    format!("chain `{name}` collider group"),
                    g,
                    self.groups.len(),
                )?;
            }
            for j in &chain.joints {
                in_range(format!("chain `{name}` joint node"), j.node, nodes)?;
                j.validate()?;
            }
            if let ChainEnd::Node(end) = chain.end {
                in_range(format!("chain `{name}` end node"), end, nodes)?;
            }
            // Each joint's child must hang strictly below it.
            let mut path = vec![chain.joints[0].node];
            for k in 0..chain.joints.len() {
                let bone = chain.joints[k].node;
                // (A virtual tail along a zero translation has no direction; the bone then
                // keeps its rest rotation, as in three-vrm.)
                if let Some(child) = chain.child_of(k) {
                    let Some(p) = self.skeleton.path(bone, child).filter(|p| p.len() > 1) else {
                        return Err(SpringError::JointOrder(name.clone(), k + 1, k));
                    };
                    path.extend_from_slice(&p[1..]);
                }
            }
            for n in path {
                if let Some(&other) = owner.get(&n) {
                    return Err(SpringError::SharedJoint {
                        node: self.skeleton.nodes()[n].name.clone(),
                        first: self.chains[other].name.clone(),
                        second: name.clone(),
                    });
                }
                owner.insert(n, ci);
            }
            if let Some(c) = chain.center {
                in_range(format!("chain `{name}` center"), c, nodes)?;
            }
        }
        // Every node a spring reads must have an invertible, finite transform: finite nodes
        // can still overflow f32 once composed (two translations of 3e38 place a child at
        // infinity), and the springs would then write inf and NaN as positions.
        let world = self.skeleton.rest_world(glam::Affine3A::IDENTITY);
        let singular = |n: usize| world[n].matrix3.determinant().abs() < 1.0e-12;
        let overflows =
            |n: usize| !(world[n].is_finite() && world[n].matrix3.determinant().is_finite());
        let used = self.chains.iter().flat_map(|c| {
            c.joints
                .iter()
                .flat_map(|j| [Some(j.node), self.skeleton.parent(j.node)])
                .chain([c.center])
                .flatten()
        });
        for n in used.chain(self.colliders.iter().map(|c| c.node)) {
            if singular(n) {
                return Err(SpringError::BadSkeleton(format!(
                    "node `{}` has a zero scale (or one above it has); springs and colliders need invertible transforms",
                    self.skeleton.nodes()[n].name
                )));
            }
            if overflows(n) {
                return Err(SpringError::BadSkeleton(format!(
                    "node `{}` lies beyond f32's range once its parents' transforms are applied \
                     (a translation or scale too large); springs and colliders need finite transforms",
                    self.skeleton.nodes()[n].name
                )));
            }
        }
        Ok(())
    }

    /// Number of swinging joints over all chains.
    pub fn joint_count(&self) -> usize {
        self.chains.iter().map(|c| c.joints.len()).sum()
    }

    /// The joint–collider tests one step makes (what [`super::VrmSpring::collider_tests_per_step`]
    /// counts once built): each chain's joints times the colliders of the groups it names, a
    /// group named twice counted twice, a group that does not exist counting nothing. Check
    /// it before building the springs: building lists every joint's colliders, so a chain
    /// naming a big group thousands of times would allocate that whole list first.
    pub fn collider_tests_per_step(&self) -> u64 {
        self.chains
            .iter()
            .map(|chain| {
                let per_joint = chain
                    .collider_groups
                    .iter()
                    .map(|&g| self.groups.get(g).map_or(0, |g| g.colliders.len() as u64))
                    .fold(0u64, u64::saturating_add);
                per_joint.saturating_mul(chain.joints.len() as u64)
            })
            .fold(0, u64::saturating_add)
    }
}
