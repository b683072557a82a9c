//! The hand rig: palm, thumb, four three-jointed fingers, nails, forearm and sleeve, posed
//! on the fur from a target point, the surface normal there, a stroke direction and a
//! gesture. Its palm, finger and thumb capsules are the solver's contact geometry; every
//! part is in the draw list.
//!
//! Each step the fingers probe the surface below them with a ray and ease their curl
//! toward the curl that brings them to the gesture's fingertip height; the palm's lift,
//! the scratch swing and the occlusion strength ease toward the gesture's too, so a change
//! of gesture moves the hand rather than snapping it.

use super::anatomy::HandDimensions;
use super::finger::{CURL_RANGE, DigitChain};
use super::frame::HandFrame;
use super::mode_style::{ModeStyles, SCRATCH_HZ};
use super::probe::SurfaceProbe;
use super::shape::{HandMaterial, HandShape};
use crate::creature::{Ray, RayHit};
use crate::easing::ease;
use crate::sim::{Capsule, ContactMode, HandContact};
use glam::Vec3;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// How many contact capsules the rig gives: four palm bands, three per finger, three for
/// the thumb.
pub const CONTACT_CAPSULES: usize = 4 + 4 * 3 + 3;
const _: () = assert!(CONTACT_CAPSULES <= crate::sim::MAX_CAPSULES);

/// Index in [`HandRig::capsules`] of `finger` (0 index … 3 little) bone `bone`
/// (0 proximal … 2 distal). Out-of-range arguments are clamped.
pub fn finger_capsule(finger: usize, bone: usize) -> usize {
    4 + 3 * finger.min(3) + bone.min(2)
}

/// Index in [`HandRig::capsules`] of thumb bone `bone` (0 metacarpal … 2 distal).
pub fn thumb_capsule(bone: usize) -> usize {
    16 + bone.min(2)
}

/// Time constants, seconds: the fingers settle onto the fur in about a fifth of a second,
/// the palm presses down a little faster.
const CURL_TAU: f32 = 0.09;
const LIFT_TAU: f32 = 0.07;
const OCCLUSION_TAU: f32 = 0.1;
const SCRATCH_TAU: f32 = 0.12;
/// The curl a digit relaxes to when nothing lies below it.
const RELAXED_CURL: f32 = 0.35;
/// Finger probes start this far above the palm's underside (for the hand at the
/// creature's size; it scales with the hand, [`HandRig::resize`]).
const PROBE_HEIGHT: f32 = 0.10;
/// A surface found further than this below the palm's underside is not under the hand
/// (scaled as [`PROBE_HEIGHT`]).
const PROBE_REACH: f32 = 0.25;
/// The most the palm rises above the gesture's lift to keep the digits out of a surface
/// that climbs under them (an ear, a cheek, the far side of a head), metres (scaled as
/// [`PROBE_HEIGHT`]).
const MAX_EXTRA_LIFT: f32 = 0.10;
/// The digits in order: index, middle, ring, little finger, thumb.
const DIGITS: usize = 5;

/// How one digit meets the surface under it.
struct DigitReach {
    /// The curl to ease toward.
    curl: f32,
    /// Where the probe under the digit's tip met the surface.
    tip_hit: Option<RayHit>,
    /// How far the least-curled digit sinks below its clearance, metres (negative: it
    /// clears): what the palm must rise to keep it out.
    deficit: f32,
}

/// Where and how to place the hand this step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandTarget {
    /// A point on the skin (world space); the palm floats above it by the gesture's lift.
    pub point: Vec3,
    /// The outward surface normal there.
    pub normal: Vec3,
    /// Which way the fingers point (made tangent to the surface here).
    pub forward: Vec3,
    /// The gesture.
    pub mode: ContactMode,
}

/// The posed hand and what it hands on: contact capsules and shapes to draw.
#[derive(Clone, Debug)]
pub struct HandRig {
    dimensions: HandDimensions,
    /// The posture of each gesture, for the hand at the creature's size; change freely
    /// between steps.
    pub styles: ModeStyles,
    /// The hand's size against the one it has beside the creature (1 there): it scales the
    /// probes' reach and the palm's most extra rise.
    size: f32,
    /// What the gesture heights above the skin are scaled by (1 beside the creature).
    height_scale: f32,
    chains: [DigitChain; DIGITS],
    /// Scratch phase of each finger, radians, from the seed: the fingers do not move in
    /// perfect unison.
    phases: [f32; 4],
    posed: bool,
    mode: ContactMode,
    /// The frame on the skin (origin at the target), what degenerate targets fall back to.
    skin: Option<HandFrame>,
    /// The palm's frame: the skin frame lifted by the current lift.
    frame: Option<HandFrame>,
    lift: f32,
    /// The palm's rise above the gesture's lift where even straight digits would sink into
    /// the surface under them (eased like the lift).
    extra_lift: f32,
    occlusion: f32,
    scratch_amplitude: f32,
    curls: [f32; DIGITS],
    target_curls: [f32; DIGITS],
    probe_hits: [Option<RayHit>; DIGITS],
    capsules: Vec<Capsule>,
    shapes: Vec<HandShape>,
}

impl HandRig {
    /// A hand of `dimensions`; `seed` sets the fingers' scratch phases.
    pub fn new(dimensions: HandDimensions, seed: u64) -> Self {
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x4a4e_d000_0000_0007);
        let mut phase = || (rng.random::<f32>() - 0.5) * 1.2;
        let phases = [phase(), phase(), phase(), phase()];
        HandRig {
            chains: Self::chains(&dimensions),
            dimensions,
            styles: ModeStyles::default(),
            size: 1.0,
            height_scale: 1.0,
            phases,
            posed: false,
            mode: ContactMode::Hover,
            skin: None,
            frame: None,
            lift: 0.0,
            extra_lift: 0.0,
            occlusion: 0.0,
            scratch_amplitude: 0.0,
            curls: [RELAXED_CURL; DIGITS],
            target_curls: [RELAXED_CURL; DIGITS],
            probe_hits: [None; DIGITS],
            capsules: Vec::new(),
            shapes: Vec::new(),
        }
    }

    /// The digits' chains of a hand of `dimensions`.
    fn chains(dimensions: &HandDimensions) -> [DigitChain; DIGITS] {
        let finger_chain = |i: usize| {
            let f = dimensions.fingers[i];
            DigitChain::new(
                Vec3::new(f.knuckle[0], dimensions.palm_radius, f.knuckle[1]),
                Vec3::new(f.splay.sin(), 0.0, f.splay.cos()),
                f.lengths,
                f.radii,
                [0.40, 0.35, 0.25],
            )
        };
        let t = dimensions.thumb;
        [
            finger_chain(0),
            finger_chain(1),
            finger_chain(2),
            finger_chain(3),
            DigitChain::new(t.base, t.direction, t.lengths, t.radii, [0.2, 0.4, 0.4]),
        ]
    }

    /// Sizes the hand for a body: `dimensions` (the creature's hand already scaled by
    /// `size`), with the probes' reach scaled by `size` and the gesture heights above the
    /// skin by `heights` (see [`super::body_hand_factor`]). The pose is forgotten, as by
    /// [`reset`](Self::reset); the scratch phases stay. A `size` or `heights` that is not a
    /// positive finite number counts as 1.
    pub fn resize(&mut self, dimensions: HandDimensions, size: f32, heights: f32) {
        let positive = |v: f32| if v.is_finite() && v > 0.0 { v } else { 1.0 };
        self.chains = Self::chains(&dimensions);
        self.dimensions = dimensions;
        self.size = positive(size);
        self.height_scale = positive(heights);
        self.reset();
    }

    /// Forgets the pose: the next [`update`](Self::update) places the hand afresh, relaxed,
    /// at the hover height, with zero capsule velocity (so a hand that appears somewhere
    /// new does not sweep the fur on its way there).
    pub fn reset(&mut self) {
        self.posed = false;
        self.skin = None;
        self.frame = None;
        self.capsules.clear();
        self.shapes.clear();
        self.probe_hits = [None; DIGITS];
    }

    /// Poses the hand for a step of `dt` seconds ending at `time` seconds. Capsule
    /// velocities are the change of each capsule's centre over the step (zero on the first
    /// update after [`new`](Self::new) or [`reset`](Self::reset), or when `dt` is not a
    /// positive number). Degenerate targets (zero normal, zero or normal-parallel stroke,
    /// non-finite point) fall back to the previous frame rather than producing NaN.
    pub fn update(&mut self, target: &HandTarget, surface: &dyn SurfaceProbe, time: f64, dt: f32) {
        let style = self
            .styles
            .of(target.mode)
            .heights_scaled(self.height_scale);
        if !self.posed {
            let hover = self.styles.hover.heights_scaled(self.height_scale);
            self.lift = hover.palm_lift;
            self.extra_lift = 0.0;
            self.occlusion = 0.0;
            self.scratch_amplitude = 0.0;
            self.curls = [RELAXED_CURL; DIGITS];
        }
        self.mode = target.mode;
        self.lift = ease(self.lift, style.palm_lift, dt, LIFT_TAU);
        self.occlusion = ease(self.occlusion, style.occlusion, dt, OCCLUSION_TAU);
        self.scratch_amplitude = ease(
            self.scratch_amplitude,
            style.scratch_amplitude,
            dt,
            SCRATCH_TAU,
        );

        let skin = HandFrame::new(
            target.point,
            target.normal,
            target.forward,
            self.skin.as_ref(),
        );
        // A hand placed afresh settles its rise in a second pass, so it never starts inside
        // the creature.
        let passes = if self.posed { 1 } else { 2 };
        let mut frame = skin;
        for _ in 0..passes {
            frame = HandFrame {
                origin: skin.origin + skin.up * (self.lift + self.extra_lift),
                ..skin
            };
            let mut deficit = f32::NEG_INFINITY;
            for d in 0..DIGITS {
                let reach = self.curl_toward_surface(d, &frame, surface, style.fingertip_clearance);
                self.target_curls[d] = reach.curl;
                self.probe_hits[d] = reach.tip_hit;
                deficit = deficit.max(reach.deficit);
            }
            // The deficit was measured with the current rise; this is the rise at which the
            // straightest digits just clear, whatever the current one is.
            let wanted = (self.extra_lift + deficit).clamp(0.0, MAX_EXTRA_LIFT * self.size);
            self.extra_lift = if self.posed {
                ease(self.extra_lift, wanted, dt, LIFT_TAU)
            } else {
                wanted
            };
        }
        for d in 0..DIGITS {
            self.curls[d] = if self.posed {
                ease(self.curls[d], self.target_curls[d], dt, CURL_TAU)
            } else {
                RELAXED_CURL.min(self.target_curls[d])
            };
        }

        // Scratching flexes the fingers between their eased curl and `amplitude` less.
        let omega = std::f64::consts::TAU * f64::from(SCRATCH_HZ);
        let mut posed_curls = self.curls;
        for (f, curl) in posed_curls.iter_mut().take(4).enumerate() {
            let wave =
                ((omega * time).rem_euclid(std::f64::consts::TAU) as f32 + self.phases[f]).sin();
            *curl -= self.scratch_amplitude * 0.5 * (1.0 + wave);
        }

        let previous: Option<Vec<Vec3>> = (self.posed && dt.is_finite() && dt > 0.0)
            .then(|| self.capsules.iter().map(|c| c.center).collect());
        self.build(&frame, &posed_curls);
        if let Some(previous) = previous {
            for (c, before) in self.capsules.iter_mut().zip(previous) {
                c.velocity = (c.center - before) / dt;
            }
        }
        self.skin = Some(skin);
        self.frame = Some(frame);
        self.posed = true;
    }

    /// How digit `d` meets the surface under it: the most curl (up to a loose fist) at
    /// which every joint stays `clearance` above the surface found under it, and how far
    /// the straightest digit would still sink (see [`DigitReach`]). A digit with nothing
    /// below it relaxes.
    fn curl_toward_surface(
        &self,
        d: usize,
        frame: &HandFrame,
        surface: &dyn SurfaceProbe,
        clearance: f32,
    ) -> DigitReach {
        let chain = &self.chains[d];
        // Probed under the joints where they are now, so that as the curl settles the
        // heights are those under the joints' final places (a curled fingertip sits nearer
        // the palm than a straight one, over a different patch of a rounded surface).
        let now = chain.joints(if self.posed {
            self.curls[d]
        } else {
            RELAXED_CURL
        });
        // The surface's height (hand-local y) under each joint.
        let mut heights = [None; 4];
        let mut tip_hit = None;
        let probe_height = PROBE_HEIGHT * self.size;
        // How far below the probes' start a surface still counts (the heights' test below).
        let reach = self.lift + self.extra_lift + PROBE_REACH * self.size;
        for (k, joint) in now.iter().enumerate() {
            let ray = Ray::new(
                frame.point(Vec3::new(joint.x, probe_height, joint.z)),
                -frame.up,
            );
            let Some(hit) = surface.probe(&ray, probe_height + reach) else {
                continue;
            };
            if k == 3 {
                tip_hit = Some(hit);
            }
            // A hit whose normal faces along the ray is the far side of a part the probe
            // started inside: the surface is at least as high as the probe's start.
            let height = if hit.normal.dot(ray.direction) > 0.0 {
                probe_height
            } else {
                frame.local_point(hit.point).y
            };
            if height.is_finite() && height >= -reach {
                heights[k] = Some(height);
            }
        }
        if heights[1..].iter().all(Option::is_none) {
            return DigitReach {
                curl: RELAXED_CURL,
                tip_hit,
                deficit: f32::NEG_INFINITY,
            };
        }
        // How far below `clearance` the lowest joint sits at `curl` (negative: clear).
        let sinking = |curl: f32| {
            let joints = chain.joints(curl);
            (0..4)
                .filter_map(|k: usize| {
                    let radius = chain.radii[k.saturating_sub(1)];
                    heights[k].map(|h| h + clearance - (joints[k].y - radius))
                })
                .fold(f32::NEG_INFINITY, f32::max)
        };
        let (mut lo, mut hi) = CURL_RANGE;
        let deficit = sinking(lo);
        let curl = if deficit >= 0.0 {
            lo
        } else if sinking(hi) <= 0.0 {
            hi
        } else {
            // Every joint only sinks as the curl grows in this range.
            for _ in 0..24 {
                let mid = 0.5 * (lo + hi);
                if sinking(mid) <= 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        DigitReach {
            curl,
            tip_hit,
            deficit,
        }
    }

    /// Builds the capsules and shapes for `frame` with the digits at `curls`.
    fn build(&mut self, frame: &HandFrame, curls: &[f32; DIGITS]) {
        let dims = &self.dimensions;
        let mut capsules = Vec::with_capacity(CONTACT_CAPSULES);
        let capsule = |a: Vec3, b: Vec3, r: f32| {
            Capsule::between(frame.point(a), frame.point(b), r, Vec3::ZERO)
        };
        for f in &dims.fingers {
            let y = dims.palm_radius;
            capsules.push(capsule(
                Vec3::new(f.heel[0], y, f.heel[1]),
                Vec3::new(f.knuckle[0], y, f.knuckle[1]),
                dims.palm_radius,
            ));
        }
        let mut nails = Vec::with_capacity(DIGITS);
        for (d, chain) in self.chains.iter().enumerate() {
            let j = chain.joints(curls[d]);
            for bone in 0..3 {
                capsules.push(capsule(j[bone], j[bone + 1], chain.radii[bone]));
            }
            // The nail lies on the back of the last bone, toward its tip.
            let nail_radius = if d == 4 {
                dims.nail_radius * 1.25
            } else {
                dims.nail_radius
            };
            let lift = chain.dorsal(curls[d]) * (chain.radii[2] - 0.5 * nail_radius);
            let along = j[3] - j[2];
            nails.push(HandShape {
                a: frame.point(j[2] + along * 0.45 + lift),
                b: frame.point(j[2] + along * 0.92 + lift),
                radius: nail_radius,
                material: HandMaterial::Nail,
            });
        }
        let arm = dims.forearm_direction.normalize_or(Vec3::NEG_Z);
        let along_arm = |s: f32| frame.point(dims.wrist + arm * s);

        self.shapes.clear();
        self.shapes.extend(capsules.iter().map(|c| {
            let (a, b) = c.ends();
            HandShape {
                a,
                b,
                radius: c.radius,
                material: HandMaterial::Skin,
            }
        }));
        self.shapes.extend(nails);
        self.shapes.push(HandShape {
            a: along_arm(0.0),
            b: along_arm(dims.forearm_length),
            radius: dims.forearm_radius,
            material: HandMaterial::Skin,
        });
        self.shapes.push(HandShape {
            a: along_arm(dims.sleeve_span[0]),
            b: along_arm(dims.sleeve_span[1]),
            radius: dims.sleeve_radius,
            material: HandMaterial::Sleeve,
        });
        self.capsules = capsules;
    }

    /// The contact for the solver: palm, finger and thumb capsules with their velocities,
    /// and the gesture. `None` before the first update or after a reset.
    pub fn contact(&self) -> Option<HandContact> {
        (!self.capsules.is_empty()).then(|| HandContact {
            capsules: self.capsules.clone(),
            mode: self.mode,
        })
    }

    /// The contact capsules (see [`finger_capsule`] and [`thumb_capsule`] for the order).
    pub fn capsules(&self) -> &[Capsule] {
        &self.capsules
    }

    /// Everything to draw: the contact capsules as skin, then the five nails, the forearm
    /// and the sleeve.
    pub fn shapes(&self) -> &[HandShape] {
        &self.shapes
    }

    /// How strongly the renderer should darken the fur around the hand, 0 to 1 (eased
    /// toward the gesture's strength).
    pub fn occlusion(&self) -> f32 {
        self.occlusion
    }

    /// The palm's current height above the skin, metres: the gesture's lift, plus what
    /// the surface under the digits asks for where it climbs.
    pub fn lift(&self) -> f32 {
        self.lift + self.extra_lift
    }

    /// The eased curl of each digit (index, middle, ring, little, thumb), radians, before
    /// the scratch swing.
    pub fn curls(&self) -> [f32; DIGITS] {
        self.curls
    }

    /// The curl each digit is easing toward: the one that brings it to the gesture's
    /// fingertip height above the surface under it.
    pub fn target_curls(&self) -> [f32; DIGITS] {
        self.target_curls
    }

    /// Where each digit's downward probe met the surface within its reach this step (for
    /// the contact debug view).
    pub fn probe_hits(&self) -> &[Option<RayHit>; DIGITS] {
        &self.probe_hits
    }

    /// The hand's frame (origin on the palm's underside), once posed.
    pub fn frame(&self) -> Option<&HandFrame> {
        self.frame.as_ref()
    }

    /// The centre of the palm's underside, world space, once posed.
    pub fn palm_point(&self) -> Option<Vec3> {
        self.frame.map(|f| f.origin)
    }

    /// The gesture of the last update.
    pub fn mode(&self) -> ContactMode {
        self.mode
    }

    /// The hand's proportions.
    pub fn dimensions(&self) -> &HandDimensions {
        &self.dimensions
    }

    /// The hand's size against the one it has beside the creature (1 there; see
    /// [`resize`](Self::resize)).
    pub fn size(&self) -> f32 {
        self.size
    }

    /// What the gesture heights above the skin are scaled by (1 beside the creature; see
    /// [`resize`](Self::resize)).
    pub fn height_scale(&self) -> f32 {
        self.height_scale
    }
}
