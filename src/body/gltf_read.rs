//! A glTF document and its binary data, read within [`limits`](super::limits): a GLB (`.glb`,
//! `.vrm`) or a `.gltf` JSON file whose buffers and images are embedded (data URIs) or
//! beside it. External files are named relative to the `.gltf` file and must stay in its
//! folder: an absolute path, a URL, `..` or a link leading out is refused.

use std::path::{Path, PathBuf};

use base64::Engine;

use super::limits::{MAX_BODY_BYTES, MAX_JSON_BYTES, MAX_JSON_ITEMS, MAX_JSON_OBJECTS};

/// A validated glTF document with its buffers loaded.
pub struct Source {
    /// The document's object graph (every index in it checked by the `gltf` crate).
    pub document: gltf::Document,
    /// Each buffer's bytes, in the document's order, at least as long as it declares.
    pub buffers: Vec<Vec<u8>>,
    /// The folder external files are read from (`None`: embedded data only).
    dir: Option<PathBuf>,
    /// Bytes that reading external files and data URIs may still spend.
    budget: u64,
    /// The files beside the `.gltf` read so far (buffers and images), in reading order.
    pub files: Vec<PathBuf>,
}

const GLB_MAGIC: &[u8; 4] = b"glTF";

/// Reads a document from `bytes` (a GLB or glTF JSON). `dir` is the folder of the file the
/// bytes came from, for external buffers; `None` refuses them. `spent` is the bytes already
/// read for this body (the file itself).
pub fn read_source(bytes: &[u8], dir: Option<&Path>, spent: u64) -> Result<Source, String> {
    let (json, bin) = if bytes.starts_with(GLB_MAGIC) {
        let (json, bin) = crate::vrm::glb::unpack(bytes).map_err(|e| e.to_string())?;
        (json, bin)
    } else {
        let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        if !text.trim_ascii_start().starts_with(b"{") {
            return Err(
                "it is neither a GLB (a .glb or .vrm starts with \"glTF\") nor glTF JSON (a .gltf starts with '{'); give a glTF 2.0 or VRM file"
                    .into(),
            );
        }
        if text.len() > MAX_JSON_BYTES {
            return Err(format!(
                "its JSON is {} bytes, more than Pelt reads ({MAX_JSON_BYTES})",
                text.len()
            ));
        }
        (text, None)
    };
    check_json_size(json)?;
    let root = gltf::json::Root::from_slice(json)
        .map_err(|e| format!("its glTF JSON does not parse: {e}"))?;
    check_validation_gaps(&root)?;
    let document = gltf::Document::from_json(root).map_err(validation_message)?;
    let mut source = Source {
        document,
        buffers: Vec::new(),
        dir: dir.map(Path::to_path_buf),
        budget: MAX_BODY_BYTES.saturating_sub(spent),
        files: Vec::new(),
    };
    let mut buffers = Vec::new();
    let listed: Vec<(usize, Option<String>)> = source
        .document
        .buffers()
        .map(|b| match b.source() {
            gltf::buffer::Source::Bin => (b.length(), None),
            gltf::buffer::Source::Uri(uri) => (b.length(), Some(uri.to_string())),
        })
        .collect();
    for (index, (declared, uri)) in listed.into_iter().enumerate() {
        let what = format!("buffer {index}");
        let data = match uri {
            None => match bin {
                Some(b) => b.to_vec(),
                None => {
                    return Err(format!(
                        "{what} is the GLB's binary chunk, but the file has none (truncated?)"
                    ));
                }
            },
            Some(uri) => source.uri_bytes(&uri, &what)?,
        };
        if data.len() < declared {
            return Err(format!(
                "{what} declares {declared} bytes but holds {} (truncated?)",
                data.len()
            ));
        }
        buffers.push(data);
    }
    source.buffers = buffers;
    Ok(source)
}

impl Source {
    /// The bytes of image `index` (from a buffer view, a data URI or a file beside the
    /// `.gltf`). Read from the JSON, since a malformed image entry must be an error here.
    pub fn image_bytes(&mut self, index: usize) -> Result<Vec<u8>, String> {
        let what = format!("image {index}");
        let json = self.document.as_json();
        let Some(image) = json.images.get(index) else {
            return Err(format!("{what} does not exist"));
        };
        if let Some(view) = image.buffer_view {
            let view = json
                .buffer_views
                .get(view.value())
                .ok_or_else(|| format!("{what}: its buffer view does not exist"))?;
            let start = view.byte_offset.map_or(0, |o| o.0) as usize;
            let end = start.checked_add(view.byte_length.0 as usize);
            let data = self.buffers.get(view.buffer.value());
            return match (data, end) {
                (Some(data), Some(end)) if end <= data.len() => Ok(data[start..end].to_vec()),
                _ => Err(format!("{what}: its buffer view runs past its buffer")),
            };
        }
        match image.uri.clone() {
            Some(uri) => self.uri_bytes(&uri, &what),
            None => Err(format!("{what} has neither a buffer view nor a uri")),
        }
    }

    /// The bytes a buffer or image URI names: a base64 data URI or a file beside the glTF.
    fn uri_bytes(&mut self, uri: &str, what: &str) -> Result<Vec<u8>, String> {
        if let Some(rest) = uri.strip_prefix("data:") {
            let Some((head, payload)) = rest.split_once(',') else {
                return Err(format!("{what}: its data URI has no ',' before the data"));
            };
            if !head.ends_with(";base64") {
                return Err(format!(
                    "{what}: its data URI is not base64 (';base64,'), the only encoding glTF uses"
                ));
            }
            // Three bytes per four characters: refuse before decoding what cannot fit.
            let size = (payload.len() as u64 / 4) * 3;
            self.spend(size, what)?;
            return base64::engine::general_purpose::STANDARD
                .decode(payload.trim_end())
                .map_err(|e| format!("{what}: its data URI is not valid base64 ({e})"));
        }
        let Some(dir) = self.dir.clone() else {
            return Err(format!(
                "{what} is an external file ({}), which a body read from memory cannot follow; embed it (a GLB) or read the .gltf from its folder",
                quoted(uri)
            ));
        };
        let path = local_path(&dir, uri).map_err(|why| format!("{what}: {why}"))?;
        let bytes = crate::files::read_capped(&path, self.budget, what).map_err(|e| match e {
            crate::files::FileError::TooLarge { .. } => format!(
                "{what} ({}) would take the body past {} MiB read in all",
                path.display(),
                MAX_BODY_BYTES >> 20
            ),
            // The file's own error names the part and the path already.
            other => other.to_string(),
        })?;
        self.spend(bytes.len() as u64, what)?;
        self.files.push(path);
        Ok(bytes)
    }

    fn spend(&mut self, bytes: u64, what: &str) -> Result<(), String> {
        if bytes > self.budget {
            return Err(format!(
                "{what} would take the body past {} MiB read in all",
                MAX_BODY_BYTES >> 20
            ));
        }
        self.budget -= bytes;
        Ok(())
    }
}

/// The file a relative URI names inside `dir`, refused if it could leave `dir`: a URL or
/// absolute path, a `..` step, or (once resolved) a link that points outside.
fn local_path(dir: &Path, uri: &str) -> Result<PathBuf, String> {
    let shown = quoted(uri);
    let decoded = percent_decode(uri).ok_or_else(|| format!("its uri {shown} is not valid"))?;
    let scheme = decoded
        .split_once(':')
        .is_some_and(|(s, _)| !s.is_empty() && !s.contains(['/', '\\']));
    let relative = Path::new(&decoded);
    if scheme
        || decoded.starts_with(['/', '\\'])
        || relative.is_absolute()
        || decoded.split(['/', '\\']).any(|part| part == "..")
    {
        return Err(format!(
            "its uri {shown} leaves the glTF file's folder (a URL, an absolute path or '..'); Pelt reads only files beside the .gltf"
        ));
    }
    let inside = |p: &Path| -> Option<bool> {
        let base = dir.canonicalize().ok()?;
        let full = p.canonicalize().ok()?;
        Some(full.starts_with(&base))
    };
    let path = dir.join(relative);
    if inside(&path) == Some(false) {
        return Err(format!(
            "its uri {shown} is a link that leads out of the glTF file's folder"
        ));
    }
    Ok(path)
}

/// Text from the file as a message shows it: quoted, control characters escaped, at most
/// 80 characters.
pub(super) fn quoted(text: &str) -> String {
    let mut out: String = text.chars().take(80).flat_map(char::escape_debug).collect();
    if text.chars().count() > 80 {
        out.push('…');
    }
    format!("\"{out}\"")
}

/// `%XX` escapes decoded (glTF URIs are URI-encoded: a space is `%20`); `None` for a broken
/// escape or text that is not UTF-8.
fn percent_decode(uri: &str) -> Option<String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let text = String::from_utf8(out).ok()?;
    (!text.contains('\0')).then_some(text)
}

/// Refuses JSON with more objects or items than [`MAX_JSON_OBJECTS`] / [`MAX_JSON_ITEMS`]
/// (counted outside strings), so parsing it cannot take much more memory than the text.
fn check_json_size(json: &[u8]) -> Result<(), String> {
    let (mut objects, mut items) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &b in json {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => {
                objects += 1;
                items += 1;
            }
            b'[' | b',' => items += 1,
            _ => {}
        }
    }
    if objects > MAX_JSON_OBJECTS || items > MAX_JSON_ITEMS {
        return Err(format!(
            "its JSON lists {objects} objects and {items} items, more than Pelt reads ({MAX_JSON_OBJECTS} objects, {MAX_JSON_ITEMS} items)"
        ));
    }
    Ok(())
}

/// Checks what the `gltf` crate's validation reads before checking it: a primitive's
/// `POSITION` accessor is looked up unchecked while validating (an index past the accessors
/// would panic inside the crate).
fn check_validation_gaps(root: &gltf::json::Root) -> Result<(), String> {
    use gltf::json::mesh::Semantic;
    use gltf::json::validation::Checked;
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            if let Some(a) = primitive
                .attributes
                .get(&Checked::Valid(Semantic::Positions))
                && a.value() >= root.accessors.len()
            {
                return Err(format!(
                    "mesh {m} primitive {p}: POSITION names accessor {}, but the file has {}",
                    a.value(),
                    root.accessors.len()
                ));
            }
        }
    }
    Ok(())
}

/// The `gltf` crate's validation errors as one line: the first few JSON paths and why.
fn validation_message(error: gltf::Error) -> String {
    match error {
        gltf::Error::Validation(list) => {
            let shown: Vec<String> = list
                .iter()
                .take(3)
                .map(|(path, why)| format!("{}: {why}", path.as_str()))
                .collect();
            let more = list.len().saturating_sub(3);
            let tail = if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            };
            format!("its glTF is not valid: {}{tail}", shown.join("; "))
        }
        other => format!("its glTF is not valid: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_that_leave_the_folder_are_refused() {
        let dir = std::env::temp_dir();
        for uri in [
            "../x.bin",
            "a/../../x.bin",
            "/etc/passwd",
            "file:///etc/passwd",
            "https://example.com/x.bin",
            "%2e%2e/x.bin",
            "..\\x.bin",
        ] {
            let err = local_path(&dir, uri).expect_err(uri);
            assert!(
                err.contains("leaves the glTF file's folder"),
                "{uri}: {err}"
            );
        }
        let ok = local_path(&dir, "sub%20dir/x.bin").unwrap();
        assert_eq!(ok, dir.join("sub dir/x.bin"));
    }

    #[test]
    fn json_with_too_many_objects_is_refused_before_parsing() {
        let mut json = b"[".to_vec();
        for _ in 0..=MAX_JSON_OBJECTS {
            json.extend_from_slice(b"{},");
        }
        let err = check_json_size(&json).unwrap_err();
        assert!(err.contains("more than Pelt reads"), "{err}");
        // Braces inside strings do not count.
        let quoted = format!("{{\"a\":\"{}\"}}", "{".repeat(MAX_JSON_OBJECTS + 1));
        assert!(check_json_size(quoted.as_bytes()).is_ok());
    }
}
