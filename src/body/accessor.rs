//! Reading one glTF accessor out of the loaded buffers, with every offset, stride and count
//! checked first: an accessor that reaches past its buffer view, or a view past its buffer,
//! is an error naming the accessor, never a panic or an out-of-bounds read.

use gltf::accessor::{DataType, Dimensions};

use super::gltf_read::Source;

/// Where one accessor's elements lie: `count` elements of `components` values of `kind`,
/// the first at `offset` in `data`, each `stride` bytes after the last.
struct Layout<'a> {
    data: &'a [u8],
    offset: usize,
    stride: usize,
    count: usize,
    components: usize,
    kind: DataType,
    normalized: bool,
}

fn component_size(kind: DataType) -> usize {
    match kind {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

fn components_of(dim: Dimensions) -> usize {
    match dim {
        Dimensions::Scalar => 1,
        Dimensions::Vec2 => 2,
        Dimensions::Vec3 => 3,
        Dimensions::Vec4 | Dimensions::Mat2 => 4,
        Dimensions::Mat3 => 9,
        Dimensions::Mat4 => 16,
    }
}

/// An accessor's name in messages: "accessor 7".
fn name(accessor: &gltf::Accessor) -> String {
    format!("accessor {}", accessor.index())
}

fn layout<'a>(
    source: &'a Source,
    accessor: &gltf::Accessor,
    max_count: usize,
) -> Result<Layout<'a>, String> {
    let what = name(accessor);
    if accessor.sparse().is_some() {
        return Err(format!(
            "{what} is sparse, which Pelt does not read for bodies; export without sparse accessors"
        ));
    }
    let count = accessor.count();
    if count > max_count {
        return Err(format!(
            "{what} has {count} elements, more than Pelt reads here ({max_count})"
        ));
    }
    let kind = accessor.data_type();
    let components = components_of(accessor.dimensions());
    let element = component_size(kind) * components;
    if matches!(accessor.dimensions(), Dimensions::Mat2 | Dimensions::Mat3)
        && component_size(kind) < 4
    {
        return Err(format!(
            "{what} is a padded 8- or 16-bit matrix, which Pelt does not read"
        ));
    }
    let Some(view) = accessor.view() else {
        // No buffer view: every element is zero (glTF's rule).
        return Ok(Layout {
            data: &[],
            offset: 0,
            stride: 0,
            count,
            components,
            kind,
            normalized: accessor.normalized(),
        });
    };
    let buffer = source
        .buffers
        .get(view.buffer().index())
        .ok_or_else(|| format!("{what}: its buffer is missing"))?;
    let view_end = view
        .offset()
        .checked_add(view.length())
        .filter(|&e| e <= buffer.len())
        .ok_or_else(|| {
            format!(
                "{what}: buffer view {} (bytes {}..+{}) runs past its buffer ({} bytes)",
                view.index(),
                view.offset(),
                view.length(),
                buffer.len()
            )
        })?;
    let stride = view.stride().unwrap_or(element);
    if stride < element {
        return Err(format!(
            "{what}: its stride {stride} is shorter than one element ({element} bytes)"
        ));
    }
    let offset = view.offset().checked_add(accessor.offset());
    let end = offset.and_then(|o| {
        if count == 0 {
            Some(o)
        } else {
            stride
                .checked_mul(count - 1)
                .and_then(|s| s.checked_add(element))
                .and_then(|s| s.checked_add(o))
        }
    });
    match (offset, end) {
        (Some(offset), Some(end)) if end <= view_end => Ok(Layout {
            data: buffer,
            offset,
            stride,
            count,
            components,
            kind,
            normalized: accessor.normalized(),
        }),
        _ => Err(format!(
            "{what}: {count} elements of {element} bytes from byte {} run past buffer view {} ({} bytes)",
            accessor.offset(),
            view.index(),
            view.length()
        )),
    }
}

impl Layout<'_> {
    /// Component `c` of element `i` as its raw number (offsets were checked in `layout`).
    fn raw(&self, i: usize, c: usize) -> f64 {
        if self.data.is_empty() {
            return 0.0;
        }
        let size = component_size(self.kind);
        let at = self.offset + i * self.stride + c * size;
        let b = &self.data[at..at + size];
        match self.kind {
            DataType::I8 => f64::from(b[0] as i8),
            DataType::U8 => f64::from(b[0]),
            DataType::I16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
            DataType::U16 => f64::from(u16::from_le_bytes([b[0], b[1]])),
            DataType::U32 => f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            DataType::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        }
    }

    /// Component `c` of element `i` as a float: normalized integers mapped to [0, 1] or
    /// [-1, 1] as glTF defines them.
    fn float(&self, i: usize, c: usize) -> f32 {
        let v = self.raw(i, c);
        if !self.normalized {
            return v as f32;
        }
        let scaled = match self.kind {
            DataType::I8 => (v / 127.0).max(-1.0),
            DataType::U8 => v / 255.0,
            DataType::I16 => (v / 32767.0).max(-1.0),
            DataType::U16 => v / 65535.0,
            DataType::U32 => v / f64::from(u32::MAX),
            DataType::F32 => v,
        };
        scaled as f32
    }
}

/// The accessor's elements as floats, `N` per element (`N` must be its component count),
/// every value finite. `what` names the use in errors ("POSITION").
pub fn floats<const N: usize>(
    source: &Source,
    accessor: &gltf::Accessor,
    max_count: usize,
    what: &str,
) -> Result<Vec<[f32; N]>, String> {
    let l = layout(source, accessor, max_count).map_err(|e| format!("{what}: {e}"))?;
    if l.components != N {
        return Err(format!(
            "{what}: {} has {} components per element, {N} expected",
            name(accessor),
            l.components
        ));
    }
    let mut out = Vec::with_capacity(l.count);
    for i in 0..l.count {
        let mut e = [0.0f32; N];
        for (c, slot) in e.iter_mut().enumerate() {
            let v = l.float(i, c);
            if !v.is_finite() {
                return Err(format!(
                    "{what}: {} element {i} is not a finite number",
                    name(accessor)
                ));
            }
            *slot = v;
        }
        out.push(e);
    }
    Ok(out)
}

/// The accessor's elements as floats when it has 3 or 4 components (`COLOR_0`), alpha 1
/// filled in for 3.
pub fn colors(
    source: &Source,
    accessor: &gltf::Accessor,
    max_count: usize,
) -> Result<Vec<[f32; 4]>, String> {
    if components_of(accessor.dimensions()) == 3 {
        let rgb = floats::<3>(source, accessor, max_count, "COLOR_0")?;
        Ok(rgb.into_iter().map(|[r, g, b]| [r, g, b, 1.0]).collect())
    } else {
        floats::<4>(source, accessor, max_count, "COLOR_0")
    }
}

/// The accessor's elements as unsigned integers, `N` per element: only for unsigned
/// integer accessors (indices, `JOINTS_0`).
pub fn unsigned<const N: usize>(
    source: &Source,
    accessor: &gltf::Accessor,
    max_count: usize,
    what: &str,
) -> Result<Vec<[u32; N]>, String> {
    let l = layout(source, accessor, max_count).map_err(|e| format!("{what}: {e}"))?;
    if l.components != N || !matches!(l.kind, DataType::U8 | DataType::U16 | DataType::U32) {
        return Err(format!(
            "{what}: {} must hold {N} unsigned integers per element",
            name(accessor)
        ));
    }
    let mut out = Vec::with_capacity(l.count);
    for i in 0..l.count {
        let mut e = [0u32; N];
        for (c, slot) in e.iter_mut().enumerate() {
            *slot = l.raw(i, c) as u32;
        }
        out.push(e);
    }
    Ok(out)
}
