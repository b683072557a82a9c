//! Strand-solver throughput: the full tier on every adapter found and on `CpuSolver`, each
//! against the bandwidth floor of copying the same bytes on the same device in the same run.
//!
//! One step reads the root (64 B), both position buffers (2 × 96 B) and the comb (16 B), and
//! writes positions (96 B) and comb (16 B): 384 B of traffic per strand. The floor is a copy
//! of 192 B per strand, which also moves 384 B. Set `PELT_BENCH_STRANDS` for a smaller run.

use criterion::Criterion;
use pelt::creature::{Creature, CreaturePose};
use pelt::gpu::{GpuContext, list_adapters};
use pelt::groom::Groom;
use pelt::sim::{
    CpuSolver, FurParams, GpuRoot, GpuSolver, MAX_STEPS_PER_SUBMIT, StepUniforms, StrandSolver,
    StrandTier, rest_positions,
};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Bytes one step reads and writes per strand.
const STEP_TRAFFIC: u64 = 64 + 2 * 96 + 16 + 96 + 16;

/// Median seconds per step (or per copy) of each measurement, by name.
static RESULTS: Mutex<BTreeMap<String, Vec<f64>>> = Mutex::new(BTreeMap::new());

fn record(name: &str, seconds_per_iter: f64) {
    if let Ok(mut r) = RESULTS.lock() {
        r.entry(name.to_string())
            .or_default()
            .push(seconds_per_iter);
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

fn wait(ctx: &GpuContext) {
    let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
}

fn bench_gpu(
    c: &mut Criterion,
    ctx: &GpuContext,
    label: &str,
    roots: &[GpuRoot],
    u: &StepUniforms,
) {
    let initial = rest_positions(u, roots);
    let mut solver = match GpuSolver::new(ctx, roots, &initial) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{label}: skipped ({e})");
            return;
        }
    };
    let steps = [*u; MAX_STEPS_PER_SUBMIT];
    let copy_bytes = (STEP_TRAFFIC / 2) * roots.len() as u64;
    let make = |name| {
        ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(name),
            size: copy_bytes,
            usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    };
    let (src, dst) = (make("copy src"), make("copy dst"));
    let mut group = c.benchmark_group(label);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    let step_name = format!("{label} step");
    group.bench_function("step", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                if let Err(e) = solver.step(&steps) {
                    panic!("{label}: the step failed: {e}");
                }
            }
            wait(ctx);
            let t = start.elapsed();
            record(
                &step_name,
                t.as_secs_f64() / (iters * steps.len() as u64) as f64,
            );
            t
        })
    });
    let copy_name = format!("{label} copy");
    group.bench_function("copy same bytes", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                for _ in 0..steps.len() {
                    encoder.copy_buffer_to_buffer(&src, 0, &dst, 0, copy_bytes);
                }
                ctx.queue.submit(Some(encoder.finish()));
            }
            wait(ctx);
            let t = start.elapsed();
            record(
                &copy_name,
                t.as_secs_f64() / (iters * steps.len() as u64) as f64,
            );
            t
        })
    });
    group.finish();
}

fn bench_cpu(c: &mut Criterion, roots: &[GpuRoot], u: &StepUniforms) {
    let initial = rest_positions(u, roots);
    let Ok(mut solver) = CpuSolver::new(roots.to_vec(), initial) else {
        return;
    };
    let copy_len = (STEP_TRAFFIC / 2) as usize * roots.len();
    let src = vec![1u8; copy_len];
    let mut dst = vec![0u8; copy_len];
    let mut group = c.benchmark_group("CpuSolver");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group.bench_function("step", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                if let Err(e) = solver.step(std::slice::from_ref(u)) {
                    panic!("CpuSolver: the step failed: {e}");
                }
            }
            let t = start.elapsed();
            record("CpuSolver step", t.as_secs_f64() / iters as f64);
            t
        })
    });
    group.bench_function("memcpy same bytes", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                dst.copy_from_slice(std::hint::black_box(&src));
            }
            let t = start.elapsed();
            std::hint::black_box(&dst);
            record("CpuSolver copy", t.as_secs_f64() / iters as f64);
            t
        })
    });
    group.finish();
}

fn summary(strands: usize) {
    let Ok(results) = RESULTS.lock() else { return };
    println!(
        "\nstrand throughput, {strands} strands, {STEP_TRAFFIC} B of traffic per strand-step:"
    );
    println!(
        "{:<58} {:>10} {:>14} {:>10} {:>10} {:>8}",
        "solver", "ms/step", "strand-steps/s", "GB/s", "copy ms", "ratio"
    );
    for (name, times) in results.iter() {
        let Some(label) = name.strip_suffix(" step") else {
            continue;
        };
        let step = median(times);
        let copy = results.get(&format!("{label} copy")).map(|c| median(c));
        let bytes = (STEP_TRAFFIC * strands as u64) as f64;
        println!(
            "{:<58} {:>10.3} {:>14.3e} {:>10.2} {:>10} {:>8}",
            label,
            step * 1e3,
            strands as f64 / step,
            bytes / step / 1e9,
            copy.map_or("-".into(), |c| format!("{:.3}", c * 1e3)),
            copy.map_or("-".into(), |c| format!("{:.2}x", step / c)),
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let strands = strands();
    let creature = Creature::default();
    let groom = match Groom::generate(&creature, strands, 1) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("cannot grow {strands} strands: {e}");
            return;
        }
    };
    let roots: Vec<GpuRoot> = groom.roots.iter().map(GpuRoot::from).collect();
    let u = StepUniforms::new(
        &FurParams::default(),
        &CreaturePose::rest(&creature),
        1.0,
        1.0 / 60.0,
        None,
        strands as u32,
    );
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapters = pollster::block_on(
        instance.enumerate_adapters(wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all())),
    );
    let names: Vec<String> = list_adapters()
        .iter()
        .map(|a| a.info.name.clone())
        .collect();
    eprintln!("adapters: {names:?}");
    for adapter in adapters {
        let info = adapter.get_info();
        let label = format!("GPU {} ({:?})", info.name, info.backend);
        match GpuContext::with_adapter(instance.clone(), adapter) {
            Ok(ctx) => bench_gpu(&mut c, &ctx, &label, &roots, &u),
            Err(e) => eprintln!("{label}: skipped ({e})"),
        }
    }
    bench_cpu(&mut c, &roots, &u);
    c.final_summary();
    summary(strands);
}
