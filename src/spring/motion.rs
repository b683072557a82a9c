//! `RootMotion`: where a model's scene root is over time, as world-space keyframes
//! `[{"t": s, "position": [x, y, z], "rotation": [x, y, z, w]}]`: positions linear and
//! rotations slerped between keyframes, held before the first and after the last. It drives
//! springs in `pelt tail-trace` the same way a test harness moves a model in three-vrm.

use crate::json_numbers::readable;
use glam::{Affine3A, Quat, Vec3};
use serde::Deserialize;

/// Most keyframes a motion may have.
pub const MAX_KEYFRAMES: usize = 100_000;

/// One keyframe: the root's world position and rotation at time `t`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a keyframe: {\"t\": seconds, \"position\": [x, y, z], \"rotation\": [x, y, z, w]}"
)]
pub struct Keyframe {
    /// Time, seconds.
    pub t: f64,
    /// World position, metres.
    #[serde(deserialize_with = "position")]
    pub position: [f32; 3],
    /// World rotation as a quaternion `[x, y, z, w]` (normalised on load).
    #[serde(deserialize_with = "rotation")]
    pub rotation: [f32; 4],
}

fn position<'de, D: serde::Deserializer<'de>>(from: D) -> Result<[f32; 3], D::Error> {
    crate::json_numbers::exactly(from, "position")
}

fn rotation<'de, D: serde::Deserializer<'de>>(from: D) -> Result<[f32; 4], D::Error> {
    crate::json_numbers::exactly(from, "rotation")
}

/// What is wrong with a motion file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MotionError {
    /// The text is not a JSON array of keyframes.
    #[error(
        "the motion is not a JSON array of {{\"t\", \"position\", \"rotation\"}} keyframes: {0}"
    )]
    Json(String),
    /// A number written as `NaN` or `Infinity`, which JSON does not have: where, and the
    /// word.
    #[error("the motion is not valid JSON: {0}")]
    NotFinite(String),
    /// Lists or objects nested deeper than any motion is.
    #[error("the motion is not valid JSON: {0}")]
    TooDeep(String),
    /// Another kind of file (a capsule or pointer script): what it is and which command
    /// reads it.
    #[error("{0}")]
    WrongFile(String),
    /// No keyframes.
    #[error("the motion has no keyframes; give at least one")]
    Empty,
    /// Too many keyframes.
    #[error("the motion has {0} keyframes, more than the limit {MAX_KEYFRAMES}")]
    TooMany(usize),
    /// A number is NaN or infinite, or a rotation is zero.
    #[error("keyframe {0} has a non-finite number or a zero rotation")]
    BadKeyframe(usize),
    /// Times go backwards: keyframe `index` (counting from 0) is earlier than the one
    /// before it.
    #[error(
        "keyframe {index} (t = {} s) is earlier than the keyframe before it (t = {} s); list keyframes in time order",
        readable(*time), readable(*previous)
    )]
    OutOfOrder {
        /// The keyframe out of order.
        index: usize,
        /// Its time, seconds.
        time: f64,
        /// The time of the keyframe before it.
        previous: f64,
    },
}

/// A root motion: keyframes in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct RootMotion {
    keys: Vec<Keyframe>,
}

impl RootMotion {
    /// A motion from keyframes, checked: at least one, finite, non-zero rotations, times
    /// not decreasing. Rotations are normalised (scaled first, so huge or tiny components
    /// keep the rotation they write).
    pub fn new(mut keys: Vec<Keyframe>) -> Result<Self, MotionError> {
        if keys.is_empty() {
            return Err(MotionError::Empty);
        }
        if keys.len() > MAX_KEYFRAMES {
            return Err(MotionError::TooMany(keys.len()));
        }
        for (i, k) in keys.iter_mut().enumerate() {
            if !k.t.is_finite() || !Vec3::from_array(k.position).is_finite() {
                return Err(MotionError::BadKeyframe(i));
            }
            k.rotation = normalized(k.rotation).ok_or(MotionError::BadKeyframe(i))?;
        }
        if let Some(i) = keys.windows(2).position(|w| w[1].t < w[0].t) {
            return Err(MotionError::OutOfOrder {
                index: i + 1,
                time: keys[i + 1].t,
                previous: keys[i].t,
            });
        }
        Ok(Self { keys })
    }

    /// Parses the JSON form (see the module docs).
    pub fn from_json(text: &str) -> Result<Self, MotionError> {
        use crate::script_file::{JsonFile, kind_of_text};
        if let Some(message) = crate::json_numbers::too_deep(text.as_bytes()) {
            return Err(MotionError::TooDeep(message));
        }
        // Bounded parse: the element count is checked as the array is read.
        let keys: BoundedKeys = serde_json::from_str(text).map_err(|e| {
            if let Some(message) = crate::json_numbers::non_finite_number(text, &e) {
                return MotionError::NotFinite(message);
            }
            match kind_of_text(text) {
                Some(kind) if kind != JsonFile::Motion => MotionError::WrongFile(kind.given_as(
                    "a root motion",
                    "--motion",
                    r#"a list of keyframes like [{"t": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]}, …]"#,
                )),
                _ => MotionError::Json(crate::json_numbers::plain_types(&e.to_string())),
            }
        })?;
        Self::new(keys.0)
    }

    /// A motion that stays at `position` with `rotation`.
    pub fn still(position: Vec3, rotation: Quat) -> Self {
        Self {
            keys: vec![Keyframe {
                t: 0.0,
                position: position.to_array(),
                rotation: rotation.normalize().to_array(),
            }],
        }
    }

    /// The keyframes.
    pub fn keys(&self) -> &[Keyframe] {
        &self.keys
    }

    /// The root's world transform at time `t` seconds.
    pub fn at(&self, t: f64) -> Affine3A {
        let keys = &self.keys;
        let first = &keys[0];
        let last = &keys[keys.len() - 1];
        let pose = |k: &Keyframe| (Vec3::from_array(k.position), Quat::from_array(k.rotation));
        let (p, q) = if t <= first.t {
            pose(first)
        } else if t >= last.t {
            pose(last)
        } else {
            // The last keyframe at or before t (keys are sorted; t is inside).
            let i = keys.partition_point(|k| k.t <= t) - 1;
            let (a, b) = (&keys[i], &keys[i + 1]);
            let span = b.t - a.t;
            let f = if span > 0.0 {
                ((t - a.t) / span) as f32
            } else {
                1.0
            };
            let (pa, qa) = pose(a);
            let (pb, qb) = pose(b);
            (pa.lerp(pb, f), qa.slerp(qb, f).normalize())
        };
        Affine3A::from_rotation_translation(q, p)
    }
}

/// `q` scaled to unit length, or `None` when it is zero or not finite. It is divided by its
/// largest component first, so neither `[1e30, 1e30, 0, 0]` (whose squared length
/// overflows f32) nor `[1e-30, 0, 0, 0]` (whose squared length underflows) collapses to
/// something that is not the rotation written.
fn normalized(q: [f32; 4]) -> Option<[f32; 4]> {
    let largest = q.iter().fold(0.0f32, |m, c| m.max(c.abs()));
    if !largest.is_finite() || largest == 0.0 || q.iter().any(|c| !c.is_finite()) {
        return None;
    }
    let q = Quat::from_array(q.map(|c| c / largest)).normalize();
    q.is_finite().then(|| q.to_array())
}

/// A keyframe array that refuses more than [`MAX_KEYFRAMES`] entries while parsing.
struct BoundedKeys(Vec<Keyframe>);

impl<'de> Deserialize<'de> for BoundedKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = BoundedKeys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "an array of at most {MAX_KEYFRAMES} keyframes")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = seq.next_element::<Keyframe>()? {
                    if keys.len() == MAX_KEYFRAMES {
                        return Err(serde::de::Error::custom(format!(
                            "more than {MAX_KEYFRAMES} keyframes"
                        )));
                    }
                    keys.push(k);
                }
                Ok(BoundedKeys(keys))
            }
        }
        d.deserialize_seq(Visit)
    }
}
