//! The strand rasteriser (`render::strand_raster`) beside the ribbons on the same settled
//! coat, camera and size: the ribbons' pass time (timestamps, where the adapter has them)
//! and whole frame (wall), and the strand rasteriser's binning and drawing (wall: record,
//! submit and wait), each also as the process's CPU time (all threads: the CPU driver's
//! too), which moves less than wall time on a loaded machine. The rasteriser reads the coat's positions copied from the solver, one
//! colour for every point and no surfaces (nothing hides the hair: its worst case).
//!
//! `PELT_BENCH_FRAMES` (default 5) frames per row after two warm-up frames;
//! `PELT_BENCH_STRANDS` (default 4096) and `PELT_BENCH_SIZE` (default `640x360`).

use glam::Vec3;
use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::render::frame::{FrameBinding, FrameInputs, frame_uniforms};
use pelt::render::hair::HairStrands;
use pelt::render::shadow::ShadowPass;
use pelt::render::strand_lod::StrandLod;
use pelt::render::strand_raster::{StrandRaster, StrandRasterInputs};
use pelt::render::{
    Camera, CameraPreset, FurRenderer, OFFSCREEN_FORMAT, Raster, RenderSettings, Scene,
    TargetLayout,
};
use pelt::sim::{FurConfig, FurSim};
use std::time::Instant;
use wgpu::util::DeviceExt;

fn env_u32(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// CPU time this process has used, all threads (the CPU driver's included), in
/// milliseconds (unix only): on a loaded machine it moves less than wall time.
fn process_cpu_ms() -> f64 {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the call's duration.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } == 0;
        if ok {
            return ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6;
        }
    }
    f64::NAN
}

fn main() {
    let frames = env_u32("PELT_BENCH_FRAMES", 5).max(1) as usize;
    let strands = env_u32("PELT_BENCH_STRANDS", 4096).max(1);
    let size = std::env::var("PELT_BENCH_SIZE")
        .ok()
        .and_then(|s| {
            let (w, h) = s.split_once('x')?;
            Some((w.trim().parse().ok()?, h.trim().parse().ok()?))
        })
        .unwrap_or((640u32, 360u32));
    let Ok(ctx) = GpuContext::new() else {
        eprintln!("no GPU adapter: nothing to measure");
        return;
    };
    let device = &ctx.device;
    let creature = Creature::default();
    let mut sim = FurSim::new_gpu(&FurConfig::new(strands as usize, 3), creature.clone(), &ctx)
        .expect("the coat");
    sim.step(30).expect("settling steps");
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, false);
    let settings = RenderSettings {
        raster: Raster::Hardware,
        ..RenderSettings::default()
    };
    let mut renderer =
        FurRenderer::new(device, &ctx.queue, layout, &creature, settings).expect("a renderer");
    renderer.set_strands_from_sim(&sim).expect("strands bound");
    let timed = renderer.enable_timing();
    let camera = Camera::preset(CameraPreset::Front);
    let mut scene = Scene::new(camera, sim.pose_at(sim.time() as f32));
    scene.positions_index = sim.gpu().expect("the GPU solver").current_index();

    // The ribbons: whole frames, and their pass by timestamps.
    let (mut ribbon_frame, mut ribbon_cpu, mut ribbon_pass) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..frames + 2 {
        let start = Instant::now();
        let cpu = process_cpu_ms();
        renderer
            .render_image(&scene, size.0, size.1)
            .expect("a frame");
        if i >= 2 {
            ribbon_frame.push(start.elapsed().as_secs_f64() * 1e3);
            ribbon_cpu.push(process_cpu_ms() - cpu);
            if let Ok(Some(t)) = renderer.read_timings() {
                ribbon_pass.push(t.ribbons_ms);
            }
        }
    }

    // The strand rasteriser on the same coat and camera.
    let positions: Vec<glam::Vec4> = sim.positions().expect("positions");
    let (frame, view, light) = frame_uniforms(
        &scene,
        &FrameInputs {
            settings: &settings,
            size,
            samples: layout.samples,
            strands,
            shadow_map_size: 1024,
            cull: false,
            lod: StrandLod::all(strands),
        },
    );
    let frame_binding = FrameBinding::new(device);
    frame_binding
        .write(&ctx.queue, &frame, &view, &light)
        .expect("frame uniforms");
    let storage = |label, contents: &[u8]| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage: wgpu::BufferUsages::STORAGE,
        })
    };
    let n = strands as usize;
    let color = {
        let c = (Vec3::new(0.3, 0.2, 0.1) / 8.0).to_array().map(f32::sqrt);
        ((c[0] * 2047.0) as u32)
            | (((c[1] * 2047.0) as u32) << 11)
            | (((c[2] * 1023.0) as u32) << 22)
    };
    let buffers = [
        storage("positions", bytemuck::cast_slice(&positions)),
        storage("records", &vec![0u8; n * 16]),
        storage("culled", &vec![0u8; n * 4]),
        storage(
            "order",
            bytemuck::cast_slice(&(0..strands).collect::<Vec<u32>>()),
        ),
    ];
    let shaded = storage("shaded", bytemuck::cast_slice(&vec![color; n * 6]));
    let shadow = ShadowPass::new(device, 256);
    let strands_layout =
        HairStrands::new(device, &frame_binding.layout, &shadow.inputs_layout).layout;
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    let strands_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("strands"),
        layout: &strands_layout,
        entries: &entries,
    });
    let depth = device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("surface depth"),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: layout.samples,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Depth32Float,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&Default::default());
    let mut raster = StrandRaster::new(device, &frame_binding.layout, &strands_layout, &layout);
    let (mut times, mut cpu_times) = (Vec::new(), Vec::new());
    for i in 0..frames + 2 {
        let start = Instant::now();
        let cpu = process_cpu_ms();
        let mut encoder = device.create_command_encoder(&Default::default());
        raster
            .record(
                device,
                &ctx.queue,
                &mut encoder,
                &StrandRasterInputs {
                    frame: &frame_binding,
                    strands_group: &strands_group,
                    drawn: strands,
                    shaded_points: &shaded,
                    surface_depth: &depth,
                    size,
                },
            )
            .expect("the strand rasteriser");
        ctx.queue.submit(Some(encoder.finish()));
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("the GPU finishes");
        if i >= 2 {
            times.push(start.elapsed().as_secs_f64() * 1e3);
            cpu_times.push(process_cpu_ms() - cpu);
        }
    }
    let overflow = raster.overflow(device, &ctx.queue).ok().flatten();
    println!(
        "{} · {strands} strands · {}×{} · {frames} frames (median)",
        ctx.info().name,
        size.0,
        size.1
    );
    println!(
        "load average {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!("| path | ms (wall) | CPU ms |\n| --- | ---: | ---: |");
    println!(
        "| ribbons: whole frame | {:.1} | {:.1} |",
        median(ribbon_frame),
        median(ribbon_cpu)
    );
    if timed {
        println!(
            "| ribbons: their pass (timestamps) | {:.1} | |",
            median(ribbon_pass)
        );
    }
    println!(
        "| strand rasteriser: bin + draw | {:.1} | {:.1} |",
        median(times),
        median(cpu_times)
    );
    println!(
        "strand rasteriser buffers: {:.1} MB; overflow {overflow:?}",
        raster.memory_bytes() as f64 / 1e6
    );
}
