//! The structs the solver shares with WGSL (`shaders/strand_step.wgsl`), byte for byte.
//! A test checks every size and offset against the shader as naga lays it out.

use super::contact::HandContact;
use super::params::FurParams;
use crate::creature::{CreaturePose, Space};
use crate::groom::StrandRoot;
use bytemuck::{Pod, Zeroable};
use glam::{Mat4, UVec4, Vec4};

/// Points per strand (the root and five simulated points).
pub const POINTS_PER_STRAND: usize = 6;
/// The most capsules one step can carry.
pub const MAX_CAPSULES: usize = 24;

/// One strand's root as the solver reads it. WGSL twin: `Root`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuRoot {
    /// xyz: position in its part's space, w: strand rest length.
    pub position_length: Vec4,
    /// xyz: unit normal in its part's space, w: 1 for head space, 0 for body space.
    pub normal_space: Vec4,
    /// xyz: unit groom flow in its part's space, w: per-strand random value.
    pub flow_random: Vec4,
    /// x: lift angle at the root, y: at the tip (radians from the normal); zw: unused.
    pub lift: Vec4,
}

impl From<&StrandRoot> for GpuRoot {
    fn from(r: &StrandRoot) -> Self {
        let space = match r.space() {
            Space::Head => 1.0,
            Space::Body => 0.0,
        };
        GpuRoot {
            position_length: r.position.extend(r.length),
            normal_space: r.normal.extend(space),
            flow_random: r.flow.extend(r.random),
            lift: Vec4::new(r.lift_root, r.lift_tip, 0.0, 0.0),
        }
    }
}

/// One capsule as the solver reads it. WGSL twin: `Capsule`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuCapsule {
    /// xyz: first end, w: radius.
    pub a_radius: Vec4,
    /// xyz: second end, w: unused.
    pub b: Vec4,
    /// xyz: displacement this step (clamped), w: unused.
    pub motion: Vec4,
}

/// Everything one step needs besides the buffers. WGSL twin: `StepUniforms`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct StepUniforms {
    /// Head-local → world.
    pub head: Mat4,
    /// Body-local → world.
    pub body: Mat4,
    /// xyz: gravity per step, w: velocity kept per step.
    pub gravity_damping: Vec4,
    /// x: gust strength, y: time in seconds, z: kink, w: unused.
    pub wind: Vec4,
    /// x: root stiffness, y: tip stiffness, z: comb gain, w: comb decay per step.
    pub stiffness: Vec4,
    /// x: floor height, y: skin clearance per point, z: comb limit, w: unused.
    pub limits: Vec4,
    /// x: friction, y: comb scale, zw: unused.
    pub contact: Vec4,
    /// xyz: centre of the sphere bounding the capsules, w: its radius (0: no hand).
    pub bound: Vec4,
    /// x: strand count, y: capsule count, zw: unused.
    pub counts: UVec4,
    /// The capsules; only the first `counts.y` are read.
    pub capsules: [GpuCapsule; MAX_CAPSULES],
}

impl StepUniforms {
    /// The uniforms of one step at `time` seconds with the creature at `pose`, the hand
    /// (if any) moving for `step_seconds`. Capsule displacement is clamped here to
    /// `params.capsule_step_max`, once for both solvers.
    pub fn new(
        params: &FurParams,
        pose: &CreaturePose,
        time: f32,
        step_seconds: f32,
        contact: Option<&HandContact>,
        strand_count: u32,
    ) -> Self {
        let mut capsules = [GpuCapsule::zeroed(); MAX_CAPSULES];
        let mut capsule_count = 0u32;
        let mut bound = Vec4::ZERO;
        let (mut friction, mut comb_scale) = (0.0, 0.0);
        if let Some(hand) = contact
            && let Some((center, radius)) = hand.bounding_sphere()
        {
            for (slot, c) in capsules.iter_mut().zip(&hand.capsules) {
                let (a, b) = c.ends();
                let motion = (c.velocity * step_seconds).clamp_length_max(params.capsule_step_max);
                *slot = GpuCapsule {
                    a_radius: a.extend(c.radius),
                    b: b.extend(0.0),
                    motion: motion.extend(0.0),
                };
            }
            capsule_count = hand.capsules.len().min(MAX_CAPSULES) as u32;
            bound = center.extend(radius);
            friction = hand.mode.friction();
            comb_scale = hand.mode.comb_scale();
        }
        StepUniforms {
            head: Mat4::from(pose.head),
            body: Mat4::from(pose.body),
            gravity_damping: params.gravity.extend(params.damping),
            wind: Vec4::new(params.wind, time, params.kink, 0.0),
            stiffness: Vec4::new(
                params.root_stiffness,
                params.tip_stiffness,
                params.comb_gain,
                params.comb_decay,
            ),
            limits: Vec4::new(params.floor, params.skin_offset, params.comb_max, 0.0),
            contact: Vec4::new(friction, comb_scale, 0.0, 0.0),
            bound,
            counts: UVec4::new(strand_count, capsule_count, 0, 0),
            capsules,
        }
    }
}
