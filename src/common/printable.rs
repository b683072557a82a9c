//! Text from a file or a user, made safe to print: control characters (escape sequences,
//! carriage returns, bells) and bidirectional overrides would otherwise reach the terminal
//! raw, where a node name could rewrite the screen or reverse what follows it.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` changes how a terminal shows the text around it: a control character
/// (C0, DEL, C1) or a bidirectional mark, embedding, override or isolate.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` with every control and bidirectional character written as `\u{…}` (and `\` as
/// `\\`, so the escapes cannot be forged); unchanged (borrowed) when it has none.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c) || c == '\\') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\\' {
            out.push_str("\\\\");
        } else if is_unsafe(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A path as printed on a success line: escaped like [`printable`] (error lines are escaped
/// whole as they are printed).
pub fn printable_path(path: &std::path::Path) -> String {
    printable(&path.display().to_string()).into_owned()
}

/// A number in the shorter of its plain and its scientific form, each the shortest that
/// reads back as the same value: `1e-45` rather than forty-odd zeros, `0.5` rather than
/// `5e-1`.
pub fn shortest<T: std::fmt::Display + std::fmt::LowerExp>(value: T) -> String {
    let plain = value.to_string();
    let scientific = format!("{value:e}");
    if scientific.len() < plain.len() {
        scientific
    } else {
        plain
    }
}

/// `x,y,z` with each number as [`shortest`] writes it (as `--eye` takes a point).
pub fn shortest_vec3(v: glam::Vec3) -> String {
    format!("{},{},{}", shortest(v.x), shortest(v.y), shortest(v.z))
}

/// Most characters of one name from a file that are printed.
pub const MAX_SHOWN_CHARS: usize = 200;

/// `text` cut to `max` characters (for a name, [`MAX_SHOWN_CHARS`]), saying how many were
/// cut (a file may hold a node name millions of characters long); unchanged (borrowed) when
/// it is no longer.
pub fn shortened(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some((end, _)) => {
            let cut = text[end..].chars().count();
            Cow::Owned(format!("{}… ({cut} more characters)", &text[..end]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_SHOWN_CHARS, printable, shortened, shortest};

    #[test]
    fn numbers_take_their_shorter_form() {
        assert_eq!(shortest(1e-45f32), "1e-45");
        assert_eq!(shortest(3.4e38f32), "3.4e38");
        assert_eq!(shortest(0.5f32), "0.5");
        assert_eq!(shortest(179.0f32), "179");
        assert_eq!(shortest(1e6f64), "1e6");
    }

    #[test]
    fn escapes_controls_and_bidi_and_keeps_the_rest() {
        assert_eq!(printable("Tail_1 ü 尾"), "Tail_1 ü 尾");
        assert_eq!(printable("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(printable("x\r\ny"), "x\\u{d}\\u{a}y");
        assert_eq!(printable("\u{202e}gnp.exe"), "\\u{202e}gnp.exe");
        assert_eq!(printable("C:\\u{1b}"), "C:\\\\u{1b}");
    }

    #[test]
    fn long_names_are_cut_and_say_by_how_much() {
        let name = "ü".repeat(MAX_SHOWN_CHARS);
        assert_eq!(shortened(&name, MAX_SHOWN_CHARS), name);
        let long = format!("{name}abc");
        assert_eq!(
            shortened(&long, MAX_SHOWN_CHARS),
            format!("{name}… (3 more characters)")
        );
    }
}
