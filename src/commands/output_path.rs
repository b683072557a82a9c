//! Checking where a command will write, before it does any work: the folder exists and
//! the path is not a folder itself.

use anyhow::bail;
use std::path::Path;

/// Fails with a message naming `what` and the problem if `path` cannot be written to.
pub fn check(path: &Path, what: &str) -> anyhow::Result<()> {
    if path.is_dir() {
        bail!("cannot save {what} to {}: it is a folder", path.display());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        bail!("cannot save {what} to {}: no such folder", path.display());
    }
    Ok(())
}
