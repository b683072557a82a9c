//! The hand's proportions: an adult human hand (palm about 9 cm wide, middle finger about
//! 9 cm long), which beside the creature's 0.25 m head reads as a person petting a big cat.
//!
//! Hand-local coordinates: x toward the thumb, y up, away from the fur (along the surface
//! normal), z along the fingers. The origin is the point of the palm's underside above
//! the target on the fur.

use glam::Vec3;

/// One finger: three phalanges from the knuckle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FingerDimensions {
    /// Where the palm's metacarpal band starts, at the heel of the hand (x, z; hand-local).
    pub heel: [f32; 2],
    /// The knuckle, where the finger leaves the palm (x, z; hand-local).
    pub knuckle: [f32; 2],
    /// Turn of the straight finger away from +z, radians, positive toward the thumb.
    pub splay: f32,
    /// Proximal, middle and distal phalanx lengths, metres.
    pub lengths: [f32; 3],
    /// Their radii, metres.
    pub radii: [f32; 3],
}

/// The thumb: metacarpal, proximal and distal phalanges from its base beside the palm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThumbDimensions {
    /// The base (carpometacarpal joint), hand-local.
    pub base: Vec3,
    /// Direction of the straight thumb, hand-local (normalised when used).
    pub direction: Vec3,
    /// Bone lengths, metres.
    pub lengths: [f32; 3],
    /// Their radii, metres.
    pub radii: [f32; 3],
}

/// Every size of the hand, forearm and sleeve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandDimensions {
    /// Radius of the palm's four metacarpal capsules (half the palm's thickness).
    pub palm_radius: f32,
    /// Index, middle, ring and little finger.
    pub fingers: [FingerDimensions; 4],
    /// The thumb.
    pub thumb: ThumbDimensions,
    /// Radius of a fingernail's capsule (the thumb's is a quarter larger).
    pub nail_radius: f32,
    /// The wrist, hand-local: where the forearm starts.
    pub wrist: Vec3,
    /// Direction from the wrist toward the elbow, hand-local (normalised when used):
    /// back along the hand and up, toward the person petting.
    pub forearm_direction: Vec3,
    /// Forearm length, metres.
    pub forearm_length: f32,
    /// Forearm radius, metres.
    pub forearm_radius: f32,
    /// Where the sleeve starts and ends, as distances from the wrist along the forearm.
    pub sleeve_span: [f32; 2],
    /// Sleeve radius, metres.
    pub sleeve_radius: f32,
}

impl Default for HandDimensions {
    /// An adult's right hand.
    fn default() -> Self {
        let finger = |heel, knuckle, splay, lengths, radii| FingerDimensions {
            heel,
            knuckle,
            splay,
            lengths,
            radii,
        };
        HandDimensions {
            palm_radius: 0.0135,
            fingers: [
                finger(
                    [0.020, -0.050],
                    [0.030, 0.042],
                    0.08,
                    [0.040, 0.024, 0.019],
                    [0.0098, 0.0088, 0.0080],
                ),
                finger(
                    [0.006, -0.052],
                    [0.009, 0.046],
                    0.0,
                    [0.045, 0.028, 0.020],
                    [0.0100, 0.0090, 0.0082],
                ),
                finger(
                    [-0.008, -0.050],
                    [-0.012, 0.042],
                    -0.06,
                    [0.042, 0.027, 0.019],
                    [0.0095, 0.0085, 0.0077],
                ),
                finger(
                    [-0.020, -0.046],
                    [-0.031, 0.034],
                    -0.14,
                    [0.032, 0.019, 0.017],
                    [0.0085, 0.0076, 0.0070],
                ),
            ],
            thumb: ThumbDimensions {
                base: Vec3::new(0.030, 0.0115, -0.030),
                direction: Vec3::new(0.75, -0.2, 0.62),
                lengths: [0.040, 0.031, 0.026],
                radii: [0.0125, 0.0110, 0.0095],
            },
            nail_radius: 0.0042,
            wrist: Vec3::new(0.004, 0.020, -0.066),
            forearm_direction: Vec3::new(0.0, 0.85, -0.53),
            forearm_length: 0.27,
            forearm_radius: 0.028,
            sleeve_span: [0.15, 0.36],
            sleeve_radius: 0.038,
        }
    }
}

impl HandDimensions {
    /// This hand scaled by `factor` in every length (directions unchanged): a hand sized
    /// for a creature of another size. A factor that is not a positive finite number
    /// leaves the hand as it is.
    pub fn scaled(&self, factor: f32) -> Self {
        if !(factor.is_finite() && factor > 0.0) {
            return *self;
        }
        let s = |v: f32| v * factor;
        let s2 = |v: [f32; 2]| v.map(s);
        let s3 = |v: [f32; 3]| v.map(s);
        HandDimensions {
            palm_radius: s(self.palm_radius),
            fingers: self.fingers.map(|f| FingerDimensions {
                heel: s2(f.heel),
                knuckle: s2(f.knuckle),
                splay: f.splay,
                lengths: s3(f.lengths),
                radii: s3(f.radii),
            }),
            thumb: ThumbDimensions {
                base: self.thumb.base * factor,
                direction: self.thumb.direction,
                lengths: s3(self.thumb.lengths),
                radii: s3(self.thumb.radii),
            },
            nail_radius: s(self.nail_radius),
            wrist: self.wrist * factor,
            forearm_direction: self.forearm_direction,
            forearm_length: s(self.forearm_length),
            forearm_radius: s(self.forearm_radius),
            sleeve_span: s2(self.sleeve_span),
            sleeve_radius: s(self.sleeve_radius),
        }
    }
}
