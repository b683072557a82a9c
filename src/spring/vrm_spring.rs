//! `VrmSpring`: the `VRMC_springBone` 1.0 update rule itself, stepped at a fixed 60 Hz.
//!
//! Each joint, root to tip, once a step:
//! 1. its bone's world transform from its parent's CURRENT world transform and its own
//!    last rotation; the bone length from there to its child's world position as that was
//!    last computed (three-vrm measures it so: the child's matrix is refreshed only after
//!    the joint's own update, so while the chain moves the length is a frame behind);
//! 2. the tail: `current + (current − previous)·(1 − dragForce)` (in `center` space, then
//!    to world), plus `stiffness·dt` along the rest axis turned by the parent's current
//!    rotation, plus `gravityPower·dt` along `gravityDir` (world, as written);
//! 3. put back at the bone length from the bone's head; then each collider of each of the
//!    chain's groups, in order, pushes it out (or in, for the inside shapes) and it is put
//!    back at the bone length again;
//! 4. the bone's rotation: its rest rotation times the shortest arc from its rest axis to
//!    the tail seen from its parent's current frame and its rest transform.
//!
//! The rule is frame-rate dependent (drag and gravity act per frame), and 60 frames a
//! second is where VRM tools agree: so `VrmSpring` always steps 1/60 s, accumulating the
//! caller's frame times, and the rendered pose is interpolated between the last two steps.
//! Driven at 60 fps it matches three-vrm 3.5 (`VRMSpringBoneManager.update`) to a few
//! micrometres per joint; `tests/vrm-conformance/` checks each rule to 0.05 mm.
//!
//! The bone length is the one place where VRM tools differ, so it is a choice
//! ([`BoneLength`]): three-vrm, driven by its usual loop (move the model, then `update`),
//! measures it every step against the child's last world position (step 1), while the
//! specification's reference implementation, UniVRM and Godot's VRM keep the rest pose's
//! length. The default is three-vrm's. It matters: the creature's tail under the two rules
//! moved up to 0.3 m apart during a quick turn. (A host that calls three-vrm's
//! `scene.updateMatrixWorld()` between moving the model and `update` gets neither rule:
//! each joint below another spring joint is then measured against its child's place from
//! before its parent turned that frame.)

use glam::{Affine3A, Quat, Vec3};

use super::{ChainEnd, NodeTransform, SpringError, VrmColliderShape, VrmJoint, VrmSpringRig};

/// Steps per second of [`VrmSpring`].
pub const VRM_STEP_HZ: f32 = 60.0;
/// Length of one step, seconds.
pub const VRM_STEP: f32 = 1.0 / VRM_STEP_HZ;
/// Longest frame [`VrmSpring::advance`] accepts; longer frames (a hitch, a breakpoint) are
/// clipped so one cannot inject a burst of steps.
pub const VRM_MAX_FRAME: f32 = 0.1;

/// How [`VrmSpring`] measures each bone's length at every step: the one rule VRM tools
/// disagree on (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum BoneLength {
    /// three-vrm's usual loop: from the bone's head to its child's world position as that
    /// was last computed (a step behind while the chain moves).
    #[default]
    ThreeVrm,
    /// The rest pose's length: the child's rest offset in the bone's current frame (so
    /// world scale still counts), as the specification's reference implementation, UniVRM
    /// and Godot's VRM keep it.
    Rest,
}

impl BoneLength {
    /// The rule's name on the command line and in docs: `three-vrm` or `rest`.
    pub fn name(self) -> &'static str {
        match self {
            Self::ThreeVrm => "three-vrm",
            Self::Rest => "rest",
        }
    }
}

impl std::fmt::Display for BoneLength {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a joint's bone points at, resolved for the run.
#[derive(Debug, Clone, Copy)]
enum Child {
    /// A node: its world position is read.
    Node(usize),
    /// A fixed point in the bone's local frame (VRM 0.x's 7 cm tail): the joint's
    /// `local_child`.
    Local,
}

/// One joint's constants and state.
#[derive(Debug, Clone)]
struct JointState {
    params: VrmJoint,
    parent: Option<usize>,
    child: Child,
    /// The colliders it meets, in order (a collider in two groups counts twice, as in
    /// three-vrm).
    colliders: std::ops::Range<usize>,
    center: Option<usize>,
    initial_local: Affine3A,
    initial_rotation: Quat,
    /// Rest direction to the child in the bone's local frame (unit).
    bone_axis: Vec3,
    /// Rest position of the child in the bone's local frame.
    local_child: Vec3,
    /// The tail now and one step ago, in `center` space (world when there is none).
    current_tail: Vec3,
    prev_tail: Vec3,
    /// The bone's local rotation before the last step (for the rendered pose).
    prev_rotation: Quat,
}

/// A running [`VrmSpringRig`]: node transforms, joint states, the scene's transform and
/// the 60 Hz accumulator.
#[derive(Debug, Clone)]
pub struct VrmSpring {
    rig: VrmSpringRig,
    /// Joints in update order (every joint after the joints it depends on).
    joints: Vec<JointState>,
    collider_list: Vec<usize>,
    local: Vec<NodeTransform>,
    world: Vec<Affine3A>,
    /// Nodes that are neither spring bones nor below one, parents first.
    animated: Vec<usize>,
    /// Per joint: the non-spring nodes below its bone (down to the next spring bones),
    /// parents first, refreshed after the joint's update.
    refresh: Vec<Vec<usize>>,
    is_spring_bone: Vec<bool>,
    bone_length: BoneLength,
    root: Affine3A,
    accumulator: f32,
    steps: u64,
}

impl VrmSpring {
    /// Starts `rig` at rest with the scene at `root`.
    pub fn new(rig: VrmSpringRig, root: Affine3A) -> Result<Self, SpringError> {
        rig.validate()?;
        check_affine("scene transform", &root)?;
        let sk = &rig.skeleton;
        let n = sk.len();
        let mut is_spring_bone = vec![false; n];
        for c in &rig.chains {
            for j in &c.joints {
                is_spring_bone[j.node] = true;
            }
        }
        // Nodes below a spring bone are moved by it; the others are animated from outside.
        let mut under_spring = vec![false; n];
        for &i in sk.order() {
            under_spring[i] = sk
                .parent(i)
                .is_some_and(|p| is_spring_bone[p] || under_spring[p]);
        }
        let animated = sk
            .order()
            .iter()
            .copied()
            .filter(|&i| !is_spring_bone[i] && !under_spring[i])
            .collect();

        // Joints in file order, then sorted so each comes after the joints on its parent's
        // ancestors and on its colliders' nodes' ancestors (three-vrm's dependency sort).
        let mut flat: Vec<JointState> = Vec::new();
        let mut collider_list = Vec::new();
        for chain in &rig.chains {
            let start = collider_list.len();
            for &g in &chain.collider_groups {
                collider_list.extend_from_slice(&rig.groups[g].colliders);
            }
            let colliders = start..collider_list.len();
            for (k, joint) in chain.joints.iter().enumerate() {
                let bone = joint.node;
                let rest = sk.nodes()[bone].rest;
                let local_child = match chain.child_of(k) {
                    Some(c) if sk.parent(c) == Some(bone) => sk.nodes()[c].rest.translation,
                    Some(c) => {
                        // A descendant further down: its rest position in the bone's frame.
                        let w = sk.rest_world(Affine3A::IDENTITY);
                        w[bone].inverse().transform_point3(w[c].translation.into())
                    }
                    None => rest.translation.normalize_or_zero() * super::VIRTUAL_TAIL_LENGTH,
                };
                let child = match chain.child_of(k) {
                    Some(c) => Child::Node(c),
                    None => Child::Local,
                };
                flat.push(JointState {
                    params: *joint,
                    parent: sk.parent(bone),
                    child,
                    colliders: colliders.clone(),
                    center: chain.center,
                    initial_local: rest.to_affine(),
                    initial_rotation: rest.rotation,
                    bone_axis: local_child.normalize_or_zero(),
                    local_child,
                    current_tail: Vec3::ZERO,
                    prev_tail: Vec3::ZERO,
                    prev_rotation: rest.rotation,
                });
            }
        }
        let order = dependency_order(&rig, &flat, &collider_list);
        let mut joints: Vec<JointState> = Vec::with_capacity(flat.len());
        let mut slots: Vec<Option<JointState>> = flat.into_iter().map(Some).collect();
        for i in order {
            if let Some(j) = slots[i].take() {
                joints.push(j);
            }
        }
        let refresh = joints
            .iter()
            .map(|j| {
                let mut out = Vec::new();
                let mut stack: Vec<usize> =
                    sk.children(j.params.node).iter().rev().copied().collect();
                while let Some(c) = stack.pop() {
                    if is_spring_bone[c] {
                        continue;
                    }
                    out.push(c);
                    stack.extend(sk.children(c).iter().rev().copied());
                }
                out
            })
            .collect();
        let local = sk.nodes().iter().map(|n| n.rest).collect();
        let mut spring = Self {
            world: vec![Affine3A::IDENTITY; n],
            rig,
            joints,
            collider_list,
            local,
            animated,
            refresh,
            is_spring_bone,
            bone_length: BoneLength::default(),
            root,
            accumulator: 0.0,
            steps: 0,
        };
        spring.reset();
        Ok(spring)
    }

    /// The same spring measuring bone lengths by `rule` from its next step on (a new
    /// spring measures them as three-vrm does).
    pub fn with_bone_length(mut self, rule: BoneLength) -> Self {
        self.bone_length = rule;
        self
    }

    /// How bone lengths are measured (see [`BoneLength`]).
    pub fn bone_length(&self) -> BoneLength {
        self.bone_length
    }

    /// Joint–collider tests one step makes: for each joint, the colliders of its chain's
    /// groups (a collider in two groups counted twice). A step's cost grows with it.
    pub fn collider_tests_per_step(&self) -> u64 {
        self.joints.iter().map(|j| j.colliders.len() as u64).sum()
    }

    /// The rig being run.
    pub fn rig(&self) -> &VrmSpringRig {
        &self.rig
    }

    /// The scene's transform used by the last step (or set by [`Self::reset_at`]).
    pub fn root(&self) -> Affine3A {
        self.root
    }

    /// Steps taken since the start, so `steps() / 60` is the simulated time in seconds.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Sets the local transform of a node that is not a spring joint (animation: a head
    /// turning, a tail's base swishing). Spring joints are the springs' to move.
    pub fn set_local(&mut self, node: usize, transform: NodeTransform) -> Result<(), SpringError> {
        if node >= self.local.len() {
            return Err(SpringError::IndexOutOfRange(
                "node".into(),
                node,
                self.local.len(),
            ));
        }
        if self.is_spring_bone[node] {
            return Err(SpringError::BadSkeleton(format!(
                "node `{}` is a spring joint; its rotation belongs to the spring",
                self.rig.skeleton.nodes()[node].name
            )));
        }
        transform.validate("local transform")?;
        self.local[node] = transform;
        Ok(())
    }

    /// The current local transform of every node.
    pub fn local_transforms(&self) -> &[NodeTransform] {
        &self.local
    }

    /// Puts every spring back at rest under the current scene transform and node
    /// animation, with no motion (three-vrm's `setInitState` at this pose).
    pub fn reset(&mut self) {
        for j in &self.joints {
            self.local[j.params.node].rotation = j.initial_rotation;
        }
        self.full_world();
        for j in &mut self.joints {
            let w = self.world[j.params.node];
            let tail = w.transform_point3(j.local_child);
            let to_center = j.center.map(|c| self.world[c].inverse());
            let tail = to_center.map_or(tail, |m| m.transform_point3(tail));
            j.current_tail = tail;
            j.prev_tail = tail;
            j.prev_rotation = j.initial_rotation;
        }
        self.accumulator = 0.0;
    }

    /// Moves the scene to `root` and resets there (see [`Self::reset`]).
    pub fn reset_at(&mut self, root: Affine3A) -> Result<(), SpringError> {
        check_affine("scene transform", &root)?;
        self.root = root;
        self.reset();
        Ok(())
    }

    /// World transforms of every node after the last step (no interpolation).
    pub fn world(&self) -> &[Affine3A] {
        &self.world
    }

    /// One step of 1/60 s with the scene at `root`. A non-finite `root` takes no step.
    pub fn step(&mut self, root: Affine3A) {
        if !root.is_finite() {
            return;
        }
        self.root = root;
        self.step_once();
    }

    fn step_once(&mut self) {
        let dt = VRM_STEP;
        for &i in &self.animated {
            let parent = self
                .rig
                .skeleton
                .parent(i)
                .map_or(self.root, |p| self.world[p]);
            self.world[i] = parent * self.local[i].to_affine();
        }
        for ji in 0..self.joints.len() {
            let j = &self.joints[ji];
            let bone = j.params.node;
            let parent_world = j.parent.map_or(self.root, |p| self.world[p]);
            let bone_world = parent_world * self.local[bone].to_affine();
            // Fresh before the update, as three-vrm's manager makes it: a chain whose
            // `center` is its own first bone reads it.
            self.world[bone] = bone_world;
            let head: Vec3 = bone_world.translation.into();
            let child = match (j.child, self.bone_length) {
                (Child::Node(c), BoneLength::ThreeVrm) => self.world[c].translation.into(),
                // The rest offset is `local_child` for a node child as for a virtual tail.
                (Child::Node(_), BoneLength::Rest) | (Child::Local, _) => {
                    bone_world.transform_point3(j.local_child)
                }
            };
            let length = (head - child).length();
            let axis = parent_world
                .transform_vector3(
                    j.initial_local
                        .transform_vector3(j.bone_axis)
                        .normalize_or_zero(),
                )
                .normalize_or_zero();
            let p = j.params;
            let inertia = j.current_tail + (j.current_tail - j.prev_tail) * (1.0 - p.drag_force);
            let inertia = match j.center {
                Some(c) => self.world[c].transform_point3(inertia),
                None => inertia,
            };
            let mut next =
                inertia + axis * (p.stiffness * dt) + p.gravity_dir * (p.gravity_power * dt);
            next = head + (next - head).normalize_or_zero() * length;
            for &ci in &self.collider_list[j.colliders.clone()] {
                let c = &self.rig.colliders[ci];
                let Some((distance, dir)) =
                    c.shape.distance(&self.world[c.node], next, p.hit_radius)
                else {
                    continue;
                };
                if distance < 0.0 {
                    next -= dir * distance;
                    let d = next - head;
                    let l = d.length();
                    if l > 0.0 {
                        next = head + d * (length / l);
                    }
                }
            }
            let current = match j.center {
                Some(c) => self.world[c].inverse().transform_point3(next),
                None => next,
            };
            let to = (parent_world * j.initial_local)
                .inverse()
                .transform_point3(next)
                .normalize_or_zero();
            let rotation = (j.initial_rotation * arc(j.bone_axis, to)).normalize();
            let j = &mut self.joints[ji];
            j.prev_tail = j.current_tail;
            j.current_tail = current;
            j.prev_rotation = self.local[bone].rotation;
            self.local[bone].rotation = rotation;
            self.world[bone] = parent_world * self.local[bone].to_affine();
            for &c in &self.refresh[ji] {
                let p = self
                    .rig
                    .skeleton
                    .parent(c)
                    .map_or(self.root, |p| self.world[p]);
                self.world[c] = p * self.local[c].to_affine();
            }
        }
        self.steps += 1;
    }

    /// Advances by a frame of `dt` seconds ending with the scene at `root`: as many 1/60 s
    /// steps as the accumulator holds (the frame is clipped to [`VRM_MAX_FRAME`]), the scene
    /// moved from its last place to `root` across them, each at its own time. Returns the
    /// steps taken. A non-finite `dt` or `root` takes none.
    pub fn advance(&mut self, dt: f32, root: Affine3A) -> usize {
        self.advance_with(dt, root, |_, _| {})
    }

    /// [`Self::advance`], calling `before_step(self, time)` before each step with the time
    /// (seconds since the start) the step ends at, so a caller can animate nodes per step.
    pub fn advance_with(
        &mut self,
        dt: f32,
        root: Affine3A,
        mut before_step: impl FnMut(&mut Self, f64),
    ) -> usize {
        if !dt.is_finite() || dt <= 0.0 || !root.is_finite() {
            return 0;
        }
        let dt = dt.min(VRM_MAX_FRAME);
        let start = self.accumulator;
        let total = start + dt;
        let steps = (total * VRM_STEP_HZ + 1.0e-4).floor().max(0.0) as usize;
        let from = self.root;
        for s in 0..steps {
            let f = (((s + 1) as f32 * VRM_STEP - start) / dt).clamp(0.0, 1.0);
            self.root = interpolate(&from, &root, f);
            before_step(self, (self.steps + 1) as f64 / VRM_STEP_HZ as f64);
            self.step_once();
        }
        self.root = root;
        self.accumulator = (total - steps as f32 * VRM_STEP).clamp(0.0, VRM_STEP);
        steps
    }

    /// How far the render time is past the last step, as a fraction of a step.
    pub fn alpha(&self) -> f32 {
        (self.accumulator * VRM_STEP_HZ).clamp(0.0, 1.0)
    }

    /// World transforms of every node for drawing: the scene at its latest place, animated
    /// nodes as set, spring joints' rotations interpolated between the last two steps.
    pub fn rendered_world(&self) -> Vec<Affine3A> {
        let alpha = self.alpha();
        let mut local = self.local.clone();
        for j in &self.joints {
            let node = j.params.node;
            local[node].rotation = j
                .prev_rotation
                .slerp(local[node].rotation, alpha)
                .normalize();
        }
        let sk = &self.rig.skeleton;
        let mut world = vec![Affine3A::IDENTITY; local.len()];
        for &i in sk.order() {
            let parent = sk.parent(i).map_or(self.root, |p| world[p]);
            world[i] = parent * local[i].to_affine();
        }
        world
    }

    /// World positions of every chain's joints and its end, chain by chain in rig order
    /// (the end of a VRM 0.x chain is its virtual tail), after the last step.
    pub fn joint_positions(&self) -> Vec<Vec<Vec3>> {
        joint_points(&self.rig, &self.world)
    }

    fn full_world(&mut self) {
        let sk = &self.rig.skeleton;
        for &i in sk.order() {
            let parent = sk.parent(i).map_or(self.root, |p| self.world[p]);
            self.world[i] = parent * self.local[i].to_affine();
        }
    }
}

/// World positions of each chain's joints and end under the node transforms `world`.
pub fn joint_points(rig: &VrmSpringRig, world: &[Affine3A]) -> Vec<Vec<Vec3>> {
    rig.chains
        .iter()
        .map(|c| {
            let mut pts: Vec<Vec3> = c
                .joints
                .iter()
                .map(|j| world[j.node].translation.into())
                .collect();
            let last = c.joints[c.joints.len() - 1].node;
            pts.push(match c.end {
                ChainEnd::Node(n) => world[n].translation.into(),
                ChainEnd::Virtual => {
                    let t = rig.skeleton.nodes()[last].rest.translation;
                    world[last].transform_point3(t.normalize_or_zero() * super::VIRTUAL_TAIL_LENGTH)
                }
            });
            pts
        })
        .collect()
}

/// The rotation taking unit `from` to unit `to` by the shortest arc (three.js's
/// `setFromUnitVectors`, including its choice of axis when they are opposite).
fn arc(from: Vec3, to: Vec3) -> Quat {
    let r = from.dot(to) + 1.0;
    let q = if r < 1.0e-7 {
        if from.x.abs() > from.z.abs() {
            Quat::from_xyzw(-from.y, from.x, 0.0, 0.0)
        } else {
            Quat::from_xyzw(0.0, -from.z, from.y, 0.0)
        }
    } else {
        let c = from.cross(to);
        Quat::from_xyzw(c.x, c.y, c.z, r)
    };
    q.normalize()
}

/// The transform a fraction `f` of the way from `a` to `b` (scale and translation lerped,
/// rotation slerped).
fn interpolate(a: &Affine3A, b: &Affine3A, f: f32) -> Affine3A {
    if f >= 1.0 {
        return *b;
    }
    let (sa, ra, ta) = a.to_scale_rotation_translation();
    let (sb, rb, tb) = b.to_scale_rotation_translation();
    Affine3A::from_scale_rotation_translation(sa.lerp(sb, f), ra.slerp(rb, f), ta.lerp(tb, f))
}

fn check_affine(what: &str, m: &Affine3A) -> Result<(), SpringError> {
    if m.is_finite() && m.matrix3.determinant().abs() > 1.0e-12 {
        Ok(())
    } else {
        Err(SpringError::BadParameter {
            what: what.into(),
            value: m.matrix3.determinant(),
            hint: "must be finite and invertible",
        })
    }
}

/// three-vrm's joint order: joints in file order, each inserted after the joints on the
/// ancestors (self included) of its parent and of its colliders' nodes; a dependency cycle
/// is broken where it is found, as three-vrm does.
fn dependency_order(
    rig: &VrmSpringRig,
    joints: &[JointState],
    collider_list: &[usize],
) -> Vec<usize> {
    let sk = &rig.skeleton;
    let mut on_node: Vec<Vec<usize>> = vec![Vec::new(); sk.len()];
    for (i, j) in joints.iter().enumerate() {
        on_node[j.params.node].push(i);
    }
    let mut done = vec![false; joints.len()];
    let mut tried = vec![false; joints.len()];
    let mut order = Vec::with_capacity(joints.len());
    // Iterative depth-first search (chains can be long): each frame is a joint and the
    // dependencies still to visit.
    for start in 0..joints.len() {
        if done[start] || tried[start] {
            continue;
        }
        let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
        let deps = |i: usize| -> Vec<usize> {
            let j = &joints[i];
            let mut objects: Vec<usize> = j.parent.into_iter().collect();
            objects.extend(
                collider_list[j.colliders.clone()]
                    .iter()
                    .map(|&c| rig.colliders[c].node),
            );
            let mut out = Vec::new();
            for obj in objects {
                let mut path = Vec::new();
                let mut cur = Some(obj);
                while let Some(n) = cur {
                    path.push(n);
                    cur = sk.parent(n);
                }
                for &n in path.iter().rev() {
                    out.extend_from_slice(&on_node[n]);
                }
            }
            out.reverse(); // popped from the back: visit in order
            out
        };
        tried[start] = true;
        stack.push((start, deps(start)));
        while let Some((joint, pending)) = stack.last_mut() {
            let joint = *joint;
            match pending.pop() {
                Some(d) if !done[d] && !tried[d] => {
                    tried[d] = true;
                    let next = deps(d);
                    stack.push((d, next));
                }
                Some(_) => {}
                None => {
                    done[joint] = true;
                    order.push(joint);
                    stack.pop();
                }
            }
        }
    }
    order
}

impl VrmSpring {
    /// The shape and node of collider `i` (for drawing or debugging).
    pub fn collider(&self, i: usize) -> Option<(VrmColliderShape, Affine3A)> {
        self.rig
            .colliders
            .get(i)
            .map(|c| (c.shape, self.world[c.node]))
    }
}
