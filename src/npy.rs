//! Writing strand positions as a NumPy `.npy` file (format 1.0, little-endian float32,
//! shape `[strands, 6, 3]`), so a run can be inspected in any tool.

use crate::sim::POINTS_PER_STRAND;
use glam::Vec4;
use std::io::{self, Write};

/// Writes `positions` (six per strand; the w component is dropped) as `.npy`.
pub fn write_positions(out: &mut impl Write, positions: &[Vec4]) -> io::Result<()> {
    if !positions.len().is_multiple_of(POINTS_PER_STRAND) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} points is not a whole number of {POINTS_PER_STRAND}-point strands",
                positions.len()
            ),
        ));
    }
    let strands = positions.len() / POINTS_PER_STRAND;
    let mut header = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({strands}, {POINTS_PER_STRAND}, 3), }}"
    );
    // Magic (6) + version (2) + header length (2) + header + '\n' is padded to 64 bytes.
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    out.write_all(b"\x93NUMPY\x01\x00")?;
    out.write_all(&(header.len() as u16).to_le_bytes())?;
    out.write_all(header.as_bytes())?;
    let mut body = Vec::with_capacity(positions.len() * 12);
    for p in positions {
        for v in [p.x, p.y, p.z] {
            body.extend_from_slice(&v.to_le_bytes());
        }
    }
    out.write_all(&body)
}
