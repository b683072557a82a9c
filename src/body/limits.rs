//! The most a body file may ask of the reader. Every count a file states is checked against
//! these before anything that size is allocated, so a small hostile file cannot make the
//! reader allocate gigabytes or loop for minutes.

/// Bytes read for one body in all: the file, its external buffers and its images (256 MiB).
pub const MAX_BODY_BYTES: u64 = 256 << 20;
/// Bytes of the glTF JSON (32 MiB; a skinned avatar's is usually well under 2 MiB).
pub const MAX_JSON_BYTES: usize = 32 << 20;
/// JSON objects in the document (each becomes a parsed structure of up to a few hundred
/// bytes): bounds the memory parsing takes, whatever the file's size.
pub const MAX_JSON_OBJECTS: usize = 200_000;
/// JSON array elements and object members in the document.
pub const MAX_JSON_ITEMS: usize = 2_000_000;
/// Nodes in the node tree.
pub const MAX_NODES: usize = 65_536;
/// Vertices of the whole body (all primitives together).
pub const MAX_VERTICES: usize = 2_000_000;
/// Triangles of the whole body.
pub const MAX_TRIANGLES: usize = 4_000_000;
/// Joints of the body: every skin's joints plus one per node that carries an unskinned mesh
/// (joint indices are 16-bit).
pub const MAX_JOINTS: usize = 4_096;
/// Materials the triangles may name (material indices are 16-bit).
pub const MAX_MATERIALS: usize = 4_096;
/// Keyframes over all animations (each key holds up to three 4-vectors).
pub const MAX_KEYFRAMES: usize = 2_000_000;
/// Texels of the base colour texture Pelt keeps (all textures packed together): 4096².
pub const MAX_TEXTURE_PIXELS: u64 = 4096 * 4096;
/// Texels of one texture Pelt decodes (8192²): a larger one is shrunk to fit
/// [`MAX_TEXTURE_PIXELS`] after decoding, and one past this is left out (its material keeps
/// its colour factor), so decoding a hostile header costs at most this many texels.
pub const MAX_DECODED_TEXELS: u64 = 8192 * 8192;
/// Width or height of one texture before it is decoded.
pub const MAX_TEXTURE_SIDE: u32 = 16_384;
