//! The base colour textures: each material's embedded PNG or JPEG decoded (sizes checked
//! before decoding), then all of them packed side by side into one [`BodyTexture`] with each
//! vertex's UV moved into its material's tile, so one texture colours the whole body.
//! A texture of more texels than the packed one holds ([`MAX_TEXTURE_PIXELS`]) is shrunk
//! to fit after decoding (an 8K avatar's skin keeps its pattern at 4K); one past
//! [`MAX_DECODED_TEXELS`], or one that would take the packed texture past its size, is left
//! out, smallest share of the surface first (their materials keep their colour factor).

use std::io::Cursor;

use glam::Vec2;

use super::gltf_read::Source;
use super::limits::{MAX_DECODED_TEXELS, MAX_TEXTURE_PIXELS, MAX_TEXTURE_SIDE};
use super::mesh::BodyTexture;
use super::primitives::Gathered;

/// The image's format, PNG or JPEG only.
fn format_of(bytes: &[u8], what: &str) -> Result<image::ImageFormat, String> {
    image::guess_format(bytes)
        .ok()
        .filter(|f| matches!(f, image::ImageFormat::Png | image::ImageFormat::Jpeg))
        .ok_or_else(|| {
            format!("{what} is neither PNG nor JPEG, the base colour formats Pelt reads")
        })
}

/// The width and height an image's header states, read without decoding its texels.
fn stated_size(bytes: &[u8], what: &str) -> Result<(u32, u32), String> {
    image::ImageReader::with_format(Cursor::new(bytes), format_of(bytes, what)?)
        .into_dimensions()
        .map_err(|e| format!("{what} does not decode: {e}"))
}

/// The size an image of `width`×`height` texels is kept at: itself when it holds at most
/// [`MAX_TEXTURE_PIXELS`], otherwise scaled down (aspect kept, each side at least 1) until
/// it does.
pub fn kept_size(width: u32, height: u32) -> (u32, u32) {
    let texels = u64::from(width) * u64::from(height);
    if texels <= MAX_TEXTURE_PIXELS {
        return (width, height);
    }
    let scale = (MAX_TEXTURE_PIXELS as f64 / texels as f64).sqrt();
    let mut w = ((f64::from(width) * scale).floor() as u32).clamp(1, width);
    let mut h = ((f64::from(height) * scale).floor() as u32).clamp(1, height);
    // Rounding may leave one row or column too many.
    while u64::from(w) * u64::from(h) > MAX_TEXTURE_PIXELS {
        if w >= h {
            w -= 1;
        } else {
            h -= 1;
        }
    }
    (w, h)
}

/// Decodes one image (PNG or JPEG only), refusing one whose stated size is past
/// [`MAX_DECODED_TEXELS`] and shrinking one past [`MAX_TEXTURE_PIXELS`] to
/// [`kept_size`] (a triangle filter, so each kept texel averages the texels it covers).
pub fn decode(bytes: &[u8], what: &str) -> Result<BodyTexture, String> {
    let format = format_of(bytes, what)?;
    let mut reader = image::ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_TEXTURE_SIDE);
    limits.max_image_height = Some(MAX_TEXTURE_SIDE);
    // Up to 8 bytes a texel: 16-bit RGBA is the widest format PNG decodes to.
    limits.max_alloc = Some(MAX_DECODED_TEXELS * 8);
    reader.limits(limits);
    let decoded = reader
        .decode()
        .map_err(|e| format!("{what} does not decode: {e}"))?;
    let (width, height) = (decoded.width(), decoded.height());
    if u64::from(width) * u64::from(height) > MAX_DECODED_TEXELS {
        return Err(format!(
            "{what} is {width}×{height}, more texels than Pelt decodes ({MAX_DECODED_TEXELS})"
        ));
    }
    let (kept_w, kept_h) = kept_size(width, height);
    let kept = if (kept_w, kept_h) == (width, height) {
        decoded
    } else {
        decoded.resize_exact(kept_w, kept_h, image::imageops::FilterType::Triangle)
    };
    let rgba = kept.into_rgba8();
    let texels = rgba.pixels().map(|p| p.0).collect();
    Ok(BodyTexture {
        width: kept_w,
        height: kept_h,
        texels,
    })
}

/// Decodes the materials' textures, packs them into one and moves each vertex's UV into
/// its tile. Returns the texture (if any material has one) and how many were left out.
pub fn pack(
    source: &mut Source,
    gathered: &mut Gathered,
) -> Result<(Option<BodyTexture>, usize), String> {
    // Each image once, in order of the surface its materials cover, largest first.
    let mut area = vec![0.0f64; gathered.material_images.len()];
    let mesh = &gathered.mesh;
    for (t, &m) in mesh.triangles.iter().zip(&mesh.triangle_materials) {
        let [a, b, c] = t.map(|i| mesh.positions[i as usize]);
        if let Some(x) = area.get_mut(usize::from(m)) {
            *x += f64::from((b - a).cross(c - a).length());
        }
    }
    let mut images: Vec<(usize, f64)> = Vec::new();
    for (m, image) in gathered.material_images.iter().enumerate() {
        if let Some(i) = image {
            match images.iter_mut().find(|(j, _)| j == i) {
                Some(entry) => entry.1 += area[m],
                None => images.push((*i, area[m])),
            }
        }
    }
    images.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut tiles: Vec<(usize, BodyTexture)> = Vec::new();
    let mut texels = 0u64;
    let mut left_out = 0;
    for (image, _) in images {
        let what = format!("image {image}");
        let bytes = source.image_bytes(image)?;
        // Whether it fits is decided from its header: an image left out is never decoded,
        // so a file of many images (each a small file of many texels) costs one decode.
        let (stated_w, stated_h) = stated_size(&bytes, &what)?;
        if u64::from(stated_w) * u64::from(stated_h) > MAX_DECODED_TEXELS {
            left_out += 1;
            continue;
        }
        let (w, h) = kept_size(stated_w, stated_h);
        let size = u64::from(w) * u64::from(h);
        let height = tiles.iter().map(|t| t.1.height).max().unwrap_or(0).max(h);
        let width: u64 = tiles.iter().map(|t| u64::from(t.1.width)).sum::<u64>() + u64::from(w) + 1;
        // The packed texture holds the tiles' texels plus its one white column.
        if texels + size > MAX_TEXTURE_PIXELS
            || (width - 1) * u64::from(height) > MAX_TEXTURE_PIXELS
        {
            left_out += 1;
            continue;
        }
        let texture = decode(&bytes, &what)?;
        if (texture.width, texture.height) != (w, h) {
            return Err(format!(
                "{what} decodes to {}×{} but its header says {stated_w}×{stated_h}",
                texture.width, texture.height
            ));
        }
        texels += size;
        tiles.push((image, texture));
    }
    if tiles.is_empty() {
        return Ok((None, left_out));
    }
    // One white column after the tiles, for the vertices of untextured materials.
    let width: u32 = tiles.iter().map(|t| t.1.width).sum::<u32>() + 1;
    let height: u32 = tiles.iter().map(|t| t.1.height).max().unwrap_or(1);
    let mut packed = vec![[255u8; 4]; width as usize * height as usize];
    // Where each image's tile starts, and the tile's share of the packed texture.
    let mut placed: Vec<(usize, Vec2, Vec2)> = Vec::new();
    let mut x0 = 0u32;
    for (image, t) in &tiles {
        for y in 0..t.height as usize {
            let row = &t.texels[y * t.width as usize..(y + 1) * t.width as usize];
            let at = y * width as usize + x0 as usize;
            packed[at..at + t.width as usize].copy_from_slice(row);
        }
        let origin = Vec2::new(x0 as f32 / width as f32, 0.0);
        let scale = Vec2::new(
            t.width as f32 / width as f32,
            t.height as f32 / height as f32,
        );
        placed.push((*image, origin, scale));
        x0 += t.width;
    }
    for (v, uv) in gathered.mesh.uvs.iter_mut().enumerate() {
        let material = usize::from(gathered.vertex_materials[v]);
        let image = gathered.material_images.get(material).copied().flatten();
        let tile = image.and_then(|i| placed.iter().find(|p| p.0 == i));
        *uv = match tile {
            Some((_, origin, scale)) => *origin + wrap(*uv) * *scale,
            None => Vec2::new((width as f32 - 0.5) / width as f32, 0.5),
        };
    }
    Ok((
        Some(BodyTexture {
            width,
            height,
            texels: packed,
        }),
        left_out,
    ))
}

/// A UV wrapped into [0, 1] (glTF's default sampler repeats), kept as is when inside.
fn wrap(uv: Vec2) -> Vec2 {
    let w = |t: f32| {
        if (0.0..=1.0).contains(&t) {
            t
        } else {
            t - t.floor()
        }
    };
    // Just inside the tile's edge, so nearest-texel lookup stays in the tile.
    Vec2::new(w(uv.x), w(uv.y)).clamp(Vec2::splat(0.0), Vec2::splat(0.999_999))
}
