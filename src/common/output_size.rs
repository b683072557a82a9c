//! The size of a large output (a USD coat, a CSV trace, a clip), known before any work:
//! estimated from the arguments and refused past [`MAX_OUTPUT_BYTES`] or past the space
//! free in the output's folder, with the numbers. An estimate may run low, so the cap is
//! also held while writing ([`Capped`]): past it, the write fails and the temporary file
//! goes, the old output left as it was.

use anyhow::bail;
use std::io::Write;
use std::path::Path;

/// The largest file one command writes, bytes (64 GiB).
pub const MAX_OUTPUT_BYTES: u64 = 64 << 30;

/// `bytes` for a person: bytes, KiB, MiB, GiB or TiB, three figures or so.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64;
    let mut unit = "bytes";
    for u in UNITS {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = u;
    }
    if value < 10.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.0} {unit}")
    }
}

/// Bytes free to this user on the file system that holds `dir`, where the system says.
#[cfg(unix)]
pub fn free_space(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: a valid NUL-terminated path and a zeroed statvfs (plain integers) to fill.
    let stat = unsafe {
        let mut stat: libc::statvfs = std::mem::zeroed();
        (libc::statvfs(c_path.as_ptr(), &mut stat) == 0).then_some(stat)
    }?;
    #[allow(clippy::unnecessary_cast)] // the fields' widths differ between platforms
    Some((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
}

#[cfg(not(unix))]
pub fn free_space(_dir: &Path) -> Option<u64> {
    None
}

/// Refuses an output estimated at `estimate` bytes when that is past [`MAX_OUTPUT_BYTES`] or
/// past the space free where `path` goes. `why` says what the estimate is made of
/// (`--strands 1048576 --frames 10000: 1048576 strands × 10000 samples × …`); `advice` what to
/// change.
pub fn check(
    path: &Path,
    what: &str,
    estimate: u64,
    why: &str,
    advice: &str,
) -> anyhow::Result<()> {
    let name = super::printable::printable_path(path);
    if estimate > MAX_OUTPUT_BYTES {
        bail!(
            "{why}: {what} would be about {} ({estimate} bytes), more than the {} Pelt writes to one file; {advice}",
            human(estimate),
            human(MAX_OUTPUT_BYTES)
        );
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if let Some(free) = free_space(dir)
        && estimate > free
    {
        bail!(
            "{why}: {what} would be about {} ({estimate} bytes), more than the {} free where {name} goes; {advice}, or free some space",
            human(estimate),
            human(free)
        );
    }
    Ok(())
}

/// A writer that counts what passes through it and fails past a cap (by default
/// [`MAX_OUTPUT_BYTES`]), so an output whose estimate ran low still stops at the cap.
pub struct Capped<W> {
    inner: W,
    written: u64,
    cap: u64,
}

impl<W: Write> Capped<W> {
    /// Wraps `inner` with the cap [`MAX_OUTPUT_BYTES`].
    pub fn new(inner: W) -> Self {
        Capped {
            inner,
            written: 0,
            cap: MAX_OUTPUT_BYTES,
        }
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The writer inside.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Write for Capped<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.written.saturating_add(buf.len() as u64) > self.cap {
            return Err(std::io::Error::other(format!(
                "the file grew past {}, the most Pelt writes to one file",
                human(self.cap)
            )));
        }
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_a_person_would_say_them() {
        assert_eq!(human(512), "512 bytes");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(MAX_OUTPUT_BYTES), "64 GiB");
        assert_eq!(human(5 << 40), "5.0 TiB");
    }

    #[test]
    fn a_capped_writer_stops_at_its_cap() {
        let mut out = Capped {
            inner: Vec::new(),
            written: 0,
            cap: 10,
        };
        out.write_all(b"0123456789").unwrap();
        assert!(out.write_all(b"x").is_err());
        assert_eq!(out.written(), 10);
    }
}
