//! Helpers the renderer's tests share.
#![allow(dead_code)]

use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::render::{FurRenderer, Image, OFFSCREEN_FORMAT, RenderSettings, TargetLayout};
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
