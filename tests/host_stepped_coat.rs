//! A coat stepped by the CPU solver is drawn as a GPU-stepped one is: the renderer binds a
//! buffer of its own for it, and `SimulatedFur` uploads the latest positions before each
//! frame (the default beside a CPU adapter such as lavapipe, where the SIMD solver is the
//! faster). Judged against the same coat stepped on the GPU, and against the coat as it
//! was before the steps (what a missed upload would show).

mod render_common;

use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::render::{
    Camera, CameraPreset, FurRenderer, OFFSCREEN_FORMAT, RenderSettings, TargetLayout,
};
use pelt::sim::{FurConfig, FurSim, SolverKind};
use pelt::{SimulatedFur, SimulatedFurOptions};
use render_common::mean_abs_error;

const STRANDS: usize = 4096;
const SIZE: (u32, u32) = (240, 136);

fn fur(gpu: &GpuContext, solver: SolverKind) -> SimulatedFur {
    let layout = TargetLayout::new(&gpu.adapter, OFFSCREEN_FORMAT, false);
    let options = SimulatedFurOptions {
        solver,
        ..SimulatedFurOptions::new(STRANDS, 5, layout)
    };
    SimulatedFur::new(gpu, &options).unwrap()
}

#[test]
fn a_cpu_stepped_coat_draws_what_the_gpu_stepped_one_draws() {
    let gpu = GpuContext::new().expect("a wgpu adapter (CI installs lavapipe)");
    let camera = Camera::preset(CameraPreset::Front);
    let mut on_cpu = fur(&gpu, SolverKind::Cpu);
    let mut on_gpu = fur(&gpu, SolverKind::Gpu);
    assert_eq!(on_cpu.solver(), SolverKind::Cpu);
    assert_eq!(on_gpu.solver(), SolverKind::Gpu);
    let start = on_cpu.render_image(&camera, SIZE.0, SIZE.1).unwrap();
    // A second of the idle creature: the coat settles under gravity, the body breathes.
    for _ in 0..60 {
        assert_eq!(on_cpu.update(1.0 / 60.0).unwrap(), 1);
        on_gpu.update(1.0 / 60.0).unwrap();
    }
    let cpu = on_cpu.render_image(&camera, SIZE.0, SIZE.1).unwrap();
    let gpu_picture = on_gpu.render_image(&camera, SIZE.0, SIZE.1).unwrap();
    let solvers = mean_abs_error(&cpu, &gpu_picture);
    let moved = mean_abs_error(&start, &gpu_picture);
    eprintln!(
        "after a second: CPU- against GPU-stepped {solvers:.3}/255; the start against the GPU-stepped {moved:.3}/255"
    );
    // The two solvers agree to float rounding: a strand may land a pixel over.
    assert!(
        solvers < 0.5,
        "the CPU-stepped coat draws {solvers:.3}/255 away from the GPU-stepped one"
    );
    assert!(
        moved > 8.0 * solvers.max(0.02),
        "a second of motion ({moved:.3}/255) is not much more than the solvers' difference ({solvers:.3}/255): the test cannot see a missed upload"
    );
}

#[test]
fn uploading_another_coat_than_the_one_bound_is_an_error() {
    let gpu = GpuContext::new().expect("a wgpu adapter (CI installs lavapipe)");
    let creature = Creature::default();
    let small = FurSim::new_cpu(&FurConfig::new(1024, 1), creature.clone()).unwrap();
    let large = FurSim::new_cpu(&FurConfig::new(2048, 1), creature.clone()).unwrap();
    let layout = TargetLayout::new(&gpu.adapter, OFFSCREEN_FORMAT, false);
    let mut renderer = FurRenderer::new(
        &gpu.device,
        &gpu.queue,
        layout,
        &creature,
        RenderSettings::default(),
    )
    .unwrap();
    renderer.set_strands_from_sim(&small).unwrap();
    renderer.upload_strands_from_sim(&small).unwrap();
    let err = renderer.upload_strands_from_sim(&large).unwrap_err();
    assert!(
        err.to_string().contains("98304 bytes") && err.to_string().contains("196608"),
        "{err}"
    );
}

#[test]
fn auto_steps_on_the_cpu_beside_a_cpu_adapter_and_on_the_gpu_elsewhere() {
    let mut info = GpuContext::new().unwrap().info();
    info.device_type = wgpu::DeviceType::Cpu;
    assert_eq!(SolverKind::Auto.for_adapter(&info), SolverKind::Cpu);
    assert_eq!(SolverKind::Gpu.for_adapter(&info), SolverKind::Gpu);
    for kind in [
        wgpu::DeviceType::DiscreteGpu,
        wgpu::DeviceType::IntegratedGpu,
        wgpu::DeviceType::VirtualGpu,
        wgpu::DeviceType::Other,
    ] {
        info.device_type = kind;
        assert_eq!(SolverKind::Auto.for_adapter(&info), SolverKind::Gpu);
        assert_eq!(SolverKind::Cpu.for_adapter(&info), SolverKind::Cpu);
    }
    assert_eq!("cpu".parse::<SolverKind>(), Ok(SolverKind::Cpu));
    assert!(
        "fast"
            .parse::<SolverKind>()
            .unwrap_err()
            .contains("gpu, cpu or auto")
    );
}

#[test]
fn a_coat_the_device_cannot_bind_is_refused_on_either_solver_before_it_is_grown() {
    let gpu = GpuContext::new().expect("a wgpu adapter (CI installs lavapipe)");
    let max = pelt::sim::max_strands(&gpu.device.limits());
    for solver in [SolverKind::Cpu, SolverKind::Gpu] {
        let layout = TargetLayout::new(&gpu.adapter, OFFSCREEN_FORMAT, false);
        let options = SimulatedFurOptions {
            solver,
            ..SimulatedFurOptions::new(max + 1, 1, layout)
        };
        let err = SimulatedFur::new(&gpu, &options).unwrap_err().to_string();
        assert!(
            err.contains(&format!("{}", max + 1)) && err.contains(&format!("1 to {max}")),
            "{solver}: {err}"
        );
    }
}
