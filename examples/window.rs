//! The petting creature embedded in a plain winit program: your window, your surface, your
//! camera and controls; Pelt's `SimulatedFur` for the creature. Drag on the creature to pet
//! it; drag elsewhere to turn the camera. Run: `cargo run --release --example window`.

use glam::Vec2;
use pelt::gpu::GpuContext;
use pelt::hand::PointerButton;
use pelt::render::{Camera, CameraPreset, FrameTargets, TargetLayout};
use pelt::{SimulatedFur, SimulatedFurOptions};
use std::sync::Arc;
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

struct Running {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    gpu: GpuContext,
    layout: TargetLayout,
    targets: Option<FrameTargets>,
    fur: SimulatedFur,
    camera: Camera,
    cursor: Vec2,
    orbiting: bool,
    last: Instant,
}

#[derive(Default)]
struct App {
    running: Option<Running>,
}

impl Running {
    fn new(event_loop: &ActiveEventLoop) -> anyhow::Result<Self> {
        let window = Arc::new(event_loop.create_window(Window::default_attributes())?);
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle(
            Box::new(event_loop.owned_display_handle()),
        ));
        let surface = instance.create_surface(window.clone())?;
        let gpu = GpuContext::for_surface(instance, &surface)?;
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&gpu.adapter, size.width.max(1), size.height.max(1))
            .ok_or_else(|| anyhow::anyhow!("the surface does not work with this adapter"))?;
        // Pelt writes linear light: draw through an sRGB view of the surface.
        let view_format = config.format.add_srgb_suffix();
        config.view_formats = vec![view_format];
        surface.configure(&gpu.device, &config);
        let layout = TargetLayout::new(&gpu.adapter, view_format, false);
        let fur = SimulatedFur::new(&gpu, &SimulatedFurOptions::new(16_384, 1, layout))?;
        let targets = Some(FrameTargets::new(
            &gpu.device,
            &layout,
            config.width,
            config.height,
        ));
        Ok(Running {
            window,
            surface,
            config,
            gpu,
            layout,
            targets,
            fur,
            camera: Camera::preset(CameraPreset::Front),
            cursor: Vec2::ZERO,
            orbiting: false,
            last: Instant::now(),
        })
    }

    fn resize(&mut self, width: u32, height: u32) {
        if width == 0 || height == 0 {
            self.targets = None; // minimised: draw nothing until it comes back
            return;
        }
        self.config.width = width;
        self.config.height = height;
        self.surface.configure(&self.gpu.device, &self.config);
        self.targets = Some(FrameTargets::new(
            &self.gpu.device,
            &self.layout,
            width,
            height,
        ));
    }

    fn size(&self) -> Vec2 {
        Vec2::new(self.config.width as f32, self.config.height as f32)
    }

    fn pointer(&mut self, event: &WindowEvent) {
        let ray = self.camera.ray_through(self.cursor, self.size());
        match event {
            WindowEvent::CursorMoved { position, .. } => {
                let now = Vec2::new(position.x as f32, position.y as f32);
                if self.orbiting && self.fur.interaction().orbit_enabled {
                    let d = now - self.cursor;
                    self.camera.orbit(d.x * 0.008, d.y * 0.008);
                }
                self.cursor = now;
                let ray = self.camera.ray_through(now, self.size());
                self.fur.pointer_move(ray, now);
            }
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => match state {
                ElementState::Pressed => {
                    self.fur
                        .pointer_down(ray, self.cursor, PointerButton::Primary);
                    // A press on the creature pets it; anywhere else turns the camera.
                    self.orbiting = self.fur.interaction().orbit_enabled;
                }
                ElementState::Released => {
                    self.fur
                        .pointer_up(ray, self.cursor, PointerButton::Primary);
                    self.orbiting = false;
                }
            },
            WindowEvent::CursorLeft { .. } => self.fur.pointer_leave(),
            WindowEvent::Focused(false) => self.fur.focus_lost(),
            _ => {}
        }
    }

    fn frame(&mut self) -> anyhow::Result<()> {
        let dt = self.last.elapsed().as_secs_f64();
        self.last = Instant::now();
        self.fur.update(dt)?;
        let Some(targets) = &self.targets else {
            return Ok(());
        };
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) => t,
            _ => {
                // Outdated, lost, suboptimal or timed out: configure again, draw next time.
                let size = self.window.inner_size();
                self.resize(size.width, size.height);
                return Ok(());
            }
        };
        let view = texture.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.layout.color_format),
            ..Default::default()
        });
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        self.fur
            .render(&mut encoder, targets, &view, &self.camera)?;
        self.gpu.queue.submit(Some(encoder.finish()));
        self.gpu.queue.present(texture);
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_none() {
            match Running::new(event_loop) {
                Ok(r) => self.running = Some(r),
                Err(e) => {
                    eprintln!("embed: {e:#}");
                    event_loop.exit();
                }
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(r) = self.running.as_mut() else {
            return;
        };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => r.resize(size.width, size.height),
            WindowEvent::RedrawRequested => {
                if let Err(e) = r.frame() {
                    eprintln!("embed: {e:#}");
                    event_loop.exit();
                }
                r.window.request_redraw();
            }
            other => r.pointer(&other),
        }
    }
}

fn main() -> anyhow::Result<()> {
    let event_loop = EventLoop::new()?;
    event_loop.run_app(&mut App::default())?;
    Ok(())
}
