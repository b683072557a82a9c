//! What a frame is drawn into: the multisampled colour and depth targets sized to the
//! output, an optional ID target (which surface each pixel shows; tests read it), and the
//! output itself, a window's surface texture or an offscreen texture that can be saved.

use super::RenderError;

/// The formats and sample count pipelines are built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetLayout {
    /// The output's colour format (an sRGB format: shaders write linear, tone-mapped light).
    pub color_format: wgpu::TextureFormat,
    /// MSAA samples: 4 where the adapter supports it for every attachment, else 1.
    pub samples: u32,
    /// Whether frames also write the ID target.
    pub ids: bool,
}

/// Depth format of the camera passes (reversed: cleared to 0, nearer is greater).
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Format of the ID target: one byte per pixel naming the surface (0 background).
pub const ID_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R8Uint;
/// The colour format of offscreen targets.
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

impl TargetLayout {
    /// The layout for `color_format` on `adapter`: 4× MSAA when the colour, depth and (if
    /// asked for) ID formats all support it, else a single sample. OpenGL gets one sample:
    /// wgpu's shader translation for it cannot write the sample mask the ribbons use.
    pub fn new(adapter: &wgpu::Adapter, color_format: wgpu::TextureFormat, ids: bool) -> Self {
        let x4 = |f: wgpu::TextureFormat| {
            adapter
                .get_texture_format_features(f)
                .flags
                .contains(wgpu::TextureFormatFeatureFlags::MULTISAMPLE_X4)
        };
        let resolvable = adapter
            .get_texture_format_features(color_format)
            .flags
            .contains(wgpu::TextureFormatFeatureFlags::MULTISAMPLE_RESOLVE);
        let msaa = adapter.get_info().backend != wgpu::Backend::Gl
            && x4(color_format)
            && resolvable
            && x4(DEPTH_FORMAT)
            && (!ids || x4(ID_FORMAT));
        TargetLayout {
            color_format,
            samples: if msaa { 4 } else { 1 },
            ids,
        }
    }

    /// Checks a layout (perhaps made by hand) against the backend it will draw on: 1 or 4
    /// MSAA samples (the ribbons' sample mask is written for the standard 4× positions), and
    /// 1 on OpenGL, where wgpu cannot write the sample mask the ribbons use (the picture
    /// came out aliased, or empty with IDs, and no error).
    pub fn check(&self, backend: wgpu::Backend) -> Result<(), RenderError> {
        let bad = |why: String| Err(RenderError::Settings(format!("target layout: {why}")));
        if self.samples != 1 && self.samples != 4 {
            return bad(format!("{} MSAA samples; it must be 1 or 4", self.samples));
        }
        if self.samples > 1 && backend == wgpu::Backend::Gl {
            return bad(format!(
                "{} MSAA samples on OpenGL, which draws with 1 (TargetLayout::new chooses it)",
                self.samples
            ));
        }
        Ok(())
    }
}

/// Checks a target size against the device: not zero, not beyond its largest texture.
pub fn check_size(device: &wgpu::Device, width: u32, height: u32) -> Result<(), RenderError> {
    let max = device.limits().max_texture_dimension_2d;
    if width == 0 || height == 0 || width > max || height > max {
        return Err(RenderError::TargetSize { width, height, max });
    }
    Ok(())
}

/// The per-size attachments a frame draws into before resolving to the output.
#[derive(Debug)]
pub struct FrameTargets {
    /// Width and height in pixels.
    pub size: (u32, u32),
    /// MSAA samples of the attachments.
    pub samples: u32,
    /// Multisampled colour (absent at one sample: passes draw straight into the output).
    pub color: Option<wgpu::TextureView>,
    /// Depth (sampled by the strand rasteriser, so `TEXTURE_BINDING` too).
    pub depth: wgpu::TextureView,
    /// IDs as drawn (multisampled when the layout is).
    pub ids: Option<wgpu::TextureView>,
    /// IDs with one sample, readable (sample 0 of `ids`); at one sample it is `ids` itself.
    pub ids_resolved: Option<wgpu::Texture>,
    /// Bytes of GPU memory these attachments take.
    pub bytes: u64,
}

fn attachment(
    device: &wgpu::Device,
    label: &str,
    size: (u32, u32),
    format: wgpu::TextureFormat,
    samples: u32,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: samples,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// Bytes per pixel per sample of the formats used here.
fn texel_bytes(format: wgpu::TextureFormat) -> u64 {
    u64::from(format.block_copy_size(None).unwrap_or(4))
}

impl FrameTargets {
    /// Attachments of `width × height` for `layout`. The size must have passed
    /// [`check_size`].
    pub fn new(device: &wgpu::Device, layout: &TargetLayout, width: u32, height: u32) -> Self {
        let size = (width, height);
        let pixels = u64::from(width) * u64::from(height);
        let samples = layout.samples;
        let mut bytes = 0;
        let color = (samples > 1).then(|| {
            bytes += pixels * u64::from(samples) * texel_bytes(layout.color_format);
            attachment(
                device,
                "frame colour (MSAA)",
                size,
                layout.color_format,
                samples,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            )
            .create_view(&Default::default())
        });
        bytes += pixels * u64::from(samples) * 4;
        // Readable: a hair path that draws on the host reads the surfaces' depth back
        // (multisampled by a shader, sample 0; single-sampled by a copy), and the WGSL strand
        // rasteriser samples it between the surfaces' pass and the camera's last pass.
        let depth = attachment(
            device,
            "frame depth",
            size,
            DEPTH_FORMAT,
            samples,
            wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
        )
        .create_view(&Default::default());
        let (ids, ids_resolved) = if layout.ids {
            let readable = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC;
            let resolved = attachment(device, "frame ids", size, ID_FORMAT, 1, readable);
            bytes += pixels;
            if samples > 1 {
                bytes += pixels * u64::from(samples);
                let drawn = attachment(
                    device,
                    "frame ids (MSAA)",
                    size,
                    ID_FORMAT,
                    samples,
                    wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
                );
                (Some(drawn.create_view(&Default::default())), Some(resolved))
            } else {
                (
                    Some(resolved.create_view(&Default::default())),
                    Some(resolved),
                )
            }
        } else {
            (None, None)
        };
        FrameTargets {
            size,
            samples,
            color,
            depth,
            ids,
            ids_resolved,
            bytes,
        }
    }
}

/// An offscreen output: an sRGB colour texture that can be read back and saved.
#[derive(Debug)]
pub struct OffscreenTarget {
    /// The output texture.
    pub texture: wgpu::Texture,
    /// Its view.
    pub view: wgpu::TextureView,
    /// The attachments frames draw into before resolving to it.
    pub frame: FrameTargets,
}

impl OffscreenTarget {
    /// An output of `width × height` for `layout` (an 8-bit sRGB colour format:
    /// [`OFFSCREEN_FORMAT`], or BGRA, which is read back swapped). Errors on a zero size or
    /// one beyond the device's limit.
    pub fn new(
        device: &wgpu::Device,
        layout: &TargetLayout,
        width: u32,
        height: u32,
    ) -> Result<Self, RenderError> {
        check_size(device, width, height)?;
        let texture = attachment(
            device,
            "offscreen output",
            (width, height),
            layout.color_format,
            1,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let view = texture.create_view(&Default::default());
        Ok(OffscreenTarget {
            texture,
            view,
            frame: FrameTargets::new(device, layout, width, height),
        })
    }

    /// Width and height in pixels.
    pub fn size(&self) -> (u32, u32) {
        self.frame.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(samples: u32) -> TargetLayout {
        TargetLayout {
            color_format: OFFSCREEN_FORMAT,
            samples,
            ids: true,
        }
    }

    #[test]
    fn a_layout_is_checked_against_its_backend() {
        assert!(layout(4).check(wgpu::Backend::Vulkan).is_ok());
        assert!(layout(1).check(wgpu::Backend::Gl).is_ok());
        let gl = layout(4).check(wgpu::Backend::Gl).unwrap_err().to_string();
        assert!(gl.contains("OpenGL"), "{gl}");
        for samples in [0, 2, 3, 8] {
            let e = layout(samples).check(wgpu::Backend::Vulkan).unwrap_err();
            assert!(e.to_string().contains("1 or 4"), "{e}");
        }
    }
}
