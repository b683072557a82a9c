//! Helpers the solver tests share.
#![allow(dead_code)]

use glam::{Vec4, Vec4Swizzles};
use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::sim::{CpuPath, FurConfig, FurSim};

/// How far the GPU may drift from the scalar reference, metres. The GPU may fuse
/// multiply-adds and round sqrt and division its own way, an ulp at a time; the coat spans
/// about a metre, where an f32 ulp is 2⁻²³ m. 64 ulp (7.6e-6 m) is above what accumulates
/// (about 2e-6 m measured over 600 steps) and 1/29 of one step's gust at a tip
/// (2.2e-4 m), so a kernel that drops or misplaces any force fails at once.
pub const AGREE: f32 = 64.0 * f32::EPSILON;

pub fn gpu() -> GpuContext {
    GpuContext::new().expect("a wgpu adapter (CI installs lavapipe: mesa-vulkan-drivers)")
}

/// A CPU sim on the plain scalar reference step.
pub fn reference_cpu(config: &FurConfig) -> FurSim {
    let mut sim = FurSim::new_cpu(config, Creature::default()).unwrap();
    if let Some(cpu) = sim.cpu_mut() {
        cpu.set_path(CpuPath::Reference);
    }
    sim
}

/// The largest distance between corresponding points of two states.
pub fn max_distance(a: &[Vec4], b: &[Vec4]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p.xyz() - q.xyz()).length())
        .fold(0.0f32, f32::max)
}

/// A state's bytes, for bit-for-bit comparison.
pub fn bits(v: &[Vec4]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}
