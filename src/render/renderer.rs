//! [`FurRenderer`]: the orchestrator of a frame. It owns one module per pass and records
//! them in order (see the `render` module's documentation for what each draws):
//!
//! 1. [`ShadowPass`]: the key light's opaque depth, then the hair path's first hair depth
//!    and deep opacity maps;
//! 2. [`SurfacesPass`]: skin, face, hand and floor, into the camera's targets (cleared);
//! 3. [`StrandCullPass`]: which strands the camera cannot see;
//! 4. the strands' shading ([`HairStrands::shade`]), then the frame's hair path
//!    ([`HairPaths`]: the ribbons or a strand rasteriser), then
//!    [`OverlayPass`] in the `contact` view, resolved into the output;
//! 5. [`IdsPass`]: sample 0 of the ID target, when the layout has one.

use super::RenderError;
use super::camera_targets::{CameraPass, CameraTargets, check_output};
use super::capture::{Image, read_image};
use super::debug::HairView;
use super::frame::FrameBinding;
use super::hair::{
    CameraHair, HairDraw, HairFrame, HairLook, HairPaths, HairStrands, NativePath, RibbonsPass,
    StrandBinding, StrandsGpuPath,
};
use super::ids::IdsPass;
use super::overlay::OverlayPass;
use super::refresh::{Refresh, RefreshKey, RefreshTurns};
use super::scene::Scene;
use super::settings::{Raster, RenderSettings};
use super::shadow::ShadowPass;
use super::shapes::CapsuleDetail;
use super::strand_cull::{StrandCullPass, cull_uniforms};
use super::strand_lod::{LodPolicy, StrandLod};
use super::surfaces::SurfacesPass;
use super::target::{FrameTargets, OFFSCREEN_FORMAT, OffscreenTarget, TargetLayout};
use super::timing::{Pass, PassTimings, Span, Timestamps};
use crate::creature::Creature;

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
    /// The strands' layouts and shading pass, which every hair path reads.
    pub(super) hair_strands: HairStrands,
    /// The ways of drawing the hair, and which draws each frame.
    pub(super) hair: HairPaths,
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
    /// Which of the light's hair maps and the shading each frame refreshes.
    pub(super) turns: RefreshTurns,
    /// How each frame chooses its strands (`strand_lod`).
    pub(super) lod_policy: LodPolicy,
    /// The last frame's strand level of detail.
    pub(super) last_lod: StrandLod,
    /// The skin's level of detail when fixed; `None` to follow its size on screen.
    pub(super) fixed_skin_level: Option<usize>,
    pub(super) fixed_hand_detail: Option<CapsuleDetail>,
    /// The positions of a CPU-stepped coat, uploaded each frame (`None` when the strands
    /// are a GPU solver's own buffers).
    pub(super) host_positions: Option<wgpu::Buffer>,
    /// What was last uploaded to `host_positions`, kept on the host while the native path
    /// is chosen (it draws from them instead of reading the buffer back); empty otherwise.
    pub(super) host_latest: Vec<glam::Vec4>,
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
        // Maps that follow the picture are made at its size by the first frame; until
        // then the smallest.
        let first_maps = if settings.shadow_follows_target {
            super::settings::MIN_SHADOW_EXTENT.min(settings.shadow_map_size)
        } else {
            settings.shadow_map_size
        };
        let shadow = ShadowPass::new(device, first_maps);
        let hair_strands = HairStrands::new(device, &frame.layout, &shadow.inputs_layout);
        let ribbons = RibbonsPass::new(device, &hair_strands, &frame.layout, &shadow, &layout);
        let strand_raster = StrandsGpuPath::new(&frame.layout, &hair_strands.layout, layout);
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
            hair: HairPaths::new(
                ribbons,
                NativePath::new(layout).with_light_density(settings.light_strands_per_texel),
                strand_raster,
                settings.raster,
            ),
            hair_strands,
            overlay,
            ids,
            strands: None,
            timestamps: None,
            creature: creature.clone(),
            hair_culling: true,
            culled_last_frame: false,
            turns: RefreshTurns::default(),
            lod_policy: LodPolicy::whole_coat(),
            last_lod: StrandLod::all(0),
            fixed_skin_level: None,
            fixed_hand_detail: None,
            host_positions: None,
            host_latest: Vec::new(),
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

    /// Whether the hair casts shadows (a switch for comparisons; on by default).
    pub fn set_hair_casts_shadows(&mut self, on: bool) {
        self.settings.hair_casts_shadows = on;
    }

    /// Which of the ribbons' dithers the camera draws ([`RenderSettings::ribbon_dither`]).
    pub fn set_ribbon_dither(&mut self, dither: u32) {
        self.settings.ribbon_dither = dither;
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

    /// Bytes of GPU memory the renderer holds besides the solver's buffers (targets not
    /// included; see [`FrameTargets::bytes`]).
    pub fn memory_bytes(&self) -> u64 {
        self.frame.bytes()
            + self.shadow.maps.bytes
            + self.surfaces.bytes()
            + self.cull.bytes()
            + self.hair.memory_bytes()
            + self.overlay.bytes()
            + self.strands.as_ref().map_or(0, StrandBinding::bytes)
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
        let raster = self.hair.choose();
        let refresh = self.refresh(scene, raster, targets.size, lod, cull);
        let host = (!self.host_latest.is_empty()).then_some(&self.host_latest[..]);
        let hair = HairDraw::of(self.strands.as_ref(), scene.positions_index, lod.drawn)
            .map(|draw| draw.with_host_positions(host));
        let gpu = HairFrame {
            device: &self.device,
            queue: &self.queue,
            frame: &self.frame,
            shadow: &self.shadow,
            timestamps: self.timestamps.as_ref(),
        };
        self.shadow
            .record_opaque(encoder, &self.frame, &self.surfaces, gpu.timestamps);
        let shadow_hair = hair.filter(|_| self.settings.hair_casts_shadows);
        self.hair
            .record_light(raster, &gpu, encoder, shadow_hair, refresh.light);

        let camera = CameraTargets::new(targets, output);
        {
            let timed = gpu
                .timestamps
                .map(|t| t.render(Pass::Surfaces, Span::Whole));
            let mut pass = camera.begin(encoder, "surfaces", CameraPass::First, timed);
            if mode.draws_surfaces() {
                let level = self.skin_level(&scene.camera, targets.size);
                self.surfaces
                    .record(&mut pass, &self.frame, &self.shadow.inputs, level);
            }
        }
        // Which strands the camera cannot see; timed with the hair it spares.
        let mut hair_span = Span::Whole;
        if cull && refresh.shading {
            self.cull_strands(encoder, scene, targets.size, lod, gpu.timestamps)?;
            hair_span = Span::End;
        }
        let look = match mode.hair() {
            HairView::Hidden => None,
            HairView::Shaded => Some(HairLook::Shaded),
            HairView::Contact => Some(HairLook::Contact),
        };
        let camera_hair = hair.zip(look).map(|(draw, look)| {
            (
                draw,
                CameraHair {
                    targets,
                    look,
                    culled: self.culled_last_frame,
                },
            )
        });
        if let Some((draw, view)) = &camera_hair {
            // The points are shaded once each for whichever path draws them (the
            // `contact` colouring is the ribbons' own, per vertex).
            if view.look == HairLook::Shaded && refresh.shading {
                let timed = (hair_span == Span::Whole)
                    .then_some(())
                    .and(gpu.timestamps)
                    .map(|t| t.compute(Pass::Ribbons, Span::Begin));
                self.hair_strands.shade(
                    encoder,
                    &self.frame,
                    &self.shadow.inputs,
                    draw.strands,
                    draw.group(),
                    draw.count,
                    timed,
                );
                hair_span = Span::End;
            }
            self.hair
                .camera_path(raster, view.look)
                .prepare_camera(&gpu, encoder, *draw, view)?;
        }
        {
            let timed = gpu.timestamps.map(|t| t.render(Pass::Ribbons, hair_span));
            let mut pass = camera.begin(encoder, "ribbons", CameraPass::Last, timed);
            if let Some((draw, view)) = &camera_hair {
                self.hair
                    .camera_path(raster, view.look)
                    .record_camera(&gpu, &mut pass, *draw, view);
            }
            if mode.draws_proxies() {
                self.overlay.record(&mut pass, &self.frame);
            }
        }
        if let Some(ids) = &self.ids {
            ids.record(&self.device, encoder, targets);
        }
        if let Some(ts) = gpu.timestamps {
            ts.resolve(encoder);
        }
        Ok(())
    }

    /// What this frame refreshes of the light's hair maps and the shading (both unless the
    /// settings ask for turns), once its uniforms are written; notes whether the cull's
    /// flags will be this frame's (`culled_last_frame`).
    fn refresh(
        &mut self,
        scene: &Scene,
        raster: Raster,
        size: (u32, u32),
        lod: StrandLod,
        cull: bool,
    ) -> Refresh {
        let Some(written) = self.frame.written().copied() else {
            return Refresh::BOTH;
        };
        let key = RefreshKey {
            raster,
            mode: scene.mode,
            size,
            lod,
            settings: self.settings,
            cull,
            light: written.light,
        };
        // Only the native path: the others read the cull's flags in their own passes.
        let in_turns = self.settings.refresh_in_turns && raster == Raster::Native;
        let refresh = self.turns.next(in_turns, key, written.camera);
        // The cull's flags are this frame's only where it shades (kept, they would be a
        // frame behind the positions and the pose).
        self.culled_last_frame = cull && refresh.shading;
        refresh
    }

    /// Records the cull pass, which marks the strands the camera of `scene` cannot see in a
    /// target of `size` (the first of the hair's timed passes). Needs strands bound.
    pub(super) fn cull_strands(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        scene: &Scene,
        size: (u32, u32),
        lod: StrandLod,
        timestamps: Option<&Timestamps>,
    ) -> Result<(), RenderError> {
        let Some(strands) = &self.strands else {
            return Ok(());
        };
        let uniforms = cull_uniforms(
            &self.creature,
            &scene.pose,
            &scene.camera,
            size,
            &self.settings,
            lod.width_scale,
            strands.count,
            true,
        );
        let group = &strands.cull_groups[scene.positions_index & 1];
        self.cull
            .record(encoder, &self.queue, &uniforms, group, timestamps)
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
