//! GPU timestamps around the frame's timed passes ([`Pass`]): two queries per pass, the
//! first written where the pass begins and the second where it ends, so the query indices
//! come from the enum and nowhere else.

use super::RenderError;

/// The frame's timed passes, in the order a frame records them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// The key light's maps: opaque depth, first hair depth, deep opacity.
    Shadow,
    /// Skin, face, hand and floor.
    Surfaces,
    /// The camera's strand culling, the hair's shading, the ribbons (or the compute
    /// rasteriser) and the contact overlay.
    Ribbons,
}

impl Pass {
    /// Every timed pass.
    pub const ALL: [Pass; 3] = [Pass::Shadow, Pass::Surfaces, Pass::Ribbons];

    fn begin_query(self) -> u32 {
        2 * self as u32
    }

    fn end_query(self) -> u32 {
        self.begin_query() + 1
    }
}

/// Which of a timed pass's ends a wgpu pass stands at: a timed pass may span several.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span {
    /// The first of several wgpu passes.
    Begin,
    /// The last of several.
    End,
    /// The only one.
    Whole,
}

impl Span {
    fn indices(self, pass: Pass) -> (Option<u32>, Option<u32>) {
        match self {
            Span::Begin => (Some(pass.begin_query()), None),
            Span::End => (None, Some(pass.end_query())),
            Span::Whole => (Some(pass.begin_query()), Some(pass.end_query())),
        }
    }
}

/// Milliseconds the GPU spent in each timed pass of the last timed frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassTimings {
    /// Shadow maps: opaque depth, first hair depth, deep opacity.
    pub shadow_ms: f64,
    /// Skin, face, hand and floor.
    pub surfaces_ms: f64,
    /// The camera's strand culling, the ribbons (and the contact overlay).
    pub ribbons_ms: f64,
}

/// The query set and its resolve buffer.
#[derive(Debug)]
pub struct Timestamps {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    period_ns: f32,
}

impl Timestamps {
    /// Queries for every [`Pass`], or `None` when the device has no `TIMESTAMP_QUERY`.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Self> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let count = 2 * Pass::ALL.len() as u32;
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("render timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render timestamps"),
            size: u64::from(count) * 8,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Some(Timestamps {
            queries,
            resolve,
            period_ns: queue.get_timestamp_period(),
        })
    }

    /// The writes of a render pass standing at `span` of `pass`.
    pub fn render(&self, pass: Pass, span: Span) -> wgpu::RenderPassTimestampWrites<'_> {
        let (begin, end) = span.indices(pass);
        wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: begin,
            end_of_pass_write_index: end,
        }
    }

    /// The writes of a compute pass standing at `span` of `pass`.
    pub fn compute(&self, pass: Pass, span: Span) -> wgpu::ComputePassTimestampWrites<'_> {
        let (begin, end) = span.indices(pass);
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: begin,
            end_of_pass_write_index: end,
        }
    }

    /// Resolves every query into the read-back buffer (the frame's last command).
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(
            &self.queries,
            0..2 * Pass::ALL.len() as u32,
            &self.resolve,
            0,
        );
    }

    /// The timings of the last resolved frame (waits for the GPU).
    pub fn read(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<PassTimings, RenderError> {
        let bytes =
            crate::gpu::read_buffer(device, queue, &self.resolve).map_err(RenderError::Gpu)?;
        let t: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
        let ms = |pass: Pass| {
            let (a, b) = (pass.begin_query() as usize, pass.end_query() as usize);
            t[b].saturating_sub(t[a]) as f64 * f64::from(self.period_ns) / 1e6
        };
        Ok(PassTimings {
            shadow_ms: ms(Pass::Shadow),
            surfaces_ms: ms(Pass::Surfaces),
            ribbons_ms: ms(Pass::Ribbons),
        })
    }
}
