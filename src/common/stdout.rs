//! Lines for standard output that fail as errors rather than panics: `println!` panics when
//! the output is full or gone (`pelt info > /dev/full`), with a source path in its message.
//! A reader that went away (`pelt info | head`) ends the program quietly, as it would a
//! Unix tool; any other failure is an error that says what could not be written.

use std::io::Write;

/// Writes `line` and a newline to standard output, flushed, so a failure surfaces here.
pub fn write_line(line: std::fmt::Arguments) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let written = out
        .write_fmt(line)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => Ok(()),
        // The reader is gone: nothing more can be said, and nobody is there to hear it.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(141),
        Err(e) => {
            let text = e.to_string();
            let words = text.split(" (os error").next().unwrap_or(&text);
            anyhow::bail!("writing to standard output: {words}")
        }
    }
}

/// `println!` that returns an error from the enclosing function instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::common::stdout::write_line(format_args!($($arg)*))?
    };
}
pub(crate) use say;
