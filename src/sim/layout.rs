//! The structs the solver shares with WGSL (`shaders/strand_step.wgsl`): the roots and
//! capsules byte for byte (`repr(C)`), the step uniforms laid out by encase, which applies
//! WGSL's layout rules. A test checks every size and offset against the shader as naga
//! lays it out.

use super::contact::HandContact;
use super::params::FurParams;
use crate::creature::{Creature, CreaturePose, GpuCreaturePose, space_code, wrapped_phase};
use crate::groom::StrandRoot;
use bytemuck::{Pod, Zeroable};
use encase::ShaderType;
use glam::{Vec2, Vec3, Vec4};

/// Points per strand (the root and five simulated points).
pub const POINTS_PER_STRAND: usize = crate::shaders::POINTS as usize;
/// Simulated segments per strand.
pub const SEGMENTS: usize = POINTS_PER_STRAND - 1;
/// The most capsules one step can carry.
pub const MAX_CAPSULES: usize = crate::shaders::MAX_CAPSULES as usize;
/// The most steps one dispatch takes: each strand stays in registers for up to this many
/// steps and reads and writes memory once.
pub const MAX_STEPS_PER_DISPATCH: usize = crate::shaders::MAX_STEPS as usize;

/// The gust's angular rates (rad/s) of its sway and of its x, y and z directions.
pub const GUST_RATES: [f64; 4] = [0.23, 0.9, 1.7, 0.7];

/// One strand's root as the solver reads it, with its per-strand constants computed once at
/// groom time. WGSL twin: `Root`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuRoot {
    /// xyz: position in its part's space, w: rest length of one segment (length / 5).
    pub position_segment: Vec4,
    /// xyz: unit normal in its part's space, w: space code (0 body, 1 head, 2 tail).
    pub normal_space: Vec4,
    /// xyz: unit groom flow in its part's space, w: tail parameter t (tail roots).
    pub flow_tail: Vec4,
    /// (cos, sin) of the rest angle from the normal of segments 0 and 1.
    pub rest_01: Vec4,
    /// (cos, sin) of the rest angle of segments 2 and 3.
    pub rest_23: Vec4,
    /// xy: (cos, sin) of the rest angle of segment 4; zw: unused.
    pub rest_4: Vec4,
    /// (cos, sin) of the gust's spatial phase of its sway and of its x direction.
    pub gust_01: Vec4,
    /// (cos, sin) of the gust's spatial phase of its y and z directions.
    pub gust_23: Vec4,
}

/// The gust's spatial phases at body-space rest point `r`, one per [`GUST_RATES`] entry.
pub fn gust_spatial_phases(r: Vec3) -> [f64; 4] {
    let (x, y, z) = (f64::from(r.x), f64::from(r.y), f64::from(r.z));
    [
        1.3 * x + 0.9 * y,
        2.1 * x + 1.3 * z,
        3.1 * y,
        1.7 * z - 0.9 * x,
    ]
}

fn cos_sin(angle: f64) -> Vec2 {
    Vec2::new(angle.cos() as f32, angle.sin() as f32)
}

impl GpuRoot {
    /// The solver's root for `root` on `creature`, with `kink` (the parameter, radians)
    /// baked into its rest angles. Segment `i`'s rest angle from the normal is the lift,
    /// linear from `lift_root` to `lift_tip`, plus `kink · t · sin(2π(3 random + 1.7 t))`
    /// with `t = i / 4`; the gust's spatial phases come from the root's body-space rest
    /// position. Both are evaluated in f64 here so no step pays for a sine.
    pub fn new(root: &StrandRoot, creature: &Creature, kink: f32) -> Self {
        let (lift0, lift1) = (f64::from(root.lift_root), f64::from(root.lift_tip));
        let rest: Vec<Vec2> = (0..SEGMENTS)
            .map(|i| {
                let t = i as f64 / (SEGMENTS - 1) as f64;
                let wave = std::f64::consts::TAU * (3.0 * f64::from(root.random) + 1.7 * t);
                cos_sin(lift0 + (lift1 - lift0) * t + f64::from(kink) * t * wave.sin())
            })
            .collect();
        let gust = gust_spatial_phases(creature.to_body(root.part, root.position)).map(cos_sin);
        let pair = |a: Vec2, b: Vec2| Vec4::new(a.x, a.y, b.x, b.y);
        GpuRoot {
            position_segment: root.position.extend(root.length / SEGMENTS as f32),
            normal_space: root.normal.extend(space_code(root.space())),
            flow_tail: root.flow.extend(root.tail_t),
            rest_01: pair(rest[0], rest[1]),
            rest_23: pair(rest[2], rest[3]),
            rest_4: pair(rest[4], Vec2::ZERO),
            gust_01: pair(gust[0], gust[1]),
            gust_23: pair(gust[2], gust[3]),
        }
    }

    /// The rest (cos, sin) from the normal of segment `i` (0 at the root).
    pub fn rest_angle(&self, i: usize) -> Vec2 {
        match i {
            0 => Vec2::new(self.rest_01.x, self.rest_01.y),
            1 => Vec2::new(self.rest_01.z, self.rest_01.w),
            2 => Vec2::new(self.rest_23.x, self.rest_23.y),
            3 => Vec2::new(self.rest_23.z, self.rest_23.w),
            _ => Vec2::new(self.rest_4.x, self.rest_4.y),
        }
    }
}

/// The solver's roots for a whole groom (see [`GpuRoot::new`]).
pub fn gpu_roots(roots: &[StrandRoot], creature: &Creature, params: &FurParams) -> Vec<GpuRoot> {
    roots
        .iter()
        .map(|r| GpuRoot::new(r, creature, params.kink))
        .collect()
}

/// One capsule as the solver reads it. WGSL twin: `Capsule` (encase, inside
/// [`StepUniforms`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, ShaderType)]
pub struct GpuCapsule {
    /// First end.
    pub a: Vec3,
    /// Radius.
    pub radius: f32,
    /// Second end.
    pub b: Vec3,
    /// Displacement this step (clamped).
    pub motion: Vec3,
}

/// Everything one step needs besides the buffers. WGSL twin: `StepUniforms` (encase).
#[derive(Clone, Copy, Debug, PartialEq, ShaderType)]
pub struct StepUniforms {
    /// The creature's pose at the end of the step: where roots sit.
    pub pose: GpuCreaturePose,
    /// Gravity per step (m per step²).
    pub gravity: Vec3,
    /// Share of the velocity kept per step.
    pub damping: f32,
    /// (cos, sin) of the gust's time phases ([`GUST_RATES`] × time, wrapped in f64) of its
    /// sway and its x direction.
    pub gust_time_01: Vec4,
    /// (cos, sin) of the gust's time phases of its y and z directions.
    pub gust_time_23: Vec4,
    /// Centre of the sphere bounding the capsules.
    pub bound_center: Vec3,
    /// Radius of that sphere (0: no hand).
    pub bound_radius: f32,
    /// The gust's strength.
    pub gust_strength: f32,
    /// Stiffness toward the rest shape at the root.
    pub root_stiffness: f32,
    /// Stiffness toward the rest shape at the tip.
    pub tip_stiffness: f32,
    /// How much of the hand's motion the comb takes in.
    pub comb_gain: f32,
    /// Share of the comb kept per step.
    pub comb_decay: f32,
    /// Floor height, metres.
    pub floor: f32,
    /// Skin clearance per point, metres.
    pub skin_clearance: f32,
    /// The comb's largest magnitude.
    pub comb_limit: f32,
    /// Share of the capsules' motion passed on to touched points.
    pub friction: f32,
    /// The comb's scale for the hand's contact mode.
    pub comb_scale: f32,
    /// Capsules in use.
    pub capsule_count: u32,
    /// The capsules; only the first `capsule_count` are read.
    pub capsules: [GpuCapsule; MAX_CAPSULES],
}

impl StepUniforms {
    /// The uniforms of one step ending at `time` seconds (f64: the gust's phases are
    /// wrapped before they are rounded to f32) with the creature at `pose`, the hand (if
    /// any) moving for `step_seconds`. Capsule displacement is clamped here to
    /// `params.capsule_step_max`, once for both solvers.
    pub fn new(
        params: &FurParams,
        pose: &CreaturePose,
        time: f64,
        step_seconds: f32,
        contact: Option<&HandContact>,
    ) -> Self {
        let mut capsules = [GpuCapsule::default(); MAX_CAPSULES];
        let mut capsule_count = 0u32;
        let (mut bound_center, mut bound_radius) = (Vec3::ZERO, 0.0);
        let (mut friction, mut comb_scale) = (0.0, 0.0);
        if let Some(hand) = contact
            && let Some((center, radius)) = hand.bounding_sphere()
        {
            for (slot, c) in capsules.iter_mut().zip(&hand.capsules) {
                let (a, b) = c.ends();
                let motion = (c.velocity * step_seconds).clamp_length_max(params.capsule_step_max);
                *slot = GpuCapsule {
                    a,
                    radius: c.radius,
                    b,
                    motion,
                };
            }
            capsule_count = hand.capsules.len().min(MAX_CAPSULES) as u32;
            (bound_center, bound_radius) = (center, radius);
            friction = hand.mode.friction();
            comb_scale = hand.mode.comb_scale();
        }
        let phase = GUST_RATES.map(|rate| cos_sin(wrapped_phase(rate, time)));
        StepUniforms {
            pose: GpuCreaturePose::from(pose),
            gravity: params.gravity,
            damping: params.damping,
            gust_time_01: Vec4::new(phase[0].x, phase[0].y, phase[1].x, phase[1].y),
            gust_time_23: Vec4::new(phase[2].x, phase[2].y, phase[3].x, phase[3].y),
            bound_center,
            bound_radius,
            gust_strength: params.wind,
            root_stiffness: params.root_stiffness,
            tip_stiffness: params.tip_stiffness,
            comb_gain: params.comb_gain,
            comb_decay: params.comb_decay,
            floor: params.floor,
            skin_clearance: params.skin_offset,
            comb_limit: params.comb_max,
            friction,
            comb_scale,
            capsule_count,
            capsules,
        }
    }
}

/// The uniforms of one dispatch: up to [`MAX_STEPS_PER_DISPATCH`] steps taken in order.
/// WGSL twin: `StepBatch` (encase).
#[derive(Clone, Copy, Debug, PartialEq, ShaderType)]
pub struct StepBatch {
    /// Steps in this batch.
    pub step_count: u32,
    /// Strands stepped.
    pub strand_count: u32,
    /// The steps; only the first `step_count` are read.
    pub steps: [StepUniforms; MAX_STEPS_PER_DISPATCH],
}
