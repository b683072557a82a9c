//! Strand-solver throughput at the full tier, in six cases (idle; a moving hand touching
//! about 2% of the strands; the tail whipping; the hand with the volume grid on:
//! "volume/8", splatted every eighth step from the default subset of strands, the
//! library's defaults; "volume/1", every step from that subset; "volume/all", every step
//! from every strand), on every adapter found and on `CpuSolver` (SIMD and the scalar
//! reference; the grid's cases on the GPU only), each against its floor: a copy of the same
//! bytes on the same device with the same threads, in the same run. The grid's cost is a
//! "volume" case over the "hand" case, measured in the same run.
//!
//! Steps run in dispatches of [`MAX_STEPS_PER_DISPATCH`]: a dispatch reads and writes each
//! strand's bytes once ([`dispatch_traffic_per_strand`], counted from the layout), so the
//! floor of one step is the copy of those bytes divided by the steps a dispatch takes.
//! The body field's cost: the same strand count grown on the Fox sample (`tests/bodies`)
//! walking, stepped with the body's distance field off and on ("field off", "field on"),
//! on every adapter and the SIMD path, and printed as the ratio of the two in one run.
//!
//! `PELT_BENCH_STRANDS` sets a smaller run. Prints one table at the end.

use criterion::{Criterion, SamplingMode};
use glam::Vec3;
use pelt::body::{BodyOptions, LoadedBody};
use pelt::creature::{Creature, IdleMotion, tail_whip};
use pelt::gpu::GpuContext;
use pelt::groom::Groom;
use pelt::hand::CapsuleScript;
use pelt::sim::volume::{DEFAULT_INTERVAL, DEFAULT_SPLAT_STRANDS, splat_stride};
use pelt::sim::{
    ContactMode, CpuPath, CpuSolver, FurBody, FurConfig, FurParams, FurSim, GpuRoot, GpuSolver,
    MAX_STEPS_PER_DISPATCH, POINTS_PER_STRAND, StepUniforms, StrandSolver, StrandTier,
    VolumeSettings, dispatch_traffic_per_strand, gpu_roots, rest_positions,
};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Seconds per step of each measurement, by (backend, case); floors by backend.
static RESULTS: Mutex<BTreeMap<(String, String), Vec<f64>>> = Mutex::new(BTreeMap::new());

fn record(backend: &str, case: &str, seconds_per_step: f64) {
    if let Ok(mut r) = RESULTS.lock() {
        r.entry((backend.to_string(), case.to_string()))
            .or_default()
            .push(seconds_per_step);
    }
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn strands() -> usize {
    std::env::var("PELT_BENCH_STRANDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(StrandTier::Full.strands())
}

/// A case: the uniforms of a cycle of dispatches (each `MAX_STEPS_PER_DISPATCH` steps).
struct Case {
    name: &'static str,
    batches: Vec<Vec<StepUniforms>>,
    /// The volume grid's interval (`FurParams::volume_interval`) and the most strands it
    /// splats (`FurParams::volume_splat_strands`), or `None` with it off.
    volume: Option<(u32, u32)>,
}

/// Three capsules (palm and two fingers) stroking down the back and back up, forever.
fn hand_script() -> CapsuleScript {
    let mut script = CapsuleScript::back_stroke(0.0, 120.0);
    script.mode = ContactMode::Pet;
    // A broader palm pressed 2 cm deeper than the library's stroke, so the hand touches
    // about 2% of the coat.
    for k in &mut script.capsules[0].keys {
        k.a += Vec3::new(-0.03, -0.02, 0.0);
        k.b += Vec3::new(0.03, -0.02, 0.0);
    }
    script.capsules[0].radius = 0.07;
    let palm = script.capsules[0].clone();
    for dx in [-0.06f32, 0.06] {
        let mut finger = palm.clone();
        finger.radius = 0.025;
        for k in &mut finger.keys {
            k.a = Vec3::new(dx - 0.02, k.a.y - 0.015, k.a.z + 0.03);
            k.b = Vec3::new(dx + 0.02, k.b.y - 0.015, k.b.z + 0.12);
        }
        script.capsules.push(finger);
    }
    script
}

const _: () = assert!(DEFAULT_INTERVAL == 8, "rename the \"volume/8\" case");

fn cases(creature: &Creature, params: &FurParams) -> Vec<Case> {
    let idle = IdleMotion::from_seed(1);
    let script = hand_script();
    let dt = 1.0 / 60.0;
    let make = |name, hand: bool, whip: bool, volume: Option<(u32, u32)>| {
        let batches = (0..15)
            .map(|b| {
                (0..MAX_STEPS_PER_DISPATCH)
                    .map(|k| {
                        let step = (b * MAX_STEPS_PER_DISPATCH + k + 1) as f64;
                        let time = step * dt;
                        let mut pose = idle.pose(creature, time);
                        if whip {
                            let body = pose.body;
                            pose.tail = tail_whip(creature, time, 0.5, 2.0).map(|s| body * s);
                        }
                        let contact = hand.then(|| script.contact_at(step));
                        StepUniforms::new(params, &pose, time, dt as f32, contact.as_ref())
                    })
                    .collect()
            })
            .collect();
        Case {
            name,
            batches,
            volume,
        }
    };
    vec![
        make("idle", false, false, None),
        make("hand", true, false, None),
        make("tail whip", false, true, None),
        // The library's defaults: a splat every eighth step, from at most 65,536 strands
        // (named by its interval, so results saved under another default never compare;
        // the assertion below keeps the name true).
        make(
            "volume/8",
            true,
            false,
            Some((DEFAULT_INTERVAL, DEFAULT_SPLAT_STRANDS)),
        ),
        // A splat every step: the grid as first built, and what its one-step dispatches cost.
        make("volume/1", true, false, Some((1, DEFAULT_SPLAT_STRANDS))),
        make("volume/all", true, false, Some((1, u32::MAX))),
    ]
}

/// The grid the library places around the groomed coat, with the default strengths,
/// splatting at most `splat_strands` strands.
fn volume_settings(initial: &[glam::Vec4], u: &StepUniforms, splat_strands: u32) -> VolumeSettings {
    let params = FurParams::default();
    let mut settings = VolumeSettings::around(initial, u, params.volume_resolution);
    settings.stride = splat_stride(initial.len() / POINTS_PER_STRAND, splat_strands);
    settings.measure_rest(u, initial);
    settings.friction = params.volume_friction;
    settings.strength = params.volume_strength;
    settings
}

fn bench_solver(
    c: &mut Criterion,
    backend: &str,
    solver: &mut dyn StrandSolver,
    case: &Case,
    wait: &dyn Fn(),
) {
    let mut group = c.benchmark_group(format!("{backend} / {}", case.name));
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    let mut next = 0;
    group.bench_function("step", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let batch = &case.batches[next % case.batches.len()];
                next += 1;
                if let Err(e) = solver.step(batch) {
                    panic!("{backend}: the step failed: {e}");
                }
            }
            wait();
            let t = start.elapsed();
            record(
                backend,
                case.name,
                t.as_secs_f64() / (iters as usize * MAX_STEPS_PER_DISPATCH) as f64,
            );
            t
        })
    });
    group.finish();
}

fn bench_gpu(c: &mut Criterion, ctx: &GpuContext, label: &str, roots: &[GpuRoot], cases: &[Case]) {
    let wait = || {
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    };
    let initial = rest_positions(&cases[0].batches[0][0], roots);
    for case in cases {
        let mut solver = match GpuSolver::new(ctx, roots, &initial) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{label}: skipped ({e})");
                return;
            }
        };
        if let Some((interval, splat_strands)) = case.volume {
            let mut settings = volume_settings(&initial, &case.batches[0][0], splat_strands);
            settings.interval = interval;
            if let Err(e) = solver.set_volume(Some(settings)) {
                eprintln!("{label}: volume skipped ({e})");
                continue;
            }
        }
        bench_solver(c, label, &mut solver, case, &wait);
    }
    let copy_bytes = (dispatch_traffic_per_strand() / 2 * roots.len()) as u64;
    let make = |name| {
        ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(name),
            size: copy_bytes,
            usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    let (src, dst) = (make("copy src"), make("copy dst"));
    let mut group = c.benchmark_group(format!("{label} / floor"));
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("copy same bytes", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                encoder.copy_buffer_to_buffer(&src, 0, &dst, 0, copy_bytes);
                ctx.queue.submit(Some(encoder.finish()));
            }
            wait();
            let t = start.elapsed();
            let per_step = t.as_secs_f64() / (iters as usize * MAX_STEPS_PER_DISPATCH) as f64;
            record(label, "floor", per_step);
            t
        })
    });
    group.finish();
}

fn bench_cpu(c: &mut Criterion, roots: &[GpuRoot], cases: &[Case]) {
    let initial = rest_positions(&cases[0].batches[0][0], roots);
    for (label, path) in [
        ("CpuSolver SIMD", CpuPath::Simd),
        ("CpuSolver reference", CpuPath::Reference),
    ] {
        // The grid's CPU twin steps through the scalar reference: not a fast path.
        for case in cases.iter().filter(|c| c.volume.is_none()) {
            let Ok(mut solver) = CpuSolver::new(roots.to_vec(), initial.clone()) else {
                return;
            };
            solver.set_path(path);
            bench_solver(c, label, &mut solver, case, &|| {});
        }
    }
    // The floor: the same bytes copied by the same rayon pool, in the same chunks.
    let copy_len = dispatch_traffic_per_strand() / 2 * roots.len();
    let src = vec![1u8; copy_len];
    let mut dst = vec![0u8; copy_len];
    let mut group = c.benchmark_group("CpuSolver / floor");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("parallel memcpy same bytes", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                dst.par_chunks_mut(1 << 16)
                    .zip(std::hint::black_box(&src).par_chunks(1 << 16))
                    .for_each(|(d, s)| d.copy_from_slice(s));
            }
            let t = start.elapsed();
            std::hint::black_box(&dst);
            let per_step = t.as_secs_f64() / (iters as usize * MAX_STEPS_PER_DISPATCH) as f64;
            record("CpuSolver SIMD", "floor", per_step);
            record("CpuSolver reference", "floor", per_step);
            t
        })
    });
    group.finish();
}

/// The walking Fox, fitted to 0.6 m as the body tests fit it.
fn fox() -> Option<FurBody> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bodies/Fox.glb");
    let loaded = LoadedBody::read(&path, &BodyOptions { height: 0.6 })
        .map_err(|e| eprintln!("body field: skipped ({e})"))
        .ok()?;
    let motion = loaded
        .motion(Some("Walk"))
        .map_err(|e| eprintln!("body field: skipped ({e})"))
        .ok()?;
    Some(FurBody {
        mesh: Arc::new(loaded.mesh),
        motion: Arc::from(motion),
        groom: None,
    })
}

/// `strands` strands on `body` stepped with its distance field off, then on: on `gpu`
/// where given, else on the CPU's SIMD path. Both rows carry the same label, so the
/// summary prints their ratio.
fn bench_body_field(
    c: &mut Criterion,
    body: &FurBody,
    strands: usize,
    gpu: Option<(&str, &GpuContext)>,
) {
    let label = match gpu {
        Some((label, _)) => format!("Fox walking, {label}"),
        None => "Fox walking, CpuSolver SIMD".to_string(),
    };
    for (case, field) in [("field off", false), ("field on", true)] {
        let mut config = FurConfig::new(strands, 1);
        if !field {
            config.body_field = None;
        }
        if let Some(y) = body.lowest_point() {
            config.params.floor = y;
        }
        let made = match gpu {
            Some((_, ctx)) => FurSim::new_gpu_on_body(&config, body.clone(), ctx),
            None => FurSim::new_cpu_on_body(&config, body.clone()),
        };
        let mut sim = match made {
            Ok(sim) => sim,
            Err(e) => {
                eprintln!("{label}: {case} skipped ({e})");
                return;
            }
        };
        if let Some(cpu) = sim.cpu_mut() {
            cpu.set_path(CpuPath::Simd);
        }
        let wait = || {
            if let Some((_, ctx)) = gpu {
                let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
            }
        };
        let mut group = c.benchmark_group(format!("{label} / {case}"));
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
        group.bench_function("step", |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    if let Err(e) = sim.step(MAX_STEPS_PER_DISPATCH as u32) {
                        panic!("{label}: the step failed: {e}");
                    }
                }
                wait();
                let t = start.elapsed();
                record(
                    &label,
                    case,
                    t.as_secs_f64() / (iters as usize * MAX_STEPS_PER_DISPATCH) as f64,
                );
                t
            })
        });
        group.finish();
    }
}

fn touched_share(roots: &[GpuRoot], case: &Case) -> f64 {
    let initial = rest_positions(&case.batches[0][0], roots);
    let Ok(mut solver) = CpuSolver::new(roots.to_vec(), initial) else {
        return 0.0;
    };
    // The mean, over the cycle's steps, of the share of strands touched in that step.
    let (mut touched, mut steps) = (0usize, 0usize);
    for u in case.batches.iter().flatten() {
        if solver.step(std::slice::from_ref(u)).is_err() {
            return 0.0;
        }
        if let Ok(p) = solver.positions() {
            touched += p.chunks(6).filter(|s| s.iter().any(|p| p.w > 0.5)).count();
            steps += 1;
        }
    }
    touched as f64 / (steps.max(1) * roots.len()) as f64
}

fn summary(strands: usize, hand_share: f64) {
    let Ok(results) = RESULTS.lock() else { return };
    println!(
        "\nstrand throughput: {strands} strands, {} steps per dispatch, {} B per strand per \
         dispatch; floor = a copy of those bytes on the same device and threads, per step",
        MAX_STEPS_PER_DISPATCH,
        dispatch_traffic_per_strand()
    );
    println!(
        "(the hand case touches {:.1}% of the strands in a step, on average)",
        hand_share * 100.0
    );
    println!(
        "{:<44} {:<10} {:>9} {:>15} {:>10} {:>7}",
        "backend", "case", "ms/step", "strand-steps/s", "floor ms", "ratio"
    );
    for ((backend, case), times) in results.iter() {
        if case == "floor" {
            continue;
        }
        let step = median(times);
        let floor = results
            .get(&(backend.clone(), "floor".to_string()))
            .map(|f| median(f));
        println!(
            "{:<44} {:<10} {:>9.3} {:>15.3e} {:>10} {:>7}",
            backend,
            case,
            step * 1e3,
            strands as f64 / step,
            floor.map_or("-".into(), |f| format!("{:.3}", f * 1e3)),
            floor.map_or("-".into(), |f| format!("{:.2}x", step / f)),
        );
    }
    for ((backend, case), times) in results.iter() {
        if case != "field on" {
            continue;
        }
        if let Some(off) = results.get(&(backend.clone(), "field off".to_string())) {
            let (on, off) = (median(times), median(off));
            println!(
                "{backend}: the body field costs {:.3} ms a step on top of {:.3} ms \
                 ({:.2}x, {:+.0}%)",
                (on - off) * 1e3,
                off * 1e3,
                on / off,
                (on / off - 1.0) * 100.0
            );
        }
    }
    for ((backend, case), times) in results.iter() {
        if !case.starts_with("volume") {
            continue;
        }
        if let Some(hand) = results.get(&(backend.clone(), "hand".to_string())) {
            let (v, h) = (median(times), median(hand));
            println!(
                "{backend}: {case} costs {:.3} ms a step on top of the hand case's {:.3} ms \
                 ({:+.0}%)",
                (v - h) * 1e3,
                h * 1e3,
                (v / h - 1.0) * 100.0
            );
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let strands = strands();
    let creature = Creature::default();
    let params = FurParams::default();
    let groom = match Groom::generate(&creature, strands, 1) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("cannot grow {strands} strands: {e}");
            return;
        }
    };
    let roots = gpu_roots(&groom.roots, &creature, &params);
    let cases = cases(&creature, &params);
    let fox = fox();
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapters = pollster::block_on(
        instance.enumerate_adapters(wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all())),
    );
    for adapter in adapters {
        let info = adapter.get_info();
        let label = format!("GPU {} ({:?})", info.name, info.backend);
        match GpuContext::with_adapter(instance.clone(), adapter) {
            Ok(ctx) => {
                bench_gpu(&mut c, &ctx, &label, &roots, &cases);
                if let Some(body) = &fox {
                    bench_body_field(&mut c, body, strands, Some((label.as_str(), &ctx)));
                }
            }
            Err(e) => eprintln!("{label}: skipped ({e})"),
        }
    }
    bench_cpu(&mut c, &roots, &cases);
    if let Some(body) = &fox {
        bench_body_field(&mut c, body, strands, None);
    }
    let share = touched_share(&roots, &cases[1]);
    c.final_summary();
    summary(strands, share);
}
