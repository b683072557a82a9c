//! Errors of reading and writing spring files.

use crate::spring::SpringError;

/// What went wrong reading or writing a GLB with springs. Each says what was wrong and,
/// where it helps, what to do.
#[derive(Debug, thiserror::Error)]
pub enum VrmError {
    /// The file is shorter than its header or a chunk says.
    #[error("file truncated: {0}; the file is incomplete, export it again")]
    Truncated(String),
    /// The first four bytes are not `glTF`.
    #[error("not a GLB file (they start with the bytes \"glTF\"): this is {}", what_starts(.0))]
    BadMagic([u8; 4]),
    /// A GLB container version other than 2.
    #[error("GLB container version {0} is not supported; only glTF 2.0 (version 2) is")]
    BadVersion(u32),
    /// The chunk layout is wrong.
    #[error("bad GLB chunk: {0}")]
    BadChunk(String),
    /// The JSON chunk does not parse as glTF.
    #[error("the glTF JSON does not parse: {0}")]
    Json(String),
    /// The node hierarchy is not a forest.
    #[error("bad node hierarchy: {0}")]
    Hierarchy(String),
    /// An index points past the end of its array.
    #[error("{what} index {index} is out of range (there are {len})")]
    IndexOutOfRange {
        /// What the index is for.
        what: String,
        /// The index.
        index: usize,
        /// The array's length.
        len: usize,
    },
    /// A spring's joints are not each a descendant of the one before.
    #[error("spring `{0}`: joint {1} is not a descendant of joint {2}; list joints root to tip")]
    JointOrder(String, usize, usize),
    /// A count is beyond what Pelt accepts.
    #[error("{0} is {1}, more than the limit {2}")]
    TooMany(String, usize, usize),
    /// The springs themselves are invalid.
    #[error("invalid spring: {0}")]
    Spring(#[from] SpringError),
    /// The rigged body handed to the writer is inconsistent.
    #[error("cannot write the rig: {0}")]
    BadRig(String),
    /// An extension's content does not match its schema.
    #[error("extension {0} is malformed: {1}")]
    BadExtension(&'static str, String),
    /// A version Pelt does not read.
    #[error("{what} is version {found}; Pelt reads {expected}")]
    UnsupportedVersion {
        /// What carries the version.
        what: &'static str,
        /// The version found.
        found: String,
        /// The version Pelt reads.
        expected: &'static str,
    },
    /// A node's transform is unusable.
    #[error("node {0}: {1}")]
    BadNode(usize, String),
    /// The file lists more than the reader keeps (see [`super::read::MAX_PARSED_BYTES`]).
    #[error("the file lists more than Pelt reads: its lists would take over {0} MiB")]
    TooLarge(usize),
    /// Reading or writing a file failed.
    #[error("{0}")]
    Io(String),
}

/// What a file that starts with `magic` is, in words: a known kind, JSON text (a `.gltf`,
/// a script or a motion), other text, or a binary file.
fn what_starts(magic: &[u8; 4]) -> String {
    match magic.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{' | b'[') => {
            "JSON text (a .gltf, a script or a motion?); Pelt reads the binary .glb or .vrm".into()
        }
        _ if magic
            .iter()
            .all(|b| b.is_ascii_graphic() || b.is_ascii_whitespace()) =>
        {
            "a text file".into()
        }
        _ => crate::script_file::binary_kind(magic).into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_magic_is_named_in_words() {
        let said = |m: &[u8; 4]| VrmError::BadMagic(*m).to_string();
        assert!(said(b"[{\"t").contains("JSON text"), "{}", said(b"[{\"t"));
        assert!(said(&[0x89, b'P', b'N', b'G']).contains("a PNG picture"));
        assert!(said(b"abcd").contains("a text file"));
        assert!(said(&[0, 1, 2, 3]).contains("a binary file"));
        assert!(!said(&[0x89, b'P', b'N', b'G']).contains("137"));
    }
}
