//! The few pieces of USD's text syntax (`.usda`) the coat needs: numbers written so they
//! read back exactly, and arrays of numbers, vectors and colours.

use glam::{Vec2, Vec3};
use std::io::{self, Write};

/// Values per line in a written array, so a file opens in a text editor.
const PER_LINE: usize = 8;

/// Writes `value` in the shortest decimal form that reads back as the same `f32` (Rust's
/// `Display` for floats), so positions survive the text exactly. USD has no text for a
/// non-finite number in a point array that every reader takes, so one is an error.
pub fn write_f32(out: &mut (impl Write + ?Sized), value: f32) -> io::Result<()> {
    if !value.is_finite() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{value} is not a finite number; USD points and widths must be finite"),
        ));
    }
    // `-0` reads back as 0 in USD's parser; write it as `0` so the bytes say what is read.
    if value == 0.0 {
        return out.write_all(b"0");
    }
    write!(out, "{value}")
}

/// Writes `(x, y, z)`.
pub fn write_vec3(out: &mut (impl Write + ?Sized), v: Vec3) -> io::Result<()> {
    out.write_all(b"(")?;
    write_f32(out, v.x)?;
    out.write_all(b", ")?;
    write_f32(out, v.y)?;
    out.write_all(b", ")?;
    write_f32(out, v.z)?;
    out.write_all(b")")
}

/// Writes `(x, y)`.
pub fn write_vec2(out: &mut (impl Write + ?Sized), v: Vec2) -> io::Result<()> {
    out.write_all(b"(")?;
    write_f32(out, v.x)?;
    out.write_all(b", ")?;
    write_f32(out, v.y)?;
    out.write_all(b")")
}

/// Writes `[a, b, …]`, each element by `item`, `PER_LINE` to a line, each continuation
/// line indented by `indent`.
pub fn write_array<T>(
    out: &mut impl Write,
    items: impl IntoIterator<Item = T>,
    indent: &str,
    mut item: impl FnMut(&mut dyn Write, T) -> io::Result<()>,
) -> io::Result<()> {
    out.write_all(b"[")?;
    for (i, value) in items.into_iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
            if i % PER_LINE == 0 {
                write!(out, "\n{indent}")?;
            } else {
                out.write_all(b" ")?;
            }
        }
        item(out, value)?;
    }
    out.write_all(b"]")
}

/// Writes an array of `f32`.
pub fn write_floats(
    out: &mut impl Write,
    values: impl IntoIterator<Item = f32>,
    indent: &str,
) -> io::Result<()> {
    write_array(out, values, indent, |o, v| write_f32(o, v))
}

/// Writes an array of `(x, y, z)`.
pub fn write_vec3s(
    out: &mut impl Write,
    values: impl IntoIterator<Item = Vec3>,
    indent: &str,
) -> io::Result<()> {
    write_array(out, values, indent, |o, v| write_vec3(o, v))
}

/// Writes an array of `(x, y)`.
pub fn write_vec2s(
    out: &mut impl Write,
    values: impl IntoIterator<Item = Vec2>,
    indent: &str,
) -> io::Result<()> {
    write_array(out, values, indent, |o, v| write_vec2(o, v))
}

/// Writes an array of integers.
pub fn write_ints(
    out: &mut impl Write,
    values: impl IntoIterator<Item = u32>,
    indent: &str,
) -> io::Result<()> {
    write_array(out, values, indent, |o, v| write!(o, "{v}"))
}

/// Writes a time code (a step count) the way USD reads it back: an integer when it is one.
pub fn write_time(out: &mut (impl Write + ?Sized), time: f64) -> io::Result<()> {
    write!(out, "{time}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> String {
        let mut bytes = Vec::new();
        f(&mut bytes).unwrap();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn floats_read_back_exactly() {
        for v in [
            0.1f32,
            -0.0034,
            1.0 / 3.0,
            123456.79,
            1e-7,
            f32::MIN_POSITIVE,
            0.6,
        ] {
            let s = text(|o| write_f32(o, v));
            assert_eq!(s.parse::<f32>().unwrap(), v, "{s}");
            // USD parses text numbers as doubles and then rounds to float.
            assert_eq!(s.parse::<f64>().unwrap() as f32, v, "{s}");
        }
        assert_eq!(text(|o| write_f32(o, -0.0)), "0");
        assert!(write_f32(&mut Vec::new(), f32::NAN).is_err());
        assert!(write_f32(&mut Vec::new(), f32::INFINITY).is_err());
    }

    #[test]
    fn arrays_wrap_and_separate() {
        let s = text(|o| write_ints(o, 0..10, "  "));
        assert_eq!(s, "[0, 1, 2, 3, 4, 5, 6, 7,\n  8, 9]");
        let s = text(|o| write_vec3s(o, [Vec3::new(1.0, 0.5, -2.0)], ""));
        assert_eq!(s, "[(1, 0.5, -2)]");
        assert_eq!(text(|o| write_floats(o, [], "")), "[]");
        let s = text(|o| write_vec2s(o, [Vec2::new(0.25, -1.0)], ""));
        assert_eq!(s, "[(0.25, -1)]");
    }
}
