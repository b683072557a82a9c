//! What `--groom FILE` names, told apart by the file's first bytes rather than its name: a
//! groom file (JSON, [`GroomFile`]) or strands as USD text ([`ImportedCurves`]). Binary USD
//! and Alembic are refused with the command that converts them to text.

use super::read_curves::{CurvesError, ImportedCurves, binary_groom_kind, read_curves};
use crate::body::BodyMesh;
use crate::files::FileError;
use crate::groom::{BodyGroomSource, GroomFile, GroomFileError, GroomStrand, bind_roots};
use glam::{Mat4, Vec3};
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

/// How many roots decide where curves are placed.
const PLACEMENT_SAMPLES: usize = 256;

/// Where a body's strands were placed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Through the body's fit: the curves were made on the body's file (a groom from
    /// Blender or Houdini on the model as it is).
    ThroughFit,
    /// As they are: the curves are already in the fitted frame (a coat Pelt exported on
    /// this body at this height).
    AsWritten,
}

impl GroomInput {
    /// The groom for `mesh`, a body whose file was fitted by `fit` (file → fitted frame,
    /// as [`crate::body::BodyFit::matrix`] gives it). Curves are placed either through the
    /// same fit as the body (made on the body's file) or as they are (a coat Pelt wrote
    /// on the fitted body), whichever puts the roots nearer the skin (the median distance
    /// of a spread of roots), so both land on the skin without a flag to say which.
    pub fn for_body(self, mesh: &BodyMesh, fit: Mat4) -> (BodyGroomSource, Placement) {
        let curves = match self {
            GroomInput::File(file) => return (BodyGroomSource::File(file), Placement::AsWritten),
            GroomInput::Curves(curves) => curves,
        };
        let step = curves.curves.len().div_ceil(PLACEMENT_SAMPLES).max(1);
        let sample: Vec<Vec3> = curves
            .curves
            .iter()
            .step_by(step)
            .map(|c| c.points[0])
            .collect();
        let median_gap = |points: &[Vec3]| -> f32 {
            match bind_roots(points, mesh) {
                Ok(b) => {
                    let mut d: Vec<f32> = b.iter().map(|b| b.distance).collect();
                    d.sort_by(f32::total_cmp);
                    d.get(d.len() / 2).copied().unwrap_or(f32::INFINITY)
                }
                Err(_) => f32::INFINITY,
            }
        };
        let fitted: Vec<Vec3> = sample.iter().map(|&p| fit.transform_point3(p)).collect();
        let placement = if median_gap(&fitted) <= median_gap(&sample) {
            Placement::ThroughFit
        } else {
            Placement::AsWritten
        };
        let place = |p: Vec3| match placement {
            Placement::ThroughFit => fit.transform_point3(p),
            Placement::AsWritten => p,
        };
        let strands = curves
            .curves
            .into_iter()
            .map(|c| GroomStrand {
                points: c.points.map(place),
                color: c.color,
            })
            .collect();
        (BodyGroomSource::Strands(strands), placement)
    }
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
