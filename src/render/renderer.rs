//! [`FurRenderer`]: the orchestrator of a frame. It owns one module per pass and records
//! them in order (see the `render` module's documentation for what each draws):
//!
//! 1. [`ShadowPass`]: the key light's opaque depth, first hair depth and deep opacity maps;
//! 2. [`SurfacesPass`]: skin, face, hand and floor, into the camera's targets (cleared);
//! 3. [`StrandCullPass`]: which strands the camera cannot see;
//! 4. [`RibbonsPass`] (or, with [`Raster::Compute`], the [`ComputeRaster`]'s compute passes
//!    and its resolve), then [`OverlayPass`] in the `contact` view, resolved into the output;
//! 5. [`IdsPass`]: sample 0 of the ID target, when the layout has one.

use super::RenderError;
use super::camera::{CREATURE_CENTER, Camera};
use super::camera_targets::{CameraPass, CameraTargets, check_output};
use super::capture::{Image, read_image};
use super::compute_raster::{ComputeRaster, RasterWalks};
use super::debug::HairView;
use super::frame::FrameBinding;
use super::ids::IdsPass;
use super::mesh_lod::skin_level;
use super::overlay::OverlayPass;
use super::ribbons::{RibbonStrand, RibbonsPass, StrandBinding};
use super::scene::Scene;
use super::settings::{Raster, RenderSettings};
use super::shadow::{ShadowHair, ShadowPass};
use super::shadow_raster::ShadowRaster;
use super::shapes::CapsuleDetail;
use super::strand_cull::{StrandCullPass, cull_uniforms};
use super::strand_lod::{LodPolicy, StrandLod, coat_pixels};
use super::surfaces::SurfacesPass;
use super::target::{FrameTargets, OFFSCREEN_FORMAT, OffscreenTarget, TargetLayout};
use super::timing::{Pass, PassTimings, Span, Timestamps};
use crate::creature::Creature;
use crate::sim::FurSim;

/// Frames drawn in a row by the hardware ribbons after which the renderer frees the compute
/// rasteriser's buffers (two seconds at 60 fps; a compute frame after that makes them
/// again).
pub const RELEASE_COMPUTE_AFTER_FRAMES: u32 = 120;

/// The fur renderer. Built for one [`TargetLayout`] on a device; draws frames into targets
/// the caller owns (a window's surface, or an [`OffscreenTarget`]). Frees its GPU resources
/// when dropped.
#[derive(Debug)]
pub struct FurRenderer {
    pub(super) device: wgpu::Device,
    pub(super) queue: wgpu::Queue,
    layout: TargetLayout,
    pub(super) settings: RenderSettings,
    pub(super) frame: FrameBinding,
    pub(super) shadow: ShadowPass,
    pub(super) surfaces: SurfacesPass,
    pub(super) cull: StrandCullPass,
    pub(super) ribbons: RibbonsPass,
    overlay: OverlayPass,
    ids: Option<IdsPass>,
    pub(super) strands: Option<StrandBinding>,
    timestamps: Option<Timestamps>,
    /// The shapes the cull pass hides strands behind.
    pub(super) creature: Creature,
    /// Whether the camera's ribbons skip the strands hidden behind the creature.
    pub(super) hair_culling: bool,
    /// Whether the last frame ran the cull pass (its flags are then readable).
    pub(super) culled_last_frame: bool,
    /// The compute rasteriser, built the first time a frame draws hair with it.
    compute: Option<ComputeRaster>,
    /// Whether the log has said that a frame was too large for the compute rasteriser.
    warned_compute_too_large: bool,
    /// Entries of the compute rasteriser's long-segment queue.
    queue_capacity: u32,
    raster_wide_atomics: bool,
    /// Whether the compute rasteriser skips samples that hold nearer hair.
    raster_early_depth: bool,
    /// The hair's shadow maps by compute, built the first time a frame needs them.
    shadow_compute: Option<ShadowRaster>,
    /// Frames drawn in a row without the compute rasteriser (its buffers are released at
    /// [`RELEASE_COMPUTE_AFTER_FRAMES`]).
    frames_without_compute: u32,
    /// How each frame chooses its strands (`strand_lod`).
    lod_policy: LodPolicy,
    /// The last frame's strand level of detail.
    pub(super) last_lod: StrandLod,
    /// How the last frame's hair was drawn (the setting, or the ribbons where a frame was
    /// too large for the compute rasteriser).
    pub(super) last_raster: Raster,
    /// The skin's level of detail when fixed; `None` to follow its size on screen.
    fixed_skin_level: Option<usize>,
    fixed_hand_detail: Option<CapsuleDetail>,
    /// The positions of a CPU-stepped coat, uploaded each frame (`None` when the strands
    /// are a GPU solver's own buffers).
    host_positions: Option<wgpu::Buffer>,
    /// The pipelines of frames drawn into a caller's targets, for the last formats asked.
    pub(super) embed: Option<super::embed_pipelines::EmbedPipelines>,
}

impl FurRenderer {
    /// Builds the passes and the creature's meshes for frames of `layout`. GPU errors (an
    /// adapter without storage buffers in vertex shaders, for one) are returned, not
    /// raised.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        layout: TargetLayout,
        creature: &Creature,
        settings: RenderSettings,
    ) -> Result<Self, RenderError> {
        settings.validate(device.limits().max_texture_dimension_2d)?;
        layout.check(device.adapter_info().backend)?;
        let settings = RenderSettings {
            raster: settings.raster.for_adapter(&device.adapter_info()),
            ..settings
        };
        let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let frame = FrameBinding::new(device);
        let cull = StrandCullPass::new(device);
        let strands_layout = RibbonsPass::strands_layout(device);
        // Maps that follow the picture are made at its size by the first frame; until
        // then the smallest.
        let first_maps = if settings.shadow_follows_target {
            super::settings::MIN_SHADOW_EXTENT.min(settings.shadow_map_size)
        } else {
            settings.shadow_map_size
        };
        let shadow = ShadowPass::new(device, first_maps, &frame.layout, &strands_layout);
        let ribbons = RibbonsPass::new(
            device,
            strands_layout,
            &frame.layout,
            &shadow.inputs_layout,
            &layout,
        );
        let surfaces = SurfacesPass::new(
            device,
            queue,
            creature,
            settings.floor,
            &frame.layout,
            &shadow.inputs_layout,
            &layout,
        );
        let overlay = OverlayPass::new(device, creature, &frame.layout, &layout);
        let ids = IdsPass::new(device, &layout);
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
            frame,
            shadow,
            surfaces,
            cull,
            ribbons,
            overlay,
            ids,
            strands: None,
            timestamps: None,
            creature: creature.clone(),
            hair_culling: true,
            culled_last_frame: false,
            compute: None,
            warned_compute_too_large: false,
            frames_without_compute: 0,
            queue_capacity: super::compute_raster::DEFAULT_QUEUE_CAPACITY,
            raster_wide_atomics: true,
            raster_early_depth: true,
            shadow_compute: None,
            lod_policy: LodPolicy::whole_coat(),
            last_lod: StrandLod::all(0),
            last_raster: settings.raster,
            fixed_skin_level: None,
            fixed_hand_detail: None,
            host_positions: None,
            embed: None,
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

    /// Chooses how the camera's hair is drawn from the next frame on (`Auto` picks by the
    /// adapter, as [`Raster::for_adapter`] does).
    pub fn set_raster(&mut self, raster: Raster) {
        self.settings.raster = raster.for_adapter(&self.device.adapter_info());
    }

    /// Counts the frames drawn without the compute rasteriser and, at
    /// [`RELEASE_COMPUTE_AFTER_FRAMES`] in a row, frees its buffers (at 1920×1080 and the full
    /// coat about 100 MB the ribbons do not use); a later compute frame makes them again.
    /// Not at the first such frame: the demo's budget tries both paths in turn while it
    /// measures them, and would make the buffers again at each switch. A frame set to draw
    /// by compute counts as using them even where it draws no hair by compute (`contact`,
    /// or no strands bound): memory kept a little longer, never freed while in use.
    pub(super) fn release_idle_compute(&mut self, raster: Raster) {
        if raster == Raster::Compute {
            self.frames_without_compute = 0;
            return;
        }
        self.frames_without_compute = self.frames_without_compute.saturating_add(1);
        if self.frames_without_compute >= RELEASE_COMPUTE_AFTER_FRAMES {
            // The pipelines stay: small beside the buffers, and building them again would
            // stall the next compute frame (the shadow's alone took 60–80 ms on lavapipe).
            if let Some(compute) = &mut self.compute {
                compute.release_buffers();
            }
            if let Some(shadow) = &mut self.shadow_compute {
                shadow.release_buffers();
            }
        }
    }

    /// How the camera's hair is drawn: [`Raster::Hardware`] or [`Raster::Compute`].
    pub fn raster(&self) -> Raster {
        self.settings.raster
    }

    /// Why the compute rasteriser cannot draw a frame of `size` with the strands uploaded,
    /// on this device, or `None` when it can: its largest buffers (8 bytes per MSAA sample
    /// of the target, 16 per shadow texel) must each fit one storage binding of this device,
    /// and it draws at most [`crate::shaders::MAX_COMPUTE_RASTER_STRANDS`] strands. (The
    /// points' colours, 4 bytes a point, are the strands' binding's, a quarter of the
    /// positions that binding already fits.)
    pub fn compute_raster_refusal(&self, size: (u32, u32)) -> Option<String> {
        let limit = self.device.limits().max_storage_buffer_binding_size;
        let samples = u64::from(size.0) * u64::from(size.1) * u64::from(self.layout.samples);
        let texels = u64::from(self.shadow.maps.size).pow(2);
        let largest = (8 * samples).max(16 * texels);
        let strands = self.strands.as_ref().map_or(0, |s| s.count);
        if largest > limit {
            Some(format!(
                "the compute rasteriser would need a {largest}-byte buffer at {}×{}, past this \
                 device's {limit}-byte storage binding limit",
                size.0, size.1
            ))
        } else if strands > crate::shaders::MAX_COMPUTE_RASTER_STRANDS {
            Some(format!(
                "the compute rasteriser draws at most {} strands, not {strands}",
                crate::shaders::MAX_COMPUTE_RASTER_STRANDS
            ))
        } else {
            None
        }
    }

    /// The path that draws a frame of `size`: the chosen one, except that a frame the
    /// compute rasteriser cannot draw ([`FurRenderer::compute_raster_refusal`]) is drawn by
    /// the ribbons instead, and the log says so once.
    fn raster_for(&mut self, size: (u32, u32)) -> Raster {
        if self.settings.raster != Raster::Compute {
            return self.settings.raster;
        }
        let Some(reason) = self.compute_raster_refusal(size) else {
            return Raster::Compute;
        };
        if !self.warned_compute_too_large {
            self.warned_compute_too_large = true;
            log::warn!("{reason}: the hair is drawn by the hardware ribbons instead");
        }
        Raster::Hardware
    }

    /// Entries of the compute rasteriser's queue of long segments (those beyond are drawn
    /// by their own thread and counted, see [`FurRenderer::raster_overflow`]). For tests
    /// of that fallback; the picture does not change.
    pub fn set_raster_queue_capacity(&mut self, capacity: u32) {
        self.queue_capacity = capacity;
        if let Some(compute) = &mut self.compute {
            compute.set_queue_capacity(capacity);
        }
    }

    /// Whether the compute rasteriser keeps samples by 64-bit atomics where the device has
    /// them (on by default; off forces its 32-bit two-walk path, for tests: the picture
    /// does not change).
    pub fn set_raster_wide_atomics(&mut self, on: bool) {
        self.raster_wide_atomics = on;
        if let Some(compute) = &mut self.compute {
            compute.set_wide_atomics(on);
        }
    }

    /// How many long segments the last compute-rasterised frame drew without the queue
    /// (both walks counted), or `None` when no frame was drawn by compute since its buffers
    /// were made (waits for the GPU).
    pub fn raster_overflow(&self) -> Result<Option<u32>, RenderError> {
        let Some(buffer) = self.compute.as_ref().and_then(ComputeRaster::queue_buffer) else {
            return Ok(None);
        };
        let bytes =
            crate::gpu::read_buffer(&self.device, &self.queue, buffer).map_err(RenderError::Gpu)?;
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
        Ok(words.get(1).copied())
    }

    /// Whether the compute rasteriser skips the samples that already hold hair nearer than
    /// the segment it walks (on by default; off walks every sample, for tests: the picture
    /// does not change).
    pub fn set_raster_early_depth(&mut self, on: bool) {
        self.raster_early_depth = on;
        if let Some(compute) = &mut self.compute {
            compute.set_early_depth(on);
        }
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
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let binding = self
            .ribbons
            .bind(&self.device, &self.cull, positions, strands);
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(RenderError::Gpu(e.to_string()));
        }
        self.strands = Some(binding?);
        self.culled_last_frame = false;
        self.host_positions = None;
        Ok(())
    }

    /// Draws a body's surface (`mesh`, world space, from [`super::mesh::body_surface`]) in
    /// place of the creature's skin and face, or the creature for `None`; call again
    /// whenever the body moves. With a body the camera draws every strand (the hidden
    /// strands' cull tests the creature's shape).
    pub fn set_body_surface(&mut self, mesh: Option<&super::mesh::Mesh>) {
        self.surfaces.set_body(&self.device, &self.queue, mesh);
        self.hair_culling = mesh.is_none();
    }

    /// Lights the surfaces with the environment map `map` (the eyes and nose reflect it, the
    /// ambient term reads it; the strands never do), or with the built-in sky for `None`.
    pub fn set_environment(&mut self, map: Option<&super::EnvironmentMap>) {
        self.surfaces
            .set_environment(&self.device, &self.queue, map);
    }

    /// Binds the strands of `sim`: a GPU-stepped coat's own position buffers, which every
    /// frame reads as they are; or, for a CPU-stepped one, a buffer of the renderer's that
    /// [`FurRenderer::upload_strands_from_sim`] fills with its latest positions (once now).
    pub fn set_strands_from_sim(&mut self, sim: &FurSim) -> Result<(), RenderError> {
        let strands = match sim.body_groom() {
            Some(groom) => groom
                .roots
                .iter()
                .map(RibbonStrand::from_body_root)
                .collect(),
            None => RibbonStrand::from_roots(&sim.groom().roots),
        };
        if let Some(gpu) = sim.gpu() {
            let [a, b] = gpu.position_buffers();
            return self.set_strands([a, b], &strands);
        }
        let positions = sim.host_positions().ok_or_else(|| {
            RenderError::Strands("the simulation has neither GPU nor host positions".into())
        })?;
        let bytes = std::mem::size_of_val(positions) as u64;
        let limits = self.device.limits();
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if bytes > limit {
            return Err(RenderError::Strands(format!(
                "{} strands' positions take {bytes} bytes, more than this device binds in one buffer ({limit}); draw fewer strands",
                positions.len() / crate::sim::POINTS_PER_STRAND
            )));
        }
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render: host-stepped positions"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.set_strands([&buffer, &buffer], &strands)?;
        self.host_positions = Some(buffer);
        self.upload_strands_from_sim(sim)
    }

    /// Copies a CPU-stepped coat's latest positions into the buffer the frames read (bound
    /// by [`FurRenderer::set_strands_from_sim`]); the copy lands at the next submission,
    /// before that frame's passes. Does nothing for a GPU-stepped coat. Errors if `sim` is
    /// not the coat that was bound (another strand count).
    pub fn upload_strands_from_sim(&mut self, sim: &FurSim) -> Result<(), RenderError> {
        let (Some(buffer), Some(positions)) = (&self.host_positions, sim.host_positions()) else {
            return Ok(());
        };
        let bytes: &[u8] = bytemuck::cast_slice(positions);
        if bytes.len() as u64 != buffer.size() {
            return Err(RenderError::Strands(format!(
                "the bound coat's positions take {} bytes; this simulation's take {}",
                buffer.size(),
                bytes.len()
            )));
        }
        self.queue.write_buffer(buffer, 0, bytes);
        Ok(())
    }

    /// How frames choose their strands: by the coat's size on screen, widened toward a
    /// reference density (see [`LodPolicy`]). Until this is called, every strand is drawn
    /// at its own width ([`LodPolicy::whole_coat`]).
    pub fn set_lod_policy(&mut self, policy: LodPolicy) {
        self.lod_policy = policy;
    }

    /// How frames choose their strands.
    pub fn lod_policy(&self) -> LodPolicy {
        self.lod_policy
    }

    /// The strand level of detail of a frame seen by `camera` in a target of `size` pixels:
    /// `drawn` is how many strands every strand pass draws (the prefix of the drawn order
    /// that `drawn_count()` in `ribbon_geometry.wgsl` bounds).
    pub fn strand_lod(&self, camera: &Camera, size: (u32, u32)) -> StrandLod {
        let bound = self.strands.as_ref().map_or(0, |s| s.count);
        StrandLod::choose(
            bound,
            coat_pixels(camera, CREATURE_CENTER, size.1),
            &self.lod_policy,
        )
    }

    /// The skin's level of detail (`mesh_lod::DETAILS`, 0 the finest) for a frame seen by
    /// `camera` in a target of `size` pixels.
    pub fn skin_level(&self, camera: &Camera, size: (u32, u32)) -> usize {
        self.fixed_skin_level.unwrap_or_else(|| {
            skin_level(
                coat_pixels(camera, CREATURE_CENTER, size.1),
                &self.surfaces.skin_triangles(),
            )
        })
    }

    /// Draws the skin at a fixed level of detail (`Some(0)`: always the full mesh), or
    /// by its size on screen (`None`, the default).
    pub fn set_skin_level(&mut self, level: Option<usize>) {
        self.fixed_skin_level = level;
    }

    /// Triangles of the skin at each level of detail, finest first.
    pub fn skin_triangles(&self) -> Vec<u32> {
        self.surfaces.skin_triangles()
    }

    /// Triangles of the eyes and nose at each of the skin's levels of detail, finest
    /// first: they are drawn at the skin's level, no coarser than half their facets.
    pub fn face_triangles(&self) -> Vec<u32> {
        self.surfaces.face_triangles()
    }

    /// Draws the hand's capsules at a fixed tessellation (`Some(CapsuleDetail::FINE)`:
    /// always the full one), or each by its size on screen (`None`, the default).
    pub fn set_hand_detail(&mut self, detail: Option<CapsuleDetail>) {
        self.fixed_hand_detail = detail;
    }

    /// Triangles of the hand as the last frame drew it (its capsules tessellated by their
    /// size on screen).
    pub fn hand_triangles(&self) -> u32 {
        self.surfaces.hand_triangles()
    }

    /// The strand level of detail of the last frame drawn.
    pub fn last_lod(&self) -> StrandLod {
        self.last_lod
    }

    /// How the last frame's hair was drawn: [`Raster::Hardware`] or [`Raster::Compute`]
    /// (the setting, or the ribbons where the frame was too large for the compute
    /// rasteriser; see [`FurRenderer::raster`]).
    pub fn last_raster(&self) -> Raster {
        self.last_raster
    }

    /// The walks the compute rasteriser dispatched for the last frame it drew (`None`
    /// before its first): which of its paths drew, for tests that compare two paths.
    pub fn last_raster_walks(&self) -> Option<RasterWalks> {
        self.compute.as_ref().and_then(ComputeRaster::last_walks)
    }

    /// Bytes of GPU memory the renderer holds besides the solver's buffers (targets not
    /// included; see [`FrameTargets::bytes`]).
    pub fn memory_bytes(&self) -> u64 {
        self.frame.bytes()
            + self.shadow.maps.bytes
            + self.surfaces.bytes()
            + self.cull.bytes()
            + self.ribbons.bytes()
            + self.overlay.bytes()
            + self.strands.as_ref().map_or(0, StrandBinding::bytes)
            + self.compute.as_ref().map_or(0, ComputeRaster::bytes)
            + self.shadow_compute.as_ref().map_or(0, ShadowRaster::bytes)
            + self.host_positions.as_ref().map_or(0, wgpu::Buffer::size)
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
        let bytes = crate::gpu::read_buffer(&self.device, &self.queue, &strands.culled)
            .map_err(RenderError::Gpu)?;
        let flags: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
        Ok(Some(flags.iter().filter(|&&f| f != 0).count() as u32))
    }

    /// Turns on GPU timestamps around the frame's passes, if the device has the
    /// `TIMESTAMP_QUERY` feature. Returns whether it did.
    pub fn enable_timing(&mut self) -> bool {
        self.timestamps = Timestamps::new(&self.device, &self.queue);
        self.timestamps.is_some()
    }

    /// The pass timings of the last frame rendered with timing on (waits for the GPU).
    pub fn read_timings(&self) -> Result<Option<PassTimings>, RenderError> {
        self.timestamps
            .as_ref()
            .map(|ts| ts.read(&self.device, &self.queue))
            .transpose()
    }

    /// Uploads the `hand`'s capsules, each as finely as its size on screen from `camera` in
    /// a target of `size` needs: its radius over its nearest depth (an end's, less the
    /// radius; a perspective projection's size; off the view's axis things look larger
    /// still, so this errs toward fine).
    pub(super) fn upload_hand(
        &mut self,
        hand: &[super::DrawCapsule],
        camera: &Camera,
        size: (u32, u32),
    ) {
        let pixel_scale = camera.pixel_scale(size.1);
        let eye = camera.eye;
        let forward = (camera.target - eye).normalize_or(glam::Vec3::NEG_Z);
        let fixed = self.fixed_hand_detail;
        self.surfaces
            .upload_hand(&self.device, &self.queue, hand, |c| {
                if let Some(detail) = fixed {
                    return detail;
                }
                let near = (c.a - eye).dot(forward).min((c.b - eye).dot(forward)) - c.radius;
                CapsuleDetail::for_radius_pixels(c.radius / (near.max(1e-3) * pixel_scale))
            });
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
        check_output(&self.layout, targets, output)?;
        let mode = scene.mode;
        // The camera skips hidden strands only where the skin that hides them is drawn.
        let cull = self.hair_culling
            && mode.draws_surfaces()
            && mode.draws_hair()
            && self.strands.is_some();
        let lod = self.strand_lod(&scene.camera, targets.size);
        self.last_lod = lod;
        self.write_frame(scene, targets.size, self.layout.samples, cull, lod)?;
        let hand = if mode.draws_surfaces() {
            scene.hand
        } else {
            &[]
        };
        self.upload_hand(hand, &scene.camera, targets.size);
        self.overlay.set_ray_hit(&self.queue, scene.ray_hit);
        let raster = self.raster_for(targets.size);
        self.last_raster = raster;
        self.release_idle_compute(raster);
        let timestamps = self.timestamps.as_ref();
        // The strands' group over the latest positions, and how many.
        let hair = self
            .strands
            .as_ref()
            .map(|s| (s, &s.groups[scene.positions_index & 1]));

        let compute_shadow =
            raster == Raster::Compute && self.settings.hair_casts_shadows && hair.is_some();
        if compute_shadow {
            let shadow = self.shadow_compute.get_or_insert_with(|| {
                ShadowRaster::new(
                    &self.device,
                    &self.frame.layout,
                    &self.ribbons.strands_layout,
                )
            });
            // Its buffers draw any maps up to theirs, so they are made again only to grow,
            // and never its pipelines (60–80 ms on lavapipe, once paid at every crossing of
            // a size boundary).
            shadow.prepare(&self.device, &self.queue, self.shadow.maps.size);
        }
        let shadow_hair = hair
            .filter(|_| self.settings.hair_casts_shadows)
            .map(|(s, group)| ShadowHair {
                ribbons: &self.ribbons,
                group,
                count: lod.drawn.min(s.count),
                compute: self.shadow_compute.as_ref().filter(|_| compute_shadow),
            });
        self.shadow.record(
            encoder,
            &self.queue,
            &self.frame,
            &self.surfaces,
            shadow_hair,
            timestamps,
        );

        let camera = CameraTargets::new(targets, output);
        {
            let timed = timestamps.map(|t| t.render(Pass::Surfaces, Span::Whole));
            let mut pass = camera.begin(encoder, "surfaces", CameraPass::First, timed);
            if mode.draws_surfaces() {
                self.surfaces.record(
                    &mut pass,
                    &self.frame,
                    &self.shadow.inputs,
                    self.skin_level(&scene.camera, targets.size),
                );
            }
        }
        // Which strands the camera cannot see; timed with the ribbons it spares.
        let mut ribbons_span = Span::Whole;
        if let (Some((strands, _)), true) = (hair, cull) {
            let uniforms = cull_uniforms(
                &self.creature,
                &scene.pose,
                &scene.camera,
                targets.size,
                &self.settings,
                lod.width_scale,
                strands.count,
                true,
            );
            let group = &strands.cull_groups[scene.positions_index & 1];
            self.cull
                .record(encoder, &self.queue, &uniforms, group, timestamps)?;
            ribbons_span = Span::End;
        }
        // The hair's points, shaded once each for whichever rasteriser draws them (the
        // `contact` colouring is the ribbons' own, per vertex).
        let shaded_hair = hair.filter(|_| mode.hair() == HairView::Shaded);
        if let Some((strands, group)) = shaded_hair {
            let timed = (ribbons_span == Span::Whole)
                .then_some(())
                .and(timestamps)
                .map(|t| t.compute(Pass::Ribbons, Span::Begin));
            self.ribbons.shade(
                encoder,
                &self.frame,
                &self.shadow.inputs,
                strands,
                group,
                lod.drawn,
                timed,
            );
            ribbons_span = Span::End;
        }
        // The compute rasteriser draws the shaded hair (the `contact` colouring stays with
        // the ribbons).
        let compute_hair = shaded_hair.filter(|_| raster == Raster::Compute);
        if let Some((strands, group)) = compute_hair {
            let compute = self.compute.get_or_insert_with(|| {
                let mut c = ComputeRaster::new(
                    &self.device,
                    &self.frame.layout,
                    &self.ribbons.strands_layout,
                    &self.layout,
                );
                c.set_queue_capacity(self.queue_capacity);
                c.set_wide_atomics(self.raster_wide_atomics);
                c.set_early_depth(self.raster_early_depth);
                c
            });
            compute.record(
                &self.device,
                &self.queue,
                encoder,
                &self.frame,
                group,
                strands.count,
                strands.shaded_points(),
                targets.size,
                timestamps,
                ribbons_span == Span::Whole,
            );
            ribbons_span = Span::End;
        }
        let ribbon_hair = hair.filter(|_| compute_hair.is_none() && mode.draws_hair());
        {
            let timed = timestamps.map(|t| t.render(Pass::Ribbons, ribbons_span));
            let mut pass = camera.begin(encoder, "ribbons", CameraPass::Last, timed);
            if let (Some((_, group)), Some(compute)) = (compute_hair, &self.compute) {
                compute.resolve(&mut pass, &self.frame, group);
            } else if let Some((strands, _)) = ribbon_hair {
                let contact = mode.hair() == HairView::Contact;
                self.ribbons.record(
                    &mut pass,
                    &self.frame,
                    &self.shadow.inputs,
                    &strands.camera_groups[scene.positions_index & 1],
                    lod.drawn.min(strands.count),
                    contact,
                );
            }
            if mode.draws_proxies() {
                self.overlay.record(&mut pass, &self.frame);
            }
        }
        if let Some(ids) = &self.ids {
            ids.record(&self.device, encoder, targets);
        }
        if let Some(ts) = timestamps {
            ts.resolve(encoder);
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
