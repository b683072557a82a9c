//! [`SimulatedFur`]: the whole petting creature as one object to embed in a wgpu program —
//! the creature and its coat (stepped on the GPU, or by the SIMD CPU solver beside a CPU
//! adapter: [`SimulatedFurOptions::solver`]), the petting hand driven by pointer
//! events, the creature's response, the swinging tail, and the renderer. The caller owns
//! the window, the surface, the camera and the camera controls.
//!
//! Per frame: forward pointer events (a world ray from your camera through the pointer,
//! the pointer's position in pixels, the button), call [`SimulatedFur::update`] with the
//! frame time, orbit your camera only while [`Interaction::orbit_enabled`], and record a
//! frame into your encoder, one of two ways:
//!
//! - [`SimulatedFur::render`] draws Pelt's whole scene: it clears to its own background,
//!   draws the floor, the creature, its coat and the hand under Pelt's lights, and
//!   resolves into your output (a surface texture), through frame targets of its own
//!   layout ([`SimulatedFur::render_image`] does the same offscreen and reads it back).
//! - [`SimulatedFur::draw_into`] draws only the creature, its coat and the hand (the floor
//!   if asked) into *your* colour and depth targets, over what you drew there and
//!   depth-tested against it, placed in your world by a model transform and lit by your
//!   lights ([`Placement`]); `examples/embed.rs` shows it.
//!
//! ```no_run
//! use pelt::gpu::GpuContext;
//! use pelt::hand::PointerButton;
//! use pelt::render::{Camera, CameraPreset, OFFSCREEN_FORMAT, TargetLayout};
//! use pelt::{SimulatedFur, SimulatedFurOptions};
//!
//! let gpu = GpuContext::new()?;
//! let layout = TargetLayout::new(&gpu.adapter, OFFSCREEN_FORMAT, false);
//! let mut fur = SimulatedFur::new(&gpu, &SimulatedFurOptions::new(32_768, 1, layout))?;
//! let camera = Camera::preset(CameraPreset::Front);
//! let px = glam::Vec2::new(480.0, 220.0);
//! let ray = camera.ray_through(px, glam::Vec2::new(1280.0, 720.0));
//! fur.pointer_down(ray, px, PointerButton::Primary);
//! fur.update(1.0 / 60.0)?;
//! let picture = fur.render_image(&camera, 1280, 720)?;
//! picture.save_png(std::path::Path::new("frame.png"))?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::creature::{
    Creature, CreaturePose, CreatureProxies, CreatureTail, Ray, RayHit, TailSettings,
};
use crate::gpu::GpuContext;
use crate::hand::{GestureState, Hand, HandDimensions, HandMaterial, PointerButton};
use crate::render::{
    Camera, DebugMode, DrawCapsule, EmbedTarget, FrameTargets, FurRenderer, Image, Lighting,
    Material, Placement, RenderError, RenderSettings, Scene, TargetLayout,
};
use crate::sim::{
    FIXED_STEP_HZ, FurConfig, FurParams, FurSim, MAX_FRAME_SECONDS, SimError, SolverKind,
    StepClock, TimeMode,
};
use crate::spring::SpringError;
use glam::Vec2;
use thiserror::Error;

/// What went wrong in the petting creature.
#[derive(Debug, Error)]
pub enum SimulatedFurError {
    /// The strand solver refused (a bad parameter, strand count or GPU fault).
    #[error(transparent)]
    Sim(#[from] SimError),
    /// The renderer refused.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The tail could not be built.
    #[error(transparent)]
    Tail(#[from] SpringError),
    /// A frame time that is not a finite number.
    #[error("frame time {0} s is not a finite number")]
    FrameTime(f64),
}

/// How to build a [`SimulatedFur`].
#[derive(Clone, Debug, PartialEq)]
pub struct SimulatedFurOptions {
    /// Strands in the coat (the full coat is 420,032; see [`crate::sim::StrandTier`]).
    pub strands: usize,
    /// Seed for the groom, the idle motion and the hand's fingers.
    pub seed: u64,
    /// The targets frames are drawn into (from [`TargetLayout::new`] for your surface's
    /// format).
    pub layout: TargetLayout,
    /// Renderer settings (`render.raster` chooses how the hair is drawn).
    pub render: RenderSettings,
    /// Solver constants.
    pub params: FurParams,
    /// Which solver steps the coat: `Auto` (the default) takes the CPU solver beside a CPU
    /// adapter such as lavapipe, the GPU solver otherwise ([`SolverKind::for_adapter`]).
    /// A CPU-stepped coat's positions are uploaded once a frame, before it is drawn.
    pub solver: SolverKind,
    /// The hand's size as a multiple of an adult's. The creature is about twice the size
    /// of a big cat (its head is 0.5 m across), so the default 1.6 keeps the hand in
    /// proportion and easy to see from the default camera. On a `body` the hand is scaled
    /// further by the body's height against the creature's
    /// ([`crate::hand::body_hand_factor`]).
    pub hand_scale: f32,
    /// An environment map the eyes and nose reflect and the surfaces' ambient term reads
    /// (never the strands); `None` keeps the built-in sky and ground.
    pub environment: Option<crate::render::EnvironmentMap>,
    /// A body to grow the coat on in place of the creature (`None`: the creature), groomed
    /// as its `groom` says (a groom file's count or a file's strands replace `strands`). Its
    /// surface is posed on the host and uploaded once a frame; the hand pets it as it pets
    /// the creature (pointer rays test its posed triangles), and it has no face, no
    /// response and no tail of the creature's.
    pub body: Option<crate::sim::FurBody>,
}

impl SimulatedFurOptions {
    /// `strands` strands from `seed`, drawn for `layout`, with default settings.
    pub fn new(strands: usize, seed: u64, layout: TargetLayout) -> Self {
        SimulatedFurOptions {
            strands,
            seed,
            layout,
            render: RenderSettings::default(),
            params: FurParams::default(),
            solver: SolverKind::Auto,
            hand_scale: 1.6,
            environment: None,
            body: None,
        }
    }
}

/// The interaction as a UI shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interaction {
    /// Idle, hover, pet or scratch.
    pub state: GestureState,
    /// Whether the camera may orbit (false while petting).
    pub orbit_enabled: bool,
    /// Whether the hand is shown.
    pub hand_visible: bool,
    /// The creature's pleasure, 0 … 1.
    pub pleasure: f32,
    /// How far its eyes are narrowed, 0 … 1.
    pub eye_narrowing: f32,
    /// The last pointer ray's hit on the creature's proxies or the body.
    pub last_hit: Option<RayHit>,
}

/// The petting creature: coat, hand, response, tail and renderer. Frees its GPU resources
/// when dropped.
#[derive(Debug)]
pub struct SimulatedFur {
    sim: FurSim,
    renderer: FurRenderer,
    hand: Hand,
    tail: CreatureTail,
    mode: DebugMode,
    lighting: Lighting,
    now: f64,
    clock: StepClock,
    /// The coat's step count when its positions were last uploaded for drawing (a
    /// CPU-stepped coat); `None` when they must be uploaded before the next frame.
    uploaded_at: Option<u64>,
    /// The body's step count when its surface was last posed for drawing.
    body_posed_at: Option<u64>,
}

fn draw_capsule(shape: &crate::hand::HandShape) -> DrawCapsule {
    DrawCapsule {
        a: shape.a,
        b: shape.b,
        radius: shape.radius,
        material: match shape.material {
            HandMaterial::Skin => Material::Hand,
            HandMaterial::Nail => Material::Nail,
            HandMaterial::Sleeve => Material::Sleeve,
        },
    }
}

impl SimulatedFur {
    /// Grows the coat on `gpu`'s device and builds the hand, the tail and the renderer.
    pub fn new(gpu: &GpuContext, options: &SimulatedFurOptions) -> Result<Self, SimulatedFurError> {
        let creature = Creature::default();
        let mut config = FurConfig::new(options.strands, options.seed);
        config.params = options.params;
        // A body stands on the floor: its lowest point at rest.
        if let Some(y) = options.body.as_ref().and_then(|b| b.lowest_point()) {
            config.params.floor = y;
        }
        // Whichever solver steps it, the renderer binds the coat's positions as one storage
        // buffer: a coat the device cannot bind is refused before anything is grown.
        let max = crate::sim::max_strands(&gpu.device.limits());
        let planned = options.body.as_ref().map_or(options.strands, |b| {
            crate::groom::BodyGroom::planned_count(&b.mesh, b.groom.as_deref(), options.strands)
        });
        if planned > max {
            return Err(SimError::StrandCount {
                count: planned,
                max,
            }
            .into());
        }
        let sim = options
            .solver
            .grow(&config, creature.clone(), options.body.clone(), gpu)?;
        // A body's groom file or strands may set another count than `strands`: the same
        // bound holds for what was grown.
        if sim.groom().len() > max {
            return Err(SimError::StrandCount {
                count: sim.groom().len(),
                max,
            }
            .into());
        }
        // The floor is drawn where the solver keeps the strands above it.
        let render = RenderSettings {
            floor: config.params.floor,
            ..options.render
        };
        let mut renderer =
            FurRenderer::new(&gpu.device, &gpu.queue, options.layout, &creature, render)?;
        renderer.set_strands_from_sim(&sim)?;
        renderer.set_environment(options.environment.as_ref());
        let tail = CreatureTail::new(&creature, TailSettings::default())?;
        let mut hand = Hand::with_dimensions(
            creature,
            HandDimensions::default().scaled(options.hand_scale),
            options.seed,
        );
        hand.set_body(options.body.clone());
        Ok(SimulatedFur {
            hand,
            sim,
            renderer,
            tail,
            mode: DebugMode::Final,
            lighting: Lighting::default(),
            now: 0.0,
            clock: StepClock::new(TimeMode::Fixed),
            uploaded_at: None,
            body_posed_at: None,
        })
    }

    /// Advances the creature by a frame of `dt` seconds: the hand and the creature's
    /// response move on, the tail swings, and the coat takes the fixed 60 Hz steps that
    /// are due (a frame longer than 1/30 s counts as 1/30 s). Returns the steps taken.
    pub fn update(&mut self, dt: f64) -> Result<u32, SimulatedFurError> {
        if !dt.is_finite() {
            return Err(SimulatedFurError::FrameTime(dt));
        }
        if dt <= 0.0 {
            return Ok(0);
        }
        let dt = dt.min(MAX_FRAME_SECONDS);
        self.now += dt;
        self.swing_tail(dt as f32)?;
        // One fixed step at a time, so the hand moves between the coat's steps.
        let (due, _) = self.clock.advance(dt)?;
        for _ in 0..due {
            let t = self.sim.time() + 1.0 / FIXED_STEP_HZ;
            let pose = self.sim.unturned_pose_at(t);
            self.hand.set_body_time(t);
            self.hand
                .step(self.now, (1.0 / FIXED_STEP_HZ) as f32, &pose);
            self.sim.set_contact(self.hand.contact())?;
            self.sim.set_head_turn(self.hand.response().head_lean())?;
            self.sim.step(1)?;
        }
        Ok(due)
    }

    /// The tail follows the body and wags as the creature's pleasure asks; the coat's
    /// tail roots ride its bones.
    fn swing_tail(&mut self, dt: f32) -> Result<(), SimError> {
        let body = self.pose().body;
        self.tail
            .set_swish(self.hand.response().tail_swish_amplitude());
        self.tail.advance(dt, body);
        self.sim.set_tail_pose(Some(self.tail.skinning()))
    }

    /// The creature's pose now (the pose of the coat's last step).
    pub fn pose(&self) -> CreaturePose {
        self.sim.pose_at(self.sim.time() as f32)
    }

    /// A pointer button went down: a primary press on the creature starts petting and stops
    /// the orbit.
    pub fn pointer_down(&mut self, ray: Ray, screen_px: Vec2, button: PointerButton) {
        self.hand.pointer_down(ray, screen_px, button, self.now);
    }

    /// The pointer moved.
    pub fn pointer_move(&mut self, ray: Ray, screen_px: Vec2) {
        self.hand.pointer_move(ray, screen_px, self.now);
    }

    /// A pointer button went up: releasing the primary button ends a pet and restores the
    /// orbit.
    pub fn pointer_up(&mut self, ray: Ray, screen_px: Vec2, button: PointerButton) {
        self.hand.pointer_up(ray, screen_px, button, self.now);
    }

    /// The pointer was cancelled (a touch taken by the system): any pet ends.
    pub fn pointer_cancel(&mut self) {
        self.hand.pointer_cancel(self.now);
    }

    /// The pointer left the window: the hand hides unless a pet is under way.
    pub fn pointer_leave(&mut self) {
        self.hand.pointer_leave(self.now);
    }

    /// The window lost focus: any pet ends and the orbit comes back.
    pub fn focus_lost(&mut self) {
        self.hand.focus_lost(self.now);
    }

    /// Chooses the view: final, skin, strands or contact.
    pub fn set_debug_mode(&mut self, mode: DebugMode) {
        self.mode = mode;
    }

    /// The view drawn.
    pub fn debug_mode(&self) -> DebugMode {
        self.mode
    }

    /// The lights.
    pub fn lighting_mut(&mut self) -> &mut Lighting {
        &mut self.lighting
    }

    /// The interaction state.
    pub fn interaction(&self) -> Interaction {
        let response = self.hand.response();
        Interaction {
            state: self.hand.state(),
            orbit_enabled: self.hand.orbit_enabled(),
            hand_visible: self.hand.visible(),
            pleasure: response.pleasure(),
            eye_narrowing: response.eye_narrowing(),
            last_hit: self.hand.gesture().last_surface_hit(),
        }
    }

    /// The creature.
    pub fn creature(&self) -> &Creature {
        self.sim.creature()
    }

    /// The coat: groom, solver and its buffers.
    pub fn hair(&self) -> &FurSim {
        &self.sim
    }

    /// The coat, for changing its solver parameters.
    pub fn hair_mut(&mut self) -> &mut FurSim {
        // Whatever the caller does to it (steps, strands set), the next frame uploads.
        self.uploaded_at = None;
        self.body_posed_at = None;
        &mut self.sim
    }

    /// Which solver steps the coat (`Gpu` or `Cpu`).
    pub fn solver(&self) -> SolverKind {
        if self.sim.gpu().is_some() {
            SolverKind::Gpu
        } else {
            SolverKind::Cpu
        }
    }

    /// Before a frame: a CPU-stepped coat's positions, uploaded if they changed since the
    /// last upload (nothing to do for a GPU-stepped one, which the frames read in place).
    fn upload_positions(&mut self) -> Result<(), RenderError> {
        if let Some(body) = self.sim.body()
            && self.body_posed_at != Some(self.sim.steps())
        {
            let pose = body.motion.pose_at(self.sim.time());
            let surface = crate::render::mesh::body_surface(&body.mesh, &pose);
            self.renderer.set_body_surface(Some(&surface));
            self.body_posed_at = Some(self.sim.steps());
        }
        if self.sim.gpu().is_some() || self.uploaded_at == Some(self.sim.steps()) {
            return Ok(());
        }
        self.renderer.upload_strands_from_sim(&self.sim)?;
        self.uploaded_at = Some(self.sim.steps());
        Ok(())
    }

    /// The hand.
    pub fn hand(&self) -> &Hand {
        &self.hand
    }

    /// The proxies pointer and finger rays are tested against, at the current pose.
    pub fn proxies(&self) -> &CreatureProxies {
        self.hand.gesture().proxies()
    }

    /// The tail.
    pub fn tail(&self) -> &CreatureTail {
        &self.tail
    }

    /// How the renderer draws the hair now (`Hardware`, `Native` or `Strands`).
    pub fn raster(&self) -> crate::render::Raster {
        self.renderer.raster()
    }

    /// The renderer (what the last frame drew: [`FurRenderer::last_lod`],
    /// [`FurRenderer::last_raster`]).
    pub fn renderer(&self) -> &FurRenderer {
        &self.renderer
    }

    /// The renderer.
    pub fn renderer_mut(&mut self) -> &mut FurRenderer {
        &mut self.renderer
    }

    /// Seconds of frame time counted so far.
    pub fn time(&self) -> f64 {
        self.now
    }

    /// The scene to draw from `camera`, with `hand` the hand's shapes converted.
    fn scene<'a>(&self, camera: Camera, hand: &'a [DrawCapsule]) -> Scene<'a> {
        let mut scene = Scene::new(camera, self.pose());
        scene.mode = self.mode;
        scene.lighting = self.lighting;
        scene.hand = hand;
        scene.hand_occlusion = self.hand.occlusion();
        scene.eye_narrowing = self.hand.response().eye_narrowing();
        scene.ray_hit = self.interaction().last_hit;
        scene.positions_index = self.sim.gpu().map_or(0, |g| g.current_index());
        scene
    }

    /// Records a frame seen from `camera` into `encoder`, drawn into `targets` and
    /// resolved into `output` (your surface texture's view). Submit the encoder before the
    /// next `render` or [`SimulatedFur::render_image`]: each frame's uniforms land at
    /// submission.
    pub fn render(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &FrameTargets,
        output: &wgpu::TextureView,
        camera: &Camera,
    ) -> Result<(), SimulatedFurError> {
        self.upload_positions()?;
        let hand: Vec<DrawCapsule> = self.hand.shapes().iter().map(draw_capsule).collect();
        let scene = self.scene(*camera, &hand);
        self.renderer.render(encoder, targets, output, &scene)?;
        Ok(())
    }

    /// Records into `encoder` the creature, its coat and the hand seen from `camera` (your
    /// camera, in your world), drawn into your `target` over what it holds, placed and lit
    /// as `placement` says (the floor only if it asks). Nothing is cleared; see
    /// [`FurRenderer::draw_into`] for the depth convention and the targets it refuses.
    /// Pointer rays go through [`Placement::ray_to_creature`] first. Submit the encoder
    /// before the next frame.
    pub fn draw_into(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &EmbedTarget,
        camera: &Camera,
        placement: &Placement,
    ) -> Result<(), SimulatedFurError> {
        self.upload_positions()?;
        let hand: Vec<DrawCapsule> = self.hand.shapes().iter().map(draw_capsule).collect();
        let scene = self.scene(*camera, &hand);
        self.renderer
            .draw_into(encoder, target, &scene, placement)?;
        Ok(())
    }

    /// Renders a frame from `camera` offscreen and reads it back (the layout must use
    /// [`crate::render::OFFSCREEN_FORMAT`]).
    pub fn render_image(
        &mut self,
        camera: &Camera,
        width: u32,
        height: u32,
    ) -> Result<Image, SimulatedFurError> {
        self.upload_positions()?;
        let hand: Vec<DrawCapsule> = self.hand.shapes().iter().map(draw_capsule).collect();
        let scene = self.scene(*camera, &hand);
        Ok(self.renderer.render_image(&scene, width, height)?)
    }
}
