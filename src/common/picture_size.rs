//! Whether a picture (or a window) of a given size can be drawn, worked out before any GPU
//! work from what its render targets take: each side within the adapter's largest texture,
//! the read-back buffer within its largest buffer, and all targets together within a memory
//! budget. Without this, an oversized picture fails deep in wgpu with a message about an
//! invalid texture view, the real cause (out of memory) only in a log line.

use anyhow::bail;
use pelt::render::TargetLayout;

/// The most GPU memory Pelt gives the render targets of one picture or window, bytes.
pub const TARGET_BUDGET_BYTES: u64 = 4 << 30;

/// Bytes the targets of a `width × height` frame drawn with `layout` take: the multisampled
/// colour (when multisampled), the depth, the ID targets when drawn, `outputs` single-sample
/// colour images (the offscreen picture, or a window's swap chain) and the read-back buffer
/// (rows padded to wgpu's copy alignment).
pub fn target_bytes(layout: &TargetLayout, width: u32, height: u32, outputs: u64) -> u64 {
    let pixels = u64::from(width) * u64::from(height);
    let samples = u64::from(layout.samples);
    let mut per_pixel = samples * 4; // depth, 32-bit float
    if samples > 1 {
        per_pixel += samples * 4; // multisampled colour
    }
    if layout.ids {
        per_pixel += samples + 1;
    }
    per_pixel += 4 * outputs;
    pixels * per_pixel + readback_bytes(width, height)
}

/// Bytes of the buffer a `width × height` RGBA8 image is read back through.
fn readback_bytes(width: u32, height: u32) -> u64 {
    let row = u64::from(width) * 4;
    let align = u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    row.div_ceil(align) * align * u64::from(height)
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
}

/// Refuses a `width × height` picture the device cannot draw, naming the size and the
/// limit it breaks. `what` names the arguments to change ("--width/--height").
pub fn check(
    limits: &wgpu::Limits,
    layout: &TargetLayout,
    width: u32,
    height: u32,
    outputs: u64,
    what: &str,
) -> anyhow::Result<()> {
    if width == 0 || height == 0 {
        bail!("{what}: a {width}×{height} picture has no pixels; give at least 1×1");
    }
    let max = limits.max_texture_dimension_2d;
    if width > max || height > max {
        bail!(
            "{what}: a {width}×{height} picture is larger than this adapter's largest texture, {max} pixels a side"
        );
    }
    let readback = readback_bytes(width, height);
    if readback > limits.max_buffer_size {
        bail!(
            "{what}: reading a {width}×{height} picture back takes a {} buffer, larger than this adapter's largest buffer ({})",
            gib(readback),
            gib(limits.max_buffer_size)
        );
    }
    let bytes = target_bytes(layout, width, height, outputs);
    if bytes > TARGET_BUDGET_BYTES {
        bail!(
            "{what}: a {width}×{height} picture needs {} of GPU memory for its render targets ({}× multisampled), more than Pelt's budget of {}; choose a smaller size",
            gib(bytes),
            layout.samples,
            gib(TARGET_BUDGET_BYTES)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_refuses_the_size_that_ran_out_of_memory_and_takes_full_hd() {
        let layout = TargetLayout {
            color_format: wgpu::TextureFormat::Rgba8UnormSrgb,
            samples: 4,
            ids: false,
        };
        let limits = wgpu::Limits {
            max_texture_dimension_2d: 16384,
            max_buffer_size: 1 << 40,
            ..Default::default()
        };
        // 1920×1080 at 4× MSAA: 32 B of targets, 4 of output, 4 of read-back a pixel.
        assert_eq!(target_bytes(&layout, 1920, 1080, 1), 1920 * 1080 * 40);
        check(&limits, &layout, 1920, 1080, 1, "--width").unwrap();
        let err = check(&limits, &layout, 11585, 11585, 1, "--width").unwrap_err();
        assert!(err.to_string().contains("11585×11585"), "{err}");
        let err = check(&limits, &layout, 16385, 10, 1, "--width").unwrap_err();
        assert!(err.to_string().contains("16384 pixels"), "{err}");
    }
}
