//! The desktop demo: a winit window with the creature, pointer petting, an orbit camera and
//! an egui panel, or a scripted replay of pointer events that ends in a screenshot.
//!
//! The window, the surface, the camera and the controls live here; the creature, its coat,
//! the hand and the renderer are the library's [`SimulatedFur`].

mod budget;
mod clip;
mod input;
mod orbit;
mod panel;
mod panel_cache;
mod raster_probe;
mod recent_frames;
mod record;
mod surface;
mod tier_search;
mod upscale;

pub use record::{CLIP_FPS, CLIP_MIN_FPS, RecordOptions, record};

use anyhow::Context;
use budget::{FrameBudget, LEVELS, Level};
use input::PointerInput;
use orbit::OrbitControls;
use panel::{Panel, PanelAction};
use pelt::SimulatedFur;
use pelt::hand::PointerScript;
use pelt::render::Raster;
use pelt::render::strand_lod::{FULL_COAT_STRANDS, LodPolicy};
use raster_probe::RasterProbe;
use recent_frames::{FrameTimes, RecentFrames};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use surface::WindowGpu;
use tier_search::{Decision, TierChooser};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowId};

/// What `pelt demo` was asked to do.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// A fixed strand count (no tier search) when given.
    pub strands: Option<usize>,
    /// Seed for the groom, the idle motion and the hand.
    pub seed: u64,
    /// Pointer events to replay with a fixed frame time.
    pub script: Option<PointerScript>,
    /// Frames to run before exiting (with `screenshot`, the frame it shows).
    pub frames: Option<u32>,
    /// Where to save the last frame.
    pub screenshot: Option<PathBuf>,
    /// Window size in logical pixels.
    pub size: (u32, u32),
    /// The view to start in.
    pub mode: pelt::render::DebugMode,
    /// How the hair is drawn.
    pub raster: pelt::render::Raster,
    /// Which solver steps the coat.
    pub solver: pelt::sim::SolverKind,
    /// The frame budget: `Some(fps)` to hold that frame rate by render scale and strand
    /// density, `None` for a fixed level (the same work every frame, so a recorded clip is
    /// the same bytes every run).
    pub budget_fps: Option<f64>,
    /// The render scale while the budget is off (1: the window's own size).
    pub scale: f32,
    /// Whether the coat starts as a volume (`--volume`).
    pub volume: bool,
    /// Steps between splats of the volume grid (`--volume-interval`).
    pub volume_interval: u32,
    /// The environment map, if any.
    pub environment: Option<pelt::render::EnvironmentMap>,
    /// Whether the panel starts folded away (`--hide-panel`; H toggles it).
    pub hide_panel: bool,
    /// A body to grow the coat on (`--body`), in place of the creature.
    pub body: Option<pelt::sim::FurBody>,
}

/// Opens the window and runs until it closes (or, with `frames`, until that many frames).
pub fn run(options: DemoOptions) -> anyhow::Result<()> {
    let event_loop = EventLoop::new().with_context(|| {
        // Set but refused (a display server that is gone or full) is another fault than
        // none set at all.
        match ["WAYLAND_DISPLAY", "DISPLAY"].into_iter().find_map(|name| {
            std::env::var(name)
                .ok()
                .filter(|value| !value.is_empty())
                .map(|value| (name, value))
        }) {
            Some((name, value)) => format!(
                "opening the display {name}={} (is its server running and accepting \
                 connections?)",
                crate::common::printable::printable(&value)
            ),
            None => "opening the display (no window system: set DISPLAY, or run the headless \
                     `pelt run`)"
                .to_string(),
        }
    })?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = App {
        options,
        running: None,
        error: None,
    };
    event_loop.run_app(&mut app)?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Whether a window system is reachable (an X11 or Wayland display on Unix).
pub fn display_available() -> bool {
    if cfg!(any(target_os = "windows", target_os = "macos")) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// Frames a `--frames` run goes on for when the frame to save never reaches the window.
const MAX_EXTRA_FRAMES: u32 = 120;

struct App {
    options: DemoOptions,
    running: Option<Running>,
    error: Option<anyhow::Error>,
}

/// A replay under way: events applied at their times, a fixed frame time.
struct Replay {
    script: PointerScript,
    time: f64,
}

/// One shown frame's timings, milliseconds.
struct FrameTiming {
    /// From the frame's start to its presentation (replayed events, update, drawing).
    frame_ms: f64,
    update_ms: f64,
    render_ms: f64,
    panel_ms: f64,
}

/// Frame timings for the panel.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameStats {
    /// Frames presented in the last second.
    pub fps: f64,
    /// The mean times of those frames (the panel shows these beside the rate).
    pub recent: FrameTimes,
    /// Milliseconds in the creature's update (hand, tail, solver submission).
    pub update_ms: f64,
    /// Milliseconds recording and presenting the frame, the panel included.
    pub render_ms: f64,
    /// Milliseconds of that in the panel, on the CPU.
    pub panel_ms: f64,
    /// Strands in the coat.
    pub strands: usize,
    /// The most strands the device holds.
    pub max_strands: usize,
    /// Strands drawn last frame (the strand level of detail's prefix).
    pub drawn: u32,
    /// Share of the window's size the scene is drawn at.
    pub scale: f32,
    /// Which rasteriser draws the strands.
    pub raster: &'static str,
    /// Which solver steps the coat.
    pub solver: &'static str,
    /// Whether the frame budget is choosing the level.
    pub budget: bool,
}

struct Running {
    window: Arc<Window>,
    gpu: WindowGpu,
    fur: SimulatedFur,
    orbit: OrbitControls,
    input: PointerInput,
    panel: Panel,
    tiers: Option<TierChooser>,
    /// The frame budget, when on.
    budget: Option<FrameBudget>,
    /// With `--raster auto` and the budget on: which rasteriser each level draws faster,
    /// measured (`None` once the panel chose one, or with the budget off).
    raster_probe: Option<RasterProbe>,
    replay: Option<Replay>,
    frames: u32,
    /// Frames after the first two that did not reach the window.
    skipped: u32,
    /// Where to save the next frame that reaches the window (F12, or a `--frames` run's
    /// screenshot).
    capture: Option<PathBuf>,
    /// The frames presented in the last second, for the panel's rate line.
    recent: RecentFrames,
    /// Each shown frame's timings, for the summary a `--frames` run prints.
    shown_frames: Vec<FrameTiming>,
    last_frame: Instant,
    stats: FrameStats,
    /// The environment map each coat (re)built is lit by.
    environment: Option<pelt::render::EnvironmentMap>,
}

impl App {
    fn start(&mut self, event_loop: &ActiveEventLoop) -> anyhow::Result<Running> {
        let (w, h) = self.options.size;
        let window = Arc::new(
            event_loop.create_window(
                Window::default_attributes()
                    .with_title("Pelt: pet the creature")
                    .with_inner_size(winit::dpi::LogicalSize::new(w, h)),
            )?,
        );
        // Refuses a window too large to draw before allocating anything for it.
        let mut gpu = WindowGpu::new(event_loop, window.clone())?;
        // Before the coat is grown and the frames run, not after them.
        if self.options.screenshot.is_some() && !gpu.can_read_frames() {
            anyhow::bail!(
                "this window's surface cannot be copied on {} ({:?}), so --screenshot cannot \
                 save its frames; another backend (WGPU_BACKEND=vulkan) can",
                gpu.gpu.info().name,
                gpu.gpu.info().backend
            );
        }
        let software = gpu.gpu.info().device_type == wgpu::DeviceType::Cpu;
        let max = pelt::sim::max_strands(&gpu.gpu.device.limits());
        let (strands, tiers) = match self.options.strands {
            Some(n) => (n, None),
            None => {
                // Probe with a coat the adapter can surely draw, then climb or descend.
                let first = if software {
                    16_384
                } else {
                    tier_search::CANDIDATES[0]
                };
                let chooser = TierChooser::new(first, max);
                (chooser.current(), Some(chooser))
            }
        };
        // The hair drawn on the host needs one sample a pixel; the probe then has no other
        // path that draws right at one sample to measure.
        let native_hair = self.options.raster.for_adapter(&gpu.gpu.info()) == Raster::Native;
        gpu.set_native_hair(native_hair);
        let mut fur = gpu.build_fur(
            strands,
            self.options.seed,
            self.options.solver,
            self.options.body.clone(),
        )?;
        fur.renderer_mut()
            .set_environment(self.options.environment.as_ref());
        fur.set_debug_mode(self.options.mode);
        fur.renderer_mut().set_raster(self.options.raster);
        // A software rasteriser starts the budget halfway down; a GPU at the top.
        let budget = self
            .options
            .budget_fps
            .map(|fps| FrameBudget::new(1000.0 / fps, if software { 4 } else { 0 }));
        let level = match &budget {
            Some(b) => b.level(),
            None => Level {
                scale: self.options.scale,
                ..LEVELS[0]
            },
        };
        apply_level(&mut gpu, &mut fur, level);
        let volume = pelt::sim::FurParams {
            volume: self.options.volume,
            volume_interval: self.options.volume_interval,
            ..*fur.hair().params()
        };
        fur.hair_mut().set_params(volume)?;
        let mut panel = Panel::new(
            &gpu.gpu,
            &window,
            gpu.panel_format(),
            self.options.seed,
            fur.hair().params(),
        );
        panel.set_hidden(self.options.hide_panel);
        let (first_raster, first_solver) = (fur.raster().name(), fur.solver().name());
        let camera = orbit::start_camera(&mut fur);
        let probe_candidates = raster_probe::candidates(gpu.samples());
        let replay = self
            .options
            .script
            .clone()
            .map(|script| Replay { script, time: 0.0 });
        Ok(Running {
            orbit: OrbitControls::new(camera),
            input: PointerInput::default(),
            window,
            gpu,
            fur,
            panel,
            tiers: if replay.is_some() { None } else { tiers },
            raster_probe: (self.options.raster == Raster::Auto
                && budget.is_some()
                && probe_candidates.len() > 1)
                .then(|| RasterProbe::new(LEVELS.len(), probe_candidates)),
            budget,
            replay,
            frames: 0,
            skipped: 0,
            capture: None,
            recent: RecentFrames::default(),
            shown_frames: Vec::new(),
            last_frame: Instant::now(),
            stats: FrameStats {
                strands,
                max_strands: max,
                // What the first frame's panel shows, before any frame is measured.
                raster: first_raster,
                solver: first_solver,
                scale: level.scale,
                budget: self.options.budget_fps.is_some(),
                ..Default::default()
            },
            environment: self.options.environment.clone(),
        })
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        match self.start(event_loop) {
            Ok(r) => {
                r.window.request_redraw();
                self.running = Some(r);
            }
            Err(e) => {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(r) = self.running.as_mut() else {
            return;
        };
        let consumed = r.panel.on_window_event(&r.window, &event);
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => r.gpu.resize(size.width, size.height),
            WindowEvent::RedrawRequested => {
                let result = r.frame(&self.options);
                match result {
                    Ok(true) => r.window.request_redraw(),
                    Ok(false) => event_loop.exit(),
                    Err(e) => {
                        self.error = Some(e);
                        event_loop.exit();
                    }
                }
            }
            WindowEvent::KeyboardInput { event, .. } if !consumed => {
                use winit::keyboard::{Key, NamedKey};
                // A held key's repeats do nothing: holding H would fold and open the panel
                // a dozen times a second, and P save a screenshot each time.
                if event.state.is_pressed() && !event.repeat {
                    match event.logical_key {
                        Key::Named(NamedKey::F12) => r.panel.request(PanelAction::Screenshot),
                        Key::Character(ref c) if c.eq_ignore_ascii_case("p") => {
                            r.panel.request(PanelAction::Screenshot)
                        }
                        Key::Character(ref c) if c.eq_ignore_ascii_case("h") => {
                            r.panel.set_hidden(!r.panel.hidden())
                        }
                        Key::Named(NamedKey::Escape) => event_loop.exit(),
                        _ => {}
                    }
                }
            }
            other if r.replay.is_none() => {
                let size = r.gpu.size_vec();
                // A wheel over the panel scrolls it, never the camera (egui lets the wheel
                // through where the panel's scroll area is at an end).
                let over_panel = matches!(other, WindowEvent::MouseWheel { .. })
                    && r.input
                        .position()
                        .is_some_and(|p| p.x < r.panel.covers_left() as f32);
                r.input.window_event(
                    &other,
                    consumed || over_panel,
                    &mut r.fur,
                    &mut r.orbit,
                    size,
                );
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(r) = &self.running {
            r.window.request_redraw();
        }
    }
}

/// Draws the scene at `level`'s render scale and strand density, the strands widened to
/// look like the full coat whatever the tier, but never more than a pixel past their own
/// width (wider, a few strands read as spikes).
fn apply_level(gpu: &mut WindowGpu, fur: &mut SimulatedFur, level: Level) {
    gpu.set_scale(level.scale);
    fur.renderer_mut().set_lod_policy(LodPolicy {
        strands_per_pixel: level.strands_per_pixel,
        min_drawn: level.min_drawn,
        reference_strands: Some(FULL_COAT_STRANDS),
        max_extra_pixels: Some(MAX_EXTRA_PIXELS),
        ..LodPolicy::default()
    });
}

/// The most pixels the demo widens a drawn strand past its own width on screen.
pub const MAX_EXTRA_PIXELS: f32 = 1.0;

impl Running {
    /// One frame: replayed events, the creature's update, the tier search, drawing and the
    /// panel. Returns whether to keep running.
    fn frame(&mut self, options: &DemoOptions) -> anyhow::Result<bool> {
        let now = Instant::now();
        let wall = now.duration_since(self.last_frame).as_secs_f64();
        self.last_frame = now;
        let dt = if self.replay.is_some() || options.frames.is_some() {
            1.0 / 60.0
        } else {
            wall
        };
        if self.frames == 0 && self.replay.is_some() {
            // The view is framed beside the panel once its interface has run: the first
            // frame's events are moved with it like every later one's (else a drag that
            // starts on this frame jumps by half the panel's width).
            self.gpu.prepare_panel(
                &self.window,
                &self.fur,
                &mut self.orbit,
                &mut self.panel,
                &self.stats,
            );
        }
        if let Some(replay) = &mut self.replay {
            let from = replay.time;
            replay.time += dt;
            let size = self.gpu.size_vec();
            // Scripts are written in logical pixels (the window's size as asked for); on a
            // high-density screen they land on the same spot of the picture.
            let scale = self.window.scale_factor() as f32;
            // The window frames the view beside the panel: the events are placed with it.
            let framing = self.orbit.framing();
            for event in replay.script.events_in(
                if self.frames == 0 {
                    f64::NEG_INFINITY
                } else {
                    from
                },
                replay.time,
            ) {
                self.input.replay(
                    &event.scaled(scale).mapped(|p| framing.place(p, size)),
                    &mut self.fur,
                    &mut self.orbit,
                    size,
                );
            }
        }
        let started = Instant::now();
        self.fur.update(dt)?;
        self.stats.update_ms = started.elapsed().as_secs_f64() * 1e3;

        // A `--frames` run saves its last frame: the one that reaches the window as the
        // count is reached (a later one if that frame is skipped).
        if let (Some(frames), Some(path)) = (options.frames, &options.screenshot)
            && self.frames + 1 == frames
        {
            self.capture = Some(path.clone());
        }
        // While the tier search measures coats, the adapter's default draws them.
        if let (Some(probe), Some(budget), None) =
            (&mut self.raster_probe, &self.budget, &self.tiers)
        {
            let raster = probe.raster(budget.index());
            if self.fur.raster() != raster {
                self.fur.renderer_mut().set_raster(raster);
            }
        }
        let started = Instant::now();
        let drawn = self.gpu.draw(
            &self.window,
            &mut self.fur,
            &mut self.orbit,
            &mut self.panel,
            &self.stats,
            self.capture.is_some(),
        )?;
        self.stats.render_ms = started.elapsed().as_secs_f64() * 1e3;
        self.stats.panel_ms = self.gpu.panel_ms();
        self.frames += 1;
        let shown = drawn.is_some();
        // The first two frames compile pipelines and upload the coat: not typical frames.
        if options.frames.is_some() && self.frames > 2 {
            if shown {
                self.shown_frames.push(FrameTiming {
                    frame_ms: now.elapsed().as_secs_f64() * 1e3,
                    update_ms: self.stats.update_ms,
                    render_ms: self.stats.render_ms,
                    panel_ms: self.stats.panel_ms,
                });
            } else {
                self.skipped += 1;
            }
        }
        let mut saved = false;
        let actions = match drawn {
            Some(drawn) => {
                let times = FrameTimes {
                    update_ms: self.stats.update_ms,
                    render_ms: self.stats.render_ms,
                    panel_ms: self.stats.panel_ms,
                };
                self.recent.push(now, times);
                if let (Some(image), Some(path)) = (drawn.image, self.capture.take()) {
                    self.save_screenshot(&image, &path, options)?;
                    saved = true;
                }
                drawn.actions
            }
            None => Vec::new(),
        };
        self.recent.forget_before(now);
        self.stats.fps = self.recent.fps();
        self.stats.recent = self.recent.mean();

        for action in actions {
            self.act(action)?;
        }
        self.stats.drawn = self.fur.renderer_mut().last_lod().drawn;
        self.stats.scale = self.gpu.scale();
        self.stats.raster = self.fur.renderer().last_raster().name();
        self.stats.solver = self.fur.solver().name();
        // The budget takes over once the tier is chosen; only shown frames count.
        let frame_ms = now.elapsed().as_secs_f64() * 1e3;
        // Frames the raster probe measured are not the budget's to count.
        let probed = match (&mut self.raster_probe, &self.budget) {
            (Some(probe), Some(budget)) if shown && self.tiers.is_none() => {
                probe.record(budget.index(), frame_ms)
            }
            _ => false,
        };
        if shown
            && !probed
            && self.tiers.is_none()
            && let Some(budget) = &mut self.budget
            && let Some(level) = budget.record(frame_ms)
        {
            apply_level(&mut self.gpu, &mut self.fur, level);
        }
        // Only frames that reached the screen count: a minimised or hidden window skips
        // its frames almost for free and would look fast.
        if shown && let Some(chooser) = &mut self.tiers {
            match chooser.record(wall * 1e3) {
                Decision::Measure => {}
                Decision::Switch(n) => self.rebuild(n, self.panel.seed)?,
                Decision::Done => {
                    let adapter = self.gpu.gpu.info().name;
                    self.panel.note = panel::tier_note(
                        chooser.current(),
                        &chooser.tried,
                        &adapter,
                        self.budget.is_some(),
                    );
                    self.tiers = None;
                }
            }
        }
        if let Some(frames) = options.frames
            && self.frames >= frames
        {
            if options.screenshot.is_some() && !saved {
                // The frame to save did not reach the window; the next one that does is saved.
                if self.frames >= frames + MAX_EXTRA_FRAMES {
                    anyhow::bail!(
                        "no frame reached the window in {MAX_EXTRA_FRAMES} tries after frame {frames}, so no screenshot was saved"
                    );
                }
                return Ok(true);
            }
            self.print_summary();
            return Ok(false);
        }
        Ok(true)
    }

    /// What a `--frames` run measured: the median of each timing over the frames shown.
    fn print_summary(&self) {
        let info = self.gpu.gpu.info();
        if self.shown_frames.is_empty() {
            eprintln!(
                "no frame timed ({} skipped) of {} strands on {} ({:?}): the first two frames build pipelines and are not timed; run 3 frames or more for timings",
                self.skipped, self.stats.strands, info.name, info.backend
            );
            return;
        }
        let median = |f: fn(&FrameTiming) -> f64| {
            let mut v: Vec<f64> = self.shown_frames.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or_default()
        };
        eprintln!(
            "{} frames timed after the two that build pipelines ({} skipped) of {} strands ({} drawn at render scale {:.2} at the end; budget {}; raster {}; solver {}) on {} ({:?}); median frame {:.1} ms: update {:.1} ms, drawing and presenting {:.1} ms, of which the panel {:.1} ms",
            self.shown_frames.len(),
            self.skipped,
            self.stats.strands,
            self.stats.drawn,
            self.stats.scale,
            match &self.budget {
                Some(b) => format!(
                    "on at level {}, {} switch{}",
                    b.index(),
                    b.switches,
                    if b.switches == 1 { "" } else { "es" }
                ),
                None => "off".to_string(),
            },
            self.fur.renderer().last_raster(),
            self.fur.solver(),
            info.name,
            info.backend,
            median(|t| t.frame_ms),
            median(|t| t.update_ms),
            median(|t| t.render_ms),
            median(|t| t.panel_ms),
        );
    }

    fn rebuild(&mut self, strands: usize, seed: u64) -> anyhow::Result<()> {
        let mode = self.fur.debug_mode();
        let lighting = *self.fur.lighting_mut();
        let raster = self.fur.raster();
        let old = *self.fur.hair().params();
        self.fur = self.gpu.build_fur(
            strands,
            seed,
            self.fur.solver(),
            self.fur.hair().body().cloned(),
        )?;
        // Another coat costs differently: measure the levels again.
        if let Some(probe) = &mut self.raster_probe {
            *probe = RasterProbe::new(LEVELS.len(), raster_probe::candidates(self.gpu.samples()));
        }
        self.fur.renderer_mut().set_raster(raster);
        // The volume grid's settings carry over to the new coat.
        let params = pelt::sim::FurParams {
            volume: old.volume,
            volume_friction: old.volume_friction,
            volume_strength: old.volume_strength,
            volume_interval: old.volume_interval,
            ..*self.fur.hair().params()
        };
        self.fur.hair_mut().set_params(params)?;
        self.fur
            .renderer_mut()
            .set_environment(self.environment.as_ref());
        self.fur.set_debug_mode(mode);
        let level = match &self.budget {
            Some(b) => b.level(),
            None => Level {
                scale: self.gpu.scale(),
                ..LEVELS[0]
            },
        };
        apply_level(&mut self.gpu, &mut self.fur, level);
        *self.fur.lighting_mut() = lighting;
        self.panel.params = *self.fur.hair().params();
        self.stats.strands = strands;
        // The summary is of the tier the run ends on.
        self.shown_frames.clear();
        self.skipped = 0;
        Ok(())
    }

    /// Saves a presented frame as a PNG (through a temporary file beside `path`).
    fn save_screenshot(
        &mut self,
        image: &pelt::render::Image,
        path: &std::path::Path,
        options: &DemoOptions,
    ) -> anyhow::Result<()> {
        let png = image.to_png().context("encoding the screenshot")?;
        let result = pelt::files::write_atomic(path, "the screenshot", &png);
        // A `--frames` run fails without its screenshot; a key press only notes it.
        if options.screenshot.as_deref() == Some(path) {
            result?;
            eprintln!("saved {}", path.display());
        } else {
            self.panel.note = Some(match result {
                Ok(()) => format!("Saved {}", path.display()),
                Err(e) => format!("Screenshot failed: {e}"),
            });
        }
        Ok(())
    }

    fn act(&mut self, action: PanelAction) -> anyhow::Result<()> {
        match action {
            PanelAction::Screenshot if !self.gpu.can_read_frames() => {
                // Asking the window for the frame would fail the draw and end the session.
                self.panel.note = Some(format!(
                    "Screenshots need a window that can be read back, and one on {} \
                     cannot: run with WGPU_BACKEND=vulkan to save them",
                    self.gpu.gpu.info().backend.to_str()
                ));
            }
            PanelAction::Screenshot => {
                let name = format!(
                    "pelt-{}.png",
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis())
                );
                // Saved when the next frame reaches the window: what the window shows.
                self.capture = Some(PathBuf::from(name));
            }
            PanelAction::ExportVrm => {
                let path = PathBuf::from("creature.vrm");
                let options = pelt::creature::CreatureExport {
                    seed: self.panel.seed,
                    vrm: true,
                    ..Default::default()
                };
                let result = pelt::vrm::write_creature_file(&path, self.fur.creature(), &options);
                self.panel.note = Some(match result {
                    Ok(bytes) => format!("Exported {} ({bytes} bytes)", path.display()),
                    Err(e) => format!("Export failed: {e:#}"),
                });
            }
            PanelAction::Mode(mode) => self.fur.set_debug_mode(mode),
            PanelAction::Raster(raster) => {
                // The user's choice stands: no more measuring.
                self.raster_probe = None;
                // A path that needs other targets gets a coat built for them.
                let native = raster.for_adapter(&self.gpu.gpu.info()) == Raster::Native;
                if self.gpu.set_native_hair(native)
                    && let Err(e) = self.rebuild(self.stats.strands, self.panel.seed)
                {
                    // The old coat stays, with the targets it was built for.
                    self.gpu.set_native_hair(!native);
                    self.panel.note = Some(format!("{e:#}"));
                    return Ok(());
                }
                self.fur.renderer_mut().set_raster(raster);
            }
            PanelAction::Regrow { strands, seed } => {
                self.tiers = None;
                // A coat the device cannot hold is a note, and the old coat stays.
                if let Err(e) = self.rebuild(strands.unwrap_or(self.stats.strands), seed) {
                    self.panel.note = Some(format!("{e:#}"));
                }
            }
            PanelAction::Params(params) => {
                if let Err(e) = self.fur.hair_mut().set_params(params) {
                    self.panel.note = Some(format!("{e}"));
                }
            }
            PanelAction::Lighting(lighting) => *self.fur.lighting_mut() = lighting,
        }
        Ok(())
    }
}
