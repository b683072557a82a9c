//! The GLB container: a 12-byte header, a JSON chunk and an optional BIN chunk.

use super::VrmError;

const MAGIC: [u8; 4] = *b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;
/// Largest GLB Pelt reads (256 MiB): larger is surely not a spring rig.
pub const MAX_GLB_BYTES: usize = 256 << 20;

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
    Ok((json, bin))
}
