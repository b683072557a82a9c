//! A file's animations: translation, rotation and scale channels sampled at any time with
//! glTF's LINEAR (rotations by spherical interpolation), STEP and CUBICSPLINE (Hermite,
//! rotations renormalised) interpolation, looped over the animation's length. Morph target
//! weight channels are skipped.

use glam::{Quat, Vec3, Vec4};

use super::accessor;
use super::gltf_read::Source;
use super::limits::MAX_KEYFRAMES;
use super::nodes::Local;

/// What a channel moves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Property {
    Translation,
    Rotation,
    Scale,
}

/// How a sampler fills the time between keys.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Interpolation {
    Linear,
    Step,
    CubicSpline,
}

/// One channel: a node's property over keyframes.
#[derive(Clone, Debug)]
struct Channel {
    node: usize,
    property: Property,
    interpolation: Interpolation,
    /// Key times, seconds, non-decreasing.
    times: Vec<f32>,
    /// Values (xyz in a Vec4 for translation and scale, xyzw for rotation): one per key,
    /// or three per key for CUBICSPLINE (in-tangent, value, out-tangent).
    values: Vec<Vec4>,
}

/// One animation.
#[derive(Clone, Debug)]
pub struct Clip {
    /// Its name ("" when unnamed).
    pub name: String,
    /// Its length, seconds: the last key time of any channel.
    pub duration: f32,
    channels: Vec<Channel>,
}

/// Reads every animation of the file.
pub fn read_clips(source: &Source, node_count: usize) -> Result<Vec<Clip>, String> {
    let mut keys_left = MAX_KEYFRAMES;
    let mut clips = Vec::new();
    for animation in source.document.animations() {
        let mut clip = Clip {
            name: animation.name().unwrap_or("").to_string(),
            duration: 0.0,
            channels: Vec::new(),
        };
        for channel in animation.channels() {
            let what = format!(
                "animation {} channel {}",
                animation.index(),
                channel.index()
            );
            // The target is read from the JSON: the `gltf` crate's validation does not check
            // a channel's target, and its accessors would panic on a bad one.
            let target = &source.document.as_json().animations[animation.index()].channels
                [channel.index()]
            .target;
            use gltf::json::animation::Property as P;
            use gltf::json::validation::Checked;
            let property = match target.path {
                Checked::Valid(P::Translation) => Property::Translation,
                Checked::Valid(P::Rotation) => Property::Rotation,
                Checked::Valid(P::Scale) => Property::Scale,
                Checked::Valid(P::MorphTargetWeights) => continue,
                Checked::Invalid => {
                    return Err(format!(
                        "{what}: its target path is none of translation, rotation, scale, weights"
                    ));
                }
            };
            let node = target.node.value();
            if node >= node_count {
                return Err(format!("{what} targets node {node}, which does not exist"));
            }
            let sampler = channel.sampler();
            let interpolation = match sampler.interpolation() {
                gltf::animation::Interpolation::Linear => Interpolation::Linear,
                gltf::animation::Interpolation::Step => Interpolation::Step,
                gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
            };
            let times: Vec<f32> =
                accessor::floats::<1>(source, &sampler.input(), keys_left, &what)?
                    .into_iter()
                    .map(|[t]| t)
                    .collect();
            if times.is_empty() {
                return Err(format!("{what} has no keyframes"));
            }
            keys_left -= times.len();
            if times.windows(2).any(|w| w[1] < w[0]) || times[0] < 0.0 {
                return Err(format!(
                    "{what}: its key times go backwards or below zero; glTF key times increase from 0"
                ));
            }
            let per_key = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            let want = times.len() * per_key;
            let output = sampler.output();
            let values: Vec<Vec4> = if property == Property::Rotation {
                accessor::floats::<4>(source, &output, want, &what)?
                    .into_iter()
                    .map(Vec4::from)
                    .collect()
            } else {
                accessor::floats::<3>(source, &output, want, &what)?
                    .into_iter()
                    .map(|v| Vec3::from(v).extend(0.0))
                    .collect()
            };
            if values.len() != want {
                return Err(format!(
                    "{what}: {} keyframe values for {} key times ({per_key} per key expected)",
                    values.len(),
                    times.len()
                ));
            }
            clip.duration = clip.duration.max(*times.last().unwrap_or(&0.0));
            clip.channels.push(Channel {
                node,
                property,
                interpolation,
                times,
                values,
            });
        }
        clips.push(clip);
    }
    Ok(clips)
}

impl Clip {
    /// Sets the animated properties of `locals` to their values `seconds` into the clip,
    /// looped over its duration.
    pub fn apply(&self, seconds: f64, locals: &mut [Local]) {
        let t = if self.duration > 0.0 && seconds.is_finite() {
            seconds.rem_euclid(f64::from(self.duration)) as f32
        } else {
            0.0
        };
        for ch in &self.channels {
            let Some(local) = locals.get_mut(ch.node) else {
                continue;
            };
            let (mut tr, mut r, mut s) = local.trs();
            let v = ch.sample(t);
            match ch.property {
                Property::Translation => tr = v.truncate(),
                Property::Scale => s = v.truncate(),
                Property::Rotation => r = Quat::from_vec4(v).normalize(),
            }
            if !r.is_finite() {
                r = Quat::IDENTITY;
            }
            *local = Local::Trs { t: tr, r, s };
        }
    }
}

impl Channel {
    /// The channel's value at `t` seconds (clamped to its first and last keys).
    fn sample(&self, t: f32) -> Vec4 {
        let n = self.times.len();
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let value = |k: usize| {
            if cubic {
                self.values[3 * k + 1]
            } else {
                self.values[k]
            }
        };
        // The last key at or before t.
        let k = self.times.partition_point(|&x| x <= t);
        if k == 0 {
            return value(0);
        }
        if k >= n {
            return value(n - 1);
        }
        let (k0, k1) = (k - 1, k);
        let dt = self.times[k1] - self.times[k0];
        if self.interpolation == Interpolation::Step || dt <= 0.0 {
            return value(k0);
        }
        let u = ((t - self.times[k0]) / dt).clamp(0.0, 1.0);
        let rotation = self.property == Property::Rotation;
        match self.interpolation {
            Interpolation::Linear if rotation => {
                let a = Quat::from_vec4(value(k0)).normalize();
                let b = Quat::from_vec4(value(k1)).normalize();
                Vec4::from(a.slerp(b, u))
            }
            Interpolation::Linear => value(k0).lerp(value(k1), u),
            _ => {
                // Hermite between the values, tangents scaled by the key interval.
                let p0 = value(k0);
                let m0 = self.values[3 * k0 + 2] * dt;
                let p1 = value(k1);
                let m1 = self.values[3 * k1] * dt;
                let (u2, u3) = (u * u, u * u * u);
                let v = p0 * (2.0 * u3 - 3.0 * u2 + 1.0)
                    + m0 * (u3 - 2.0 * u2 + u)
                    + p1 * (-2.0 * u3 + 3.0 * u2)
                    + m1 * (u3 - u2);
                if rotation { v.normalize_or(Vec4::W) } else { v }
            }
        }
    }
}
