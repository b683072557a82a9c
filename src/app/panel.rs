//! The egui side panel: the view, the coat's tier and seed, the main solver and shading
//! parameters (live), the interaction state and pleasure, frame timings, a screenshot
//! button and an "export VRM" button (the creature's; none on a body). It draws over the
//! frame and reports what the user asked for as [`PanelAction`]s. A frame runs its
//! interface first ([`Panel::prepare`]), so the scene's upscale can skip the columns the
//! panel hides, then [`Panel::paint`] redraws what changed of the kept panel
//! (`panel_cache`) and lays it over the frame.

use super::FrameStats;
use super::panel_cache::PanelCache;
use super::tier_search::CANDIDATES;
use pelt::SimulatedFur;
use pelt::gpu::GpuContext;
use pelt::render::{DebugMode, Lighting};
use pelt::sim::FurParams;
use winit::window::Window;

/// What the user asked for in the panel (or by key).
#[derive(Clone, Debug, PartialEq)]
pub enum PanelAction {
    /// Save the frame as a PNG.
    Screenshot,
    /// Write the creature's rig and tail as a GLB.
    ExportVrm,
    /// Show another view.
    Mode(DebugMode),
    /// Draw the hair another way.
    Raster(pelt::render::Raster),
    /// Grow the coat again with another strand count or seed.
    Regrow {
        /// New strand count, if changed.
        strands: Option<usize>,
        /// Seed.
        seed: u64,
    },
    /// New solver parameters.
    Params(FurParams),
    /// New lights.
    Lighting(Lighting),
}

/// Columns of pixels, from the left edge of a window of `size`, that a panel filling
/// `filled` (points, at `pixels_per_point`) hides: none unless its fill is `opaque` and it
/// spans the window's height from its left edge (each edge as the pixel it rounds to); its
/// last column may be anti-aliased, so it is not counted.
pub fn hidden_columns(
    filled: egui::Rect,
    pixels_per_point: f32,
    size: (u32, u32),
    opaque: bool,
) -> u32 {
    // egui keeps rectangles to 1/32 of a point and snaps a fill's edges to whole pixels,
    // so its edges are compared as the pixels they round to.
    let px = |v: f32| (v * pixels_per_point).round();
    let spans =
        px(filled.min.x) <= 0.0 && px(filled.min.y) <= 0.0 && px(filled.max.y) >= size.1 as f32;
    if !(opaque && spans && filled.max.x.is_finite()) {
        return 0;
    }
    let right = (filled.max.x * pixels_per_point).floor();
    if right < 1.0 {
        return 0;
    }
    (right as u32 - 1).min(size.0)
}

/// The note the start-up tier search leaves at the top of the panel, or `None` when it kept
/// the largest tier it tried. `tried` holds each strand count measured with its median
/// frame time (ms); those frames ran at start, before the frame budget (`budget`: whether
/// it is on) changed anything, so the note calls them the probe's and points at the "now"
/// line for the rate since.
pub fn tier_note(
    chosen: usize,
    tried: &[(usize, f64)],
    adapter: &str,
    budget: bool,
) -> Option<String> {
    let target = super::tier_search::TARGET_FPS;
    let fps_of = |n: usize| tried.iter().find(|t| t.0 == n).map(|t| 1000.0 / t.1);
    let largest = tried.iter().map(|t| t.0).max().unwrap_or(chosen);
    let since = if budget {
        "the frame budget lowers the render scale and the strands drawn from there; the \"now\" line below is the rate since."
    } else {
        "with --budget off nothing lowers the work; the \"now\" line below is the rate since."
    };
    match (fps_of(chosen), fps_of(largest)) {
        (Some(fps), _) if fps < target => Some(format!(
            "Start-up probe: {chosen} strands, the smallest tier, ran at {} fps on {adapter}, under the {target:.0} fps target; {since}",
            rate_under(fps, target)
        )),
        (_, Some(fps)) if largest > chosen => Some(format!(
            "Start-up probe: {largest} strands ran at {} fps on {adapter}, under the {target:.0} fps target, so the coat has {chosen}; the \"now\" line below is the rate since.",
            rate_under(fps, target)
        )),
        _ => None,
    }
}

/// `fps`, a rate under `target`, as the note prints it: whole frames a second, or cut to a
/// tenth where the whole number would round up to the target ("19.6", never "20 fps, under
/// the 20 fps target").
fn rate_under(fps: f64, target: f64) -> String {
    if fps.round() < target {
        format!("{fps:.0}")
    } else {
        format!("{:.1}", (fps * 10.0).floor() / 10.0)
    }
}

/// The panel's egui state and what it shows.
pub struct Panel {
    ctx: egui::Context,
    state: egui_winit::State,
    renderer: egui_wgpu::Renderer,
    /// The panel as last drawn, redrawn where it changes and laid over every frame.
    cache: PanelCache,
    /// The seed field.
    pub seed: u64,
    /// The solver parameters as edited.
    pub params: FurParams,
    /// A message shown at the top (the tier was lowered, a file was saved).
    pub note: Option<String>,
    key_azimuth: f32,
    key_elevation: f32,
    exposure: f32,
    pending: Vec<PanelAction>,
    /// This frame's interface, run by [`Panel::prepare`] and drawn by [`Panel::paint`].
    prepared: Option<egui::FullOutput>,
    /// Columns from the left the prepared panel hides.
    hides_left: u32,
    /// Columns from the left edge the prepared panel covers, opaque or not.
    covers_left: u32,
    /// Folded away to a small button at the top left (its button, the H key or
    /// `--hide-panel`), so the creature has the whole window.
    hidden: bool,
}

impl Panel {
    /// A panel for `window`, drawn on `gpu`'s device into views of `format`.
    pub fn new(
        gpu: &GpuContext,
        window: &Window,
        format: wgpu::TextureFormat,
        seed: u64,
        params: &FurParams,
    ) -> Self {
        let ctx = egui::Context::default();
        let state = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            None,
            Some(gpu.device.limits().max_texture_dimension_2d as usize),
        );
        let lighting = Lighting::default();
        let d = lighting.key_direction;
        Panel {
            renderer: egui_wgpu::Renderer::new(
                &gpu.device,
                format,
                egui_wgpu::RendererOptions::default(),
            ),
            cache: PanelCache::new(&gpu.device, format),
            ctx,
            state,
            seed,
            params: *params,
            note: None,
            key_azimuth: d.x.atan2(d.z).to_degrees(),
            key_elevation: d.y.clamp(-1.0, 1.0).asin().to_degrees(),
            exposure: lighting.exposure,
            pending: Vec::new(),
            prepared: None,
            hides_left: 0,
            covers_left: 0,
            hidden: false,
        }
    }

    /// Folds the panel away to a small button at the top left, or opens it again.
    pub fn set_hidden(&mut self, hidden: bool) {
        self.hidden = hidden;
    }

    /// Whether the panel is folded away.
    pub fn hidden(&self) -> bool {
        self.hidden
    }

    /// Passes a window event to egui; returns whether egui took it.
    pub fn on_window_event(&mut self, window: &Window, event: &winit::event::WindowEvent) -> bool {
        self.state.on_window_event(window, event).consumed
    }

    /// Queues an action (a key press asking for a screenshot).
    pub fn request(&mut self, action: PanelAction) {
        self.pending.push(action);
    }

    fn lighting(&self) -> Lighting {
        let (az, el) = (
            self.key_azimuth.to_radians(),
            self.key_elevation.to_radians(),
        );
        Lighting {
            key_direction: glam::Vec3::new(az.sin() * el.cos(), el.sin(), az.cos() * el.cos()),
            exposure: self.exposure,
            ..Lighting::default()
        }
    }

    /// The panel's interface; returns the rectangle it fills from the window's left edge
    /// (nothing while folded away: its button covers no whole column).
    fn ui(&mut self, ui: &mut egui::Ui, fur: &SimulatedFur, stats: &FrameStats) -> egui::Rect {
        if self.hidden {
            egui::Area::new(egui::Id::unique("pelt folded"))
                .fixed_pos(egui::pos2(6.0, 6.0))
                .show(ui.ctx(), |ui| {
                    if ui.button("panel (H)").clicked() {
                        self.hidden = false;
                    }
                });
            return egui::Rect::NOTHING;
        }
        egui::Panel::left("pelt")
            .default_size(250.0)
            .show(ui, |ui| {
                // Scrolls where the window is too short for it, so the buttons at its
                // foot (the screenshot) stay in reach.
                egui::ScrollArea::vertical().show(ui, |ui| {
                    ui.horizontal(|ui| {
                        ui.heading("Pelt");
                        if ui.button("hide (H)").clicked() {
                            self.hidden = true;
                        }
                    });
                    // A body of the user's has no face to answer the touch: no pleasure.
                    let on_body = fur.hair().body().is_some();
                    ui.label(if on_body {
                        "Drag on the body to pet it; hold still to scratch."
                    } else {
                        "Drag on the creature to pet it; hold still to scratch."
                    });
                    ui.label("Drag elsewhere to orbit, right- or middle-drag to pan, wheel to zoom.");
                    ui.label("H folds this panel away; F12 (or P) saves a screenshot.");
                    if let Some(note) = &self.note {
                        ui.colored_label(egui::Color32::from_rgb(255, 200, 90), note);
                    }
                    ui.separator();
                    let i = fur.interaction();
                    ui.label(format!("gesture: {}", i.state.name()));
                    if !on_body {
                        ui.add(
                            egui::ProgressBar::new(i.pleasure)
                                .text(format!("pleasure {:.2}", i.pleasure)),
                        );
                    }
                    ui.label(format!("now {:.0} fps, over the last second:", stats.fps));
                    ui.label(format!(
                        "mean update {:.1} · draw {:.1} ms (panel {:.1})",
                        stats.recent.update_ms, stats.recent.render_ms, stats.recent.panel_ms
                    ));
                    ui.label(format!(
                        "coat {} strands ({} drawn) · scale {:.2} · raster {} · solver {} · budget {}",
                        stats.strands,
                        stats.drawn,
                        stats.scale,
                        stats.raster,
                        stats.solver,
                        if stats.budget { "on" } else { "off" }
                    ));
                    ui.separator();

                    let mut mode = fur.debug_mode();
                    egui::ComboBox::from_label("view")
                        .selected_text(mode.name())
                        .show_ui(ui, |ui| {
                            for m in DebugMode::ALL {
                                ui.selectable_value(&mut mode, m, m.name())
                                    .on_hover_text(m.summary());
                            }
                        });
                    if mode != fur.debug_mode() {
                        self.pending.push(PanelAction::Mode(mode));
                    }
                    // Which path draws the hair; `auto` asks for the adapter's choice.
                    let current = fur.raster();
                    let mut raster = current;
                    egui::ComboBox::from_label("raster")
                        .selected_text(current.name())
                        .show_ui(ui, |ui| {
                            // Every path `--raster` accepts, in its order.
                            for r in pelt::render::Raster::CHOICES {
                                ui.selectable_value(&mut raster, r, r.name());
                            }
                        });
                    if raster != current {
                        self.pending.push(PanelAction::Raster(raster));
                    }
                    let mut strands = stats.strands;
                    egui::ComboBox::from_label("strands")
                        .selected_text(strands.to_string())
                        .show_ui(ui, |ui| {
                            for n in CANDIDATES.into_iter().filter(|&n| n <= stats.max_strands) {
                                ui.selectable_value(&mut strands, n, n.to_string());
                            }
                        });
                    if strands != stats.strands {
                        self.pending.push(PanelAction::Regrow {
                            strands: Some(strands),
                            seed: self.seed,
                        });
                    }
                    ui.horizontal(|ui| {
                        ui.label("seed");
                        ui.add(egui::DragValue::new(&mut self.seed));
                        if ui.button("regrow").clicked() {
                            self.pending.push(PanelAction::Regrow {
                                strands: None,
                                seed: self.seed,
                            });
                        }
                    });
                    ui.separator();

                    ui.label("solver");
                    let mut p = self.params;
                    ui.add(egui::Slider::new(&mut p.damping, 0.5..=0.99).text("damping"));
                    ui.add(egui::Slider::new(&mut p.root_stiffness, 0.0..=1.0).text("root stiffness"));
                    ui.add(egui::Slider::new(&mut p.tip_stiffness, 0.0..=1.0).text("tip stiffness"));
                    ui.add(egui::Slider::new(&mut p.wind, 0.0..=0.002).text("wind"));
                    ui.add(egui::Slider::new(&mut p.comb_gain, 0.0..=4.0).text("comb gain"));
                    ui.add(egui::Slider::new(&mut p.comb_decay, 0.9..=1.0).text("comb decay"));
                    // The coat as a volume: strands drag (friction) and push (volume) their
                    // neighbours through the density and velocity grid.
                    ui.checkbox(&mut p.volume, "volume grid");
                    ui.add(egui::Slider::new(&mut p.volume_friction, 0.0..=1.0).text("friction"));
                    ui.add(egui::Slider::new(&mut p.volume_strength, 0.0..=4.0).text("volume"));
                    ui.add(
                        egui::Slider::new(&mut p.volume_interval, 1..=pelt::sim::volume::MAX_INTERVAL)
                            .suffix(" steps")
                            .text("splat every"),
                    );
                    if p != self.params {
                        self.params = p;
                        self.pending.push(PanelAction::Params(p));
                    }
                    ui.label("shading");
                    let before = (self.key_azimuth, self.key_elevation, self.exposure);
                    ui.add(
                        egui::Slider::new(&mut self.key_azimuth, -180.0..=180.0)
                            .text("light azimuth °"),
                    );
                    ui.add(
                        egui::Slider::new(&mut self.key_elevation, 5.0..=89.0)
                            .text("light elevation °"),
                    );
                    ui.add(egui::Slider::new(&mut self.exposure, 0.2..=3.0).text("exposure"));
                    if before != (self.key_azimuth, self.key_elevation, self.exposure) {
                        self.pending.push(PanelAction::Lighting(self.lighting()));
                    }
                    ui.separator();
                    ui.horizontal(|ui| {
                        if ui.button("screenshot (F12)").clicked() {
                            self.pending.push(PanelAction::Screenshot);
                        }
                        // The export writes the built-in creature, not a body of the user's.
                        if !on_body && ui.button("export VRM").clicked() {
                            self.pending.push(PanelAction::ExportVrm);
                        }
                    });
                });
            })
            .response
            .rect
    }

    /// Runs the panel's interface for this frame (input, layout, tessellation) before the
    /// frame is drawn, so the frame knows what the panel will hide ([`Panel::hides_left`]).
    pub fn prepare(
        &mut self,
        window: &Window,
        size: (u32, u32),
        fur: &SimulatedFur,
        stats: &FrameStats,
    ) {
        let input = self.state.take_egui_input(window);
        let ctx = self.ctx.clone();
        let mut filled = egui::Rect::NOTHING;
        let mut output = ctx.run_ui(input, |ui| filled = self.ui(ui, fur, stats));
        self.state
            .handle_platform_output(window, std::mem::take(&mut output.platform_output));
        let opaque = ctx.global_style().visuals.panel_fill.a() == u8::MAX;
        self.hides_left = hidden_columns(filled, output.pixels_per_point, size, opaque);
        self.covers_left = hidden_columns(filled, output.pixels_per_point, size, true);
        // A frame prepared but never painted (a skipped frame) still owes its texture
        // changes (new glyphs): they go with this one.
        if let Some(unpainted) = self.prepared.take() {
            let mut owed = unpainted.textures_delta;
            owed.append(std::mem::take(&mut output.textures_delta));
            output.textures_delta = owed;
        }
        self.prepared = Some(output);
    }

    /// Columns of pixels, from the window's left edge, that the prepared panel covers
    /// opaquely: what is drawn there is never seen.
    pub fn hides_left(&self) -> u32 {
        self.hides_left
    }

    /// Columns of pixels, from the window's left edge, that the prepared panel covers,
    /// opaque or not: what the view is framed beside.
    pub fn covers_left(&self) -> u32 {
        self.covers_left
    }

    /// Draws the prepared panel over `view` (already holding the frame) and returns what
    /// the user asked for since the last call.
    pub fn paint(
        &mut self,
        gpu: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        size: (u32, u32),
    ) -> Vec<PanelAction> {
        let Some(mut output) = self.prepared.take() else {
            // Not prepared (no caller does this): the panel as last drawn, so the columns
            // the upscale skipped are not left empty.
            self.cache.composite(encoder, view);
            return std::mem::take(&mut self.pending);
        };
        // Taken whole: every delta is applied or freed below (egui checks that none is lost).
        let mut textures = std::mem::take(&mut output.textures_delta);
        let shapes = output.shapes;
        let ppp = output.pixels_per_point;
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [size.0, size.1],
            pixels_per_point: output.pixels_per_point,
        };
        let textures_changed = super::panel_cache::replaces_texels(&textures);
        for (id, deltas) in textures.set.drain() {
            for delta in &deltas {
                self.renderer
                    .update_texture(&gpu.device, &gpu.queue, id, delta);
            }
        }
        let ctx = &self.ctx;
        let redraw =
            self.cache
                .update(&gpu.device, shapes, ppp, size, textures_changed, |shapes| {
                    ctx.tessellate(shapes, ppp)
                });
        if let Some(redraw) = redraw {
            let extra = self.renderer.update_buffers(
                &gpu.device,
                &gpu.queue,
                encoder,
                &redraw.jobs,
                &screen,
            );
            if !extra.is_empty() {
                gpu.queue.submit(extra);
            }
            if let Some(mut pass) = self.cache.redraw_pass(encoder, redraw.area) {
                self.renderer.render(&mut pass, &redraw.jobs, &screen);
            }
        }
        self.cache.composite(encoder, view);
        for id in textures.free.drain() {
            self.renderer.free_texture(&id);
        }
        std::mem::take(&mut self.pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> egui::Rect {
        egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y1))
    }

    #[test]
    fn the_tier_note_says_the_probe_measured_at_start_and_what_it_measured() {
        // 4,096 strands at 125 ms a frame: 8 fps, under the target.
        let tried = [(16_384, 400.0), (4_096, 125.0)];
        let note = tier_note(4_096, &tried, "llvmpipe", true).expect("a note when too slow");
        assert!(note.starts_with("Start-up probe: 4096 strands"), "{note}");
        assert!(note.contains("ran at 8 fps on llvmpipe"), "{note}");
        assert!(note.contains("under the 20 fps target"), "{note}");
        assert!(note.contains("\"now\""), "{note}");
        assert!(note.contains("frame budget lowers"), "{note}");
        let off = tier_note(4_096, &tried, "llvmpipe", false).expect("a note when too slow");
        assert!(off.contains("--budget off"), "{off}");
        // Lowered: the larger tier's rate is named, and the coat kept.
        let tried = [(131_072, 80.0), (32_768, 40.0)];
        let note = tier_note(32_768, &tried, "a GPU", true).expect("a note when lowered");
        assert!(note.contains("131072 strands ran at 12 fps"), "{note}");
        assert!(note.contains("so the coat has 32768"), "{note}");
        // Just under the target: not rounded up to it.
        let tried = [(16_384, 51.0), (8_192, 30.0)];
        let note = tier_note(8_192, &tried, "llvmpipe", true).expect("a note when lowered");
        assert!(note.contains("16384 strands ran at 19.6 fps"), "{note}");
        let tried = [(16_384, 50.01), (8_192, 30.0)];
        let note = tier_note(8_192, &tried, "llvmpipe", true).expect("a note when lowered");
        assert!(note.contains("ran at 19.9 fps"), "{note}");
        // The largest tier tried kept: nothing to say.
        assert_eq!(tier_note(131_072, &[(131_072, 30.0)], "a GPU", true), None);
    }

    #[test]
    fn only_an_opaque_panel_over_the_whole_height_hides_columns() {
        let size = (1280, 720);
        // 278.6 points at one pixel a point: columns 0 … 276 are fill, 277 may be
        // anti-aliased, 278 is the fill's last partial column.
        assert_eq!(
            hidden_columns(rect(0.0, 0.0, 278.6, 720.0), 1.0, size, true),
            277
        );
        // At 1.25 pixels a point the edge is at pixel 348.25.
        assert_eq!(
            hidden_columns(rect(0.0, 0.0, 278.6, 576.0), 1.25, size, true),
            347
        );
        assert_eq!(
            hidden_columns(rect(0.0, 0.0, 278.6, 720.0), 1.0, size, false),
            0
        );
        // Shorter than the window, or not from its left edge: nothing hidden.
        assert_eq!(
            hidden_columns(rect(0.0, 0.0, 278.6, 700.0), 1.0, size, true),
            0
        );
        assert_eq!(
            hidden_columns(rect(10.0, 0.0, 278.6, 720.0), 1.0, size, true),
            0
        );
        // Wider than the window: at most all of it; empty or unknown: none.
        assert_eq!(
            hidden_columns(rect(0.0, 0.0, 5000.0, 720.0), 1.0, size, true),
            1280
        );
        assert_eq!(
            hidden_columns(rect(0.0, 0.0, 0.5, 720.0), 1.0, size, true),
            0
        );
        assert_eq!(hidden_columns(egui::Rect::NOTHING, 1.0, size, true), 0);
    }
}
