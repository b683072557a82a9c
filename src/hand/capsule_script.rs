//! Scripted capsules: a hand made of capsules that move between keyframes, for headless
//! runs (`pelt simulate --capsule-script`, `pelt render --capsule-script`) and tests. The
//! solver only sees the capsules of each step ([`HandContact`]).
//!
//! The JSON form:
//! ```json
//! { "mode": "pet",
//!   "capsules": [ { "radius": 0.05,
//!                   "keys": [ { "step": 0,  "a": [0.3, 0.4, 0.0], "b": [0.3, 0.4, 0.1] },
//!                             { "step": 60, "a": [-0.3, 0.4, 0.0], "b": [-0.3, 0.4, 0.1] } ] } ] }
//! ```
//! Between keys the ends move linearly; before the first key and after the last the capsule
//! is absent. Velocity is the keyed motion's. No other fields are accepted (a typo such as
//! `"capsule"` is an error, not a script without a hand); a leading UTF-8 byte-order mark
//! is. A script file holds at most [`MAX_CAPSULE_SCRIPT_BYTES`] bytes.

use crate::files::FileError;
use crate::json_numbers::{plain_types, readable};
use crate::sim::within_reach;
use crate::sim::{
    Capsule, ContactMode, FIXED_STEP_HZ, FurSim, HandContact, MAX_CAPSULE_REACH, MAX_CAPSULES,
    SimError, StepInput,
};
use glam::Vec3;
use serde::Deserialize;
use std::path::Path;
use thiserror::Error;

/// The largest capsule script file read, bytes (a script of thousands of keys is far less).
pub const MAX_CAPSULE_SCRIPT_BYTES: u64 = 16 << 20;

/// What is wrong with a capsule script.
#[derive(Debug, Error)]
pub enum CapsuleScriptError {
    /// Not valid JSON of the expected shape.
    #[error("capsule script is not valid: {}", plain_types(&.0.to_string()))]
    Json(#[from] serde_json::Error),
    /// A number written as `NaN` or `Infinity`, which JSON does not have: where, and
    /// the word.
    #[error("capsule script is not valid: {0}")]
    NotFinite(String),
    /// A value that makes no sense.
    #[error("capsule script: {0}")]
    Invalid(String),
    /// Lists or objects nested deeper than any capsule script is.
    #[error("capsule script is not valid: {0}")]
    TooDeep(String),
    /// Another kind of file: a pointer script, a root motion, a picture; what it is and
    /// which command reads it.
    #[error("{0}")]
    WrongFile(String),
    /// The file could not be read, or is larger than [`MAX_CAPSULE_SCRIPT_BYTES`].
    #[error(transparent)]
    File(#[from] FileError),
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum ModeName {
    Hover,
    Pet,
    Scratch,
}

/// What a capsule script looks like, for the errors that say what the file should be.
const EXAMPLE: &str = r#"an object like {"mode": "pet", "capsules": [{"radius": 0.05, "keys": [{"step": 0, "a": [x, y, z], "b": [x, y, z]}, …]}]}"#;

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a key: {\"step\": number, \"a\": [x, y, z], \"b\": [x, y, z]}"
)]
struct KeyJson {
    #[serde(deserialize_with = "correctly_rounded")]
    step: f64,
    // Read as f64 and checked before narrowing, so an error quotes the file's own number
    // (1e39 is infinite in f32, 1e-46 zero).
    #[serde(deserialize_with = "end_a")]
    a: [f64; 3],
    #[serde(deserialize_with = "end_b")]
    b: [f64; 3],
}

fn end_a<'de, D: serde::Deserializer<'de>>(from: D) -> Result<[f64; 3], D::Error> {
    crate::json_numbers::exactly(from, "a")
}

fn end_b<'de, D: serde::Deserializer<'de>>(from: D) -> Result<[f64; 3], D::Error> {
    crate::json_numbers::exactly(from, "b")
}

/// A JSON number read as the f64 nearest to it. serde_json's own reading may be a unit in
/// the last place off (its `float_roundtrip` feature would fix that for every file the
/// project reads, changing which error some bad glTF numbers give), and two steps a unit
/// apart would then read as out of order: `2251799813685248.25` and `.5` both as `.5`.
fn correctly_rounded<'de, D: serde::Deserializer<'de>>(from: D) -> Result<f64, D::Error> {
    let raw = <&serde_json::value::RawValue>::deserialize(from)?;
    let text = raw.get();
    // JSON's numbers are a subset of what Rust's parser reads (which rounds correctly);
    // anything else here (a string, `true`, an object) is no number.
    let is_number = text.starts_with(|c: char| c == '-' || c.is_ascii_digit());
    match text.parse::<f64>() {
        Ok(v) if is_number => Ok(v),
        _ => Err(serde::de::Error::custom(format!(
            "expected a number, found {}",
            text.chars().take(40).collect::<String>()
        ))),
    }
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a capsule: {\"radius\": number, \"keys\": [...]}"
)]
struct CapsuleJson {
    radius: f64,
    keys: Vec<KeyJson>,
}

impl CapsuleJson {
    /// The checks that need the file's numbers before they become `f32`: a radius that
    /// would round to zero, and a capsule past [`MAX_CAPSULE_REACH`] (which the f32 check
    /// would report as infinite, or not at all where a coordinate overflowed).
    fn check_range(&self, i: usize) -> Result<(), CapsuleScriptError> {
        if self.radius > 0.0 && (self.radius as f32) == 0.0 {
            return Err(CapsuleScriptError::Invalid(format!(
                "capsule {i}: radius {:e} m is too small to hold as a 32-bit number",
                self.radius
            )));
        }
        let limit = f64::from(MAX_CAPSULE_REACH);
        for (k, key) in self.keys.iter().enumerate() {
            let farthest = key
                .a
                .iter()
                .chain(&key.b)
                .fold(0.0f64, |m, v| m.max(v.abs()));
            let reach = farthest + self.radius.max(0.0);
            if reach > limit {
                return Err(out_of_reach(i, k, self.radius, reach));
            }
        }
        Ok(())
    }
}

/// The fastest a scripted capsule moves, metres per second: across the whole space a
/// capsule may reach (2 × [`MAX_CAPSULE_REACH`] on every axis) in one step. Keys a step or
/// more apart never come near it; keys a sliver of a step apart would otherwise give a
/// speed past any `f32` (and, with ends that do not move, 0 × ∞ = NaN). The solver moves a
/// capsule's push by at most a few centimetres a step, so every speed this high acts alike.
const MAX_CAPSULE_SPEED: f64 =
    2.0 * 1.732_050_807_568_877_2 * MAX_CAPSULE_REACH as f64 * FIXED_STEP_HZ;

/// The velocity, metres per second, of a capsule whose centre moves from `from` to `to` in
/// `span` steps (positive), at most [`MAX_CAPSULE_SPEED`]; worked in `f64`, so it is
/// finite for any span.
fn keyed_velocity(from: Vec3, to: Vec3, span: f64) -> Vec3 {
    let moved = (to - from).as_dvec3();
    let distance = moved.length();
    if distance == 0.0 {
        return Vec3::ZERO;
    }
    // `distance / span` may overflow even f64 for a subnormal span: `min` caps infinity too.
    let speed = (distance / span * FIXED_STEP_HZ).min(MAX_CAPSULE_SPEED);
    (moved / distance * speed).as_vec3()
}

/// Capsule `i`'s key `k`, of `radius`, reaches `reach` metres: past [`MAX_CAPSULE_REACH`].
fn out_of_reach(i: usize, k: usize, radius: f64, reach: f64) -> CapsuleScriptError {
    CapsuleScriptError::Invalid(format!(
        "capsule {i}, key {k}: the capsule (radius {radius:e}) reaches {reach:e} m from the \
         origin; at most {MAX_CAPSULE_REACH:e} m"
    ))
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a capsule script: an object {\"mode\": ..., \"capsules\": [...]}"
)]
struct ScriptJson {
    mode: ModeName,
    capsules: Vec<CapsuleJson>,
}

/// One keyframe of a scripted capsule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CapsuleKey {
    /// Step number (may be fractional).
    pub step: f64,
    /// First end.
    pub a: Vec3,
    /// Second end.
    pub b: Vec3,
}

/// A capsule moving through keyframes.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptedCapsule {
    /// Radius, metres.
    pub radius: f32,
    /// Keys in increasing step order.
    pub keys: Vec<CapsuleKey>,
}

/// A scripted hand.
#[derive(Clone, Debug, PartialEq)]
pub struct CapsuleScript {
    /// The gesture for every step.
    pub mode: ContactMode,
    /// The capsules.
    pub capsules: Vec<ScriptedCapsule>,
}

impl CapsuleScript {
    /// A palm-sized capsule (5 cm radius, 18 cm long) petting the default creature from
    /// behind the head down its back between steps `from` and `to`, following the back's
    /// curve a few centimetres into the fur and clear of the skin.
    pub fn back_stroke(from: f64, to: f64) -> Self {
        let key = |step: f64, y: f32, z: f32| CapsuleKey {
            step,
            a: Vec3::new(-0.09, y, z),
            b: Vec3::new(0.09, y, z),
        };
        CapsuleScript {
            mode: ContactMode::Pet,
            capsules: vec![ScriptedCapsule {
                radius: 0.05,
                keys: vec![key(from, 0.025, -0.15), key(to, -0.07, -0.55)],
            }],
        }
    }

    /// Reads (at most [`MAX_CAPSULE_SCRIPT_BYTES`]), parses and checks a script file.
    pub fn from_path(path: &Path) -> Result<Self, CapsuleScriptError> {
        let bytes = crate::files::read_capped(path, MAX_CAPSULE_SCRIPT_BYTES, "capsule script")?;
        let text = String::from_utf8(bytes).map_err(|e| {
            CapsuleScriptError::WrongFile(format!(
                "this is {}, not a capsule script: --capsule-script takes a JSON file, {EXAMPLE}",
                crate::script_file::binary_kind(e.as_bytes())
            ))
        })?;
        Self::from_json(&text)
    }

    /// Parses and checks a script (a leading byte-order mark is skipped).
    pub fn from_json(text: &str) -> Result<Self, CapsuleScriptError> {
        let text = crate::files::strip_bom(text);
        if let Some(message) = crate::json_numbers::too_deep(text.as_bytes()) {
            return Err(CapsuleScriptError::TooDeep(message));
        }
        let json: ScriptJson = serde_json::from_str(text).map_err(|e| {
            use crate::script_file::{JsonFile, kind_of_text};
            if let Some(message) = crate::json_numbers::non_finite_number(text, &e) {
                return CapsuleScriptError::NotFinite(message);
            }
            match kind_of_text(text) {
                Some(kind) if kind != JsonFile::CapsuleScript => CapsuleScriptError::WrongFile(
                    kind.given_as("a capsule script", "--capsule-script", EXAMPLE),
                ),
                _ => e.into(),
            }
        })?;
        for (i, c) in json.capsules.iter().enumerate().take(MAX_CAPSULES) {
            c.check_range(i)?;
        }
        let script = CapsuleScript {
            mode: match json.mode {
                ModeName::Hover => ContactMode::Hover,
                ModeName::Pet => ContactMode::Pet,
                ModeName::Scratch => ContactMode::Scratch,
            },
            capsules: json
                .capsules
                .into_iter()
                .map(|c| ScriptedCapsule {
                    radius: c.radius as f32,
                    keys: c
                        .keys
                        .into_iter()
                        .map(|k| CapsuleKey {
                            step: k.step,
                            a: Vec3::from(k.a.map(|v| v as f32)),
                            b: Vec3::from(k.b.map(|v| v as f32)),
                        })
                        .collect(),
                })
                .collect(),
        };
        script.validate()?;
        Ok(script)
    }

    /// Checks counts, finiteness, radii, reach ([`MAX_CAPSULE_REACH`]) and key order.
    pub fn validate(&self) -> Result<(), CapsuleScriptError> {
        if self.capsules.len() > MAX_CAPSULES {
            return Err(CapsuleScriptError::Invalid(format!(
                "{} capsules; at most {MAX_CAPSULES}",
                self.capsules.len()
            )));
        }
        for (i, c) in self.capsules.iter().enumerate() {
            if !(c.radius.is_finite() && c.radius > 0.0) {
                return Err(CapsuleScriptError::Invalid(format!(
                    "capsule {i}: radius {} must be a positive number",
                    c.radius
                )));
            }
            if c.keys.is_empty() {
                return Err(CapsuleScriptError::Invalid(format!(
                    "capsule {i} has no keys"
                )));
            }
            for (k, key) in c.keys.iter().enumerate() {
                if !(key.step.is_finite() && key.a.is_finite() && key.b.is_finite()) {
                    return Err(CapsuleScriptError::Invalid(format!(
                        "capsule {i}, key {k}: every number must be finite"
                    )));
                }
                // With the solver's rounding allowance: a script read from JSON was
                // checked exactly (in f64) before its numbers were narrowed.
                let reach = (key.a.abs().max(key.b.abs()) + Vec3::splat(c.radius)).max_element();
                if !within_reach(reach) {
                    return Err(out_of_reach(i, k, c.radius.into(), reach.into()));
                }
                if k > 0 && key.step <= c.keys[k - 1].step {
                    let previous = c.keys[k - 1].step;
                    // Steps are numbers (fractional ones allowed) kept as f64, which holds
                    // about 16 significant digits: steps that differ only past those read
                    // as the same step.
                    let equal = if key.step == previous {
                        "; steps are read as f64, so steps that differ only past the 16th significant digit are the same step"
                    } else {
                        ""
                    };
                    return Err(CapsuleScriptError::Invalid(format!(
                        "capsule {i}, key {k}: step {} does not come after the previous key's step {} (steps must increase{equal})",
                        readable(key.step),
                        readable(previous)
                    )));
                }
            }
        }
        Ok(())
    }

    /// The hand at (possibly fractional) `step`: each capsule between its keys, with the
    /// velocity of that stretch; capsules outside their key range are left out.
    pub fn contact_at(&self, step: f64) -> HandContact {
        let capsules = self
            .capsules
            .iter()
            .filter_map(|c| {
                let first = c.keys.first()?;
                let last = c.keys.last()?;
                if c.keys.len() == 1 {
                    return (step == first.step)
                        .then(|| Capsule::between(first.a, first.b, c.radius, Vec3::ZERO));
                }
                if step < first.step || step > last.step {
                    return None;
                }
                let k = c.keys.windows(2).find(|w| step <= w[1].step)?;
                let (k0, k1) = (k[0], k[1]);
                let span = k1.step - k0.step;
                let s = ((step - k0.step) / span) as f32;
                let a = k0.a.lerp(k1.a, s);
                let b = k0.b.lerp(k1.b, s);
                let velocity = keyed_velocity((k0.a + k0.b) * 0.5, (k1.a + k1.b) * 0.5, span);
                Some(Capsule::between(a, b, c.radius, velocity))
            })
            .collect();
        HandContact {
            capsules,
            mode: self.mode,
        }
    }

    /// Takes `n` fixed steps of `sim` with this script's hand at each step's number; the
    /// tail keeps the pose it was given.
    pub fn step(&self, sim: &mut FurSim, n: u32) -> Result<(), SimError> {
        let tail = sim.tail_pose();
        sim.step_with(n, |step| StepInput {
            contact: Some(self.contact_at(step as f64)),
            tail,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-capsule script whose keys sit at `steps` with ends `a`, `b` at each.
    fn script(keys: &[(f64, [f32; 3], [f32; 3])]) -> CapsuleScript {
        CapsuleScript {
            mode: ContactMode::Pet,
            capsules: vec![ScriptedCapsule {
                radius: 0.05,
                keys: keys
                    .iter()
                    .map(|&(step, a, b)| CapsuleKey {
                        step,
                        a: Vec3::from(a),
                        b: Vec3::from(b),
                    })
                    .collect(),
            }],
        }
    }

    #[test]
    fn keys_a_sliver_of_a_step_apart_give_a_finite_hand() {
        let still = script(&[
            (0.0, [0.1, 0.2, 0.0], [0.1, 0.2, 0.1]),
            (1e-300, [0.1, 0.2, 0.0], [0.1, 0.2, 0.1]),
        ]);
        let moving = script(&[
            (0.0, [0.1, 0.2, 0.0], [0.1, 0.2, 0.1]),
            (5e-324, [0.3, 0.2, 0.0], [0.3, 0.2, 0.1]),
        ]);
        for (s, last) in [(&still, 1e-300), (&moving, 5e-324)] {
            assert!(s.validate().is_ok());
            for step in [0.0, last] {
                let contact = s.contact_at(step);
                assert_eq!(contact.capsules.len(), 1, "step {step:e}");
                assert!(contact.validate().is_ok(), "step {step:e}: {contact:?}");
            }
        }
        // Ends that do not move have no velocity however short the span; ends that do move
        // along +x at the cap.
        assert_eq!(still.contact_at(0.0).capsules[0].velocity, Vec3::ZERO);
        let v = moving.contact_at(0.0).capsules[0].velocity;
        assert!(v.y == 0.0 && v.z == 0.0, "{v}");
        assert!(
            (f64::from(v.x) / MAX_CAPSULE_SPEED - 1.0).abs() < 1e-6,
            "{v}"
        );
    }

    #[test]
    fn keys_a_step_or_more_apart_keep_the_keyed_velocity() {
        // 0.3 m in 30 steps (half a second): 0.6 m/s along −x.
        let s = script(&[
            (0.0, [0.3, 0.2, 0.0], [0.3, 0.2, 0.1]),
            (30.0, [0.0, 0.2, 0.0], [0.0, 0.2, 0.1]),
        ]);
        let v = s.contact_at(12.5).capsules[0].velocity;
        assert!((v - Vec3::new(-0.6, 0.0, 0.0)).length() < 1e-6, "{v}");
        // The farthest any in-reach capsule moves in one step stays under the cap.
        let r = MAX_CAPSULE_REACH - 1.0;
        let far = script(&[(0.0, [-r; 3], [-r; 3]), (1.0, [r; 3], [r; 3])]);
        let v = far.contact_at(0.5).capsules[0].velocity;
        let expected = f64::from(2.0 * r) * 3f64.sqrt() * FIXED_STEP_HZ;
        assert!((f64::from(v.length()) / expected - 1.0).abs() < 1e-6, "{v}");
    }
}
