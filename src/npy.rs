//! NumPy output: `.npy` arrays (format 1.0, little-endian) and `.npz` archives of them, so a
//! run can be analysed in numpy or any tool that reads them.

use crate::sim::POINTS_PER_STRAND;
use glam::Vec4;
use std::io::{self, Write};

/// An array's element type as `.npy` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    /// Little-endian float32, `<f4`.
    F32,
    /// Unsigned bytes, `|u1`.
    U8,
}

impl Dtype {
    fn descr(self) -> &'static str {
        match self {
            Dtype::F32 => "<f4",
            Dtype::U8 => "|u1",
        }
    }

    fn size(self) -> usize {
        match self {
            Dtype::F32 => 4,
            Dtype::U8 => 1,
        }
    }
}

/// Writes one `.npy` array: `data` holds the elements' little-endian bytes in C order.
/// The header is padded so the data starts on a 64-byte boundary.
pub fn write_array(
    out: &mut impl Write,
    dtype: Dtype,
    shape: &[usize],
    data: &[u8],
) -> io::Result<()> {
    let count: usize = shape.iter().product();
    if count * dtype.size() != data.len() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} bytes do not fill an array of shape {shape:?} of {}",
                data.len(),
                dtype.descr()
            ),
        ));
    }
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape_text}, }}",
        dtype.descr()
    );
    // Magic (6) + version (2) + header length (2) + header + '\n' is padded to 64 bytes.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    out.write_all(b"\x93NUMPY\x01\x00")?;
    out.write_all(&(header.len() as u16).to_le_bytes())?;
    out.write_all(header.as_bytes())?;
    out.write_all(data)
}

fn f32_bytes(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn strand_count(positions: &[Vec4]) -> io::Result<usize> {
    if !positions.len().is_multiple_of(POINTS_PER_STRAND) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} points is not a whole number of {POINTS_PER_STRAND}-point strands",
                positions.len()
            ),
        ));
    }
    Ok(positions.len() / POINTS_PER_STRAND)
}

/// Writes `positions` (six per strand; the w component is dropped) as `.npy`, float32 of
/// shape `[strands, 6, 3]`.
pub fn write_positions(out: &mut impl Write, positions: &[Vec4]) -> io::Result<()> {
    let strands = strand_count(positions)?;
    let data = f32_bytes(positions.iter().flat_map(|p| [p.x, p.y, p.z]));
    write_array(out, Dtype::F32, &[strands, POINTS_PER_STRAND, 3], &data)
}

/// A strand state as `pelt simulate` writes it to `.npz`.
#[derive(Clone, Copy, Debug)]
pub struct StrandState<'a> {
    /// Six points per strand, xyz world, w 1 where the hand touched the point last step.
    pub positions: &'a [Vec4],
    /// One comb vector per strand (xyz, in the root's part space).
    pub comb: &'a [Vec4],
}

/// Writes `state` as an uncompressed `.npz` with four arrays: `positions` float32
/// `[strands, 6, 3]` (world, metres), `touched` uint8 `[strands, 6]` (1 where the hand
/// touched the point in the last step), `comb` float32 `[strands, 3]` (root part space) and
/// `roots` float32 `[strands, 3]` (each strand's root in world, its point 0, which the
/// solver pins to the skin).
///
/// The archive is assembled in memory and then written to `out` in one piece: a write that
/// fails (a full disk) is one clean I/O error, and nothing is left for the zip writer to
/// finish (and complain about) when it is dropped.
pub fn write_npz(mut out: impl Write, state: &StrandState) -> io::Result<()> {
    let strands = strand_count(state.positions)?;
    if state.comb.len() != strands {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} comb vectors for {strands} strands", state.comb.len()),
        ));
    }
    let mut arrays: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut push = |name, dtype, shape: &[usize], data: Vec<u8>| -> io::Result<()> {
        let mut bytes = Vec::with_capacity(data.len() + 128);
        write_array(&mut bytes, dtype, shape, &data)?;
        arrays.push((name, bytes));
        Ok(())
    };
    let p = state.positions;
    push(
        "positions.npy",
        Dtype::F32,
        &[strands, POINTS_PER_STRAND, 3],
        f32_bytes(p.iter().flat_map(|v| [v.x, v.y, v.z])),
    )?;
    push(
        "touched.npy",
        Dtype::U8,
        &[strands, POINTS_PER_STRAND],
        p.iter().map(|v| u8::from(v.w > 0.5)).collect(),
    )?;
    push(
        "comb.npy",
        Dtype::F32,
        &[strands, 3],
        f32_bytes(state.comb.iter().flat_map(|c| [c.x, c.y, c.z])),
    )?;
    push(
        "roots.npy",
        Dtype::F32,
        &[strands, 3],
        f32_bytes(
            p.chunks(POINTS_PER_STRAND)
                .flat_map(|s| [s[0].x, s[0].y, s[0].z]),
        ),
    )?;
    let total: usize = arrays.iter().map(|(_, b)| b.len() + 128).sum();
    let mut zip = zip::ZipWriter::new(io::Cursor::new(Vec::with_capacity(total + 1024)));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes) in arrays {
        zip.start_file(name, options).map_err(io::Error::other)?;
        zip.write_all(&bytes)?;
    }
    let archive = zip.finish().map_err(io::Error::other)?.into_inner();
    out.write_all(&archive)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A disk that fills after `room` bytes.
    struct FullDisk {
        room: usize,
    }

    impl Write for FullDisk {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::Error::from_raw_os_error(28)); // ENOSPC
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_full_disk_is_one_clean_error() {
        let positions = vec![Vec4::ONE; 6 * 100];
        let comb = vec![Vec4::ZERO; 100];
        let state = StrandState {
            positions: &positions,
            comb: &comb,
        };
        for room in [0, 100, 5000] {
            let err = write_npz(FullDisk { room }, &state).unwrap_err();
            assert_eq!(err.raw_os_error(), Some(28), "{err}");
        }
        let mut whole = Vec::new();
        write_npz(&mut whole, &state).unwrap();
        assert_eq!(&whole[..2], b"PK");
    }
}
