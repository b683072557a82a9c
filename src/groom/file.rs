//! The groom file (`--groom groom.json`): how fur grows on a body, where the body alone
//! does not say. Every key but the version is optional; a key left out takes the built-in
//! creature's groom ([`GroomFile::default`]). The form (`docs/formats.md` has the rest):
//!
//! ```json
//! { "pelt_groom": 1,
//!   "density": 40000,
//!   "length": 0.08, "length_variation": 0.12,
//!   "direction": "along_bones",
//!   "flow_jitter": 0.5,
//!   "clumping": { "strength": 0.25, "frequency": 9 },
//!   "lift": { "root": 0.6, "tip": 1.25 },
//!   "colour": "texture", "tint": [1, 0.9, 0.8],
//!   "no_fur": [ { "material": "eyes" }, { "material_containing": "claw" },
//!               { "vertex_colour": "r", "below": 0.5 },
//!               { "texture": "a", "below": 0.5 } ] }
//! ```
//!
//! Unknown keys are refused by name (a typo is an error, not a default), every number is
//! range-checked, and a file holds at most [`MAX_GROOM_FILE_BYTES`] bytes.

use crate::files::FileError;
use crate::json_numbers::readable;
use glam::Vec3;
use serde_json::{Map, Value};
use std::path::Path;
use thiserror::Error;

use super::{BODY_LENGTH, MAX_STRANDS};

/// The version this Pelt reads (`"pelt_groom": 1`).
pub const GROOM_FILE_VERSION: u64 = 1;
/// The largest groom file read, bytes.
pub const MAX_GROOM_FILE_BYTES: u64 = 1 << 20;
/// The most `no_fur` masks in one file.
pub const MAX_MASKS: usize = 256;

/// The parts a user expects bare on any character: with no groom file, or a file without
/// `no_fur`, no fur grows on a material one of whose name's words is one of these or its
/// plural, ignoring case (`"EyeIris"`, `"F00_FaceMouth"`, `"Claws_L"`; not
/// `"Sabertooth_Body"`, whose word is "sabertooth"; see [`Mask::MaterialWord`]). Where
/// these would leave more than half of the skin bare, the name is the coat's own and the
/// list is not used.
pub const BARE_MATERIAL_WORDS: &[&str] = &[
    "eye", "eyeball", "iris", "pupil", "cornea", "sclera", "teeth", "tooth", "tongue", "mouth",
    "nose", "claw", "nail", "hoof", "hooves", "beak", "horn",
];

/// The words of a material's name, in lower case: split at anything not a letter, at
/// digits, and where a lower-case letter meets an upper-case one ("F00_FaceMouth" →
/// "f", "face", "mouth").
pub fn material_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut last_lower = false;
    for c in name.chars() {
        if !c.is_alphabetic() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            last_lower = false;
            continue;
        }
        if c.is_uppercase() && last_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        last_lower = c.is_lowercase();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// How many strands grow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Density {
    /// The solver tier's strand count, spread over the body (the default).
    Tier,
    /// Strands per square metre of skin.
    PerSquareMetre(f32),
    /// This many strands over the whole body.
    Count(usize),
}

/// Which way the fur lies before jitter, projected onto the skin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Direction {
    /// Away from the skeleton's root along each bone (the default): down the limbs, back
    /// from the head.
    AlongBones,
    /// Down (−Y) in the body's frame.
    Down,
    /// This unit vector in the body's frame.
    Fixed(Vec3),
}

/// Where a strand's colour comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Colour {
    /// The body's base colour at the root: texture × factor × vertex colour (the default).
    Texture,
    /// One linear colour everywhere.
    Constant(Vec3),
}

/// A colour channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// Red.
    R,
    /// Green.
    G,
    /// Blue.
    B,
    /// Alpha.
    A,
}

impl Channel {
    /// The channel's index in RGBA.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Which side of a threshold has no fur.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Threshold {
    /// No fur where the value is below this.
    Below(f32),
    /// No fur where the value is above this.
    Above(f32),
}

impl Threshold {
    /// Whether `value` is on the bare side.
    pub fn bare(self, value: f32) -> bool {
        match self {
            Threshold::Below(t) => value < t,
            Threshold::Above(t) => value > t,
        }
    }
}

/// A place where no fur grows.
#[derive(Clone, Debug, PartialEq)]
pub enum Mask {
    /// Triangles of the material with this name (exactly as the body's file names it).
    Material(String),
    /// Triangles of every material whose name contains this, ignoring case (held in lower
    /// case); a body with no such material is not an error.
    MaterialContaining(String),
    /// Triangles of every material one of whose name's words is this or its plural (with
    /// "s" or "es"), ignoring case (held in lower case): the rule of the default list,
    /// [`BARE_MATERIAL_WORDS`], so "Claws_L" and "EyeIris" are bare but "Sabertooth_Body"
    /// is not. Words are split at anything not a letter, at digits, and where a lower-case
    /// letter meets an upper-case one (`material_words`).
    MaterialWord(String),
    /// Where a channel of the interpolated vertex colour (linear, times the material's base
    /// colour factor, as [`crate::body::BodyMesh::colors`] holds it) crosses the threshold.
    VertexColour(Channel, Threshold),
    /// Where a channel of the base colour texture at the root's UV, as stored (0 to 1, sRGB
    /// as painted), crosses the threshold.
    Texture(Channel, Threshold),
}

/// Strand clumping: a smooth noise field that lengthens and shortens neighbours together.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clumping {
    /// How much the field changes length (±, a fraction).
    pub strength: f32,
    /// The field's first octave, cycles per metre.
    pub frequency: f32,
}

/// Angles from the skin's normal, radians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lift {
    /// At the root.
    pub root: f32,
    /// Toward which the tip lies.
    pub tip: f32,
}

/// A parsed, checked groom file.
#[derive(Clone, Debug, PartialEq)]
pub struct GroomFile {
    /// How many strands.
    pub density: Density,
    /// Strand length before variation and clumping, metres.
    pub length: f32,
    /// Random length variation, ± a fraction of `length`.
    pub length_variation: f32,
    /// Which way the fur lies.
    pub direction: Direction,
    /// Random turn of the direction about the normal, radians (total width).
    pub flow_jitter: f32,
    /// Clumping.
    pub clumping: Clumping,
    /// Lift angles.
    pub lift: Lift,
    /// Colour source.
    pub colour: Colour,
    /// Multiplies the colour, linear.
    pub tint: Vec3,
    /// Where no fur grows.
    pub no_fur: Vec<Mask>,
}

/// The shortest and longest strand lengths that come out of [`GroomFile::length_for`],
/// metres (the creature's own bounds).
pub const LENGTH_BOUNDS: (f32, f32) = (0.015, 0.25);

impl Default for GroomFile {
    /// The built-in creature's body groom: its length and variation (0.88 to 1.12 of it),
    /// flow jitter, clumping, body lift angles, base colour; no fur on the materials
    /// [`BARE_MATERIAL_WORDS`] names.
    fn default() -> Self {
        GroomFile {
            density: Density::Tier,
            length: BODY_LENGTH,
            length_variation: 0.12,
            direction: Direction::AlongBones,
            flow_jitter: 0.5,
            clumping: Clumping {
                strength: 0.25,
                frequency: 9.0,
            },
            lift: Lift {
                root: 0.6,
                tip: 1.25,
            },
            colour: Colour::Texture,
            tint: Vec3::ONE,
            no_fur: BARE_MATERIAL_WORDS
                .iter()
                .map(|w| Mask::MaterialWord((*w).to_string()))
                .collect(),
        }
    }
}

impl GroomFile {
    /// A strand's length from its random value in [0, 1) and the clump field in [−1, 1]
    /// at its root, as the creature's sampler makes it: `length × (1 + strength × clump) ×
    /// (1 − variation + 2 × variation × random)`, within [`LENGTH_BOUNDS`] (stretched to
    /// reach `length` where the file asks for one outside them).
    pub fn length_for(&self, random: f32, clump: f32) -> f32 {
        let l = self.length
            * (1.0 + self.clumping.strength * clump)
            * (1.0 - self.length_variation + 2.0 * self.length_variation * random);
        let lo = LENGTH_BOUNDS.0.min(self.length);
        let hi = LENGTH_BOUNDS.1.max(self.length);
        l.clamp(lo, hi)
    }

    /// Reads (at most [`MAX_GROOM_FILE_BYTES`]), parses and checks a groom file.
    pub fn from_path(path: &Path) -> Result<GroomFile, GroomFileError> {
        let bytes = crate::files::read_capped(path, MAX_GROOM_FILE_BYTES, "groom file")?;
        let name = path.display();
        let in_file = |m: String| GroomFileError::Invalid(format!("groom file {name}: {m}"));
        let text = String::from_utf8(bytes).map_err(|e| {
            in_file(format!(
                "this is {}, not a groom file; --groom takes a JSON file ({EXAMPLE}) or USD \
                 curves as text (.usda)",
                crate::script_file::binary_kind(e.as_bytes())
            ))
        })?;
        parse(&text).map_err(in_file)
    }

    /// Parses and checks a groom file's text (a leading byte-order mark is skipped).
    pub fn from_json(text: &str) -> Result<GroomFile, GroomFileError> {
        parse(text).map_err(|m| GroomFileError::Invalid(format!("groom file: {m}")))
    }
}

/// Why a groom file could not be used. Every message names the file and the key.
#[derive(Debug, Error)]
pub enum GroomFileError {
    /// The file could not be read, or is larger than [`MAX_GROOM_FILE_BYTES`].
    #[error(transparent)]
    File(#[from] FileError),
    /// What is wrong, and where.
    #[error("{0}")]
    Invalid(String),
}

/// What a groom file looks like, for messages.
const EXAMPLE: &str = r#"{"pelt_groom": 1, "length": 0.08, …}"#;

/// Every key a groom file may hold.
const KEYS: &[&str] = &[
    "pelt_groom",
    "density",
    "count",
    "length",
    "length_variation",
    "direction",
    "flow_jitter",
    "clumping",
    "lift",
    "colour",
    "tint",
    "no_fur",
];

/// The JSON kind of `v`, as a message says it.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A key or string from the file as a message shows it.
fn shown(s: &str) -> String {
    match s.char_indices().nth(60) {
        None => s.to_string(),
        Some((end, _)) => format!("{}…", &s[..end]),
    }
}

/// Refuses any key of `object` outside `allowed`, naming it and the ones allowed.
fn only_keys(object: &Map<String, Value>, allowed: &[&str], at: &str) -> Result<(), String> {
    match object.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(format!(
            "unknown key `{}`{}; the keys are {}",
            shown(k),
            if at.is_empty() {
                String::new()
            } else {
                format!(" in `{at}`")
            },
            allowed
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        None => Ok(()),
    }
}

/// The number at `key`, within `[lo, hi]` (`unit` names what it measures).
fn number(v: &Value, key: &str, lo: f64, hi: f64, unit: &str) -> Result<f32, String> {
    let x = v
        .as_f64()
        .ok_or_else(|| format!("`{key}` must be a number ({unit}), not {}", kind(v)))?;
    if !(lo..=hi).contains(&x) {
        return Err(format!(
            "`{key}` is {}; it must be between {} and {} ({unit})",
            readable(x),
            bound(lo),
            bound(hi)
        ));
    }
    Ok(x as f32)
}

/// A range's end as a message shows it: π and π/2 by name.
fn bound(x: f64) -> String {
    if x == std::f64::consts::PI {
        "π (3.1416)".into()
    } else if x == std::f64::consts::FRAC_PI_2 {
        "π/2 (1.5708)".into()
    } else {
        readable(x)
    }
}

/// A list of three numbers at `key`, each within `[lo, hi]`.
fn three(v: &Value, key: &str, lo: f64, hi: f64, unit: &str) -> Result<Vec3, String> {
    let list = v
        .as_array()
        .filter(|l| l.len() == 3)
        .ok_or_else(|| format!("`{key}` must be a list of 3 numbers ({unit})"))?;
    let mut out = [0.0f32; 3];
    for (i, (slot, x)) in out.iter_mut().zip(list).enumerate() {
        *slot = number(x, &format!("{key}[{i}]"), lo, hi, unit)?;
    }
    Ok(Vec3::from(out))
}

/// An object at `key` with only `allowed` keys.
fn object<'v>(v: &'v Value, key: &str, allowed: &[&str]) -> Result<&'v Map<String, Value>, String> {
    let o = v.as_object().ok_or_else(|| {
        format!(
            "`{key}` must be an object with {}, not {}",
            allowed
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" and "),
            kind(v)
        )
    })?;
    only_keys(o, allowed, key)?;
    Ok(o)
}

/// The parsed file, or what is wrong with it (without the file's name).
fn parse(text: &str) -> Result<GroomFile, String> {
    let text = crate::files::strip_bom(text);
    if let Some(message) = crate::json_numbers::too_deep(text.as_bytes()) {
        return Err(message);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        format!(
            "not valid JSON: {}",
            crate::json_numbers::describe(text, &e)
        )
    })?;
    let Value::Object(top) = &value else {
        return Err(format!(
            "a groom file is a JSON object like {EXAMPLE}, not {}",
            kind(&value)
        ));
    };
    let Some(version) = top.get("pelt_groom") else {
        if let Some(other) = crate::script_file::kind_of(&value) {
            return Err(format!(
                "this is {}, not a groom file: {}",
                other.what(),
                other.read_by()
            ));
        }
        return Err(format!(
            "it has no `pelt_groom` key; a groom file starts {EXAMPLE}"
        ));
    };
    match version.as_u64() {
        Some(GROOM_FILE_VERSION) => {}
        Some(v) if v > GROOM_FILE_VERSION => {
            return Err(format!(
                "`pelt_groom` is {v}: this Pelt reads version {GROOM_FILE_VERSION}; a newer \
                 Pelt wrote this file"
            ));
        }
        _ => {
            return Err(format!(
                "`pelt_groom` must be the version number {GROOM_FILE_VERSION}"
            ));
        }
    }
    only_keys(top, KEYS, "")?;
    let mut g = GroomFile::default();
    match (top.get("density"), top.get("count")) {
        (Some(_), Some(_)) => {
            return Err(
                "`density` and `count` both say how many strands grow; give one of them".into(),
            );
        }
        (Some(d), None) => {
            g.density = Density::PerSquareMetre(number(d, "density", 1.0, 1e9, "strands per m²")?)
        }
        (None, Some(c)) => {
            let n = c
                .as_u64()
                .filter(|&n| (1..=MAX_STRANDS as u64).contains(&n))
                .ok_or_else(|| {
                    format!(
                        "`count` must be a whole number of strands from 1 to {MAX_STRANDS}, not {}",
                        match c.as_f64() {
                            Some(x) => readable(x),
                            None => kind(c).to_string(),
                        }
                    )
                })?;
            g.density = Density::Count(n as usize);
        }
        (None, None) => {}
    }
    if let Some(v) = top.get("length") {
        g.length = number(v, "length", 0.001, 1.0, "metres")?;
    }
    if let Some(v) = top.get("length_variation") {
        g.length_variation = number(
            v,
            "length_variation",
            0.0,
            0.9,
            "± a fraction of the length",
        )?;
    }
    if let Some(v) = top.get("direction") {
        g.direction = direction(v)?;
    }
    if let Some(v) = top.get("flow_jitter") {
        g.flow_jitter = number(v, "flow_jitter", 0.0, std::f64::consts::PI, "radians")?;
    }
    if let Some(v) = top.get("clumping") {
        let o = object(v, "clumping", &["strength", "frequency"])?;
        if let Some(s) = o.get("strength") {
            g.clumping.strength = number(
                s,
                "clumping.strength",
                0.0,
                0.9,
                "± a fraction of the length",
            )?;
        }
        if let Some(f) = o.get("frequency") {
            g.clumping.frequency =
                number(f, "clumping.frequency", 0.01, 1000.0, "cycles per metre")?;
        }
    }
    if let Some(v) = top.get("lift") {
        let o = object(v, "lift", &["root", "tip"])?;
        let right = std::f64::consts::FRAC_PI_2;
        if let Some(r) = o.get("root") {
            g.lift.root = number(r, "lift.root", 0.0, right, "radians from the skin's normal")?;
        }
        if let Some(t) = o.get("tip") {
            g.lift.tip = number(t, "lift.tip", 0.0, right, "radians from the skin's normal")?;
        }
    }
    if let Some(v) = top.get("colour") {
        g.colour = colour(v)?;
    }
    if let Some(v) = top.get("tint") {
        g.tint = three(v, "tint", 0.0, 4.0, "linear red, green and blue")?;
    }
    if let Some(v) = top.get("no_fur") {
        let list = v
            .as_array()
            .ok_or_else(|| format!("`no_fur` must be a list of masks, not {}", kind(v)))?;
        if list.len() > MAX_MASKS {
            return Err(format!(
                "`no_fur` has {} masks; at most {MAX_MASKS}",
                list.len()
            ));
        }
        g.no_fur = list
            .iter()
            .enumerate()
            .map(|(i, m)| mask(m, &format!("no_fur[{i}]")))
            .collect::<Result<_, _>>()?;
    }
    Ok(g)
}

/// `"along_bones"`, `"down"` or `[x, y, z]`.
fn direction(v: &Value) -> Result<Direction, String> {
    match v {
        Value::String(s) if s == "along_bones" => Ok(Direction::AlongBones),
        Value::String(s) if s == "down" => Ok(Direction::Down),
        Value::Array(_) => {
            let d = three(v, "direction", -1e6, 1e6, "a direction in the body's frame")?;
            if d.length() < 1e-6 {
                return Err("`direction` is the zero vector; give a direction".into());
            }
            Ok(Direction::Fixed(d.normalize()))
        }
        Value::String(s) => Err(format!(
            "`direction` is \"{}\"; it is \"along_bones\", \"down\" or a vector [x, y, z]",
            shown(s)
        )),
        other => Err(format!(
            "`direction` must be \"along_bones\", \"down\" or a vector [x, y, z], not {}",
            kind(other)
        )),
    }
}

/// `"texture"`, `"#rrggbb"` (sRGB) or `[r, g, b]` (linear).
fn colour(v: &Value) -> Result<Colour, String> {
    match v {
        Value::String(s) if s == "texture" => Ok(Colour::Texture),
        Value::String(s) if s.starts_with('#') => {
            let hex = s
                .get(1..)
                .filter(|h| h.len() == 6)
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    format!(
                        "`colour` is \"{}\"; a colour in hex is \"#rrggbb\" (sRGB, as a paint \
                         program shows it)",
                        shown(s)
                    )
                })?;
            Ok(Colour::Constant(crate::creature::Srgb(hex).linear()))
        }
        Value::Array(_) => Ok(Colour::Constant(three(
            v,
            "colour",
            0.0,
            1.0,
            "linear red, green and blue",
        )?)),
        other => Err(format!(
            "`colour` must be \"texture\", \"#rrggbb\" or [r, g, b] (linear), not {}",
            match other {
                Value::String(s) => format!("\"{}\"", shown(s)),
                o => kind(o).to_string(),
            }
        )),
    }
}

/// One `no_fur` entry.
fn mask(v: &Value, at: &str) -> Result<Mask, String> {
    let o = v.as_object().ok_or_else(|| {
        format!(
            "`{at}` must be an object: {{\"material\": NAME}}, {{\"material_containing\": \
             \"eye\"}}, {{\"vertex_colour\": \"r\", \"below\": 0.5}} or {{\"texture\": \"a\", \
             \"below\": 0.5}}; not {}",
            kind(v)
        )
    })?;
    if o.contains_key("material") && o.contains_key("material_containing") {
        return Err(format!(
            "`{at}` names both `material` and `material_containing`; a mask reads one of them"
        ));
    }
    if let Some(name) = o.get("material") {
        only_keys(o, &["material"], at)?;
        let name = name.as_str().ok_or_else(|| {
            format!(
                "`{at}.material` must be a material's name, not {}",
                kind(name)
            )
        })?;
        return Ok(Mask::Material(name.to_string()));
    }
    if let Some(word) = o.get("material_containing") {
        only_keys(o, &["material_containing"], at)?;
        let word = word.as_str().ok_or_else(|| {
            format!(
                "`{at}.material_containing` must be a part of a material's name, such as \"eye\", not {}",
                kind(word)
            )
        })?;
        if word.is_empty() {
            return Err(format!(
                "`{at}.material_containing` is empty, which every material's name contains; \
                 give a part of a name, such as \"eye\""
            ));
        }
        return Ok(Mask::MaterialContaining(word.to_lowercase()));
    }
    let (source, key) = match (o.get("vertex_colour"), o.get("texture")) {
        (Some(c), None) => (c, "vertex_colour"),
        (None, Some(t)) => (t, "texture"),
        (Some(_), Some(_)) => {
            return Err(format!(
                "`{at}` names both `vertex_colour` and `texture`; a mask reads one of them"
            ));
        }
        (None, None) => {
            return Err(format!(
                "`{at}` needs `material`, `material_containing`, `vertex_colour` or `texture`"
            ));
        }
    };
    only_keys(o, &[key, "below", "above"], at)?;
    let channel = match source.as_str() {
        Some("r") => Channel::R,
        Some("g") => Channel::G,
        Some("b") => Channel::B,
        Some("a") => Channel::A,
        _ => {
            return Err(format!(
                "`{at}.{key}` is the channel read: \"r\", \"g\", \"b\" or \"a\""
            ));
        }
    };
    let threshold = match (o.get("below"), o.get("above")) {
        (Some(b), None) => Threshold::Below(number(
            b,
            &format!("{at}.below"),
            0.0,
            1.0,
            "a channel value",
        )?),
        (None, Some(a)) => Threshold::Above(number(
            a,
            &format!("{at}.above"),
            0.0,
            1.0,
            "a channel value",
        )?),
        _ => {
            return Err(format!(
                "`{at}` needs one of `below` or `above`: where the channel is below (or above) \
                 that value, no fur grows"
            ));
        }
    };
    Ok(if key == "texture" {
        Mask::Texture(channel, threshold)
    } else {
        Mask::VertexColour(channel, threshold)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_creature_s_body_groom() {
        let g = GroomFile::default();
        assert_eq!(g.length, BODY_LENGTH);
        // The sampler's range of 0.88 to 1.12 of the base length.
        assert!((g.length_for(0.0, 0.0) / BODY_LENGTH - 0.88).abs() < 1e-6);
        assert!((g.length_for(1.0, 0.0) / BODY_LENGTH - 1.12).abs() < 1e-6);
        assert_eq!(GroomFile::from_json(r#"{"pelt_groom": 1}"#).unwrap(), g);
    }
}
