//! How a failed command's error reaches the user: one line, each cause after a colon, a
//! cause whose text the message already holds left out (a library error that quotes its
//! source would otherwise print it twice), control characters escaped.

use crate::common::printable::{MAX_SHOWN_CHARS, printable, shortened};

/// Most characters of an error line printed: room for a few paths and names, while a file's
/// name of millions of characters quoted by an error is cut.
const MAX_ERROR_CHARS: usize = 10 * MAX_SHOWN_CHARS;

/// The error and its causes as one printable line.
pub fn describe(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if text.is_empty() || line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    printable(&shortened(&line, MAX_ERROR_CHARS)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::describe;

    #[test]
    fn a_cause_quoted_by_its_message_is_printed_once() {
        let io = std::io::Error::other("disk full");
        #[derive(Debug, thiserror::Error)]
        #[error("writing failed: {0}")]
        struct Quotes(#[source] std::io::Error);
        let e = anyhow::Error::new(Quotes(io)).context("saving x.npz");
        let text = describe(&e);
        assert_eq!(text, "saving x.npz: writing failed: disk full");
        let e = anyhow::anyhow!("bad name \u{1b}[31m").context("reading a.vrm");
        assert_eq!(describe(&e), "reading a.vrm: bad name \\u{1b}[31m");
        let e = anyhow::anyhow!("node `{}` is bad", "A".repeat(1_000_000));
        let text = describe(&e);
        assert!(text.len() < 3000, "{} bytes", text.len());
        assert!(text.ends_with("(998014 more characters)"), "{text}");
    }
}
