//! What `--groom FILE` names, told apart by the file's first bytes rather than its name: a
//! groom file (JSON, [`GroomFile`]) or strands as USD text ([`ImportedCurves`]). Binary USD
//! and Alembic are refused with the command that converts them to text.

use super::read_curves::{CurvesError, ImportedCurves, binary_groom_kind, read_curves};
use crate::files::FileError;
use crate::groom::{GroomFile, GroomFileError};
use std::io::Read;
use std::path::Path;
use thiserror::Error;

/// A groom read from a file.
#[derive(Clone, Debug, PartialEq)]
pub enum GroomInput {
    /// Settings for growing fur on the body.
    File(GroomFile),
    /// Strands to bind to the body as they are.
    Curves(ImportedCurves),
}

/// Why `--groom`'s file could not be read.
#[derive(Debug, Error)]
pub enum GroomInputError {
    /// The file could not be opened or read.
    #[error(transparent)]
    Read(#[from] FileError),
    /// A groom file with a fault.
    #[error(transparent)]
    File(#[from] GroomFileError),
    /// Curves with a fault, or a binary file.
    #[error(transparent)]
    Curves(#[from] CurvesError),
}

/// How many leading bytes decide what the file is.
const SNIFF_BYTES: u64 = 64;

/// Reads `path` as a groom file or as USD text curves, whichever its first bytes say.
pub fn read_groom(path: &Path) -> Result<GroomInput, GroomInputError> {
    let mut head = Vec::new();
    crate::files::open_input(path, "groom file")?
        .take(SNIFF_BYTES)
        .read_to_end(&mut head)
        .map_err(|source| FileError::Read {
            what: "groom file".into(),
            path: path.into(),
            source,
        })?;
    if let Some(kind) = binary_groom_kind(&head) {
        let name = path.display();
        return Err(CurvesError::Binary(format!("{name} is {kind}")).into());
    }
    let text = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&head);
    let usda_named = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("usda") || e.eq_ignore_ascii_case("usd"));
    if text.starts_with(b"#usda") || (usda_named && !text.trim_ascii_start().starts_with(b"{")) {
        Ok(GroomInput::Curves(read_curves(path)?))
    } else {
        Ok(GroomInput::File(GroomFile::from_path(path)?))
    }
}
