//! What a file given as a script holds when it is not that script, so the error can say
//! which command reads it: the other kind of script, a root motion, or a binary file such
//! as a picture (the obvious mistakes: `pet_scratch.json` sounds like petting, but it is a
//! pointer script).

use serde_json::Value;

/// The kinds of JSON file the scripts' errors recognise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum JsonFile {
    /// `{"mode": …, "capsules": […]}`.
    CapsuleScript,
    /// `[{"t": …, "kind": …}, …]`.
    PointerScript,
    /// `[{"t": …, "position": …, "rotation": …}, …]`.
    Motion,
}

impl JsonFile {
    /// What the file is, as a phrase: "a pointer script (a list of events with `t` and
    /// `kind`)".
    pub(crate) fn what(self) -> &'static str {
        match self {
            JsonFile::CapsuleScript => "a capsule script (an object with `mode` and `capsules`)",
            JsonFile::PointerScript => "a pointer script (a list of events with `t` and `kind`)",
            JsonFile::Motion => {
                "a root motion (a list of keyframes with `t`, `position` and `rotation`)"
            }
        }
    }

    /// Which command reads the file, as a clause.
    pub(crate) fn read_by(self) -> &'static str {
        match self {
            JsonFile::CapsuleScript => {
                "`pelt simulate` and `pelt render` take it with --capsule-script"
            }
            JsonFile::PointerScript => "`pelt demo --script` replays it",
            JsonFile::Motion => "`pelt tail-trace --motion` reads it",
        }
    }

    /// The error for this file given where `wanted` was expected: what it is, who reads it,
    /// and what `flag` takes instead (`example`).
    pub(crate) fn given_as(self, wanted: &str, flag: &str, example: &str) -> String {
        format!(
            "this is {}, not {wanted}: {}; {flag} takes {example}",
            self.what(),
            self.read_by()
        )
    }
}

/// Which of the recognised files `value` looks like, by its top level's keys alone.
pub(crate) fn kind_of(value: &Value) -> Option<JsonFile> {
    match value {
        Value::Object(o) if o.contains_key("capsules") => Some(JsonFile::CapsuleScript),
        Value::Array(items) => {
            let first = items.first()?.as_object()?;
            if first.contains_key("kind") {
                Some(JsonFile::PointerScript)
            } else if first.contains_key("position") || first.contains_key("rotation") {
                Some(JsonFile::Motion)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// [`kind_of`] for a text, `None` where it is not JSON.
pub(crate) fn kind_of_text(text: &str) -> Option<JsonFile> {
    kind_of(&serde_json::from_str(text).ok()?)
}

/// What a file that is not text is, from its first bytes: "a PNG picture", "a GLB (binary
/// glTF or VRM) file", or "a binary file".
pub(crate) fn binary_kind(bytes: &[u8]) -> &'static str {
    match bytes {
        [0x89, b'P', b'N', b'G', ..] => "a PNG picture",
        [b'g', b'l', b'T', b'F', ..] => "a GLB (binary glTF or VRM) file",
        [0xff, 0xd8, 0xff, ..] => "a JPEG picture",
        [0x76, 0x2f, 0x31, 0x01, ..] => "an OpenEXR picture",
        [b'P', b'K', 3, 4, ..] => "a zip archive (a .usdz is one)",
        [b'P', b'X', b'R', b'-', b'U', b'S', b'D', b'C', ..] => "a binary USD (.usdc) file",
        [0x93, b'N', b'U', b'M', b'P', b'Y', ..] => "a NumPy array (.npy)",
        _ => "a binary file",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_files_are_told_apart() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let read = |name: &str| std::fs::read_to_string(root.join(name)).unwrap();
        assert_eq!(
            kind_of_text(&read("assets/pet_scratch.json")),
            Some(JsonFile::PointerScript)
        );
        assert_eq!(
            kind_of_text(&read("assets/back_stroke.json")),
            Some(JsonFile::CapsuleScript)
        );
        let motion = r#"[{"t": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]}]"#;
        assert_eq!(kind_of_text(motion), Some(JsonFile::Motion));
        for other in ["[]", "{}", "[1, 2]", r#"{"mode": "pet"}"#, "not json"] {
            assert_eq!(kind_of_text(other), None, "{other}");
        }
        assert_eq!(binary_kind(b"\x89PNG\r\n\x1a\n"), "a PNG picture");
        assert_eq!(
            binary_kind(b"glTF\x02\0\0\0"),
            "a GLB (binary glTF or VRM) file"
        );
        assert_eq!(binary_kind(b"\xfe\xfe"), "a binary file");
    }
}
