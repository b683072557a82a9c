//! The user's environment map: an equirectangular picture (Radiance `.hdr`, OpenEXR or
//! PNG) that the eyes and the nose reflect and that lights the surfaces' ambient term. The
//! strands never sample it. Read capped in bytes and in pixels, decoded with the `image`
//! crate, then reduced to what the shaders need: the radiance at most 256 × 128 texels (the
//! eyes are a few pixels across) and the cosine-weighted irradiance at 32 × 16.
//!
//! Without a map the surfaces keep the built-in sky and ground ([`super::Lighting`]).

use super::half_float::f16_slice;
use crate::files::{FileError, read_capped};
use glam::Vec3;
use std::path::Path;
use thiserror::Error;

/// The most bytes an environment map file may have (a 16-megapixel OpenEXR of half floats
/// fits).
pub const MAX_ENVIRONMENT_BYTES: u64 = 128 << 20;
/// The most pixels an environment map may have (for example 5760 × 2880).
pub const MAX_ENVIRONMENT_PIXELS: u64 = 1 << 24;
/// The longest side an environment map may have, pixels.
pub const MAX_ENVIRONMENT_SIDE: u32 = 16_384;
/// The map's radiance times this lights the scene: a map whose sky is about 1 (a typical
/// outdoor or studio `.hdr`) lights the creature about as the built-in sky does.
pub const ENVIRONMENT_STRENGTH: f32 = 0.15;

/// Sizes of the reduced maps the shaders sample.
const RADIANCE_SIZE: (usize, usize) = (256, 128);
const IRRADIANCE_SIZE: (usize, usize) = (32, 16);
/// The radiance is first reduced to this for the irradiance integral.
const INTEGRAL_SIZE: (usize, usize) = (64, 32);

/// What was wrong with an environment map.
#[derive(Debug, Error)]
pub enum EnvironmentError {
    /// The file could not be read, or is larger than [`MAX_ENVIRONMENT_BYTES`].
    #[error(transparent)]
    File(#[from] FileError),
    /// The bytes are not a picture Pelt reads.
    #[error("environment map {path}: not a Radiance .hdr, OpenEXR or PNG picture ({reason})")]
    Format {
        /// The file.
        path: String,
        /// What the decoder said.
        reason: String,
    },
    /// More pixels than [`MAX_ENVIRONMENT_PIXELS`].
    #[error(
        "environment map {path} is {width}×{height} pixels; Pelt reads at most {MAX_ENVIRONMENT_PIXELS} pixels and {MAX_ENVIRONMENT_SIDE} a side (an equirectangular map of 4096×2048 is plenty)"
    )]
    TooLarge {
        /// The file.
        path: String,
        /// Its width.
        width: u32,
        /// Its height.
        height: u32,
    },
    /// The picture is damaged or holds values that are not light.
    #[error("environment map {path} is damaged: {reason}")]
    Corrupt {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

/// An environment map reduced for the shaders: linear RGB radiance, rows from straight up
/// to straight down, columns around the vertical axis starting behind the creature (−Z).
#[derive(Clone, Debug, PartialEq)]
pub struct EnvironmentMap {
    /// Radiance texels, row by row.
    pub radiance: Vec<Vec3>,
    /// Radiance width and height.
    pub radiance_size: (usize, usize),
    /// Irradiance texels (cosine-weighted and divided by π, so a uniform radiance `L`
    /// gives `L`), row by row.
    pub irradiance: Vec<Vec3>,
    /// Irradiance width and height.
    pub irradiance_size: (usize, usize),
}

/// The sRGB transfer function undone.
fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// `pixels` (`width × height`, row by row) reduced to `size` (at most the input's) by
/// averaging the pixels each output texel covers.
fn reduce(pixels: &[Vec3], width: usize, height: usize, size: (usize, usize)) -> Vec<Vec3> {
    let (w, h) = (size.0.min(width), size.1.min(height));
    let span = |i: usize, from: usize, to: usize| {
        let a = i * from / to;
        a..((i + 1) * from / to).max(a + 1)
    };
    let mut out = Vec::with_capacity(w * h);
    for oy in 0..h {
        let rows = span(oy, height, h);
        for ox in 0..w {
            let cols = span(ox, width, w);
            let mut sum = Vec3::ZERO;
            for y in rows.clone() {
                for x in cols.clone() {
                    sum += pixels[y * width + x];
                }
            }
            out.push(sum / (rows.len() * cols.len()) as f32);
        }
    }
    out
}

/// The direction of texel centre `(x, y)` of a `w × h` equirectangular map (WGSL twin:
/// `equirect_uv` in `shaders/surfaces.wgsl`).
fn direction(x: usize, y: usize, w: usize, h: usize) -> Vec3 {
    let u = (x as f32 + 0.5) / w as f32;
    let v = (y as f32 + 0.5) / h as f32;
    let phi = (u - 0.5) * std::f32::consts::TAU;
    let theta = v * std::f32::consts::PI;
    Vec3::new(
        theta.sin() * phi.sin(),
        theta.cos(),
        -theta.sin() * phi.cos(),
    )
}

impl EnvironmentMap {
    /// Reduces a linear RGB equirectangular picture (`width × height`, row by row).
    pub fn from_linear(pixels: &[Vec3], width: usize, height: usize) -> Self {
        let radiance = reduce(pixels, width, height, RADIANCE_SIZE);
        let radiance_size = (RADIANCE_SIZE.0.min(width), RADIANCE_SIZE.1.min(height));
        let small = reduce(pixels, width, height, INTEGRAL_SIZE);
        let (sw, sh) = (INTEGRAL_SIZE.0.min(width), INTEGRAL_SIZE.1.min(height));
        // Each small texel's light: radiance × solid angle.
        let texel_angle = std::f32::consts::TAU / sw as f32 * std::f32::consts::PI / sh as f32;
        let sources: Vec<(Vec3, Vec3)> = (0..sh)
            .flat_map(|y| (0..sw).map(move |x| (x, y)))
            .map(|(x, y)| {
                let d = direction(x, y, sw, sh);
                let sin_theta = (1.0 - d.y * d.y).max(0.0).sqrt();
                (d, small[y * sw + x] * (texel_angle * sin_theta))
            })
            .collect();
        let (iw, ih) = IRRADIANCE_SIZE;
        let irradiance = (0..ih)
            .flat_map(|y| (0..iw).map(move |x| (x, y)))
            .map(|(x, y)| {
                let n = direction(x, y, iw, ih);
                let sum: Vec3 = sources
                    .iter()
                    .map(|(d, light)| *light * n.dot(*d).max(0.0))
                    .sum();
                sum / std::f32::consts::PI
            })
            .collect();
        EnvironmentMap {
            radiance,
            radiance_size,
            irradiance,
            irradiance_size: IRRADIANCE_SIZE,
        }
    }

    /// Reads the map at `path`: at most [`MAX_ENVIRONMENT_BYTES`] bytes and
    /// [`MAX_ENVIRONMENT_PIXELS`] pixels, a Radiance `.hdr`, an OpenEXR or a PNG (whatever
    /// its name says; PNG values are sRGB and made linear).
    pub fn from_path(path: &Path) -> Result<Self, EnvironmentError> {
        let bytes = read_capped(path, MAX_ENVIRONMENT_BYTES, "environment map")?;
        let name = path.display().to_string();
        Self::from_bytes(&bytes, &name)
    }

    /// [`EnvironmentMap::from_path`] for bytes already read; `name` names them in errors.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<Self, EnvironmentError> {
        use image::ImageFormat;
        let format_error = |reason: String| EnvironmentError::Format {
            path: name.into(),
            reason,
        };
        let reader = image::ImageReader::new(std::io::Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| format_error(e.to_string()))?;
        let format = reader.format();
        if !matches!(
            format,
            Some(ImageFormat::Hdr | ImageFormat::OpenExr | ImageFormat::Png)
        ) {
            return Err(format_error(match format {
                Some(f) => format!(
                    "it is a {} picture",
                    f.extensions_str()
                        .first()
                        .unwrap_or(&"different")
                        .to_uppercase()
                ),
                None => "its first bytes are no known picture's".into(),
            }));
        }
        let format_name = match format {
            Some(ImageFormat::Hdr) => "Radiance .hdr",
            Some(ImageFormat::OpenExr) => "OpenEXR",
            _ => "PNG",
        };
        // The size is checked from the header, before any pixel is decoded.
        let (width, height) = reader
            .into_dimensions()
            .map_err(|e| EnvironmentError::Corrupt {
                path: name.into(),
                reason: decoder_says(&e, format_name),
            })?;
        if width > MAX_ENVIRONMENT_SIDE
            || height > MAX_ENVIRONMENT_SIDE
            || u64::from(width) * u64::from(height) > MAX_ENVIRONMENT_PIXELS
        {
            return Err(EnvironmentError::TooLarge {
                path: name.into(),
                width,
                height,
            });
        }
        let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| format_error(e.to_string()))?;
        let mut limits = image::Limits::default();
        limits.max_image_width = Some(MAX_ENVIRONMENT_SIDE);
        limits.max_image_height = Some(MAX_ENVIRONMENT_SIDE);
        limits.max_alloc = Some(MAX_ENVIRONMENT_PIXELS * 16 * 2);
        reader.limits(limits);
        let image = reader.decode().map_err(|e| EnvironmentError::Corrupt {
            path: name.into(),
            reason: decoder_says(&e, format_name),
        })?;
        let srgb = format == Some(ImageFormat::Png);
        let rgb = image.into_rgb32f();
        let (w, h) = (rgb.width() as usize, rgb.height() as usize);
        let mut pixels = Vec::with_capacity(w * h);
        for p in rgb.pixels() {
            let c = Vec3::from(p.0);
            if !c.is_finite() {
                return Err(EnvironmentError::Corrupt {
                    path: name.into(),
                    reason: "it holds values that are not finite numbers".into(),
                });
            }
            let c = c.max(Vec3::ZERO);
            pixels.push(if srgb { c.map(srgb_to_linear) } else { c });
        }
        if pixels.is_empty() {
            return Err(EnvironmentError::Corrupt {
                path: name.into(),
                reason: "it has no pixels".into(),
            });
        }
        Ok(Self::from_linear(&pixels, w, h))
    }
}

/// What the decoder said about a damaged `format` picture, as a sentence without Rust's
/// debug text: the PNG decoder names a chunk as `ChunkType { type: IDAT, critical: true,
/// … }`, which becomes `IDAT`, and ends some messages with an error's variant name
/// (`InvalidBlockType`), which gives way to a plain sentence.
fn decoder_says(e: &image::ImageError, format: &str) -> String {
    use std::error::Error;
    let damaged = format!("its {format} data does not decode (the file is damaged or cut short)");
    match e {
        image::ImageError::Decoding(d) => match d.source().map(|s| chunk_names(&s.to_string())) {
            Some(said) if reads_as_words(&said) => {
                format!(
                    "its {format} data does not decode: {}",
                    said.trim_end_matches('.')
                )
            }
            _ => damaged,
        },
        image::ImageError::Limits(_) => "decoding it needs more memory than Pelt allows".into(),
        image::ImageError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the file ends early".into()
        }
        other => Some(other.to_string())
            .filter(|said| reads_as_words(said))
            .unwrap_or(damaged),
    }
}

/// Whether `text` reads as words: no braces or paths (`{`, `::`) and no CamelCase name of
/// a Rust type or variant (`InvalidBlockType`; all capitals, `CRC`, `IDAT`, are words).
fn reads_as_words(text: &str) -> bool {
    let camel =
        |w: &str| w.chars().skip(1).any(char::is_uppercase) && w.chars().any(char::is_lowercase);
    !text.contains(['{', '}'])
        && !text.contains("::")
        && !text.split(|c: char| !c.is_alphanumeric()).any(camel)
}

/// `text` with each `ChunkType { type: NAME, … }` written as `NAME`.
fn chunk_names(text: &str) -> String {
    const START: &str = "ChunkType { type: ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(START) {
        out.push_str(&rest[..at]);
        let after = &rest[at + START.len()..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[at..]);
            return out;
        };
        out.push_str(after[..end].split(',').next().unwrap_or_default().trim());
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The environment as the surfaces' shaders read it (group 1 of `shaders/surfaces.wgsl`):
/// a uniform saying whether there is a map and its strength, the radiance and irradiance
/// textures, and a sampler that wraps around the vertical axis.
#[derive(Debug)]
pub struct EnvironmentBinding {
    /// The bind group (group 1).
    pub bind_group: wgpu::BindGroup,
    /// GPU bytes held.
    pub bytes: u64,
}

/// The uniform of group 1: `enabled` 1 with a map, and its strength.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct EnvironmentUniform {
    enabled: u32,
    strength: f32,
    pad: [f32; 2],
}

/// The layout of group 1.
pub fn environment_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let texture = |binding| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    };
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("environment"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
            texture(1),
            texture(2),
            wgpu::BindGroupLayoutEntry {
                binding: 3,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
        ],
    })
}

impl EnvironmentBinding {
    /// The binding of `map`, or of no map (the built-in sky and ground) for `None`.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        layout: &wgpu::BindGroupLayout,
        map: Option<&EnvironmentMap>,
    ) -> Self {
        use wgpu::util::DeviceExt;
        let uniform = EnvironmentUniform {
            enabled: u32::from(map.is_some()),
            strength: ENVIRONMENT_STRENGTH,
            pad: [0.0; 2],
        };
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("environment"),
            contents: bytemuck::bytes_of(&uniform),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let black = [Vec3::ZERO];
        let (radiance, radiance_size, irradiance, irradiance_size) = match map {
            Some(m) => (
                &m.radiance[..],
                m.radiance_size,
                &m.irradiance[..],
                m.irradiance_size,
            ),
            None => (&black[..], (1, 1), &black[..], (1, 1)),
        };
        let texture = |label, texels: &[Vec3], (w, h): (usize, usize)| {
            let rgba: Vec<f32> = texels.iter().flat_map(|c| [c.x, c.y, c.z, 1.0]).collect();
            let data = f16_slice(&rgba);
            device
                .create_texture_with_data(
                    queue,
                    &wgpu::TextureDescriptor {
                        label: Some(label),
                        size: wgpu::Extent3d {
                            width: w as u32,
                            height: h as u32,
                            depth_or_array_layers: 1,
                        },
                        mip_level_count: 1,
                        sample_count: 1,
                        dimension: wgpu::TextureDimension::D2,
                        format: wgpu::TextureFormat::Rgba16Float,
                        usage: wgpu::TextureUsages::TEXTURE_BINDING,
                        view_formats: &[],
                    },
                    wgpu::util::TextureDataOrder::LayerMajor,
                    bytemuck::cast_slice(&data),
                )
                .create_view(&Default::default())
        };
        let radiance_view = texture("environment: radiance", radiance, radiance_size);
        let irradiance_view = texture("environment: irradiance", irradiance, irradiance_size);
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("environment"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("environment"),
            layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&radiance_view),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::TextureView(&irradiance_view),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
            ],
        });
        let bytes = 16 + 8 * (radiance.len() + irradiance.len()) as u64;
        EnvironmentBinding { bind_group, bytes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uniform_sky_gives_its_own_irradiance() {
        let map = EnvironmentMap::from_linear(&vec![Vec3::splat(2.0); 128 * 64], 128, 64);
        assert_eq!(map.radiance_size, (128, 64));
        for e in &map.irradiance {
            assert!((*e - Vec3::splat(2.0)).abs().max_element() < 0.05, "{e}");
        }
    }

    #[test]
    fn a_bright_upper_half_lights_upward_normals() {
        let (w, h) = (64, 32);
        let pixels: Vec<Vec3> = (0..w * h)
            .map(|i| if i / w < h / 2 { Vec3::ONE } else { Vec3::ZERO })
            .collect();
        let map = EnvironmentMap::from_linear(&pixels, w, h);
        let (iw, ih) = map.irradiance_size;
        let top = map.irradiance[iw / 2].x;
        let bottom = map.irradiance[(ih - 1) * iw + iw / 2].x;
        assert!(top > 0.9 && bottom < 0.1, "top {top}, bottom {bottom}");
    }
}
