//! The strands every hair path reads: one packed [`RibbonStrand`] per strand (what shading
//! needs from the root that the solver's buffers do not carry), the bind groups over the
//! solver's two position buffers ([`StrandBinding`]), and the shading pass
//! ([`HairStrands::shade`], `shaders/ribbon_shading.wgsl`) that evaluates the hair model
//! once at each drawn point, whose colours every path then draws.

use crate::creature::Space;
use crate::groom::StrandRoot;
use crate::render::RenderError;
use crate::render::descriptors::{
    bind_group, bind_group_layout, compute_entry, pipeline_layout, storage_entry, workgroups_for,
};
use crate::render::frame::{FrameBinding, View};
use crate::render::mesh::VertexSpace;
use crate::render::strand_cull::{CULL_FLAG_BYTES, StrandCullPass};
use crate::render::strand_lod::{DRAWN_ORDER_SEED, drawn_order};
use crate::shaders::ShaderModule;
use crate::sim::POINTS_PER_STRAND;
use bytemuck::{Pod, Zeroable};
use glam::{Vec2, Vec3};

/// Bytes of a strand point's shaded colour (`pack_point_color` in
/// `shaders/ribbon_geometry.wgsl`).
pub const POINT_COLOR_BYTES: u64 = 4;

/// What the ribbon shader needs of one strand's root, packed into 16 bytes. WGSL reads it
/// as `vec4<u32>` (`strands` in `shaders/ribbon_geometry.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct RibbonStrand {
    /// Pattern channels as unorm bytes, cream in the low byte.
    pub pattern: u32,
    /// The per-strand random value in [0, 1).
    pub random: f32,
    /// The root's part-space normal, octahedral, two snorm16 (x low).
    pub normal: u32,
    /// Space in the low 8 bits; tail parameter as unorm16 in the high 16.
    pub space_t: u32,
}

/// A unit vector as two octahedral coordinates in [−1, 1].
pub fn octahedral_encode(n: Vec3) -> Vec2 {
    let n = n / (n.x.abs() + n.y.abs() + n.z.abs()).max(1e-12);
    if n.z >= 0.0 {
        Vec2::new(n.x, n.y)
    } else {
        let sign = Vec2::new(
            if n.x >= 0.0 { 1.0 } else { -1.0 },
            if n.y >= 0.0 { 1.0 } else { -1.0 },
        );
        (Vec2::ONE - Vec2::new(n.y.abs(), n.x.abs())) * sign
    }
}

/// Two values in [−1, 1] as WGSL's `pack2x16snorm` packs them.
pub fn pack_snorm16x2(v: Vec2) -> u32 {
    let q = |x: f32| ((x.clamp(-1.0, 1.0) * 32767.0).round() as i16) as u16 as u32;
    q(v.x) | (q(v.y) << 16)
}

/// In bits 8..16 of [`RibbonStrand::space_t`]: the pattern bytes are the strand's own
/// colour (a body's), not the coat's pattern channels (WGSL `strand_albedo`).
pub const DIRECT_COLOR: u32 = 1;

impl RibbonStrand {
    /// Packs a root. Tail roots follow the tail bones by their tail parameter `tail_t`
    /// (the root's own, unless a caller overrides it).
    pub fn new(root: &StrandRoot, tail_t: f32) -> Self {
        let (space, t) = match root.space() {
            Space::Tail => (VertexSpace::Tail, tail_t),
            Space::Head => (VertexSpace::Head, 0.0),
            Space::Body => (VertexSpace::Body, 0.0),
        };
        let t16 = (t.clamp(0.0, 1.0) * 65535.0).round() as u32;
        RibbonStrand {
            pattern: root.pattern.pack(),
            random: root.random,
            normal: pack_snorm16x2(octahedral_encode(root.normal)),
            space_t: space as u32 | (t16 << 16),
        }
    }

    /// Packs a root of a body: its colour (the square root of linear RGB, in the pattern
    /// bytes) drawn as is, flagged by [`DIRECT_COLOR`] in the space byte's neighbour; its
    /// rest normal in world space.
    pub fn from_body_root(root: &crate::groom::BodyRoot) -> Self {
        let byte = |c: f32| (c.clamp(0.0, 1.0).sqrt() * 255.0).round() as u32;
        let c = root.color;
        RibbonStrand {
            pattern: byte(c.x) | (byte(c.y) << 8) | (byte(c.z) << 16) | (255 << 24),
            random: root.random,
            normal: pack_snorm16x2(octahedral_encode(root.normal)),
            space_t: VertexSpace::World as u32 | (DIRECT_COLOR << 8),
        }
    }

    /// Packs every root of a groom.
    pub fn from_roots(roots: &[StrandRoot]) -> Vec<Self> {
        roots
            .iter()
            .map(|r| RibbonStrand::new(r, r.tail_t))
            .collect()
    }
}

/// Strands bound for drawing: the packed records, the camera's cull flags, the points'
/// shaded colours, and the groups over each of the solver's two position buffers.
#[derive(Debug)]
pub struct StrandBinding {
    /// Strands bound.
    pub count: u32,
    /// Group 1 of the pipelines that draw or shade strands (the shadow maps', the compute
    /// rasteriser's, the shading pass's), one per position buffer.
    pub groups: [wgpu::BindGroup; 2],
    /// Group 1 of the camera's ribbons: the same, and the shaded colours to read.
    pub camera_groups: [wgpu::BindGroup; 2],
    /// Group 3 of the shading pass: the shaded colours to write.
    shading_group: wgpu::BindGroup,
    /// Each point's shaded colour, [`POINT_COLOR_BYTES`] each, written by
    /// [`HairStrands::shade`] for the strands drawn this frame.
    shaded_points: wgpu::Buffer,
    /// The solver's two position buffers (six `vec4` a strand), as bound.
    positions: [wgpu::Buffer; 2],
    /// The cull pass's groups, one per position buffer.
    pub cull_groups: [wgpu::BindGroup; 2],
    records: wgpu::Buffer,
    /// The strands in the order they are drawn (`strand_lod::drawn_order`), 4 B each.
    order: wgpu::Buffer,
    /// One flag per strand: hidden from the camera this frame (the cull pass writes it).
    pub culled: wgpu::Buffer,
}

impl StrandBinding {
    /// Bytes of GPU memory the binding holds (the solver's buffers not counted).
    pub fn bytes(&self) -> u64 {
        self.records.size() + self.order.size() + self.culled.size() + self.shaded_points.size()
    }

    /// Each point's shaded colour, as [`HairStrands::shade`] writes it: what the camera's
    /// ribbons and the strand rasterisers read.
    pub fn shaded_points(&self) -> &wgpu::Buffer {
        &self.shaded_points
    }

    /// The solver's position buffer `index` (0 or 1; `Scene::positions_index` says which
    /// holds a frame's latest positions).
    pub fn positions(&self, index: usize) -> &wgpu::Buffer {
        &self.positions[index & 1]
    }
}

/// The strands' bind group layouts and the shading pass: built once, before the paths, as
/// every pass that draws or shades strands binds their groups.
#[derive(Debug)]
pub struct HairStrands {
    /// Group 1: positions, packed strands, the camera's cull flags and the drawn order.
    pub layout: wgpu::BindGroupLayout,
    /// Group 1 of the camera's ribbons: the same, and the shaded colours (binding 4).
    pub camera_layout: wgpu::BindGroupLayout,
    /// Group 3 of the shading pass: the shaded colours, written.
    shading_layout: wgpu::BindGroupLayout,
    shade: wgpu::ComputePipeline,
}

impl HairStrands {
    /// The layouts, and the shading pass reading the frame (group 0), the strands (group
    /// 1) and the shadow maps (`shadow_inputs`, group 2).
    pub fn new(
        device: &wgpu::Device,
        frame: &wgpu::BindGroupLayout,
        shadow_inputs: &wgpu::BindGroupLayout,
    ) -> Self {
        // Compute too: the shading and the WGSL strand rasteriser read the strands as the
        // ribbons do.
        let entry = |binding| {
            let mut e = storage_entry(binding);
            e.visibility |= wgpu::ShaderStages::COMPUTE;
            e
        };
        let layout = bind_group_layout(
            device,
            "render: strands",
            &[entry(0), entry(1), entry(2), entry(3)],
        );
        let camera_layout = bind_group_layout(
            device,
            "ribbons: strands and their colours",
            &[
                storage_entry(0),
                storage_entry(1),
                storage_entry(2),
                storage_entry(3),
                storage_entry(4),
            ],
        );
        let shading_layout = bind_group_layout(
            device,
            "ribbons: shaded points",
            &[compute_entry(
                0,
                wgpu::BufferBindingType::Storage { read_only: false },
            )],
        );
        let shade = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("ribbons: shading"),
            layout: Some(&pipeline_layout(
                device,
                "ribbons: shading",
                &[
                    Some(frame),
                    Some(&layout),
                    Some(shadow_inputs),
                    Some(&shading_layout),
                ],
            )),
            module: &ShaderModule::RibbonShading.create(device),
            entry_point: Some("cs_shade_ribbons"),
            compilation_options: Default::default(),
            cache: None,
        });
        HairStrands {
            layout,
            camera_layout,
            shading_layout,
            shade,
        }
    }

    /// Binds `strands` (one record per strand) over the solver's two position buffers
    /// (six `vec4` per strand), with cull flags the `cull` pass writes.
    pub fn bind(
        &self,
        device: &wgpu::Device,
        cull: &StrandCullPass,
        positions: [&wgpu::Buffer; 2],
        strands: &[RibbonStrand],
    ) -> Result<StrandBinding, RenderError> {
        use wgpu::util::DeviceExt;
        let needed = strands.len() as u64 * POINTS_PER_STRAND as u64 * 16;
        if strands.is_empty() || positions.iter().any(|b| b.size() < needed) {
            return Err(RenderError::Strands(format!(
                "{} strands need position buffers of {needed} bytes; got {} and {}",
                strands.len(),
                positions[0].size(),
                positions[1].size()
            )));
        }
        let records = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("ribbons: strands"),
            contents: bytemuck::cast_slice(strands),
            usage: wgpu::BufferUsages::STORAGE,
        });
        // Uploaded once: every frame draws a prefix of it.
        let order = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("ribbons: drawn order"),
            contents: bytemuck::cast_slice(&drawn_order(strands.len() as u32, DRAWN_ORDER_SEED)),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let culled = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ribbons: culled for the camera"),
            size: strands.len() as u64 * CULL_FLAG_BYTES,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let shaded_points = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ribbons: shaded points"),
            size: strands.len() as u64 * POINTS_PER_STRAND as u64 * POINT_COLOR_BYTES,
            // COPY_SRC: the native path reads them back.
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let groups = positions.map(|p| {
            bind_group(
                device,
                "ribbons: strands",
                &self.layout,
                &[
                    p.as_entire_binding(),
                    records.as_entire_binding(),
                    culled.as_entire_binding(),
                    order.as_entire_binding(),
                ],
            )
        });
        let camera_groups = positions.map(|p| {
            bind_group(
                device,
                "ribbons: strands and their colours",
                &self.camera_layout,
                &[
                    p.as_entire_binding(),
                    records.as_entire_binding(),
                    culled.as_entire_binding(),
                    order.as_entire_binding(),
                    shaded_points.as_entire_binding(),
                ],
            )
        });
        let shading_group = bind_group(
            device,
            "ribbons: shaded points",
            &self.shading_layout,
            &[shaded_points.as_entire_binding()],
        );
        Ok(StrandBinding {
            count: strands.len() as u32,
            groups,
            camera_groups,
            shading_group,
            shaded_points,
            positions: positions.map(Clone::clone),
            cull_groups: cull.bind(device, positions, &culled),
            records,
            order,
            culled,
        })
    }

    /// Shades the points of the first `count` strands of the drawn order (the frame's drawn
    /// count) for whichever path draws the camera's shaded hair: after the shadow maps (the
    /// shading reads them) and the cull pass (hidden strands are skipped), before the path
    /// records the camera's hair. `group` is group 1 over the latest positions
    /// (`StrandBinding::groups`); `timestamp_writes` times the pass.
    #[allow(clippy::too_many_arguments)]
    pub fn shade(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameBinding,
        shadow_inputs: &wgpu::BindGroup,
        strands: &StrandBinding,
        group: &wgpu::BindGroup,
        count: u32,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("ribbons: shading"),
            timestamp_writes,
        });
        pass.set_pipeline(&self.shade);
        frame.bind_compute(&mut pass, View::Camera);
        pass.set_bind_group(1, group, &[]);
        pass.set_bind_group(2, shadow_inputs, &[]);
        pass.set_bind_group(3, &strands.shading_group, &[]);
        let (x, y) = workgroups_for(count.min(strands.count));
        pass.dispatch_workgroups(x, y, 1);
    }
}
