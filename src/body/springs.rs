//! A body's own springs (`VRMC_springBone` 1.0, or VRM 0.x `secondaryAnimation` converted as
//! [`crate::vrm`] converts it): read from its file, stepped on VRM's rule ([`VrmSpring`],
//! the implementation the VRM conformance tests check) at the solver's fixed 60 Hz on top of
//! the body's animation, and their joints' rotations written over the animated pose before
//! the skinning matrices are computed, so the fur rooted on a swinging ear or tail rides it.
//!
//! The springs run in the file's own space and units (the scene at the identity, as a VRM
//! viewer runs the avatar at its authored size), so `--body-height` changes the body's size
//! but not how its springs swing; the fit is applied to the result, like any joint.
//!
//! A pose at step `k` (time `k / 60` s) is the springs started at rest in the animation's
//! pose at time 0 and stepped `k` times, step `s` under the animation at `s / 60` s: a pure
//! function of the time asked for, so the solvers, the renderer and an export that ask for
//! the same time get the same bits. Asking for an earlier time than the last one steps the
//! springs again from the start; a jump of more than the body's catch-up limit (at most
//! [`MAX_CATCH_UP_STEPS`], fewer for springs whose steps cost more: see
//! [`MAX_CATCH_UP_WORK`]) starts them at rest [`SETTLE_STEPS`] before the time asked for
//! instead.

use std::sync::{Arc, Mutex};

use glam::Affine3A;

use super::nodes::Local;
use super::rig::Rig;
use super::{BodyMotion, SkinPose};
use crate::spring::{NodeTransform, VrmSpring};
use crate::vrm::SpringSource;

/// The solver's steps a second, which the springs step at (VRM's own rate).
const STEP_HZ: f64 = crate::spring::VRM_STEP_HZ as f64;

/// The most steps one pose may step the springs forward from the last (an hour at 60 Hz);
/// a longer jump starts them again near the time asked for.
pub const MAX_CATCH_UP_STEPS: u64 = 60 * 60 * 60;

/// Steps the springs swing from rest before a time reached by a jump longer than the
/// catch-up limit (ten seconds: VRM springs settle within a few).
pub const SETTLE_STEPS: u64 = 600;

/// The most work one pose may spend catching the springs up, in units of one joint–collider
/// test (a node posed by the animation counts `NODE_WORK`): what bounds the time of a
/// `pose_at` far ahead of (or before) the last one for springs whose every step is costly,
/// which [`MAX_CATCH_UP_STEPS`] alone does not (an hour of steps at
/// [`MAX_COLLIDER_TESTS_PER_STEP`] is far more work than one pose may take). A body's catch-up limit is this
/// over its cost a step, never under [`SETTLE_STEPS`] nor over [`MAX_CATCH_UP_STEPS`].
pub const MAX_CATCH_UP_WORK: u64 = 1 << 28;

/// The work of posing one node in a spring step (its animated local transform, its world
/// transform), in joint–collider tests.
const NODE_WORK: u64 = 4;

/// The most joint–collider tests one step of a body's springs may make: far above real
/// avatars (a few hundred joints against a few dozen colliders), and low enough that a
/// file within the spring reader's per-item limits cannot make each solver step crawl.
pub const MAX_COLLIDER_TESTS_PER_STEP: u64 = 1 << 18;

/// The springs read from a body's file, at rest, ready to run.
#[derive(Debug, Clone)]
pub struct BodySprings {
    /// The springs on the file's whole node tree, at rest with the scene at the identity.
    spring: VrmSpring,
    /// Per node: whether a spring owns its rotation.
    is_joint: Vec<bool>,
    /// How many joints swing.
    joint_count: usize,
    /// Which record they came from.
    source: SpringSource,
    /// The most steps a pose may step them forward from the last one (see
    /// [`MAX_CATCH_UP_WORK`]).
    catch_up_steps: u64,
}

/// What reading a body's springs found.
#[derive(Debug)]
pub(super) enum SpringsRead {
    /// The file has no spring extension (or one with no joints).
    None,
    /// Springs that swing.
    Springs(Arc<BodySprings>),
    /// Springs that cannot run, and why (the body is still used, unswung).
    Ignored(String),
}

impl BodySprings {
    /// How many joints swing.
    pub fn joint_count(&self) -> usize {
        self.joint_count
    }

    /// The extension they came from, in words for a summary.
    pub fn source_name(&self) -> &'static str {
        match self.source {
            SpringSource::Vrm0 => "VRM 0.x secondaryAnimation",
            _ => "VRMC_springBone",
        }
    }
}

/// Reads the springs of a body file whose glTF JSON is `json` and whose node tree has
/// `node_count` nodes, through the VRM spring reader ([`crate::vrm::read_gltf_json`], bounded
/// like it). Only a file whose root names `VRMC_springBone` or `VRM` among its extensions
/// is read. A spring the rule cannot run is reported, never an error: the body stays usable.
pub(super) fn read_springs(json: &[u8], has_extension: bool, node_count: usize) -> SpringsRead {
    if !has_extension {
        return SpringsRead::None;
    }
    let imported = match crate::vrm::read_gltf_json(json) {
        Ok(i) => i,
        Err(e) => return SpringsRead::Ignored(e.to_string()),
    };
    let rig = imported.springs;
    let joint_count = rig.joint_count();
    if imported.source == SpringSource::None || joint_count == 0 {
        return SpringsRead::None;
    }
    if rig.skeleton.len() != node_count {
        return SpringsRead::Ignored(format!(
            "the springs' skeleton has {} nodes, the body {node_count}",
            rig.skeleton.len()
        ));
    }
    let mut is_joint = vec![false; node_count];
    for chain in &rig.chains {
        for j in &chain.joints {
            if let Some(slot) = is_joint.get_mut(j.node) {
                *slot = true;
            }
        }
    }
    // Counted from the record, before the springs are built (see the count's doc).
    let tests = rig.collider_tests_per_step();
    if tests > MAX_COLLIDER_TESTS_PER_STEP {
        return SpringsRead::Ignored(format!(
            "they would make {tests} joint-collider tests a step, more than the {} a body's \
             springs may make; give the chains fewer joints or their groups fewer colliders",
            MAX_COLLIDER_TESTS_PER_STEP
        ));
    }
    match VrmSpring::new(rig, Affine3A::IDENTITY) {
        Ok(spring) => {
            let work = spring.collider_tests_per_step() + (node_count as u64 + 1) * NODE_WORK;
            let catch_up_steps = (MAX_CATCH_UP_WORK / work).clamp(SETTLE_STEPS, MAX_CATCH_UP_STEPS);
            SpringsRead::Springs(Arc::new(BodySprings {
                spring,
                is_joint,
                joint_count,
                source: imported.source,
                catch_up_steps,
            }))
        }
        Err(e) => SpringsRead::Ignored(e.to_string()),
    }
}

/// A body moved by its animation (or its rest pose) with its springs swinging on top.
pub struct SpringMotion {
    rig: Arc<Rig>,
    /// The animation playing, `None` for the rest pose.
    clip: Option<usize>,
    springs: Arc<BodySprings>,
    /// The pose the file shows with no animation, held by a joint whose pose overflows.
    rest: SkinPose,
    /// The springs after the last step taken, and which step that was.
    cursor: Mutex<Cursor>,
}

struct Cursor {
    spring: VrmSpring,
    step: u64,
}

impl SpringMotion {
    /// `springs` on `rig`, under animation `clip` (`None`: the rest pose).
    pub(super) fn new(
        rig: Arc<Rig>,
        clip: Option<usize>,
        springs: Arc<BodySprings>,
        rest: SkinPose,
    ) -> SpringMotion {
        let cursor = Cursor {
            spring: springs.spring.clone(),
            step: 0,
        };
        let motion = SpringMotion {
            rig,
            clip,
            springs,
            rest,
            cursor: Mutex::new(cursor),
        };
        if let Ok(mut c) = motion.cursor.lock() {
            motion.restart(&mut c, 0);
        }
        motion
    }

    /// Puts the springs at rest in the animation's pose at step `step`.
    fn restart(&self, cursor: &mut Cursor, step: u64) {
        cursor.spring = self.springs.spring.clone();
        self.animate(&mut cursor.spring, step as f64 / STEP_HZ);
        cursor.spring.reset();
        cursor.step = step;
    }

    /// Sets every node the springs do not own to the animation's pose at `seconds`.
    fn animate(&self, spring: &mut VrmSpring, seconds: f64) {
        let locals = self.rig.locals_at(self.clip, seconds);
        for (node, local) in locals.iter().enumerate() {
            if self.springs.is_joint.get(node).copied().unwrap_or(true) {
                continue;
            }
            let (translation, rotation, scale) = local.trs();
            // A transform the rule refuses (an animated zero rotation) keeps the last one.
            let _ = spring.set_local(
                node,
                NodeTransform {
                    translation,
                    rotation,
                    scale,
                },
            );
        }
    }

    /// The springs stepped to `step`: forward from the last step taken, from the start
    /// when `step` is earlier, from rest near `step` after a jump longer than the body's
    /// catch-up limit.
    fn step_to(&self, cursor: &mut Cursor, step: u64) {
        if step < cursor.step {
            self.restart(cursor, 0);
        }
        if step - cursor.step > self.springs.catch_up_steps {
            self.restart(cursor, step - SETTLE_STEPS);
        }
        while cursor.step < step {
            cursor.step += 1;
            self.animate(&mut cursor.spring, cursor.step as f64 / STEP_HZ);
            cursor.spring.step(Affine3A::IDENTITY);
        }
    }
}

impl BodyMotion for SpringMotion {
    fn pose_at(&self, seconds: f64) -> SkinPose {
        let step = if seconds.is_finite() && seconds > 0.0 {
            (seconds * STEP_HZ).round() as u64
        } else {
            0
        };
        let mut locals = self.rig.locals_at(self.clip, seconds);
        {
            // A poisoned lock still holds a whole spring state (a step never panics halfway
            // through a write that matters), so it is used as it is.
            let mut cursor = self.cursor.lock().unwrap_or_else(|p| p.into_inner());
            self.step_to(&mut cursor, step);
            let spring_locals = cursor.spring.local_transforms();
            for (node, local) in locals.iter_mut().enumerate() {
                if !self.springs.is_joint.get(node).copied().unwrap_or(false) {
                    continue;
                }
                let Some(swung) = spring_locals.get(node) else {
                    continue;
                };
                let (t, _, s) = local.trs();
                *local = Local::Trs {
                    t,
                    r: swung.rotation,
                    s,
                };
            }
        }
        self.rig.finite_pose(&locals, &self.rest)
    }
}
