//! The process environment Pelt needs before any graphics library loads: a private runtime
//! directory, so Mesa's drivers do not print "XDG_RUNTIME_DIR is invalid or not set" (twice)
//! on a clean machine or in a container, where no login session made one.

use std::path::PathBuf;

/// Points `XDG_RUNTIME_DIR` at a private directory (mode 0700 under the system's temporary
/// folder, one per user) when it is unset or names no directory. Returns the directory set,
/// if any. Call first thing in `main`, before any thread starts.
pub fn ensure_runtime_dir() -> Option<PathBuf> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let usable = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .is_some_and(|p| p.is_dir());
    if usable {
        return None;
    }
    let dir = std::env::temp_dir().join(format!("pelt-runtime-{}", user_id()));
    std::fs::create_dir_all(&dir).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).ok()?;
    }
    // SAFETY: called at the start of main, before any other thread exists, so nothing reads
    // the environment concurrently.
    unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    Some(dir)
}

#[cfg(unix)]
fn user_id() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

#[cfg(not(unix))]
fn user_id() -> u32 {
    0
}
