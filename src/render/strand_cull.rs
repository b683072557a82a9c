//! Strand culling for the camera: a compute pass (`shaders/strand_cull.wgsl`) marks the
//! strands hidden behind the creature's body or head, or wholly outside the view, and the
//! ribbon pass skips them. The occluders are the analytic body ellipsoid and a sphere inside
//! the head, shrunk so they lie inside the drawn skin, so culling changes no pixel.
//! [`StrandCullPass`] owns the pipeline and its uniforms; the flags live with the strands
//! ([`super::hair::StrandBinding`]).

use super::RenderError;
use super::RenderSettings;
use super::camera::Camera;
use super::descriptors::{bind_group, bind_group_layout, compute_entry, pipeline_layout};
use super::frame::uniform_bytes;
use super::timing::{Pass, Span, Timestamps};
use crate::creature::{Creature, CreaturePose};
use crate::shaders::ShaderModule;
use encase::ShaderType;
use glam::{Affine3A, Mat3A, Mat4, Vec3, Vec4};

/// Metres the occluders are shrunk by on top of the ribbon's half width: the skin mesh's
/// chords sink a fraction of a millimetre under the analytic surface, and the hair behind
/// should fail the depth test clearly.
pub const CULL_SAFETY_MARGIN: f32 = 0.003;

/// Strands one workgroup of the cull pass handles (WGSL `CULL_WORKGROUP`).
pub const CULL_WORKGROUP: u32 = crate::shaders::CULL_WORKGROUP;

/// Bytes of the flag the cull pass writes per strand.
pub const CULL_FLAG_BYTES: u64 = 4;

/// The cull pass's inputs, in the forms the pass reads once a point or once a strand (what
/// is the same for every strand is worked out here, once a frame). WGSL twin:
/// `CullUniforms` in `shaders/strand_cull.wgsl`.
#[derive(Clone, Copy, Debug, PartialEq, ShaderType)]
pub struct CullUniforms {
    /// Rows: the view's left, right, bottom and top sides as planes, scaled so that a row's
    /// dot product with `(p, 1)` is how far world point `p` lies inside that side, metres.
    pub sides: Mat4,
    /// The camera's position.
    pub eye: Vec3,
    /// World size of one pixel at unit distance.
    pub pixel_scale: f32,
    /// Unit viewing direction.
    pub forward: Vec3,
    /// Narrowest drawn ribbon in pixels.
    pub min_pixels: f32,
    /// World → body-local, with the body ellipsoid's centre at the origin.
    pub body_local: Mat4,
    /// World → head-local, with the head sphere's centre at the origin.
    pub head_local: Mat4,
    /// The camera's position in `body_local`'s space.
    pub body_eye: Vec3,
    /// The body inverse's largest stretch.
    pub body_stretch: f32,
    /// Body ellipsoid radii.
    pub body_radii: Vec3,
    /// The head inverse's largest stretch.
    pub head_stretch: f32,
    /// The camera's position in `head_local`'s space.
    pub head_eye: Vec3,
    /// Head sphere radius.
    pub head_radius: f32,
    /// Ribbon width at the root as drawn (widened by the level of detail), metres.
    pub root_width: f32,
    /// Metres the occluders shrink by beyond the ribbon's half width.
    pub safety_margin: f32,
    /// Strands bound.
    pub strand_count: u32,
    /// 1 to cull, 0 to mark nothing.
    pub enabled: u32,
}

/// The view's left, right, bottom and top sides of `view_proj` as the rows of a matrix,
/// each scaled to measure metres (Gribb and Hartmann's planes: clip `w ± x`, `w ± y`).
fn view_sides(view_proj: Mat4) -> Mat4 {
    let (x, y, w) = (view_proj.row(0), view_proj.row(1), view_proj.row(3));
    let unit = |plane: Vec4| plane / plane.truncate().length().max(1e-12);
    Mat4::from_cols(unit(w + x), unit(w - x), unit(w + y), unit(w - y)).transpose()
}

/// An upper bound of how much a linear map can stretch a length: the square root of the
/// product of its largest column and row sums of absolute values (1 for no scaling, a
/// little over for rotations).
fn stretch_bound(m: Mat3A) -> f32 {
    let cols = [m.x_axis, m.y_axis, m.z_axis].map(|c| c.abs().element_sum());
    let t = m.transpose();
    let rows = [t.x_axis, t.y_axis, t.z_axis].map(|c| c.abs().element_sum());
    let max = |v: [f32; 3]| v.into_iter().fold(0.0f32, f32::max);
    (max(cols) * max(rows)).sqrt()
}

/// The radius of a sphere about the head's centre that lies inside the head in every
/// direction: its base radius less every bump that dents it.
pub fn head_inner_radius(creature: &Creature) -> f32 {
    let head = &creature.head;
    let dents: f32 = head
        .ears
        .iter()
        .chain(&head.cheeks)
        .chain(std::iter::once(&head.muzzle))
        .map(|b| b.height.min(0.0))
        .sum();
    head.base_radius + dents
}

/// The cull pass's uniforms for a frame seen by `camera` on a target of `size` pixels,
/// its ribbons drawn `width_scale` times their width (`StrandLod::width_scale`); `enabled`
/// false makes the pass mark nothing.
#[allow(clippy::too_many_arguments)]
pub fn cull_uniforms(
    creature: &Creature,
    pose: &CreaturePose,
    camera: &Camera,
    size: (u32, u32),
    settings: &RenderSettings,
    width_scale: f32,
    strands: u32,
    enabled: bool,
) -> CullUniforms {
    let inverse = |a: &Affine3A| {
        let inv = a.inverse();
        (Mat4::from(inv), stretch_bound(inv.matrix3))
    };
    let (body_inverse, body_stretch) = inverse(&pose.body);
    let (head_inverse, head_stretch) = inverse(&pose.head);
    // A pose that cannot be inverted gives no occluders: cull nothing.
    let usable = body_inverse.is_finite()
        && head_inverse.is_finite()
        && body_stretch.is_finite()
        && head_stretch.is_finite();
    let body = &creature.body;
    let head_center = creature.head.center;
    let body_local = Mat4::from_translation(-body.center) * body_inverse;
    let head_local = Mat4::from_translation(-head_center) * head_inverse;
    let (w, h) = (size.0.max(1) as f32, size.1.max(1) as f32);
    CullUniforms {
        sides: view_sides(camera.view_proj(w / h)),
        eye: camera.eye,
        pixel_scale: camera.pixel_scale(size.1),
        forward: camera.forward(),
        min_pixels: settings.min_pixels,
        body_local,
        head_local,
        body_eye: body_local.transform_point3(camera.eye),
        body_stretch,
        body_radii: body.radii,
        head_stretch,
        head_eye: head_local.transform_point3(camera.eye),
        head_radius: head_inner_radius(creature).max(0.0),
        // The width the ribbons are drawn at: a level of detail widens them.
        root_width: settings.root_width * width_scale,
        safety_margin: CULL_SAFETY_MARGIN,
        strand_count: strands,
        enabled: u32::from(enabled && usable),
    }
}

/// The cull pass: its pipeline, its bind group layout and its uniform buffer.
#[derive(Debug)]
pub struct StrandCullPass {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
    uniforms: wgpu::Buffer,
}

impl StrandCullPass {
    /// Compiles the pass.
    pub fn new(device: &wgpu::Device) -> Self {
        let layout = bind_group_layout(
            device,
            "render: strand cull",
            &[
                compute_entry(0, wgpu::BufferBindingType::Storage { read_only: true }),
                compute_entry(1, wgpu::BufferBindingType::Storage { read_only: false }),
                compute_entry(2, wgpu::BufferBindingType::Uniform),
            ],
        );
        let module = ShaderModule::StrandCull.create(device);
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("strand cull"),
            layout: Some(&pipeline_layout(device, "strand cull", &[Some(&layout)])),
            module: &module,
            entry_point: Some("cull_strands"),
            compilation_options: Default::default(),
            cache: None,
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("strand cull: uniforms"),
            size: CullUniforms::min_size().get(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        StrandCullPass {
            layout,
            pipeline,
            uniforms,
        }
    }

    /// The pass's groups over each of the solver's two position buffers, writing `culled`.
    pub fn bind(
        &self,
        device: &wgpu::Device,
        positions: [&wgpu::Buffer; 2],
        culled: &wgpu::Buffer,
    ) -> [wgpu::BindGroup; 2] {
        positions.map(|p| {
            bind_group(
                device,
                "strand cull",
                &self.layout,
                &[
                    p.as_entire_binding(),
                    culled.as_entire_binding(),
                    self.uniforms.as_entire_binding(),
                ],
            )
        })
    }

    /// Bytes of GPU memory the pass holds.
    pub fn bytes(&self) -> u64 {
        self.uniforms.size()
    }

    /// Marks the hidden strands among the `uniforms.strand_count` bound by `group`; the
    /// first of the ribbons' timed passes.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        queue: &wgpu::Queue,
        uniforms: &CullUniforms,
        group: &wgpu::BindGroup,
        timestamps: Option<&Timestamps>,
    ) -> Result<(), RenderError> {
        queue.write_buffer(&self.uniforms, 0, &uniform_bytes(uniforms)?);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("strand cull"),
            timestamp_writes: timestamps.map(|t| t.compute(Pass::Ribbons, Span::Begin)),
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.dispatch_workgroups(uniforms.strand_count.div_ceil(CULL_WORKGROUP), 1, 1);
        Ok(())
    }
}
