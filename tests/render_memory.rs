//! Drawing frame after frame keeps the process's memory flat, on every hair path and in
//! every debug mode. Lavapipe (Mesa 22.3, the CI's driver) "inlines" a uniform that a
//! large shader branches on alone: it compiles the shader again at every draw that
//! binds the uniform buffer and keeps ~300 kB each time, so the demo grew by ~25 MB a
//! second until the ribbons' and the cull pass's shaders stopped branching on uniforms
//! alone (`shaders/frame.wgsl`). This test measured ~870 kB a frame before that,
//! 90–200 kB with only the cull pass's branch back, and 0 after.
#![cfg(target_os = "linux")]

mod render_common;

use glam::Vec3;
use pelt::render::{
    Camera, CameraPreset, DebugMode, DrawCapsule, FurRenderer, Material, OffscreenTarget, Raster,
    Scene,
};

/// The process's resident memory, kB.
fn resident_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("a VmRSS line")
}

#[test]
fn drawing_many_frames_keeps_memory_flat() {
    let ctx = render_common::gpu();
    let (sim, mut renderer) = render_common::coat_and_renderer(&ctx, 1024, 5, false);
    let layout = renderer.layout();
    let target = OffscreenTarget::new(&ctx.device, &layout, 160, 90).unwrap();
    // A hand near the head, so its occlusion term runs in every pass that reads it.
    let hand = [DrawCapsule {
        a: Vec3::new(0.1, 0.1, 0.55),
        b: Vec3::new(0.3, 0.2, 0.7),
        radius: 0.03,
        material: Material::Hand,
    }];
    let modes = DebugMode::ALL;
    let draw = |renderer: &mut FurRenderer, frame: usize| {
        let mut scene = Scene::new(Camera::preset(CameraPreset::Front), sim.pose_at(0.0));
        scene.positions_index = sim.gpu().unwrap().current_index();
        scene.hand = &hand;
        scene.mode = modes[frame % modes.len()];
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        renderer
            .render(&mut encoder, &target.frame, &target.view, &scene)
            .unwrap();
        ctx.queue.submit(Some(encoder.finish()));
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
    };
    // Native: its read backs make buffers every frame, which must go as they came.
    for raster in [Raster::Hardware, Raster::Native, Raster::Strands] {
        renderer.set_raster(raster);
        // Warm up: pipelines, lazily made buffers, the allocator's pools.
        for frame in 0..20 {
            draw(&mut renderer, frame);
        }
        let before = resident_kb();
        let frames = 160;
        for frame in 0..frames {
            draw(&mut renderer, frame);
        }
        let grown = resident_kb().saturating_sub(before);
        eprintln!(
            "{raster:?}: {grown} kB more after {frames} frames ({} kB a frame)",
            grown / frames as u64
        );
        // A ribbon pass compiled again every frame kept ~300 kB, the cull pass 90–200 kB:
        // 14 MB or more over these frames. Fixed, it is flat to the kilobyte.
        assert!(
            grown < 5 * 1024,
            "{raster:?}: memory grew by {grown} kB over {frames} frames"
        );
    }
}
