//! Helpers the renderer's tests share.
#![allow(dead_code)]

use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::render::{
    Camera, CameraPreset, DebugMode, FurRenderer, Image, OFFSCREEN_FORMAT, Raster, RenderSettings,
    Scene, TargetLayout,
};
use pelt::sim::{FurConfig, FurSim};

/// The device the tests draw with (lavapipe on CI).
pub fn gpu() -> GpuContext {
    GpuContext::new().expect("a wgpu adapter (CI installs lavapipe: mesa-vulkan-drivers)")
}

/// A coat of `strands` (seed 3) on the GPU solver, stepped `steps` times, and a renderer
/// for offscreen pictures (with an ID target when `ids`) bound to it.
pub fn coat_and_renderer(
    ctx: &GpuContext,
    strands: usize,
    steps: u32,
    ids: bool,
) -> (FurSim, FurRenderer) {
    let creature = Creature::default();
    let mut sim = FurSim::new_gpu(&FurConfig::new(strands, 3), creature.clone(), ctx).unwrap();
    sim.step(steps).unwrap();
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, ids);
    let mut renderer = FurRenderer::new(
        &ctx.device,
        &ctx.queue,
        layout,
        &creature,
        RenderSettings::default(),
    )
    .unwrap();
    renderer.set_strands_from_sim(&sim).unwrap();
    (sim, renderer)
}

/// Mean absolute error per channel (RGB, in levels of 255) between two pictures.
pub fn mean_abs_error(a: &Image, b: &Image) -> f64 {
    let sum: u64 = a
        .rgba
        .chunks(4)
        .zip(b.rgba.chunks(4))
        .map(|(p, q)| (0..3).map(|c| u64::from(p[c].abs_diff(q[c]))).sum::<u64>())
        .sum();
    sum as f64 / (3 * a.rgba.len() / 4) as f64
}

/// The GPU-stepped coat of `sim` at its current time, seen from `preset` in `mode`.
pub fn preset_scene<'a>(sim: &FurSim, preset: CameraPreset, mode: DebugMode) -> Scene<'a> {
    let mut s = Scene::new(Camera::preset(preset), sim.pose_at(sim.time() as f32));
    s.mode = mode;
    s.positions_index = sim.gpu().unwrap().current_index();
    s
}

/// Draws `scene` by `raster` at `size` and checks that path drew it.
pub fn draw_by(
    renderer: &mut FurRenderer,
    scene: &Scene,
    raster: Raster,
    size: (u32, u32),
) -> Image {
    renderer.set_raster(raster);
    let image = renderer.render_image(scene, size.0, size.1).unwrap();
    assert_eq!(renderer.last_raster(), raster, "the frame's path");
    image
}
