//! Why a JSON file Pelt reads does not parse, in words where serde's own message would not
//! say what is wrong: a `NaN` or `Infinity` (JSON has no such numbers; serde says "expected
//! value at line 1 column 31"), a list of numbers of the wrong length (serde says "trailing
//! characters"), and nesting deeper than any of Pelt's files has.

use serde::de::{Deserialize, Deserializer, Error, IgnoredAny, SeqAccess, Visitor};
use std::marker::PhantomData;

/// The deepest nesting of lists and objects read: serde_json's own limit (past which it
/// says only "recursion limit exceeded"), far beyond what any of Pelt's formats needs.
pub(crate) const MAX_NESTING: usize = 128;

/// Where `text` opens a list or object deeper than [`MAX_NESTING`]: a message naming the
/// line and column (in characters), or `None`. Brackets inside strings do not count.
pub(crate) fn too_deep(text: &[u8]) -> Option<String> {
    let (mut depth, mut line, mut line_start) = (0usize, 1usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in text.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    // UTF-8 continuation bytes are no characters of their own.
                    let column = text[line_start..i]
                        .iter()
                        .filter(|&&c| c & 0xc0 != 0x80)
                        .count()
                        + 1;
                    return Some(format!(
                        "the JSON is nested too deeply: the `{}` at line {line} column {column} \
                         opens level {depth}; Pelt reads at most {MAX_NESTING} levels",
                        b as char
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            _ => {}
        }
    }
    None
}

/// Reads the JSON list of exactly `N` numbers in field `name` (serde's own reading says
/// "trailing characters" for one number too many, and names no field).
pub(crate) fn exactly<'de, D, T, const N: usize>(
    from: D,
    name: &'static str,
) -> Result<[T; N], D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Copy + Default,
{
    struct Numbers<T, const N: usize>(&'static str, PhantomData<T>);
    impl<'de, T: Deserialize<'de> + Copy + Default, const N: usize> Visitor<'de> for Numbers<T, N> {
        type Value = [T; N];
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "`{}` to be a list of {N} numbers", self.0)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[T; N], A::Error> {
            let mut out = [T::default(); N];
            let mut count = 0usize;
            while count < N {
                match seq.next_element::<T>()? {
                    Some(v) => out[count] = v,
                    None => break,
                }
                count += 1;
            }
            // Past `N`, whatever the rest are, only their count matters.
            while count >= N && seq.next_element::<IgnoredAny>()?.is_some() {
                count += 1;
            }
            if count != N {
                let numbers = if count == 1 { "number" } else { "numbers" };
                return Err(A::Error::custom(format!(
                    "`{}` has {count} {numbers}, wants {N}",
                    self.0
                )));
            }
            Ok(out)
        }
    }
    from.deserialize_seq(Numbers::<T, N>(name, PhantomData))
}

/// Where a JSON parse stopped at a word that is not a JSON number but names one that is
/// not finite (`NaN`, `Infinity`, `-inf`, …): a message that names the word and where
/// it starts (its line, and its column in characters, as an editor counts them).
pub(crate) fn non_finite_number(text: &str, error: &serde_json::Error) -> Option<String> {
    // Only where serde wanted a value (or the rest of `null`, or a number's digits after a
    // sign): not a broken escape or a control character inside a string, not a key, not
    // letters after a number.
    let said = error.to_string();
    let wanted_a_value = ["expected value", "expected ident", "invalid number"]
        .iter()
        .any(|start| said.starts_with(start));
    if !error.is_syntax() || !wanted_a_value || error.line() == 0 || error.column() == 0 {
        return None;
    }
    // serde_json counts lines from 1 and columns in bytes from 1, up to and including the
    // byte where it stopped.
    let line = text.split('\n').nth(error.line() - 1)?;
    let stop = error.column() - 1;
    let bytes = line.as_bytes();
    // Back up over the letters before the stop (serde stops at `a` of `nan`, at `I` of
    // `-Infinity` after reading the sign) and a sign before them.
    let mut start = stop.min(bytes.len());
    while start > 0 && bytes[start - 1].is_ascii_alphabetic() {
        start -= 1;
    }
    if start > 0 && matches!(bytes[start - 1], b'-' | b'+') {
        start -= 1;
    }
    // Forward over a sign where serde stopped at one (`+` starts no JSON value), then the
    // letters.
    let rest = bytes.get(stop..)?;
    let sign = usize::from(matches!(rest.first(), Some(b'-' | b'+')));
    let end = stop
        + sign
        + rest[sign..]
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .count();
    let before = line.get(..start)?;
    let word = line.get(start..end)?;
    let unsigned = word.trim_start_matches(['-', '+']).to_ascii_lowercase();
    let non_finite = matches!(unsigned.as_str(), "nan" | "inf" | "infinity");
    (non_finite && !inside_string(before)).then(|| {
        format!(
            "`{word}` at line {} column {} is not a number JSON can hold; every number must \
             be finite",
            error.line(),
            before.chars().count() + 1
        )
    })
}

/// Whether a line of JSON that starts outside a string (JSON strings hold no raw line
/// breaks) ends inside one.
fn inside_string(line: &str) -> bool {
    let mut inside = false;
    let mut escaped = false;
    for c in line.chars() {
        if escaped {
            escaped = false;
        } else if inside && c == '\\' {
            escaped = true;
        } else if c == '"' {
            inside = !inside;
        }
    }
    inside
}

/// `v` as a message shows it: plainly where that is short, else in exponent form (1e300
/// written plainly is 301 digits).
pub(crate) fn readable(v: f64) -> String {
    if v == 0.0 || (1e-4..1e16).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// `error`'s message for `text`, saying so plainly where the text holds a non-finite
/// number.
pub(crate) fn describe(text: &str, error: &serde_json::Error) -> String {
    non_finite_number(text, error).unwrap_or_else(|| plain_types(&error.to_string()))
}

/// Rust's number types in serde's messages as a user reads them ("expected usize" says
/// nothing to someone editing a JSON file): `expected a whole number from 0` for the
/// unsigned types (indices and counts), `expected a whole number` for the signed ones,
/// `expected a number` for the floats. Everything else in the message is kept.
pub(crate) fn plain_types(message: &str) -> String {
    const WORDS: [(&str, &str); 12] = [
        ("usize", "a whole number from 0"),
        ("u64", "a whole number from 0"),
        ("u32", "a whole number from 0"),
        ("u16", "a whole number from 0"),
        ("u8", "a whole number from 0"),
        ("isize", "a whole number"),
        ("i64", "a whole number"),
        ("i32", "a whole number"),
        ("i16", "a whole number"),
        ("i8", "a whole number"),
        ("f64", "a number"),
        ("f32", "a number"),
    ];
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("expected ") {
        let (before, after) = rest.split_at(at + "expected ".len());
        out.push_str(before);
        let word_end = after
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(after.len());
        match WORDS.iter().find(|(rust, _)| *rust == &after[..word_end]) {
            Some((_, plain)) => {
                out.push_str(plain);
                rest = &after[word_end..];
            }
            None => rest = after,
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_error(text: &str) -> serde_json::Error {
        serde_json::from_str::<serde_json::Value>(text).expect_err("the text must not parse")
    }

    #[test]
    fn non_finite_words_are_found_where_the_parse_stopped() {
        for (text, word, line, column) in [
            (r#"{"step": NaN}"#, "NaN", 1, 10),
            (r#"{"step": nan}"#, "nan", 1, 10),
            (r#"[1, Infinity]"#, "Infinity", 1, 5),
            (r#"[1, -Infinity]"#, "-Infinity", 1, 5),
            ("[1,\n  2,\n  -inf ]", "-inf", 3, 3),
            (r#"[+Infinity]"#, "+Infinity", 1, 2),
            // Columns in characters: an editor shows this NaN at column 12.
            (r#"["日本語日本語", NaN]"#, "NaN", 1, 12),
            ("[\"a \\\" b\", NaN]", "NaN", 1, 12),
        ] {
            let e = parse_error(text);
            let message = non_finite_number(text, &e).unwrap_or_default();
            assert!(
                message.starts_with(&format!("`{word}` at line {line} column {column} ")),
                "{text}: {message}"
            );
            assert_eq!(describe(text, &e), message);
        }
    }

    #[test]
    fn rust_number_types_are_named_in_words() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Indices {
            node: usize,
            offset: i64,
            weight: f32,
        }
        for (text, plain) in [
            (
                r#"{"node": -1, "offset": 0, "weight": 1}"#,
                "expected a whole number from 0",
            ),
            (
                r#"{"node": 1, "offset": 0.5, "weight": 1}"#,
                "expected a whole number",
            ),
            (
                r#"{"node": 1, "offset": 0, "weight": "x"}"#,
                "expected a number",
            ),
        ] {
            let e = serde_json::from_str::<Indices>(text).expect_err("the text must not parse");
            let message = describe(text, &e);
            assert!(message.contains(plain), "{text}: {message}");
            for rust in ["usize", "i64", "f32"] {
                assert!(!message.contains(rust), "{text}: {message}");
            }
            assert!(message.contains("at line 1 column"), "{text}: {message}");
        }
        // Words that only begin like a type stay as they are.
        assert_eq!(
            plain_types("expected u32x4, expected f32 at line 2"),
            "expected u32x4, expected a number at line 2"
        );
    }

    #[test]
    fn other_syntax_errors_keep_serde_s_message() {
        for text in [
            r#"{"step": }"#,
            r#"{"step": Nope}"#,
            r#"{"step": 1"#,
            r#"{"Infinity": x}"#,
            "",
            // Inside a string: a broken escape, a control character after a word.
            r#"["\NaN"]"#,
            "[\"Infinity\t\"]",
            r#"["C:\inf"]"#,
            // A key, and letters after a number.
            r#"{NaN: 1}"#,
            r#"[1NaN]"#,
        ] {
            let e = parse_error(text);
            assert_eq!(non_finite_number(text, &e), None, "{text}");
            assert_eq!(describe(text, &e), e.to_string());
        }
    }
}
