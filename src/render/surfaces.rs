//! The surfaces pass (`shaders/surfaces.wgsl`): every opaque surface the camera sees, the
//! creature's skin (tessellated from its analytic parts, in their own spaces, so the GPU
//! places them by the same head, body and tail transforms as the roots), its eyes and
//! nose, the hand's capsules and the floor. The user-facing `skin` view shows this pass
//! without the hair. The same geometry casts the opaque shadow ([`SurfacesPass::record_light_depth`]).

use super::descriptors::{
    RenderPipelineSpec, camera_depth_in, camera_multisample, camera_targets, front_faces,
    light_depth, pipeline_layout, render_pipeline,
};
use super::environment::{EnvironmentBinding, EnvironmentMap, environment_layout};
use super::frame::{FrameBinding, View};
use super::mesh::{
    FLOOR_CENTER, FLOOR_RADIUS, Material, Mesh, SurfaceVertex, creature_skin, face, floor,
};
use super::mesh_lod::{DETAILS, SHADOW_LEVEL};
use super::shapes::{CapsuleDetail, DrawCapsule, capsule_mesh};
use super::target::{DEPTH_FORMAT, TargetLayout};
use crate::creature::{Creature, FaceLayout};
use crate::shaders::ShaderModule;
use wgpu::util::DeviceExt;

/// A vertex and index buffer pair that grows as needed.
#[derive(Debug)]
struct DynamicMesh {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
    /// Where the glossy triangles (the nails) begin.
    glossy_start: u32,
}

impl DynamicMesh {
    fn new(device: &wgpu::Device, label: &str, vertex_bytes: u64, index_count: u64) -> Self {
        DynamicMesh {
            vertices: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: vertex_bytes.max(64),
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            indices: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: (index_count * 4).max(64),
                usage: wgpu::BufferUsages::INDEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            index_count: 0,
            glossy_start: 0,
        }
    }

    /// Uploads `mesh`, whose triangles from index `glossy_start` on are glossy, growing the
    /// buffers when it does not fit.
    fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        mesh: &Mesh,
        glossy_start: u32,
    ) {
        let vertex_bytes: &[u8] = bytemuck::cast_slice(&mesh.vertices);
        let index_bytes: &[u8] = bytemuck::cast_slice(&mesh.indices);
        if vertex_bytes.len() as u64 > self.vertices.size()
            || index_bytes.len() as u64 > self.indices.size()
        {
            *self = DynamicMesh::new(
                device,
                "hand",
                (vertex_bytes.len() as u64).next_power_of_two(),
                (mesh.indices.len() as u64).next_power_of_two(),
            );
        }
        queue.write_buffer(&self.vertices, 0, vertex_bytes);
        queue.write_buffer(&self.indices, 0, index_bytes);
        self.index_count = mesh.indices.len() as u32;
        self.glossy_start = glossy_start.min(self.index_count);
    }

    /// Sets the buffers and draws `range` of the indices (nothing for an empty range).
    fn draw(&self, pass: &mut wgpu::RenderPass, range: std::ops::Range<u32>) {
        if range.is_empty() {
            return;
        }
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(range, 0, 0..1);
    }
}

/// The camera's two surface pipelines for one kind of target.
#[derive(Debug)]
pub struct SurfacePipelines {
    matte: wgpu::RenderPipeline,
    glossy: wgpu::RenderPipeline,
}

/// The surfaces pass: the creature's static mesh (skin, face, floor), the hand's mesh
/// rebuilt every frame, and three pipelines: matte, glossy (eyes, nose, nails: their
/// highlight costs the rest nothing, as a SIMD rasteriser runs every branch for every
/// pixel) and the key light's depth.
#[derive(Debug)]
pub struct SurfacesPass {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    /// Index ranges of `indices`: the skin and the face (glossy) at each level of detail
    /// (`mesh_lod::DETAILS`; the face no coarser than `mesh::face_detail` allows), the
    /// floor.
    skin_ranges: Vec<std::ops::Range<u32>>,
    face_ranges: Vec<std::ops::Range<u32>>,
    floor_range: std::ops::Range<u32>,
    hand: DynamicMesh,
    /// A body drawn in place of the creature's skin and face (world space, posed on the
    /// host and uploaded whenever it moves); `None` draws the creature.
    body: Option<DynamicMesh>,
    /// The module and the camera pipelines' layout, kept to build pipelines for other
    /// targets ([`SurfacesPass::pipelines_for`]).
    module: wgpu::ShaderModule,
    layout: wgpu::PipelineLayout,
    camera: SurfacePipelines,
    light_depth: wgpu::RenderPipeline,
    /// The environment map's layout and binding (group 1; the built-in sky without one).
    environment_layout: wgpu::BindGroupLayout,
    environment: EnvironmentBinding,
}

impl SurfacesPass {
    /// Tessellates `creature` and a floor at height `floor_height`, and compiles the
    /// pipelines for `target`, reading the frame (group 0) and the shadow maps
    /// (`shadow_inputs`, group 2).
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        creature: &Creature,
        floor_height: f32,
        frame: &wgpu::BindGroupLayout,
        shadow_inputs: &wgpu::BindGroupLayout,
        target: &TargetLayout,
    ) -> Self {
        // Every level of the skin, then every level of the face, then the floor, in one
        // buffer.
        let mut mesh = Mesh::default();
        let mut append = |part: Mesh| {
            let start = mesh.indices.len() as u32;
            mesh.append(&part);
            start..mesh.indices.len() as u32
        };
        let skin_ranges: Vec<_> = DETAILS
            .iter()
            .map(|&detail| append(creature_skin(creature, detail)))
            .collect();
        let face_ranges: Vec<_> = DETAILS
            .iter()
            .map(|&detail| append(face(creature, &FaceLayout::default(), detail)))
            .collect();
        let floor_range = append(floor(floor_height - 0.002, FLOOR_CENTER, FLOOR_RADIUS));
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("surfaces: vertices"),
            contents: bytemuck::cast_slice(&mesh.vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("surfaces: indices"),
            contents: bytemuck::cast_slice(&mesh.indices),
            usage: wgpu::BufferUsages::INDEX,
        });

        let module = ShaderModule::Surfaces.create(device);
        let vertex = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<SurfaceVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &SurfaceVertex::ATTRIBUTES,
        })];
        let environment_layout = environment_layout(device);
        let environment = EnvironmentBinding::new(device, queue, &environment_layout, None);
        let layout = pipeline_layout(
            device,
            "surfaces",
            &[Some(frame), Some(&environment_layout), Some(shadow_inputs)],
        );
        let camera = camera_pipelines(device, &layout, &module, target, DEPTH_FORMAT);
        let light_depth = render_pipeline(
            device,
            RenderPipelineSpec {
                label: "surfaces: light depth",
                layout: &pipeline_layout(device, "frame only", &[Some(frame)]),
                module: &module,
                vertex: "vs_surface_depth",
                buffers: &vertex,
                primitive: front_faces(),
                depth: Some(light_depth()),
                multisample: Default::default(),
                fragment: None,
            },
        );
        SurfacesPass {
            vertices,
            indices,
            skin_ranges,
            face_ranges,
            floor_range,
            hand: DynamicMesh::new(device, "hand", 64 * 1024, 16 * 1024),
            body: None,
            module,
            layout,
            camera,
            light_depth,
            environment_layout,
            environment,
        }
    }

    /// The camera's surface pipelines for other targets: colour format and samples of
    /// `target` (its ID target ignored: none is drawn), depth in `depth_format`.
    pub fn pipelines_for(
        &self,
        device: &wgpu::Device,
        target: &TargetLayout,
        depth_format: wgpu::TextureFormat,
    ) -> SurfacePipelines {
        let target = TargetLayout {
            ids: false,
            ..*target
        };
        camera_pipelines(device, &self.layout, &self.module, &target, depth_format)
    }

    /// Lights the surfaces with `map` (eyes and nose reflect it, the ambient term reads
    /// it), or with the built-in sky and ground for `None`.
    pub fn set_environment(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        map: Option<&EnvironmentMap>,
    ) {
        self.environment = EnvironmentBinding::new(device, queue, &self.environment_layout, map);
    }

    /// Rebuilds the hand's mesh from `capsules` (world space), each at the tessellation
    /// `detail` gives it: its matte capsules first, then its glossy nails. The upload
    /// lands at the next submission.
    pub fn upload_hand(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        capsules: &[DrawCapsule],
        detail: impl Fn(&DrawCapsule) -> CapsuleDetail,
    ) {
        let (nails, matte): (Vec<DrawCapsule>, Vec<DrawCapsule>) =
            capsules.iter().partition(|c| c.material == Material::Nail);
        let mut mesh = capsule_mesh(&matte, &detail);
        let glossy_start = mesh.indices.len() as u32;
        mesh.append(&capsule_mesh(&nails, &detail));
        self.hand.upload(device, queue, &mesh, glossy_start);
    }

    /// Draws `mesh` (world space, from [`super::mesh::body_surface`]) in place of the
    /// creature's skin and face, or the creature again for `None`. The upload lands at the
    /// next submission.
    pub fn set_body(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, mesh: Option<&Mesh>) {
        match mesh {
            None => self.body = None,
            Some(mesh) => {
                let body = self
                    .body
                    .get_or_insert_with(|| DynamicMesh::new(device, "body", 64, 16));
                body.upload(device, queue, mesh, mesh.indices.len() as u32);
            }
        }
    }

    /// Triangles of the hand as last uploaded.
    pub fn hand_triangles(&self) -> u32 {
        self.hand.index_count / 3
    }

    /// Bytes of GPU memory the pass holds.
    pub fn bytes(&self) -> u64 {
        self.vertices.size()
            + self.indices.size()
            + self.hand.vertices.size()
            + self.hand.indices.size()
            + self
                .body
                .as_ref()
                .map_or(0, |b| b.vertices.size() + b.indices.size())
            + self.environment.bytes
    }

    fn draw_static(&self, pass: &mut wgpu::RenderPass, range: std::ops::Range<u32>) {
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(range, 0, 0..1);
    }

    /// Triangles of the skin at each level of detail, finest first.
    pub fn skin_triangles(&self) -> Vec<u32> {
        self.skin_ranges
            .iter()
            .map(|r| r.len() as u32 / 3)
            .collect()
    }

    /// The skin's index range at `level` (the coarsest past the last).
    fn skin(&self, level: usize) -> std::ops::Range<u32> {
        self.skin_ranges[level.min(self.skin_ranges.len() - 1)].clone()
    }

    /// The face's index range at `level` (the coarsest past the last).
    fn face(&self, level: usize) -> std::ops::Range<u32> {
        self.face_ranges[level.min(self.face_ranges.len() - 1)].clone()
    }

    /// Triangles of the face (eyes and nose) at each level of detail, finest first.
    pub fn face_triangles(&self) -> Vec<u32> {
        self.face_ranges
            .iter()
            .map(|r| r.len() as u32 / 3)
            .collect()
    }

    /// Records the surfaces as the camera sees them into `pass`, lit with the shadow maps
    /// (`shadow_inputs`), the skin and the face at level of detail `skin_level`
    /// (`mesh_lod::DETAILS`).
    pub fn record(
        &self,
        pass: &mut wgpu::RenderPass,
        frame: &FrameBinding,
        shadow_inputs: &wgpu::BindGroup,
        skin_level: usize,
    ) {
        self.record_with(pass, &self.camera, frame, shadow_inputs, skin_level, true);
    }

    /// [`SurfacesPass::record`] with `pipelines` (this pass's, or from
    /// [`SurfacesPass::pipelines_for`]), the floor only if `floor`.
    pub fn record_with(
        &self,
        pass: &mut wgpu::RenderPass,
        pipelines: &SurfacePipelines,
        frame: &FrameBinding,
        shadow_inputs: &wgpu::BindGroup,
        skin_level: usize,
        floor: bool,
    ) {
        pass.set_pipeline(&pipelines.matte);
        frame.bind(pass, View::Camera);
        pass.set_bind_group(1, &self.environment.bind_group, &[]);
        pass.set_bind_group(2, shadow_inputs, &[]);
        match &self.body {
            Some(body) => body.draw(pass, 0..body.index_count),
            None => self.draw_static(pass, self.skin(skin_level)),
        }
        if floor {
            self.draw_static(pass, self.floor_range.clone());
        }
        self.hand.draw(pass, 0..self.hand.glossy_start);
        pass.set_pipeline(&pipelines.glossy);
        if self.body.is_none() {
            self.draw_static(pass, self.face(skin_level));
        }
        self.hand
            .draw(pass, self.hand.glossy_start..self.hand.index_count);
    }

    /// Records the surfaces that cast the opaque shadow (creature, face, hand; not the
    /// floor) as the key light sees them: the skin at the coarse `mesh_lod::SHADOW_LEVEL`.
    pub fn record_light_depth(&self, pass: &mut wgpu::RenderPass, frame: &FrameBinding) {
        pass.set_pipeline(&self.light_depth);
        frame.bind(pass, View::Light);
        match &self.body {
            Some(body) => body.draw(pass, 0..body.index_count),
            None => {
                self.draw_static(pass, self.skin(SHADOW_LEVEL));
                self.draw_static(pass, self.face(SHADOW_LEVEL));
            }
        }
        self.hand.draw(pass, 0..self.hand.index_count);
    }
}

/// The camera's matte and glossy surface pipelines for `target`, depth in `depth_format`.
fn camera_pipelines(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    target: &TargetLayout,
    depth_format: wgpu::TextureFormat,
) -> SurfacePipelines {
    let vertex = [Some(wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<SurfaceVertex>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &SurfaceVertex::ATTRIBUTES,
    })];
    let targets = camera_targets(target, None);
    let shaded = |label, fragment| {
        render_pipeline(
            device,
            RenderPipelineSpec {
                label,
                layout,
                module,
                vertex: "vs_surface",
                buffers: &vertex,
                primitive: front_faces(),
                depth: Some(camera_depth_in(depth_format, true)),
                multisample: camera_multisample(target.samples),
                fragment: Some((fragment, &targets)),
            },
        )
    };
    SurfacePipelines {
        matte: shaded("surfaces: matte", "fs_matte"),
        glossy: shaded("surfaces: glossy", "fs_glossy"),
    }
}
