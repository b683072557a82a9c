//! How each gesture holds the hand: how high the palm floats above the skin, how close the
//! fingertips reach, how strongly the hand darkens the fur around it, and how far the
//! fingers swing when scratching. Friction and comb strength belong to the solver's
//! [`ContactMode`].

use crate::sim::ContactMode;

/// Scratching moves the fingers at this rate, hertz.
pub const SCRATCH_HZ: f32 = 7.0;

/// The hand's posture in one gesture.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModeStyle {
    /// Height of the palm's underside above the skin under it, metres. The settled coat
    /// stands about 7 cm high (12–13 cm strands leaning 30–70° from the normal; on the back
    /// 90% of strand points lie within 7 cm of the skin, the highest at 9 cm), so a
    /// hovering palm brushes the tips and a petting palm presses well into the coat.
    pub palm_lift: f32,
    /// Height above the skin the fingers curl toward, metres (their lowest point).
    pub fingertip_clearance: f32,
    /// How strongly the renderer darkens fur around the hand, 0 (not at all) to 1.
    pub occlusion: f32,
    /// Curl swing of the scratching fingers, radians: they flex between their eased curl
    /// and that much less, at [`SCRATCH_HZ`]. Zero outside a scratch.
    pub scratch_amplitude: f32,
}

/// One [`ModeStyle`] per gesture.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModeStyles {
    /// Hovering over the coat.
    pub hover: ModeStyle,
    /// Petting: palm pressed into the coat, fingers reaching in.
    pub pet: ModeStyle,
    /// Scratching: fingertips at the skin, flexing.
    pub scratch: ModeStyle,
}

impl Default for ModeStyles {
    fn default() -> Self {
        ModeStyles {
            hover: ModeStyle {
                palm_lift: 0.085,
                fingertip_clearance: 0.065,
                occlusion: 0.25,
                scratch_amplitude: 0.0,
            },
            pet: ModeStyle {
                palm_lift: 0.045,
                fingertip_clearance: 0.022,
                occlusion: 0.55,
                scratch_amplitude: 0.0,
            },
            scratch: ModeStyle {
                palm_lift: 0.055,
                fingertip_clearance: 0.008,
                occlusion: 0.7,
                scratch_amplitude: 0.45,
            },
        }
    }
}

impl ModeStyle {
    /// This posture with its heights above the skin (palm lift, fingertip clearance)
    /// scaled by `factor`, for a coat of another height; the rest unchanged.
    pub fn heights_scaled(self, factor: f32) -> ModeStyle {
        ModeStyle {
            palm_lift: self.palm_lift * factor,
            fingertip_clearance: self.fingertip_clearance * factor,
            ..self
        }
    }
}

impl ModeStyles {
    /// The style of `mode`.
    pub fn of(&self, mode: ContactMode) -> ModeStyle {
        match mode {
            ContactMode::Hover => self.hover,
            ContactMode::Pet => self.pet,
            ContactMode::Scratch => self.scratch,
        }
    }
}
