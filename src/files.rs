//! The files a user names on the command line, read and written so that hostile paths do no
//! harm: every read is capped by the bytes actually read (a device or a pipe reports length
//! 0, so its metadata says nothing), and every write goes to a temporary file beside the
//! target that replaces it only once complete, and only when the target is a regular file or
//! absent (a device, a pipe, a folder or a symlink is refused, and left as it was). A named
//! pipe is refused as an input too (opening one waits for a writer for ever), and a run ended
//! by a signal that would end it (SIGINT, SIGTERM, SIGHUP, SIGPIPE …) removes its unfinished temporary files
//! ([`remove_temporaries_on_signal`]). A run killed outright (SIGKILL, a power cut) cannot:
//! its temporary file is removed when the next write to that folder starts, once no process
//! holds it ([`clear_stale_temporaries`]).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// What went wrong reading or writing a named file. Every message names the file.
#[derive(Debug, Error)]
pub enum FileError {
    /// Opening or reading failed.
    #[error("cannot read {what} {}: {source}", path.display())]
    Read {
        /// What the file is for ("capsule script").
        what: String,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// More bytes than the cap.
    #[error("{what} {} is larger than {cap} bytes, the most Pelt reads", path.display())]
    TooLarge {
        /// What the file is for.
        what: String,
        /// The file.
        path: PathBuf,
        /// The cap, bytes.
        cap: u64,
    },
    /// Not UTF-8 text.
    #[error("{what} {} is not UTF-8 text (byte {at})", path.display())]
    NotText {
        /// What the file is for.
        what: String,
        /// The file.
        path: PathBuf,
        /// Offset of the first bad byte.
        at: usize,
    },
    /// The output path cannot be written as asked.
    #[error("cannot save {what} to {}: {reason}", path.display())]
    BadOutput {
        /// What is being saved ("the picture").
        what: String,
        /// The output.
        path: PathBuf,
        /// Why not.
        reason: String,
    },
    /// Writing or renaming failed (a full disk, no permission).
    #[error("cannot save {what} to {}: {source}", path.display())]
    Write {
        /// What is being saved.
        what: String,
        /// The output.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Opens `path` for reading (`what` names it in errors), refusing a folder and a named pipe
/// (FIFO) or socket: opening a FIFO waits for a writer, for ever when none comes. The file
/// is opened without waiting and its type checked on the open file, so a FIFO swapped in
/// after a check cannot block either. Devices (`/dev/zero`) are allowed; callers cap reads.
pub fn open_input(path: &Path, what: &str) -> Result<std::fs::File, FileError> {
    let read_error = |source| FileError::Read {
        what: what.into(),
        path: path.into(),
        source,
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(read_error)?;
    let kind = file.metadata().map_err(read_error)?.file_type();
    if kind.is_dir() {
        return Err(read_error(std::io::Error::other("it is a folder")));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() || kind.is_socket() {
            return Err(read_error(std::io::Error::other(
                "it is a named pipe or a socket, not a file (so are `<(…)` and a piped /dev/stdin); Pelt reads only files: save what the pipe gives to a file and name that",
            )));
        }
        // Back to ordinary blocking reads (a terminal or a device may otherwise answer
        // "would block").
        use std::os::fd::AsRawFd;
        // SAFETY: fcntl on a descriptor this function owns, with F_GETFL/F_SETFL only.
        let cleared = unsafe {
            let fd = file.as_raw_fd();
            let flags = libc::fcntl(fd, libc::F_GETFL);
            flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) >= 0
        };
        if !cleared {
            return Err(read_error(std::io::Error::last_os_error()));
        }
    }
    Ok(file)
}

/// Reads at most `cap` bytes of `path` (`what` names the file in errors). Reads through
/// [`Read::take`], so `/dev/urandom` or a pipe costs `cap + 1` bytes, not memory until
/// killed; more than `cap` is an error.
pub fn read_capped(path: &Path, cap: u64, what: &str) -> Result<Vec<u8>, FileError> {
    let read_error = |source| FileError::Read {
        what: what.into(),
        path: path.into(),
        source,
    };
    let file = open_input(path, what)?;
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > cap {
        return Err(FileError::TooLarge {
            what: what.into(),
            path: path.into(),
            cap,
        });
    }
    Ok(bytes)
}

/// [`read_capped`] for UTF-8 text, a leading byte-order mark dropped (editors on Windows
/// write one; JSON parsers do not expect it).
pub fn read_text_capped(path: &Path, cap: u64, what: &str) -> Result<String, FileError> {
    let bytes = read_capped(path, cap, what)?;
    let text = String::from_utf8(bytes).map_err(|e| FileError::NotText {
        what: what.into(),
        path: path.into(),
        at: e.utf8_error().valid_up_to(),
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// `text` without a leading UTF-8 byte-order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// What sits at an output path, as far as writing over it goes.
fn refuse_unless_replaceable(path: &Path, what: &str) -> Result<(), FileError> {
    let refuse = |reason: &str| FileError::BadOutput {
        what: what.into(),
        path: path.into(),
        reason: reason.into(),
    };
    if !ends_in_a_file_name(path) {
        return Err(refuse(
            "it does not end in a file name (a trailing / or /. names a folder); drop the trailing part",
        ));
    }
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(FileError::Write {
                what: what.into(),
                path: path.into(),
                source: e,
            });
        }
        Ok(m) => {
            let kind = m.file_type();
            if kind.is_symlink() {
                return Err(refuse(
                    "it is a symbolic link (Pelt replaces only regular files; name the file it points to)",
                ));
            }
            if kind.is_dir() {
                return Err(refuse("it is a folder"));
            }
            if !kind.is_file() {
                return Err(refuse(
                    "it is not a regular file (a device, a pipe or a socket); Pelt replaces only regular files",
                ));
            }
            if !may_write(path) {
                return Err(refuse(
                    "it is write-protected for you (Pelt replaces only files you may write)",
                ));
            }
        }
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(refuse("no such folder"));
    }
    Ok(())
}

/// Whether `path` ends in the name of a file, as written: `a.png/`, `a.png/.` and `a.png/..`
/// end in a folder, though `Path::file_name` reads `a.png` in the first two (the rename that
/// ends a write would then fail, after all the work).
fn ends_in_a_file_name(path: &Path) -> bool {
    path.file_name().is_some_and(|name| {
        path.as_os_str()
            .as_encoded_bytes()
            .ends_with(name.as_encoded_bytes())
    })
}

/// Whether the user running Pelt may write the existing file `path` (its permission bits,
/// for the real user, as `access(2)` judges; root may write any).
#[cfg(unix)]
fn may_write(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a valid NUL-terminated path; access only reads it.
    unsafe { libc::access(c_path.as_ptr(), libc::W_OK) == 0 }
}

#[cfg(not(unix))]
fn may_write(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.permissions().readonly())
}

/// Identity of an existing file: device and inode on Unix, else the canonical path.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// Checks an output before any work: its extension is one of `extensions` (compared
/// without case; `"png"`), it is a regular file or absent in an existing folder, it is
/// not the same file as any of `inputs` (hard links and other spellings of the same path
/// included), and its folder takes the temporary file it will be written through (made
/// and removed here, so a folder that cannot be written, such as `/proc`, is refused
/// before the run rather than after it). `what` names the output in messages ("the
/// picture").
pub fn check_output(
    path: &Path,
    what: &str,
    extensions: &[&str],
    inputs: &[&Path],
) -> Result<(), FileError> {
    let refuse = |reason: String| FileError::BadOutput {
        what: what.into(),
        path: path.into(),
        reason,
    };
    if !extensions.is_empty() {
        let ext = path.extension().and_then(|e| e.to_str());
        // `.png` alone is a hidden file with no extension: it needs a name before the dot.
        let bare = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix('.'))
            .and_then(|rest| extensions.iter().find(|x| x.eq_ignore_ascii_case(rest)));
        if let Some(ext) = bare {
            return Err(refuse(format!(
                ".{ext} alone is only an extension: give a name before it (for example out.{ext})"
            )));
        }
        if !ext.is_some_and(|e| extensions.iter().any(|x| x.eq_ignore_ascii_case(e))) {
            let names: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
            return Err(refuse(format!(
                "the file name must end in {}",
                names.join(" or ")
            )));
        }
    }
    refuse_unless_replaceable(path, what)?;
    if let Some(out) = identity(path) {
        for input in inputs {
            if identity(input).is_some_and(|i| i == out) {
                return Err(refuse(format!(
                    "it is the input {} itself; writing it would destroy it",
                    input.display()
                )));
            }
        }
    }
    // Dropped at once: the probe is removed.
    match AtomicFile::create(path, what) {
        Ok(_probe) => Ok(()),
        Err(FileError::Write { source, .. }) => {
            // The reason alone: tempfile's message names the temporary file, which means
            // nothing to the user. (`/proc` answers "not found" to a new file.)
            let reason = match source.kind() {
                std::io::ErrorKind::NotFound => "it takes no new files".to_string(),
                kind => kind.to_string(),
            };
            Err(refuse(format!(
                "its folder cannot be written to ({reason})"
            )))
        }
        Err(other) => Err(other),
    }
}

/// A file being written: a temporary file beside the target that becomes the target only
/// on [`AtomicFile::commit`]. Dropped without a commit (an error, a panic), it is removed and
/// the target is untouched.
pub struct AtomicFile {
    /// `None` only inside [`AtomicFile::commit`], once persisted.
    temp: Option<tempfile::NamedTempFile>,
    target: PathBuf,
    what: String,
}

impl AtomicFile {
    /// Starts writing `target` (`what` names it in errors). Refuses a target that is not a
    /// regular file or absent, before creating anything.
    pub fn create(target: &Path, what: &str) -> Result<Self, FileError> {
        refuse_unless_replaceable(target, what)?;
        let dir = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        clear_stale_temporaries(dir);
        // Created and registered under the lock, so a signal never finds it unlisted.
        let mut pending = pending_temporaries();
        let temp = tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .suffix(TEMP_SUFFIX)
            .rand_bytes(TEMP_RANDOM_CHARS)
            .tempfile_in(dir)
            .map_err(|source| FileError::Write {
                what: what.into(),
                path: target.into(),
                source,
            })?;
        // Held while this process lives: a later run's clear-up sees the file is in use.
        hold(temp.as_file());
        pending.push(temp.path().to_path_buf());
        drop(pending);
        Ok(AtomicFile {
            temp: Some(temp),
            target: target.into(),
            what: what.into(),
        })
    }

    fn temp_file(&self) -> Result<&tempfile::NamedTempFile, FileError> {
        self.temp.as_ref().ok_or_else(|| self.write_error(gone()))
    }

    fn write_error(&self, source: std::io::Error) -> FileError {
        FileError::Write {
            what: self.what.clone(),
            path: self.target.clone(),
            source,
        }
    }

    /// Makes the written bytes the target: flushed to disk, given the replaced file's
    /// permission bits (a private or read-only file stays so), or 0644 for a new file (like
    /// any file a program saves; a temporary file starts private), then renamed over the
    /// target, which is checked again to be a regular file we may write, or absent.
    pub fn commit(mut self) -> Result<(), FileError> {
        let file = self.temp_file()?.as_file();
        file.sync_all().map_err(|e| self.write_error(e))?;
        let permissions = match std::fs::metadata(&self.target) {
            Ok(existing) => Some(existing.permissions()),
            Err(_) => new_file_permissions(),
        };
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)
                .map_err(|e| self.write_error(e))?;
        }
        refuse_unless_replaceable(&self.target, &self.what)?;
        // Renamed and unlisted under the lock: a signal meanwhile waits, then finds nothing
        // of ours to remove.
        let mut pending = pending_temporaries();
        let Some(temp) = self.temp.take() else {
            return Err(self.write_error(gone()));
        };
        let temp_path = temp.path().to_path_buf();
        let persisted = temp.persist(&self.target);
        pending.retain(|p| *p != temp_path);
        drop(pending);
        persisted.map_err(|e| self.write_error(e.error))?;
        Ok(())
    }
}

/// How a temporary file's name starts and ends (`.pelt-` + [`TEMP_RANDOM_CHARS`] letters
/// and digits + `.part`); nothing else is ever cleared as stale.
const TEMP_PREFIX: &str = ".pelt-";
const TEMP_SUFFIX: &str = ".part";
const TEMP_RANDOM_CHARS: usize = 6;

/// How long a temporary file must have gone unchanged before a later run may clear it (the
/// lock is what shows it is in use; the age also spares the instant between its creation
/// and its lock, and a run of a Pelt that took no lock).
pub const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);

/// Most entries of a folder looked at for stale temporary files, so a folder of millions of
/// files does not slow every write.
const MAX_ENTRIES_SCANNED: usize = 10_000;

/// Whether `name` is exactly the name of one of Pelt's temporary files.
fn is_temporary_name(name: &std::ffi::OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    name.strip_prefix(TEMP_PREFIX)
        .and_then(|rest| rest.strip_suffix(TEMP_SUFFIX))
        .is_some_and(|random| {
            random.len() == TEMP_RANDOM_CHARS && random.bytes().all(|b| b.is_ascii_alphanumeric())
        })
}

/// Takes an exclusive advisory lock on `file` without waiting, held until it closes (the
/// process ending, even by SIGKILL, releases it). Whether it was taken.
#[cfg(unix)]
fn hold(file: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor the caller keeps open.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

#[cfg(not(unix))]
fn hold(_file: &std::fs::File) -> bool {
    false
}

/// Removes the temporary files a killed run of Pelt left in `dir`: only a regular file of
/// this user, named exactly as Pelt names them, unchanged for [`STALE_AFTER`], and locked by
/// no live process (every run holds a lock on its own while it writes). Anything in doubt is
/// left; failures are ignored (the write goes on). Off Unix, nothing is removed.
pub fn clear_stale_temporaries(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        // SAFETY: getuid cannot fail.
        let me = unsafe { libc::getuid() };
        for entry in entries.take(MAX_ENTRIES_SCANNED).flatten() {
            if !is_temporary_name(&entry.file_name()) {
                continue;
            }
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let old = meta
                .modified()
                .ok()
                .and_then(|m| m.elapsed().ok())
                .is_some_and(|age| age >= STALE_AFTER);
            // One link only: a temporary file Pelt made has no other name, so a second link
            // is someone else's file that merely looks like ours.
            if !meta.file_type().is_file() || meta.uid() != me || meta.nlink() != 1 || !old {
                continue;
            }
            // Opened without following a link, and checked to be the file looked at.
            let Ok(file) = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
                .open(&path)
            else {
                continue;
            };
            let same = file
                .metadata()
                .is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino());
            if same && hold(&file) {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// The error for a temporary file already renamed (never seen: commit consumes the file).
fn gone() -> std::io::Error {
    std::io::Error::other("the temporary file was already renamed")
}

/// Permission bits of a new output: what `open` would give a new file (0666 less the
/// process's umask) on Unix, the platform's default elsewhere. The temporary file is made
/// 0600, so without this every output would be private or, set to a fixed mode, ignore a
/// caller's stricter umask.
fn new_file_permissions() -> Option<std::fs::Permissions> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o666 & !process_umask()))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The process's umask, read where Linux shows it (`/proc/self/status`) so it is never
/// changed, not even for a moment (a library must not race its caller's threads); the
/// usual 022 where it cannot be read.
#[cfg(unix)]
fn process_umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| umask_in_status(&status))
        .unwrap_or(0o022)
}

/// The `Umask:` line of a `/proc/PID/status` text, as a number.
#[cfg(unix)]
fn umask_in_status(status: &str) -> Option<u32> {
    let line = status.lines().find_map(|l| l.strip_prefix("Umask:"))?;
    u32::from_str_radix(line.trim(), 8)
        .ok()
        .filter(|m| *m <= 0o777)
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Unlisted first; the temporary file removes itself as it drops, right after.
        if let Some(temp) = &self.temp {
            let path = temp.path().to_path_buf();
            pending_temporaries().retain(|p| *p != path);
        }
    }
}

/// Whether `signal`'s action is to ignore it (as `nohup` sets SIGHUP).
#[cfg(unix)]
fn is_ignored(signal: i32) -> bool {
    // SAFETY: a null new action only reads the current one into `current`, a zeroed
    // (valid) sigaction.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_IGN
    }
}

/// Temporary files being written now, removed by [`remove_temporaries_on_signal`]'s thread
/// when the run is ended by a signal.
static PENDING_TEMPORARIES: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn pending_temporaries() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding the list leaves it whole (every change is one push or retain).
    PENDING_TEMPORARIES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Makes SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2 and SIGALRM remove the
/// unfinished temporary files of any
/// [`AtomicFile`] before the program ends as the signal asks (the target is left as it
/// was). Call once, early in `main`; the work is done on a thread of its own, not in a signal
/// handler. Does nothing off Unix.
pub fn remove_temporaries_on_signal() -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGALRM, SIGHUP, SIGINT, SIGPIPE, SIGTERM, SIGUSR1, SIGUSR2};
        // Every signal whose default action ends the program and that a handler may catch:
        // a progress line written to a closed pipe (`pelt … 2>&1 | head`) raises SIGPIPE.
        // A signal the caller ignores (`nohup`, a shell's background job) stays ignored.
        let watched: Vec<i32> = [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM]
            .into_iter()
            .filter(|&signal| !is_ignored(signal))
            .collect();
        let mut signals = signal_hook::iterator::Signals::new(watched)?;
        std::thread::Builder::new()
            .name("pelt-signals".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    // Held until the end: a commit now cannot rename a file we removed.
                    let pending = pending_temporaries();
                    for path in pending.iter() {
                        let _ = std::fs::remove_file(path);
                    }
                    // Ends the program as the signal's default action would (so a shell
                    // sees "killed by SIGINT"); exit codes 128 + n if that fails.
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                }
            })?;
    }
    Ok(())
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.temp.as_mut().ok_or_else(gone)?.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.temp.as_mut().ok_or_else(gone)?.flush()
    }
}

impl std::io::Seek for AtomicFile {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.temp.as_mut().ok_or_else(gone)?.seek(pos)
    }
}

/// Writes `bytes` to `target` through an [`AtomicFile`].
pub fn write_atomic(target: &Path, what: &str, bytes: &[u8]) -> Result<(), FileError> {
    let mut file = AtomicFile::create(target, what)?;
    file.write_all(bytes).map_err(|e| file.write_error(e))?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_stops_one_byte_past_the_cap_even_on_an_endless_device() {
        let err = read_capped(Path::new("/dev/zero"), 1000, "test input").unwrap_err();
        assert!(
            matches!(err, FileError::TooLarge { cap: 1000, .. }),
            "{err}"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        std::fs::write(&path, b"\xef\xbb\xbf[1]").unwrap();
        assert_eq!(read_text_capped(&path, 6, "x").unwrap(), "[1]");
        assert!(read_capped(&path, 5, "x").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn the_umask_is_read_from_the_status_text() {
        assert_eq!(
            umask_in_status("Name:\tpelt\nUmask:\t0077\nState:\tR\n"),
            Some(0o077)
        );
        assert_eq!(umask_in_status("Umask:\t0022\n"), Some(0o022));
        assert_eq!(umask_in_status("Umask:\t9\n"), None);
        assert_eq!(umask_in_status("Name:\tpelt\n"), None);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keep.npy");
        std::fs::write(&path, b"precious").unwrap();
        {
            let mut f = AtomicFile::create(&path, "x").unwrap();
            f.write_all(b"half").unwrap();
            // Dropped without commit, as on an error.
        }
        assert_eq!(std::fs::read(&path).unwrap(), b"precious");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        write_atomic(&path, "x", b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o644);
        }
    }

    #[cfg(unix)]
    #[test]
    fn devices_links_and_the_input_itself_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.png");
        std::fs::write(&real, b"x").unwrap();
        let link = dir.path().join("link.png");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(AtomicFile::create(&link, "x").is_err());
        assert!(AtomicFile::create(Path::new("/dev/null"), "x").is_err());
        let hard = dir.path().join("hard.json");
        std::fs::hard_link(&real, &hard).unwrap();
        let err = check_output(&hard, "x", &["json"], &[&real]).unwrap_err();
        assert!(err.to_string().contains("input"), "{err}");
        let err = check_output(&real, "x", &["jpg"], &[]).unwrap_err();
        assert!(err.to_string().contains(".jpg"), "{err}");
        check_output(&real, "x", &["PNG"], &[&hard.with_extension("other")]).unwrap();
    }
}
