//! The creature's file, what `pelt export` writes: the rigged body the creature builds
//! ([`creature_body`]) written as GLB, a `.vrm` when the options ask for the avatar.

use std::path::Path;

use super::{VrmError, write_glb};
use crate::creature::{Creature, CreatureExport, creature_body};

/// The creature's file as GLB bytes (a `.vrm` when `options.vrm`).
pub fn creature_glb(creature: &Creature, options: &CreatureExport) -> Result<Vec<u8>, VrmError> {
    write_glb(&creature_body(creature, options)?)
}

/// Writes the creature's file to `path` and returns its size in bytes: through a temporary
/// file beside it, renamed over `path` only on success and only where `path` is a regular
/// file or nothing ([`crate::files::write_atomic`]).
pub fn write_creature_file(
    path: &Path,
    creature: &Creature,
    options: &CreatureExport,
) -> Result<usize, VrmError> {
    let bytes = creature_glb(creature, options)?;
    crate::files::write_atomic(path, "the creature's file", &bytes)
        .map_err(|e| VrmError::Io(e.to_string()))?;
    Ok(bytes.len())
}
