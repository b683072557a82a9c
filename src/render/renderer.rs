//! [`FurRenderer`]: draws one frame of the creature (shadow maps, skin, ribbons, overlay)
//! into targets the caller owns, from the solver's position buffers and a [`Scene`].

use super::RenderError;
use super::camera::Camera;
use super::capture::{Image, read_image};
use super::culling::{CULL_FLAG_BYTES, CULL_WORKGROUP, CullUniforms, cull_uniforms};
use super::debug::DebugMode;
use super::mesh::{Material, Mesh, creature_skin, face, floor};
use super::palette::{Lighting, Srgb};
use super::pipelines::{Layouts, Pipelines};
use super::proxies::{LineVertex, hit_marker, proxy_lines};
use super::ribbons::{INDICES_PER_STRAND, RibbonStrand, STRANDS_PER_BATCH, batch_indices};
use super::shadow::{ShadowMaps, light_frame, slab_uniform};
use super::shapes::{DrawCapsule, capsule_mesh};
use super::target::{FrameTargets, OFFSCREEN_FORMAT, OffscreenTarget, TargetLayout};
use super::uniforms::{
    FrameUniforms, HandCapsuleUniform, MAX_HAND_CAPSULES, PassView, uniform_bytes,
};
use crate::creature::{Creature, CreaturePose, FaceLayout, RayHit};
use crate::sim::{FurSim, POINTS_PER_STRAND};
use encase::ShaderType;
use glam::{Affine3A, Mat4, UVec4, Vec2, Vec3, Vec4};
use wgpu::util::DeviceExt;

/// Choices fixed when the renderer is built or rarely changed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderSettings {
    /// Texels along each side of the shadow maps.
    pub shadow_map_size: u32,
    /// Whether the hair casts shadows (on the skin and on itself).
    pub hair_casts_shadows: bool,
    /// Ribbon width at the root, metres (the seed's 0.0034).
    pub root_width: f32,
    /// Width at the tip as a share of the root's (the seed's 15%).
    pub tip_width: f32,
    /// Share of the length, at the tip, over which a strand fades out (the seed's 20%).
    pub tip_fade: f32,
    /// Narrowest drawn ribbon in pixels; narrower strands are drawn this wide and that
    /// much fainter.
    pub min_pixels: f32,
    /// How much light one fully covering strand stops, in the deep opacity map.
    pub hair_density: f32,
    /// Distance over which the hand's occlusion fades, metres.
    pub hand_occlusion_falloff: f32,
    /// Height of the floor drawn under the creature, metres: the solver's floor
    /// ([`crate::sim::FurParams::floor`]), so strands rest on what is drawn.
    pub floor: f32,
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            shadow_map_size: 1024,
            hair_casts_shadows: true,
            root_width: 0.0034,
            tip_width: 0.15,
            tip_fade: 0.2,
            min_pixels: 1.0,
            hair_density: 0.35,
            hand_occlusion_falloff: 0.06,
            floor: crate::sim::FurParams::default().floor,
        }
    }
}

impl RenderSettings {
    /// Checks every field against its range (`max_texture` bounds the shadow maps); the
    /// error names the first that is out of it.
    fn validate(&self, max_texture: u32) -> Result<(), RenderError> {
        let bad = |field: &str, value: String, range: &str| {
            Err(RenderError::Settings(format!(
                "{field} is {value}; it must be {range}"
            )))
        };
        let positive = |v: f32| v.is_finite() && v > 0.0;
        let share = |v: f32| v.is_finite() && (0.0..=1.0).contains(&v);
        if !positive(self.root_width) {
            return bad(
                "root_width",
                self.root_width.to_string(),
                "a positive number of metres",
            );
        }
        if !share(self.tip_width) {
            return bad("tip_width", self.tip_width.to_string(), "between 0 and 1");
        }
        if !share(self.tip_fade) {
            return bad("tip_fade", self.tip_fade.to_string(), "between 0 and 1");
        }
        if !(self.min_pixels.is_finite() && self.min_pixels >= 0.0) {
            return bad(
                "min_pixels",
                self.min_pixels.to_string(),
                "a finite number ≥ 0",
            );
        }
        if !(self.hair_density.is_finite() && self.hair_density >= 0.0) {
            return bad(
                "hair_density",
                self.hair_density.to_string(),
                "a finite number ≥ 0",
            );
        }
        if !positive(self.hand_occlusion_falloff) {
            return bad(
                "hand_occlusion_falloff",
                self.hand_occlusion_falloff.to_string(),
                "a positive number of metres",
            );
        }
        if !self.floor.is_finite() {
            return bad("floor", self.floor.to_string(), "a finite height");
        }
        let max = max_texture.min(8192);
        if !(16..=max).contains(&self.shadow_map_size) {
            return bad(
                "shadow_map_size",
                self.shadow_map_size.to_string(),
                &format!("16 to {max} texels (this device's largest texture)"),
            );
        }
        Ok(())
    }
}

/// What one frame shows: camera, creature pose, lights, hand and diagnostics.
#[derive(Clone, Debug)]
pub struct Scene<'a> {
    /// The camera.
    pub camera: Camera,
    /// Where the head, body and tail bones are (the pose of the solver's last step).
    pub pose: CreaturePose,
    /// Which view to draw.
    pub mode: DebugMode,
    /// The lights.
    pub lighting: Lighting,
    /// Capsules to draw in world space: the hand (its skin-material capsules also darken
    /// the fur near them).
    pub hand: &'a [DrawCapsule],
    /// Strength of the hand's soft occlusion, 0 … 1.
    pub hand_occlusion: f32,
    /// How far the eyes are narrowed, 0 open … 1 nearly shut.
    pub eye_narrowing: f32,
    /// The last ray hit, drawn in the `contact` view.
    pub ray_hit: Option<RayHit>,
    /// Which of the solver's two position buffers holds the latest positions.
    pub positions_index: usize,
}

impl<'a> Scene<'a> {
    /// The creature at `pose` from `camera`, no hand, default lights, final view.
    pub fn new(camera: Camera, pose: CreaturePose) -> Self {
        Scene {
            camera,
            pose,
            mode: DebugMode::Final,
            lighting: Lighting::default(),
            hand: &[],
            hand_occlusion: 0.0,
            eye_narrowing: 0.0,
            ray_hit: None,
            positions_index: 0,
        }
    }

    fn validate(&self) -> Result<(), RenderError> {
        self.camera.validate()?;
        if !self.lighting.is_valid() {
            return Err(RenderError::Scene(format!(
                "the lighting has a non-finite number or a zero direction: {:?}",
                self.lighting
            )));
        }
        let pose_ok = self.pose.head.is_finite()
            && self.pose.body.is_finite()
            && self.pose.tail.iter().all(|t| t.is_finite());
        if !pose_ok {
            return Err(RenderError::Scene(
                "the creature's pose is not finite".into(),
            ));
        }
        if !(self.hand_occlusion.is_finite() && self.eye_narrowing.is_finite()) {
            return Err(RenderError::Scene(
                "hand occlusion or eye narrowing is not finite".into(),
            ));
        }
        Ok(())
    }
}

/// The strands bound for drawing.
#[derive(Debug)]
struct StrandBinding {
    count: u32,
    bind_groups: [wgpu::BindGroup; 2],
    buffer: wgpu::Buffer,
    /// One flag per strand: hidden from the camera this frame (the cull pass writes it).
    culled: wgpu::Buffer,
    /// The cull pass's groups, one per position buffer.
    cull_groups: [wgpu::BindGroup; 2],
}

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
}

/// Optional GPU timestamps around the frame's three groups of passes.
#[derive(Debug)]
struct Timestamps {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    period_ns: f32,
}

/// Milliseconds the GPU spent in each group of passes of the last timed frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassTimings {
    /// Shadow maps: opaque depth, first hair depth, deep opacity.
    pub shadow_ms: f64,
    /// Skin, face, hand and floor.
    pub skin_ms: f64,
    /// The camera's strand culling, the ribbons (and the contact overlay).
    pub ribbons_ms: f64,
}

/// The fur renderer. Built for one [`TargetLayout`] on a device; draws frames into targets
/// the caller owns (a window's surface, or an [`OffscreenTarget`]). Frees its GPU resources
/// when dropped.
#[derive(Debug)]
pub struct FurRenderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    layout: TargetLayout,
    settings: RenderSettings,
    layouts: Layouts,
    pipelines: Pipelines,
    frame_uniforms: wgpu::Buffer,
    views: wgpu::Buffer,
    view_stride: u64,
    frame_group: wgpu::BindGroup,
    shadows: ShadowMaps,
    shadow_inputs: wgpu::BindGroup,
    first_hair: wgpu::BindGroup,
    batch_indices: wgpu::Buffer,
    strands: Option<StrandBinding>,
    surfaces: wgpu::Buffer,
    surface_indices: wgpu::Buffer,
    /// Index ranges of `surface_indices`: the creature and its face (cast shadows), the
    /// face alone (glossy), the floor.
    creature_range: std::ops::Range<u32>,
    face_range: std::ops::Range<u32>,
    floor_range: std::ops::Range<u32>,
    hand: DynamicMesh,
    proxies: wgpu::Buffer,
    proxy_count: u32,
    marker: wgpu::Buffer,
    timestamps: Option<Timestamps>,
    static_bytes: u64,
    /// The shapes the cull pass hides strands behind.
    creature: Creature,
    cull_uniforms: wgpu::Buffer,
    /// Whether the camera's ribbons skip the strands hidden behind the creature.
    hair_culling: bool,
    /// Whether the last frame ran the cull pass (its flags are then readable).
    culled_last_frame: bool,
}

/// The linear colour behind the creature.
pub const BACKGROUND: Vec3 = Vec3::new(0.030, 0.034, 0.044);

fn mat4(a: &Affine3A) -> Mat4 {
    Mat4::from(*a)
}

impl FurRenderer {
    /// Builds the pipelines and the creature's meshes for frames of `layout`. GPU errors
    /// (an adapter without storage buffers in vertex shaders, for one) are returned, not
    /// raised.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        layout: TargetLayout,
        creature: &Creature,
        settings: RenderSettings,
    ) -> Result<Self, RenderError> {
        settings.validate(device.limits().max_texture_dimension_2d)?;
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let layouts = Layouts::new(device);
        let pipelines = Pipelines::new(device, &layouts, &layout);

        let frame_uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render: frame uniforms"),
            size: FrameUniforms::min_size().get(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let align = u64::from(device.limits().min_uniform_buffer_offset_alignment).max(16);
        let view_size = PassView::min_size().get();
        let view_stride = view_size.div_ceil(align) * align;
        let views = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render: pass views"),
            size: view_stride * 2,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render: frame"),
            layout: &layouts.frame,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: frame_uniforms.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &views,
                        offset: 0,
                        size: wgpu::BufferSize::new(view_size),
                    }),
                },
            ],
        });

        let shadows = ShadowMaps::new(device, settings.shadow_map_size);
        let shadow_inputs = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render: shadow maps"),
            layout: &layouts.shadow_inputs,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&shadows.skin_depth),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&shadows.first_hair),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::TextureView(&shadows.deep_opacity),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::Sampler(&shadows.compare),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: wgpu::BindingResource::Sampler(&shadows.linear),
                },
            ],
        });
        let first_hair = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render: first hair"),
            layout: &layouts.first_hair,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&shadows.first_hair),
            }],
        });

        let indices = batch_indices();
        let batch_indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("ribbons: batch indices"),
            contents: bytemuck::cast_slice(&indices),
            usage: wgpu::BufferUsages::INDEX,
        });

        let mut mesh = creature_skin(creature, 1.0);
        let skin_end = mesh.indices.len() as u32;
        mesh.append(&face(creature, &FaceLayout::default()));
        let creature_end = mesh.indices.len() as u32;
        mesh.append(&floor(settings.floor - 0.002, Vec2::new(0.0, -0.4), 4.0));
        let floor_range = creature_end..mesh.indices.len() as u32;
        let surfaces = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skin: vertices"),
            contents: bytemuck::cast_slice(&mesh.vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let surface_indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skin: indices"),
            contents: bytemuck::cast_slice(&mesh.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        let hand = DynamicMesh::new(device, "hand", 64 * 1024, 16 * 1024);
        let lines = proxy_lines(creature);
        let proxies = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("contact: proxies"),
            contents: bytemuck::cast_slice(&lines),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let marker = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("contact: ray hit"),
            size: (6 * std::mem::size_of::<LineVertex>()) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let cull_uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("strand cull: uniforms"),
            size: CullUniforms::min_size().get(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let static_bytes = frame_uniforms.size()
            + cull_uniforms.size()
            + views.size()
            + shadows.bytes
            + batch_indices.size()
            + surfaces.size()
            + surface_indices.size()
            + hand.vertices.size()
            + hand.indices.size()
            + proxies.size()
            + marker.size();

        let oom = pollster::block_on(memory.pop());
        let invalid = pollster::block_on(validation.pop());
        if let Some(e) = invalid.or(oom) {
            return Err(RenderError::Gpu(e.to_string()));
        }
        Ok(FurRenderer {
            device: device.clone(),
            queue: queue.clone(),
            layout,
            settings,
            layouts,
            pipelines,
            frame_uniforms,
            views,
            view_stride,
            frame_group,
            shadows,
            shadow_inputs,
            first_hair,
            batch_indices,
            strands: None,
            surfaces,
            surface_indices,
            creature_range: 0..creature_end,
            face_range: skin_end..creature_end,
            floor_range,
            hand,
            proxies,
            proxy_count: lines.len() as u32,
            marker,
            timestamps: None,
            static_bytes,
            creature: creature.clone(),
            cull_uniforms,
            hair_culling: true,
            culled_last_frame: false,
        })
    }

    /// The layout frames are drawn for.
    pub fn layout(&self) -> TargetLayout {
        self.layout
    }

    /// The settings.
    pub fn settings(&self) -> &RenderSettings {
        &self.settings
    }

    /// Whether the hair casts shadows (a switch for comparisons; on by default).
    pub fn set_hair_casts_shadows(&mut self, on: bool) {
        self.settings.hair_casts_shadows = on;
    }

    /// Binds strands to draw: the solver's two position buffers (six `vec4` per strand,
    /// used in turn; pass the same buffer twice if there is one) and one packed record per
    /// strand. The ribbons read the positions straight from these buffers every frame.
    pub fn set_strands(
        &mut self,
        positions: [&wgpu::Buffer; 2],
        strands: &[RibbonStrand],
    ) -> Result<(), RenderError> {
        let needed = strands.len() as u64 * POINTS_PER_STRAND as u64 * 16;
        if strands.is_empty() || positions.iter().any(|b| b.size() < needed) {
            return Err(RenderError::Strands(format!(
                "{} strands need position buffers of {needed} bytes; got {} and {}",
                strands.len(),
                positions[0].size(),
                positions[1].size()
            )));
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let buffer = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("ribbons: strands"),
                contents: bytemuck::cast_slice(strands),
                usage: wgpu::BufferUsages::STORAGE,
            });
        let culled = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ribbons: culled for the camera"),
            size: strands.len() as u64 * CULL_FLAG_BYTES,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let group = |p: &wgpu::Buffer| {
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("ribbons: strands"),
                layout: &self.layouts.strands,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: p.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: culled.as_entire_binding(),
                    },
                ],
            })
        };
        let bind_groups = [group(positions[0]), group(positions[1])];
        let cull_group = |p: &wgpu::Buffer| {
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("strand cull"),
                layout: &self.layouts.cull,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: p.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: culled.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: self.cull_uniforms.as_entire_binding(),
                    },
                ],
            })
        };
        let cull_groups = [cull_group(positions[0]), cull_group(positions[1])];
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(RenderError::Gpu(e.to_string()));
        }
        self.strands = Some(StrandBinding {
            count: strands.len() as u32,
            bind_groups,
            buffer,
            culled,
            cull_groups,
        });
        self.culled_last_frame = false;
        Ok(())
    }

    /// Binds the strands of a GPU-stepped [`FurSim`]. Errors for a CPU-stepped one (its
    /// positions live on the host).
    pub fn set_strands_from_sim(&mut self, sim: &FurSim) -> Result<(), RenderError> {
        let gpu = sim.gpu().ok_or_else(|| {
            RenderError::Strands(
                "the renderer draws a GPU-stepped simulation; this one steps on the CPU".into(),
            )
        })?;
        let [a, b] = gpu.position_buffers();
        let strands = RibbonStrand::from_roots(&sim.groom().roots);
        self.set_strands([a, b], &strands)
    }

    /// Bytes of GPU memory the renderer holds besides the solver's buffers (targets not
    /// included; see [`FrameTargets::bytes`]).
    pub fn memory_bytes(&self) -> u64 {
        self.static_bytes
            + self
                .strands
                .as_ref()
                .map_or(0, |s| s.buffer.size() + s.culled.size())
    }

    /// Whether the camera's ribbons skip the strands hidden behind the creature's body and
    /// head or wholly outside the view (on by default). Culling changes no pixel; the
    /// switch is for comparisons.
    pub fn set_hair_culling(&mut self, on: bool) {
        self.hair_culling = on;
    }

    /// How many strands the last frame's cull pass kept from the camera, or `None` when
    /// that frame drew no hair with culling (waits for the GPU).
    pub fn culled_strands(&self) -> Result<Option<u32>, RenderError> {
        let Some(strands) = self.strands.as_ref().filter(|_| self.culled_last_frame) else {
            return Ok(None);
        };
        let bytes = crate::sim::read_buffer(&self.device, &self.queue, &strands.culled)
            .map_err(|e| RenderError::Gpu(e.to_string()))?;
        let flags: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
        Ok(Some(flags.iter().filter(|&&f| f != 0).count() as u32))
    }

    /// Turns on GPU timestamps around the frame's passes, if the device has the
    /// `TIMESTAMP_QUERY` feature. Returns whether it did.
    pub fn enable_timing(&mut self) -> bool {
        if !self
            .device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
        {
            return false;
        }
        let count = 6;
        let queries = self.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("render timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let size = u64::from(count) * 8;
        let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render timestamps"),
            size,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        self.timestamps = Some(Timestamps {
            queries,
            resolve,
            period_ns: self.queue.get_timestamp_period(),
        });
        true
    }

    /// The pass timings of the last frame rendered with timing on (waits for the GPU).
    pub fn read_timings(&self) -> Result<Option<PassTimings>, RenderError> {
        let Some(ts) = &self.timestamps else {
            return Ok(None);
        };
        let bytes = crate::sim::read_buffer(&self.device, &self.queue, &ts.resolve)
            .map_err(|e| RenderError::Gpu(e.to_string()))?;
        let t: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
        let ms =
            |a: usize, b: usize| t[b].saturating_sub(t[a]) as f64 * f64::from(ts.period_ns) / 1e6;
        Ok(Some(PassTimings {
            shadow_ms: ms(0, 1),
            skin_ms: ms(2, 3),
            ribbons_ms: ms(4, 5),
        }))
    }

    fn timestamp_writes(&self, pass: u32) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        self.timestamps
            .as_ref()
            .map(|ts| wgpu::RenderPassTimestampWrites {
                query_set: &ts.queries,
                beginning_of_pass_write_index: Some(2 * pass),
                end_of_pass_write_index: Some(2 * pass + 1),
            })
    }

    fn frame_uniforms(
        &self,
        scene: &Scene,
        size: (u32, u32),
        cull: bool,
    ) -> (FrameUniforms, PassView, PassView) {
        let (w, h) = (size.0 as f32, size.1 as f32);
        let camera = &scene.camera;
        let view_proj = camera.view_proj(w / h);
        let l = &scene.lighting;
        let (light_view_proj, light_range, light_view) =
            light_frame(l.key_direction, self.shadows.size);
        let mut hand = [HandCapsuleUniform::default(); MAX_HAND_CAPSULES];
        let mut hand_count = 0;
        for c in scene
            .hand
            .iter()
            .filter(|c| c.material == Material::Hand && c.is_valid())
            .take(MAX_HAND_CAPSULES)
        {
            hand[hand_count] = HandCapsuleUniform {
                a_radius: c.a.extend(c.radius),
                b: c.b.extend(0.0),
            };
            hand_count += 1;
        }
        let s = &self.settings;
        let strands = self.strands.as_ref().map_or(0, |b| b.count);
        let frame = FrameUniforms {
            view_proj,
            light_view_proj,
            eye: camera.eye.extend(1.0),
            viewport: Vec4::new(w, h, 1.0 / w, 1.0 / h),
            light_dir: l.key_direction.normalize().extend(l.key_irradiance),
            light_color: l.key_color.extend(1.0),
            fill_dir: l.fill_direction.normalize().extend(l.fill_irradiance),
            sky: l.sky.extend(0.0),
            ground: l.ground.extend(0.0),
            shadow: Vec4::new(
                2.0 * super::shadow::SHADOW_RADIUS / self.shadows.size as f32,
                light_range,
                s.hair_density,
                0.006,
            ),
            slabs: slab_uniform(),
            coat_main: Srgb::MAIN.linear().extend(1.0),
            coat_cream: Srgb::CREAM.linear().extend(1.0),
            coat_stripe: Srgb::STRIPE.linear().extend(1.0),
            coat_blush: Srgb::BLUSH.linear().extend(1.0),
            head: mat4(&scene.pose.head),
            body: mat4(&scene.pose.body),
            tail: scene.pose.tail.map(|t| mat4(&t)),
            hand,
            hand_info: Vec4::new(
                hand_count as f32,
                scene.hand_occlusion.clamp(0.0, 1.0),
                s.hand_occlusion_falloff,
                0.0,
            ),
            face: Vec4::new(scene.eye_narrowing.clamp(0.0, 1.0), 0.0, 0.0, 0.0),
            ribbon: Vec4::new(s.root_width, s.tip_width, s.tip_fade, s.min_pixels),
            look: Vec4::new(l.exposure, 0.0, 0.0, 0.0),
            background: BACKGROUND.extend(1.0),
            counts: UVec4::new(
                strands,
                self.layout.samples,
                u32::from(s.hair_casts_shadows),
                u32::from(cull),
            ),
        };
        let camera_view = PassView {
            view_proj,
            eye: camera.eye.extend(1.0),
            forward: camera.forward().extend(camera.pixel_scale(size.1)),
        };
        (frame, camera_view, light_view)
    }

    /// Records one frame into `encoder`: shadow maps, then the surfaces and the hair into
    /// `targets`, resolved into `output` (a view of the caller's surface or offscreen
    /// texture, `targets.size` large, in the layout's colour format).
    ///
    /// One frame per submission: the frame's uniforms and the hand's mesh are written
    /// through the queue and land when the encoder is submitted, so submit each frame before
    /// recording the next (two views of one scene need two submissions).
    pub fn render(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &FrameTargets,
        output: &wgpu::TextureView,
        scene: &Scene,
    ) -> Result<(), RenderError> {
        scene.validate()?;
        let texture = output.texture();
        if (texture.width(), texture.height()) != targets.size {
            return Err(RenderError::Scene(format!(
                "the output is {}×{} but the frame targets are {}×{}: make the targets for the output's size",
                texture.width(),
                texture.height(),
                targets.size.0,
                targets.size.1
            )));
        }
        if targets.samples != self.layout.samples
            || texture.format().add_srgb_suffix() != self.layout.color_format.add_srgb_suffix()
        {
            return Err(RenderError::Scene(format!(
                "the output ({:?}) or frame targets ({} samples) do not match the renderer's layout ({:?}, {} samples)",
                texture.format(),
                targets.samples,
                self.layout.color_format,
                self.layout.samples
            )));
        }
        let mode = scene.mode;
        // The camera skips hidden strands only where the skin that hides them is drawn.
        let cull = self.hair_culling
            && mode.draws_surfaces()
            && mode.draws_hair()
            && self.strands.is_some();
        let (frame, camera_view, light_view) = self.frame_uniforms(scene, targets.size, cull);
        self.culled_last_frame = cull;
        self.queue
            .write_buffer(&self.frame_uniforms, 0, &uniform_bytes(&frame)?);
        self.queue
            .write_buffer(&self.views, 0, &uniform_bytes(&camera_view)?);
        self.queue
            .write_buffer(&self.views, self.view_stride, &uniform_bytes(&light_view)?);
        // The hand's matte capsules first, then its glossy nails (their own pipeline).
        let shown = if mode.draws_surfaces() {
            scene.hand
        } else {
            &[]
        };
        let (nails, matte): (Vec<DrawCapsule>, Vec<DrawCapsule>) =
            shown.iter().partition(|c| c.material == Material::Nail);
        let mut hand_mesh = capsule_mesh(&matte);
        let glossy_start = hand_mesh.indices.len() as u32;
        hand_mesh.append(&capsule_mesh(&nails));
        self.hand
            .upload(&self.device, &self.queue, &hand_mesh, glossy_start);
        let marker = scene
            .ray_hit
            .map(|h| hit_marker(h.point, h.normal))
            .unwrap_or_default();
        if !marker.is_empty() {
            self.queue
                .write_buffer(&self.marker, 0, bytemuck::cast_slice(&marker));
        }
        let camera_offset = 0u32;
        let light_offset = self.view_stride as u32;
        let index_per_batch = STRANDS_PER_BATCH * INDICES_PER_STRAND;
        let hair = self.strands.as_ref().map(|s| {
            (
                s,
                s.count.div_ceil(STRANDS_PER_BATCH),
                &s.bind_groups[scene.positions_index & 1],
            )
        });
        let hair_shadows = self.settings.hair_casts_shadows;

        // The key light's maps.
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow: opaque depth"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.shadows.skin_depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: self.timestamps.as_ref().map(|ts| {
                    wgpu::RenderPassTimestampWrites {
                        query_set: &ts.queries,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: None,
                    }
                }),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.pipelines.skin_depth);
            pass.set_bind_group(0, &self.frame_group, &[light_offset]);
            pass.set_vertex_buffer(0, self.surfaces.slice(..));
            pass.set_index_buffer(self.surface_indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(self.creature_range.clone(), 0, 0..1);
            if self.hand.index_count > 0 {
                pass.set_vertex_buffer(0, self.hand.vertices.slice(..));
                pass.set_index_buffer(self.hand.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..self.hand.index_count, 0, 0..1);
            }
        }
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow: first hair depth"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.shadows.first_hair,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::WHITE),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.shadows.hair_depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if let (Some((_, batches, strands)), true) = (hair, hair_shadows) {
                pass.set_pipeline(&self.pipelines.ribbon_hair_depth);
                pass.set_bind_group(0, &self.frame_group, &[light_offset]);
                pass.set_bind_group(1, strands, &[]);
                pass.set_index_buffer(self.batch_indices.slice(..), wgpu::IndexFormat::Uint16);
                pass.draw_indexed(0..index_per_batch, 0, 0..batches);
            }
        }
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow: deep opacity"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.shadows.deep_opacity,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: self.timestamps.as_ref().map(|ts| {
                    wgpu::RenderPassTimestampWrites {
                        query_set: &ts.queries,
                        beginning_of_pass_write_index: None,
                        end_of_pass_write_index: Some(1),
                    }
                }),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if let (Some((_, batches, strands)), true) = (hair, hair_shadows) {
                pass.set_pipeline(&self.pipelines.ribbon_deep_opacity);
                pass.set_bind_group(0, &self.frame_group, &[light_offset]);
                pass.set_bind_group(1, strands, &[]);
                pass.set_bind_group(2, &self.first_hair, &[]);
                pass.set_index_buffer(self.batch_indices.slice(..), wgpu::IndexFormat::Uint16);
                pass.draw_indexed(0..index_per_batch, 0, 0..batches);
            }
        }

        // The camera's passes: surfaces, then hair and overlay, resolved into the output.
        let msaa = targets.color.as_ref();
        let color_view = msaa.unwrap_or(output);
        let ids_view = targets.ids.as_ref();
        let background = wgpu::Color {
            r: f64::from(BACKGROUND.x),
            g: f64::from(BACKGROUND.y),
            b: f64::from(BACKGROUND.z),
            a: 1.0,
        };
        let attachments = |clear: bool, last: bool| {
            let color_load = if clear {
                wgpu::LoadOp::Clear(background)
            } else {
                wgpu::LoadOp::Load
            };
            let id_load = if clear {
                wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT)
            } else {
                wgpu::LoadOp::Load
            };
            [
                Some(wgpu::RenderPassColorAttachment {
                    view: color_view,
                    depth_slice: None,
                    resolve_target: if last { msaa.map(|_| output) } else { None },
                    ops: wgpu::Operations {
                        load: color_load,
                        store: if last && msaa.is_some() {
                            wgpu::StoreOp::Discard
                        } else {
                            wgpu::StoreOp::Store
                        },
                    },
                }),
                ids_view.map(|view| wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: id_load,
                        store: wgpu::StoreOp::Store,
                    },
                }),
            ]
        };
        let depth = |clear: bool| wgpu::RenderPassDepthStencilAttachment {
            view: &targets.depth,
            depth_ops: Some(wgpu::Operations {
                load: if clear {
                    wgpu::LoadOp::Clear(0.0)
                } else {
                    wgpu::LoadOp::Load
                },
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: None,
        };
        {
            let color = attachments(true, false);
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("surfaces"),
                color_attachments: &color,
                depth_stencil_attachment: Some(depth(true)),
                timestamp_writes: self.timestamp_writes(1),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if mode.draws_surfaces() {
                pass.set_pipeline(&self.pipelines.skin);
                pass.set_bind_group(0, &self.frame_group, &[camera_offset]);
                pass.set_bind_group(2, &self.shadow_inputs, &[]);
                pass.set_vertex_buffer(0, self.surfaces.slice(..));
                pass.set_index_buffer(self.surface_indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..self.face_range.start, 0, 0..1);
                pass.draw_indexed(self.floor_range.clone(), 0, 0..1);
                let hand = &self.hand;
                if hand.glossy_start > 0 {
                    pass.set_vertex_buffer(0, hand.vertices.slice(..));
                    pass.set_index_buffer(hand.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(0..hand.glossy_start, 0, 0..1);
                }
                pass.set_pipeline(&self.pipelines.skin_glossy);
                pass.set_vertex_buffer(0, self.surfaces.slice(..));
                pass.set_index_buffer(self.surface_indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(self.face_range.clone(), 0, 0..1);
                if hand.index_count > hand.glossy_start {
                    pass.set_vertex_buffer(0, hand.vertices.slice(..));
                    pass.set_index_buffer(hand.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(hand.glossy_start..hand.index_count, 0, 0..1);
                }
            }
        }
        // Which strands the camera cannot see; timed with the ribbons it spares.
        let mut ribbon_timestamps = self.timestamp_writes(2);
        if let (Some((binding, _, _)), true) = (hair, cull) {
            let uniforms = cull_uniforms(
                &self.creature,
                &scene.pose,
                &scene.camera,
                targets.size,
                &self.settings,
                binding.count,
                true,
            );
            self.queue
                .write_buffer(&self.cull_uniforms, 0, &uniform_bytes(&uniforms)?);
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("strand cull"),
                timestamp_writes: self.timestamps.as_ref().map(|ts| {
                    wgpu::ComputePassTimestampWrites {
                        query_set: &ts.queries,
                        beginning_of_pass_write_index: Some(4),
                        end_of_pass_write_index: None,
                    }
                }),
            });
            pass.set_pipeline(&self.pipelines.cull);
            pass.set_bind_group(0, &binding.cull_groups[scene.positions_index & 1], &[]);
            pass.dispatch_workgroups(binding.count.div_ceil(CULL_WORKGROUP), 1, 1);
            if let Some(ts) = ribbon_timestamps.as_mut() {
                ts.beginning_of_pass_write_index = None;
            }
        }
        {
            let color = attachments(false, true);
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("ribbons"),
                color_attachments: &color,
                depth_stencil_attachment: Some(depth(false)),
                timestamp_writes: ribbon_timestamps,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if let (Some((_, batches, strands)), true) = (hair, mode.draws_hair()) {
                pass.set_pipeline(if mode == DebugMode::Contact {
                    &self.pipelines.ribbon_contact
                } else {
                    &self.pipelines.ribbon_final
                });
                pass.set_bind_group(0, &self.frame_group, &[camera_offset]);
                pass.set_bind_group(1, strands, &[]);
                pass.set_bind_group(2, &self.shadow_inputs, &[]);
                pass.set_index_buffer(self.batch_indices.slice(..), wgpu::IndexFormat::Uint16);
                pass.draw_indexed(0..index_per_batch, 0, 0..batches);
            }
            if mode == DebugMode::Contact {
                pass.set_pipeline(&self.pipelines.lines);
                pass.set_bind_group(0, &self.frame_group, &[camera_offset]);
                pass.set_vertex_buffer(0, self.proxies.slice(..));
                pass.draw(0..self.proxy_count, 0..1);
                if !marker.is_empty() {
                    pass.set_vertex_buffer(0, self.marker.slice(..));
                    pass.draw(0..marker.len() as u32, 0..1);
                }
            }
        }
        if let (Some(pipeline), Some(drawn), Some(resolved)) = (
            &self.pipelines.id_resolve,
            targets.ids.as_ref(),
            targets.ids_resolved.as_ref(),
        ) {
            let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("ids"),
                layout: &self.layouts.id_input,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(drawn),
                }],
            });
            let view = resolved.create_view(&Default::default());
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("ids: sample 0"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.draw(0..3, 0..1);
        }
        if let Some(ts) = &self.timestamps {
            encoder.resolve_query_set(&ts.queries, 0..6, &ts.resolve, 0);
        }
        Ok(())
    }

    /// Renders `scene` into a new offscreen target of `width × height` and reads it back.
    /// The renderer's layout must use an 8-bit sRGB colour format (RGBA or BGRA). Errors (before any GPU
    /// work) on a zero size, one beyond the device's texture limit, or a bad scene.
    pub fn render_image(
        &mut self,
        scene: &Scene,
        width: u32,
        height: u32,
    ) -> Result<Image, RenderError> {
        // A window's renderer (BGRA surfaces) can save pictures too: read back swapped.
        if !matches!(
            self.layout.color_format,
            OFFSCREEN_FORMAT | wgpu::TextureFormat::Bgra8UnormSrgb
        ) {
            return Err(RenderError::Scene(format!(
                "offscreen images need a renderer built for {OFFSCREEN_FORMAT:?} or Bgra8UnormSrgb, not {:?}",
                self.layout.color_format
            )));
        }
        scene.validate()?;
        let target = OffscreenTarget::new(&self.device, &self.layout, width, height)?;
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("render image"),
            });
        self.render(&mut encoder, &target.frame, &target.view, scene)?;
        self.queue.submit(Some(encoder.finish()));
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(RenderError::Gpu(e.to_string()));
        }
        read_image(&self.device, &self.queue, &target)
    }
}
