//! Reading a rendered frame back to the host, and saving it as a PNG.

use super::RenderError;
use super::target::OffscreenTarget;
use std::io::Write;

/// A frame read back from the GPU: 8-bit sRGB RGBA, rows top to bottom, and, when the
/// layout drew them, the per-pixel surface IDs (`render::ids`).
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Four bytes per pixel.
    pub rgba: Vec<u8>,
    /// One byte per pixel, if drawn.
    pub ids: Option<Vec<u8>>,
}

impl Image {
    /// The RGBA bytes of pixel `(x, y)`, or `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        let i = self.index(x, y)? * 4;
        let p = self.rgba.get(i..i + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }

    /// The surface ID of pixel `(x, y)` (`render::ids`), or `None` outside the image or
    /// when IDs were not drawn.
    pub fn id(&self, x: u32, y: u32) -> Option<u8> {
        let i = self.index(x, y)?;
        self.ids.as_ref()?.get(i).copied()
    }

    /// The row-major index of pixel `(x, y)`, or `None` outside the image.
    fn index(&self, x: u32, y: u32) -> Option<usize> {
        (x < self.width && y < self.height).then(|| y as usize * self.width as usize + x as usize)
    }

    /// The image as PNG bytes (8-bit RGB; the alpha channel carries nothing).
    pub fn to_png(&self) -> Result<Vec<u8>, RenderError> {
        let mut out = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
            let mut writer = encoder
                .write_header()
                .map_err(|e| RenderError::Png(e.to_string()))?;
            let rgb: Vec<u8> = self
                .rgba
                .chunks_exact(4)
                .flat_map(|p| [p[0], p[1], p[2]])
                .collect();
            writer
                .write_image_data(&rgb)
                .map_err(|e| RenderError::Png(e.to_string()))?;
        }
        Ok(out)
    }

    /// Writes the image as a PNG file, through a temporary file beside it, so a failed
    /// write never leaves half a picture under the name.
    pub fn save_png(&self, path: &std::path::Path) -> Result<(), RenderError> {
        let bytes = self.to_png()?;
        let io = |e: std::io::Error| RenderError::Io {
            path: path.display().to_string(),
            source: e,
        };
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
        file.write_all(&bytes).map_err(io)?;
        // A temporary file is private (0600); a picture should be readable like any other.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            file.as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644))
                .map_err(io)?;
        }
        file.persist(path).map_err(|e| io(e.error))?;
        Ok(())
    }
}

/// Copies a whole single-sampled 2D texture of `bytes_per_pixel` back to the host, rows
/// packed tightly.
pub fn read_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    bytes_per_pixel: u32,
) -> Result<Vec<u8>, RenderError> {
    let (width, height) = (texture.width(), texture.height());
    let row = width * bytes_per_pixel;
    let padded =
        row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("texture read back"),
        size: u64::from(padded) * u64::from(height),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("texture read back"),
    });
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &staging,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: Some(height),
            },
        },
        texture.size(),
    );
    queue.submit(Some(encoder.finish()));
    crate::gpu::map_for_reading(device, &staging).map_err(RenderError::Gpu)?;
    let mapped = staging
        .get_mapped_range(..)
        .map_err(|e| RenderError::Gpu(e.to_string()))?;
    let mut out = Vec::with_capacity((row * height) as usize);
    for r in 0..height {
        let start = (r * padded) as usize;
        out.extend_from_slice(&mapped[start..start + row as usize]);
    }
    drop(mapped);
    staging.unmap();
    Ok(out)
}

/// Reads an offscreen target's output (and its IDs, if drawn) back to the host.
pub fn read_image(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    target: &OffscreenTarget,
) -> Result<Image, RenderError> {
    let (width, height) = target.size();
    let mut rgba = read_texture(device, queue, &target.texture, 4)?;
    if matches!(
        target.texture.format(),
        wgpu::TextureFormat::Bgra8UnormSrgb | wgpu::TextureFormat::Bgra8Unorm
    ) {
        for pixel in rgba.chunks_exact_mut(4) {
            pixel.swap(0, 2);
        }
    }
    let ids = match &target.frame.ids_resolved {
        Some(t) => Some(read_texture(device, queue, t, 1)?),
        None => None,
    };
    Ok(Image {
        width,
        height,
        rgba,
        ids,
    })
}

#[cfg(test)]
mod tests {
    use super::Image;

    #[test]
    fn pixels_outside_the_image_are_none() {
        let image = Image {
            width: 3,
            height: 2,
            rgba: (0..24).collect(),
            ids: Some(vec![10, 11, 12, 13, 14, 15]),
        };
        assert_eq!(image.pixel(2, 1), Some([20, 21, 22, 23]));
        assert_eq!(image.id(2, 0), Some(12));
        for (x, y) in [(3, 0), (0, 2), (u32::MAX, u32::MAX)] {
            assert_eq!(image.pixel(x, y), None, "({x}, {y})");
            assert_eq!(image.id(x, y), None, "({x}, {y})");
        }
        let no_ids = Image { ids: None, ..image };
        assert_eq!(no_ids.id(0, 0), None);
    }
}
