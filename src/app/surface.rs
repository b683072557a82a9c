//! The window's GPU side: the device chosen for the window's surface, the surface's
//! configuration, the frame targets sized to it, and drawing a frame that survives resizes,
//! minimising (a zero-size window) and a lost or outdated surface.

use super::FrameStats;
use super::orbit::{Framing, OrbitControls};
use super::panel::{Panel, PanelAction};
use super::upscale::{ScaledTarget, Upscaler, scaled_size};
use anyhow::Context;
use glam::Vec2;
use pelt::gpu::GpuContext;
use pelt::render::{FrameTargets, Image, TargetLayout};
use pelt::{SimulatedFur, SimulatedFurOptions};
use std::sync::Arc;
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

/// The device, the surface and the frame targets of the demo window.
pub struct WindowGpu {
    /// Device and queue.
    pub gpu: GpuContext,
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// The format frames are drawn in: the surface's as sRGB, or the surface's own where
    /// the adapter cannot view it in another ([`SurfaceViews`]).
    view_format: wgpu::TextureFormat,
    /// The format the panel is drawn in: the surface's without sRGB encoding, or the
    /// surface's own where the adapter cannot view it in another.
    panel_format: wgpu::TextureFormat,
    /// The targets' layout: one sample a pixel while the hair is drawn on the host
    /// ([`WindowGpu::set_native_hair`]), else the adapter's ([`TargetLayout::new`]).
    layout: TargetLayout,
    /// The adapter's own sample count, which the ribbons' alpha-to-coverage needs.
    full_samples: u32,
    /// Whether the hair is drawn by the native path ([`WindowGpu::set_native_hair`]).
    native_hair: bool,
    /// `None` while the window has no area (minimised).
    targets: Option<FrameTargets>,
    /// Share of the window's width and height the scene is drawn at (dynamic resolution).
    scale: f32,
    /// The scene's targets at that scale, when it is below 1 and the window has an area.
    scaled: Option<ScaledTarget>,
    upscaler: Upscaler,
    /// Faults already reported, so a repeating one is logged once.
    reported: Option<String>,
    /// Milliseconds the last frame's panel took on the CPU (egui's layout and
    /// tessellation, recording its draw).
    panel_ms: f64,
}

impl WindowGpu {
    /// Opens a device that can present to `window`.
    pub fn new(event_loop: &ActiveEventLoop, window: Arc<Window>) -> anyhow::Result<Self> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                Box::new(event_loop.owned_display_handle()),
            ));
        let surface = instance
            .create_surface(window.clone())
            .context("creating the window's surface")?;
        let gpu = GpuContext::for_surface(instance, &surface)?;
        let caps = surface.get_capabilities(&gpu.adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .context("the surface offers no format")?;
        let views = SurfaceViews::for_format(
            format,
            gpu.adapter
                .get_downlevel_capabilities()
                .flags
                .contains(wgpu::DownlevelFlags::SURFACE_VIEW_FORMATS),
        );
        if !views.scene_format.is_srgb() {
            log::warn!(
                "the window's surface offers no sRGB format ({format:?}) and no other views \
                 of it: the scene will look darker than it should"
            );
        }
        let (view_format, panel_format) = (views.scene_format, views.panel_format);
        let size = window.inner_size();
        // Copyable where the surface allows, so a screenshot is the frame presented.
        let usage =
            wgpu::TextureUsages::RENDER_ATTACHMENT | (caps.usages & wgpu::TextureUsages::COPY_SRC);
        let config = wgpu::SurfaceConfiguration {
            usage,
            format,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            color_space: Default::default(),
            view_formats: views.view_formats,
        };
        let layout = TargetLayout::new(&gpu.adapter, view_format, false);
        // Before the surface is configured or any target made: an oversized window would
        // otherwise log wgpu's out-of-memory and invalid-texture errors before the refusal.
        check_size(&gpu.device.limits(), &layout, &config, size)?;
        let upscaler = Upscaler::new(&gpu.device, view_format);
        // A configuration the surface refuses is reported asynchronously and leaves it
        // unconfigured, and wgpu panics on the first frame asked of such a surface: try it
        // once here, so the demo fails with the reason instead.
        let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
        surface.configure(&gpu.device, &config);
        if let Some(e) = pollster::block_on(scope.pop()) {
            // wgpu's message spans lines and paragraphs: one line reads better.
            let reason = e
                .to_string()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            anyhow::bail!(
                "the window's surface refused its configuration ({:?}, {}×{}): {reason}",
                config.format,
                config.width,
                config.height
            );
        }
        let mut this = WindowGpu {
            upscaler,
            scale: 1.0,
            scaled: None,
            gpu,
            window,
            surface,
            config,
            view_format,
            panel_format,
            layout,
            full_samples: layout.samples,
            native_hair: false,
            targets: None,
            reported: None,
            panel_ms: 0.0,
        };
        this.resize(size.width, size.height);
        Ok(this)
    }

    /// The window now measures `width × height` pixels; zero in either means minimised.
    pub fn resize(&mut self, width: u32, height: u32) {
        if width == 0 || height == 0 {
            self.targets = None;
            self.scaled = None;
            return;
        }
        let max = self.gpu.device.limits().max_texture_dimension_2d;
        let (width, height) = (width.min(max), height.min(max));
        self.config.width = width;
        self.config.height = height;
        self.surface.configure(&self.gpu.device, &self.config);
        self.targets = Some(FrameTargets::new(
            &self.gpu.device,
            &self.layout,
            width,
            height,
        ));
        self.make_scaled();
    }

    /// Whether the coat's hair is drawn by the native path (`on`) or by one of the GPU's
    /// (the ribbons' alpha-to-coverage needs the adapter's MSAA). The native path draws
    /// one sample a pixel and composites over sample 0 of the surfaces' depth, so with it
    /// the targets take one sample (the surfaces' edges alias a little; the hair, the
    /// most of the picture, does not) and the light's maps half the power of two at or
    /// below the picture's larger side ([`pelt::render::RenderSettings::real_time`]).
    /// Returns whether the layout changed: the targets are made again here, and a coat
    /// built before ([`WindowGpu::build_fur`]) must be built again, as its pipelines are
    /// for the old layout.
    pub fn set_native_hair(&mut self, on: bool) -> bool {
        let samples = if on { 1 } else { self.full_samples };
        self.native_hair = on;
        if samples == self.layout.samples {
            return false;
        }
        self.layout.samples = samples;
        let (width, height) = self.size();
        if self.targets.is_some() {
            self.resize(width, height);
        }
        true
    }

    /// The MSAA samples of the targets (1 while the hair is drawn natively).
    pub fn samples(&self) -> u32 {
        self.layout.samples
    }

    /// Draws the scene at `scale` (0 … 1) of the window's size from the next frame on,
    /// upscaled into the window.
    pub fn set_scale(&mut self, scale: f32) {
        let scale = if scale.is_finite() {
            scale.clamp(0.05, 1.0)
        } else {
            1.0
        };
        if scale != self.scale {
            self.scale = scale;
            self.make_scaled();
        }
    }

    /// The render scale in use.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// The size the scene is drawn at.
    pub fn scene_size(&self) -> (u32, u32) {
        scaled_size(self.size(), self.scale)
    }

    /// (Re)makes the scaled targets for the window's size and the scale.
    fn make_scaled(&mut self) {
        let size = self.scene_size();
        self.scaled = (self.targets.is_some() && size != self.size()).then(|| {
            self.upscaler
                .target(&self.gpu.device, &self.layout, size, self.size())
        });
    }

    /// Milliseconds the last drawn frame's panel took on the CPU.
    pub fn panel_ms(&self) -> f64 {
        self.panel_ms
    }

    /// The format the panel is drawn in.
    pub fn panel_format(&self) -> wgpu::TextureFormat {
        self.panel_format
    }

    /// The drawable size in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// The drawable size as a vector.
    pub fn size_vec(&self) -> Vec2 {
        Vec2::new(self.config.width as f32, self.config.height as f32)
    }

    /// A petting creature drawn for this window.
    pub fn build_fur(
        &self,
        strands: usize,
        seed: u64,
        solver: pelt::sim::SolverKind,
        body: Option<pelt::sim::FurBody>,
    ) -> anyhow::Result<SimulatedFur> {
        let mut options = SimulatedFurOptions {
            solver,
            body,
            ..SimulatedFurOptions::new(strands, seed, self.layout)
        };
        if self.native_hair {
            options.render = options.render.real_time(pelt::render::Raster::Native);
        }
        SimulatedFur::new(&self.gpu, &options)
            .with_context(|| format!("growing a coat of {strands} strands"))
    }

    fn report(&mut self, message: String) {
        if self.reported.as_ref() != Some(&message) {
            log::warn!("{message}");
            self.reported = Some(message);
        }
    }

    /// Runs the panel's interface for the coming frame and frames the camera's view beside
    /// it ([`Framing::beside_panel`]), so pointer rays cast with the camera land where the
    /// picture shows. [`WindowGpu::draw`] calls it; call it before the first frame's
    /// pointer events too, so they are placed in the view like every later one.
    pub fn prepare_panel(
        &self,
        window: &Window,
        fur: &SimulatedFur,
        orbit: &mut OrbitControls,
        panel: &mut Panel,
        stats: &FrameStats,
    ) {
        let size = self.size();
        panel.prepare(window, size, fur, stats);
        orbit.frame(Framing::beside_panel(panel.covers_left(), size));
    }

    /// Draws one frame and the panel, presents it, and returns what the user asked for in
    /// the panel and, when `capture` is set, the frame as presented (panel included). A
    /// minimised window, a surface that times out or needs reconfiguring skip the frame
    /// (`None`); a lost surface is made again. The camera's lens shift is set to frame the
    /// view beside the panel ([`WindowGpu::prepare_panel`]).
    pub fn draw(
        &mut self,
        window: &Window,
        fur: &mut SimulatedFur,
        orbit: &mut OrbitControls,
        panel: &mut Panel,
        stats: &FrameStats,
        capture: bool,
    ) -> anyhow::Result<Option<Drawn>> {
        if self.targets.is_none() {
            return Ok(None);
        }
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) => t,
            wgpu::CurrentSurfaceTexture::Suboptimal(t) => {
                // Skip this frame and configure the surface again for the next.
                let size = self.window.inner_size();
                drop(t);
                self.resize(size.width, size.height);
                return Ok(None);
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(None);
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                let size = self.window.inner_size();
                self.resize(size.width, size.height);
                return Ok(None);
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.report("the window's surface was lost; making it again".into());
                self.surface = self
                    .gpu
                    .instance
                    .create_surface(self.window.clone())
                    .context("re-creating the window's surface")?;
                let size = self.window.inner_size();
                self.resize(size.width, size.height);
                return Ok(None);
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                anyhow::bail!("the surface reported a validation error");
            }
        };
        let view = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.view_format),
            ..Default::default()
        });
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("demo frame"),
            });
        let size = self.size();
        let targets = self.targets.as_ref().context("frame targets")?;
        // The panel's interface runs first, so the upscale can skip what it hides.
        let panel_started = std::time::Instant::now();
        self.prepare_panel(window, fur, orbit, panel, stats);
        let camera = &orbit.camera;
        let mut panel_ms = panel_started.elapsed().as_secs_f64() * 1e3;
        let drawn = match &self.scaled {
            Some(scaled) => {
                let drawn = fur.render(&mut encoder, &scaled.targets, &scaled.view, camera);
                self.upscaler
                    .record(&mut encoder, scaled, &view, panel.hides_left());
                drawn
            }
            None => fur.render(&mut encoder, targets, &view, camera),
        };
        if let Err(e) = drawn {
            self.report(format!("frame not drawn: {e}"));
        }
        let panel_view = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.panel_format),
            ..Default::default()
        });
        let panel_started = std::time::Instant::now();
        let actions = panel.paint(&self.gpu, &mut encoder, &panel_view, size);
        panel_ms += panel_started.elapsed().as_secs_f64() * 1e3;
        self.panel_ms = panel_ms;
        self.gpu.queue.submit(Some(encoder.finish()));
        // Read back before presenting: the texture is the window's again afterwards.
        let image = if capture {
            Some(self.read_frame(&frame.texture)?)
        } else {
            None
        };
        window.pre_present_notify();
        self.gpu.queue.present(frame);
        if let Some(e) = self.gpu.take_error() {
            self.report(format!("GPU error: {e}"));
        }
        Ok(Some(Drawn { actions, image }))
    }

    /// Whether frames can be read back from the window (its surface can be copied, in a
    /// format [`WindowGpu::draw`] can save): not on OpenGL.
    pub fn can_read_frames(&self) -> bool {
        self.config.usage.contains(wgpu::TextureUsages::COPY_SRC)
            && matches!(
                self.config.format.remove_srgb_suffix(),
                wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Rgba8Unorm
            )
    }

    /// The surface texture's pixels as 8-bit RGBA.
    fn read_frame(&self, texture: &wgpu::Texture) -> anyhow::Result<Image> {
        if !self.can_read_frames() {
            anyhow::bail!(
                "this window's surface ({:?}) cannot be copied, so its frames cannot be saved",
                self.config.format
            );
        }
        let bgra = self.config.format.remove_srgb_suffix() == wgpu::TextureFormat::Bgra8Unorm;
        let mut rgba =
            pelt::render::capture::read_texture(&self.gpu.device, &self.gpu.queue, texture, 4)
                .context("reading the presented frame back")?;
        if bgra {
            for p in rgba.chunks_exact_mut(4) {
                p.swap(0, 2);
            }
        }
        Ok(Image {
            width: texture.width(),
            height: texture.height(),
            rgba,
            ids: None,
        })
    }
}

/// A frame that reached the window.
pub struct Drawn {
    /// What the user asked for in the panel.
    pub actions: Vec<PanelAction>,
    /// The frame as presented, when asked for.
    pub image: Option<Image>,
}

/// Refuses a window of `size` larger than this adapter draws (its largest texture side, or
/// render targets beyond Pelt's memory budget), naming the size and the limit.
fn check_size(
    limits: &wgpu::Limits,
    layout: &TargetLayout,
    config: &wgpu::SurfaceConfiguration,
    size: winit::dpi::PhysicalSize<u32>,
) -> anyhow::Result<()> {
    // The swap chain's images and the frame read back for a screenshot.
    let outputs = u64::from(config.desired_maximum_frame_latency) + 1;
    crate::common::picture_size::check(
        limits,
        layout,
        size.width,
        size.height,
        outputs,
        "the window (--width/--height, in physical pixels)",
    )
}

/// The formats a window's surface is drawn through: the creature through an sRGB view (its
/// shaders write linear light), the panel through a plain one (egui writes sRGB-encoded
/// colours itself), and the extra views the surface is configured with to allow both.
#[derive(Clone, Debug, PartialEq, Eq)]
struct SurfaceViews {
    scene_format: wgpu::TextureFormat,
    panel_format: wgpu::TextureFormat,
    view_formats: Vec<wgpu::TextureFormat>,
}

impl SurfaceViews {
    /// The views of a surface of `format`. Without `view_formats_allowed` (the adapter's
    /// `DownlevelFlags::SURFACE_VIEW_FORMATS`; OpenGL lacks it) every view has the
    /// surface's own format: the scene is then right when that format is sRGB (the surface
    /// format is chosen sRGB where offered), and egui, drawing into an sRGB target, encodes
    /// its colours there instead of itself.
    fn for_format(format: wgpu::TextureFormat, view_formats_allowed: bool) -> Self {
        if !view_formats_allowed {
            return SurfaceViews {
                scene_format: format,
                panel_format: format,
                view_formats: Vec::new(),
            };
        }
        let scene_format = format.add_srgb_suffix();
        let panel_format = format.remove_srgb_suffix();
        SurfaceViews {
            scene_format,
            panel_format,
            view_formats: [scene_format, panel_format]
                .into_iter()
                .filter(|f| *f != format)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SurfaceViews;
    use wgpu::TextureFormat::{Bgra8Unorm, Bgra8UnormSrgb};

    #[test]
    fn views_of_another_format_are_asked_for_only_where_the_adapter_allows_them() {
        let allowed = SurfaceViews::for_format(Bgra8UnormSrgb, true);
        assert_eq!(allowed.scene_format, Bgra8UnormSrgb);
        assert_eq!(allowed.panel_format, Bgra8Unorm);
        assert_eq!(allowed.view_formats, vec![Bgra8Unorm]);
        let plain = SurfaceViews::for_format(Bgra8Unorm, true);
        assert_eq!(plain.scene_format, Bgra8UnormSrgb);
        assert_eq!(plain.view_formats, vec![Bgra8UnormSrgb]);
        // OpenGL: configuring with other view formats fails and leaves the surface
        // unconfigured, so none may be asked for.
        let gl = SurfaceViews::for_format(Bgra8UnormSrgb, false);
        assert_eq!(gl.scene_format, Bgra8UnormSrgb);
        assert_eq!(gl.panel_format, Bgra8UnormSrgb);
        assert!(gl.view_formats.is_empty());
    }
}
