//! The GLB container: a 12-byte header, a JSON chunk and an optional BIN chunk; and a
//! bounded read of the header and JSON chunk from a stream (springs live in the JSON, so a
//! reader never needs the rest of a large avatar).

use std::io::Read;

use super::VrmError;

const MAGIC: [u8; 4] = *b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;
/// Largest GLB Pelt reads in memory (256 MiB): larger is surely not a spring rig.
pub const MAX_GLB_BYTES: usize = 256 << 20;
/// Largest JSON chunk Pelt parses (32 MiB; a VRM avatar's is usually well under 2 MiB).
pub const MAX_JSON_BYTES: usize = 32 << 20;

/// Packs a JSON document and a binary buffer into GLB bytes (both padded to 4 bytes: the
/// JSON with spaces, the buffer with zeros).
pub fn pack(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let pad = |n: usize| (4 - n % 4) % 4;
    let json_len = json.len() + pad(json.len());
    let bin_len = bin.len() + pad(bin.len());
    let total = 12 + 8 + json_len + if bin.is_empty() { 0 } else { 8 + bin_len };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_len as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(json);
    out.resize(out.len() + pad(json.len()), b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&(bin_len as u32).to_le_bytes());
        out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(out.len() + pad(bin.len()), 0);
    }
    out
}

fn read_u32(bytes: &[u8], at: usize) -> Result<u32, VrmError> {
    bytes
        .get(at..at + 4)
        .and_then(|s| <[u8; 4]>::try_from(s).ok())
        .map(u32::from_le_bytes)
        .ok_or_else(|| VrmError::Truncated(format!("needs 4 bytes at offset {at}")))
}

/// Splits GLB bytes into the JSON chunk and the BIN chunk (if any), checking the header,
/// the declared lengths and the chunk types.
pub fn unpack(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), VrmError> {
    if bytes.len() < 12 {
        return Err(VrmError::Truncated(format!(
            "{} bytes, a GLB header alone is 12",
            bytes.len()
        )));
    }
    let mut magic = [0u8; 4];
    magic.copy_from_slice(&bytes[0..4]);
    if magic != MAGIC {
        return Err(VrmError::BadMagic(magic));
    }
    let version = read_u32(bytes, 4)?;
    if version != 2 {
        return Err(VrmError::BadVersion(version));
    }
    let total = read_u32(bytes, 8)? as usize;
    if total > MAX_GLB_BYTES {
        return Err(VrmError::TooMany("GLB length".into(), total, MAX_GLB_BYTES));
    }
    if total > bytes.len() {
        return Err(VrmError::Truncated(format!(
            "header says {total} bytes, the file has {}",
            bytes.len()
        )));
    }
    if total < 20 {
        return Err(VrmError::BadChunk(format!(
            "length {total} leaves no room for the JSON chunk"
        )));
    }
    let bytes = &bytes[..total];
    let mut at = 12;
    let mut json = None;
    let mut bin = None;
    while at < total {
        let len = read_u32(bytes, at)? as usize;
        let kind = read_u32(bytes, at + 4)?;
        let start = at + 8;
        let end = start
            .checked_add(len)
            .filter(|&e| e <= total)
            .ok_or_else(|| {
                VrmError::BadChunk(format!(
                    "chunk at {at} is {len} bytes long, past the end of the file ({total})"
                ))
            })?;
        let data = &bytes[start..end];
        match kind {
            CHUNK_JSON if json.is_none() && at == 12 => json = Some(data),
            CHUNK_JSON => {
                return Err(VrmError::BadChunk(
                    "the JSON chunk must be first and only once".into(),
                ));
            }
            CHUNK_BIN if json.is_some() && bin.is_none() => bin = Some(data),
            CHUNK_BIN => {
                return Err(VrmError::BadChunk(
                    "a BIN chunk must follow the JSON chunk, once".into(),
                ));
            }
            _ => {} // unknown chunks are skipped, as the specification asks
        }
        at = end;
        // Chunks are 4-byte aligned; a chunk header cut short is truncation.
        if at < total && total - at < 8 {
            return Err(VrmError::Truncated(format!(
                "{} stray bytes after the last chunk",
                total - at
            )));
        }
    }
    let json = json.ok_or_else(|| VrmError::BadChunk("no JSON chunk".into()))?;
    if json.len() > MAX_JSON_BYTES {
        return Err(VrmError::TooMany(
            "JSON chunk length".into(),
            json.len(),
            MAX_JSON_BYTES,
        ));
    }
    Ok((json, bin))
}

/// Reads a GLB's header and JSON chunk from `input` and returns the JSON and the length the
/// header declares for the whole file. Reads at most 20 bytes plus [`MAX_JSON_BYTES`],
/// whatever `input` holds (an endless stream is an error, not a hang), and nothing past
/// the JSON chunk.
pub fn read_json_chunk(input: impl Read) -> Result<(Vec<u8>, usize), VrmError> {
    let mut input = input;
    let mut head = [0u8; 20];
    let mut got = 0;
    while got < head.len() {
        match input.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(VrmError::Io(e.to_string())),
        }
        // Reject a wrong magic as soon as it is known.
        if got >= 4 && head[0..4] != MAGIC {
            let mut magic = [0u8; 4];
            magic.copy_from_slice(&head[0..4]);
            return Err(VrmError::BadMagic(magic));
        }
    }
    if got < 12 {
        return Err(VrmError::Truncated(format!(
            "{got} bytes, a GLB header alone is 12"
        )));
    }
    let version = read_u32(&head, 4)?;
    if version != 2 {
        return Err(VrmError::BadVersion(version));
    }
    let total = read_u32(&head, 8)? as usize;
    if got < 20 {
        return Err(VrmError::Truncated(format!(
            "{got} bytes, the JSON chunk header ends at 20"
        )));
    }
    let len = read_u32(&head, 12)? as usize;
    if read_u32(&head, 16)? != CHUNK_JSON {
        return Err(VrmError::BadChunk("the first chunk is not JSON".into()));
    }
    if len > MAX_JSON_BYTES {
        return Err(VrmError::TooMany(
            "JSON chunk length".into(),
            len,
            MAX_JSON_BYTES,
        ));
    }
    if 20 + len > total {
        return Err(VrmError::BadChunk(format!(
            "the JSON chunk ({len} bytes) runs past the file length the header gives ({total})"
        )));
    }
    // Grows as bytes arrive, never past `len`: a header that lies about its length
    // allocates nothing big, and the buffer holds at most 1.5 × `len` while it grows.
    let mut json: Vec<u8> = Vec::new();
    let mut block = [0u8; 64 << 10];
    while json.len() < len {
        let want = (len - json.len()).min(block.len());
        let n = match input.read(&mut block[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(VrmError::Io(e.to_string())),
        };
        if json.len() + n > json.capacity() {
            let grow = json.capacity().max(block.len()).min(len - json.len());
            json.reserve_exact(grow.max(n));
        }
        json.extend_from_slice(&block[..n]);
    }
    if json.len() < len {
        return Err(VrmError::Truncated(format!(
            "the JSON chunk says {len} bytes, the file has {}",
            json.len()
        )));
    }
    Ok((json, total))
}
