//! Frame time: one rendered frame (shadow maps, surfaces, ribbons) and, beside it for scale, one
//! solver step, by strand tier and resolution on every adapter found. Each path draws into
//! the targets and with the settings the window gives it (for the native path one sample a
//! pixel, its picture composited over sample 0, and the light's maps at half the picture's
//! size and the light's level of detail: `Raster::real_time_layout` and
//! `RenderSettings::real_time`; the table names the samples). GPU pass times come
//! from timestamp queries where the adapter has them; wall times include submission and
//! waiting for the GPU. Prints one table, and a second of whole demo frames (pointer events,
//! hand, response, tail, solver, render) without the egui panel, which lives in the binary:
//! `pelt demo --frames N` prints the panel's time beside its frame time.
//!
//! `PELT_BENCH_FRAMES` (default 5) sets the frames measured per row after two warm-up
//! frames; `PELT_BENCH_TIERS` (default `32768,104960,420032`) and `PELT_BENCH_SIZES`
//! (default `1280x720,1920x1080`) choose the rows; `PELT_BENCH_RASTERS` (default
//! `ribbons,native,strands`; `auto` is not one: it picks one of them) which hair paths
//! each row is drawn with. A value that does not parse is named and skipped.
//!
//! On a CPU adapter (lavapipe) the frame competes with whatever else the machine runs, so
//! the table also gives the process's CPU time per frame (all its threads: the driver's
//! rasteriser threads and the one that runs vertex shaders), which moves less with the
//! load than wall time, and the load average when the run began. The native path's shadow
//! and hair columns span what it draws on the host: each begins in the part of the frame
//! submitted before the host draws (the positions or the shaded points read back) and
//! ends in the part submitted after it, so each holds the wait for the read-back, the
//! host's drawing and the upload (a sleep added after the picture adds as much to the hair
//! column).

use pelt::creature::Creature;
use pelt::gpu::{GpuContext, list_adapters};
use pelt::render::{
    Camera, CameraPreset, FurRenderer, OFFSCREEN_FORMAT, OffscreenTarget, PassTimings, Raster,
    RenderSettings, Scene, TargetLayout,
};
use pelt::sim::{FurConfig, FurSim};
use std::time::Instant;

fn env_list<T>(name: &str, default: &str, parse: impl Fn(&str) -> Option<T>) -> Vec<T> {
    std::env::var(name)
        .unwrap_or_else(|_| default.to_string())
        .split(',')
        .filter_map(|s| {
            let parsed = parse(s.trim());
            if parsed.is_none() {
                eprintln!(
                    "{name}: ignoring {:?}, which is not one of its values",
                    s.trim()
                );
            }
            parsed
        })
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// CPU time this process has used, all threads, in milliseconds (unix only).
fn process_cpu_ms() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the call's duration.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } == 0;
        ok.then(|| ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

struct Row {
    adapter: String,
    strands: usize,
    size: (u32, u32),
    raster: Raster,
    /// MSAA samples of the camera's targets.
    samples: u32,
    frame_ms: f64,
    cpu_ms: Option<f64>,
    passes: Option<PassTimings>,
    step_ms: f64,
    memory_mb: f64,
}

fn measure(
    ctx: &GpuContext,
    strands: usize,
    size: (u32, u32),
    frames: usize,
    raster: Raster,
) -> Result<Row, String> {
    let creature = Creature::default();
    let mut sim = FurSim::new_gpu(&FurConfig::new(strands, 1), creature.clone(), ctx)
        .map_err(|e| e.to_string())?;
    sim.step(10).map_err(|e| e.to_string())?;
    // The targets and settings the window draws this path with (for the native path: one
    // sample, the maps at half the picture's size and the light's level of detail), but the
    // light's maps and the shading both made every frame, so that each row's passes are
    // what a frame that makes them costs (the window makes them in turns: the demo rows).
    let path = raster.for_adapter(&ctx.info());
    let layout = path.real_time_layout(TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, false));
    let mut renderer = FurRenderer::new(
        &ctx.device,
        &ctx.queue,
        layout,
        &creature,
        RenderSettings {
            raster,
            ..RenderSettings::default()
        }
        .real_time(path)
        .with_refresh_in_turns(false),
    )
    .map_err(|e| e.to_string())?;
    renderer
        .set_strands_from_sim(&sim)
        .map_err(|e| e.to_string())?;
    let timed = renderer.enable_timing();
    let target =
        OffscreenTarget::new(&ctx.device, &layout, size.0, size.1).map_err(|e| e.to_string())?;
    let wait = || {
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    };
    let mut frame_ms = Vec::new();
    let mut cpu_ms = Vec::new();
    let mut step_ms = Vec::new();
    let mut passes = Vec::new();
    for i in 0..frames + 2 {
        let started = Instant::now();
        sim.step(1).map_err(|e| e.to_string())?;
        wait();
        let stepped = started.elapsed();
        let started = Instant::now();
        let cpu_started = process_cpu_ms();
        let mut scene = Scene::new(
            Camera::preset(CameraPreset::Front),
            sim.pose_at(sim.time() as f32),
        );
        scene.positions_index = sim.gpu().map_or(0, |g| g.current_index());
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        renderer
            .render(&mut encoder, &target.frame, &target.view, &scene)
            .map_err(|e| e.to_string())?;
        ctx.queue.submit(Some(encoder.finish()));
        wait();
        let rendered = started.elapsed();
        let cpu = cpu_started.zip(process_cpu_ms()).map(|(a, b)| b - a);
        if i >= 2 {
            step_ms.push(stepped.as_secs_f64() * 1e3);
            frame_ms.push(rendered.as_secs_f64() * 1e3);
            cpu_ms.extend(cpu);
            if timed {
                passes.push(
                    renderer
                        .read_timings()
                        .map_err(|e| e.to_string())?
                        .unwrap_or_default(),
                );
            }
        }
    }
    let pass_median = (!passes.is_empty()).then(|| PassTimings {
        shadow_ms: median(passes.iter().map(|p| p.shadow_ms).collect()),
        surfaces_ms: median(passes.iter().map(|p| p.surfaces_ms).collect()),
        ribbons_ms: median(passes.iter().map(|p| p.ribbons_ms).collect()),
    });
    Ok(Row {
        adapter: format!("{} ({:?})", ctx.info().name, ctx.info().backend),
        strands,
        size,
        raster,
        samples: layout.samples,
        frame_ms: median(frame_ms),
        cpu_ms: (!cpu_ms.is_empty()).then(|| median(cpu_ms)),
        passes: pass_median,
        step_ms: median(step_ms),
        memory_mb: (renderer.memory_bytes() + target.frame.bytes) as f64 / 1e6,
    })
}

/// One demo frame as the app runs it, minus the egui panel and the budget: the shipped
/// pointer script's events, the hand, the creature's response, the tail, the solver's fixed
/// steps and the frame, waiting for the GPU, drawn by the path `pelt demo` picks by default
/// (`--raster auto`) with the window's targets and settings for it. Median wall
/// milliseconds over `frames` frames of the stroke, and the path.
fn measure_demo(
    ctx: &GpuContext,
    strands: usize,
    size: (u32, u32),
    frames: usize,
) -> Result<(f64, Raster), String> {
    use pelt::hand::{PointerEventKind, PointerScript};
    let path = Raster::Auto.for_adapter(&ctx.info());
    let layout = path.real_time_layout(TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, false));
    let mut options = pelt::SimulatedFurOptions::new(strands, 1, layout);
    options.render = RenderSettings {
        raster: path,
        ..RenderSettings::default()
    }
    .real_time(path);
    let mut fur = pelt::SimulatedFur::new(ctx, &options).map_err(|e| e.to_string())?;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/pet_scratch.json");
    let script = PointerScript::from_path(&path).map_err(|e| e.to_string())?;
    let target =
        OffscreenTarget::new(&ctx.device, &layout, size.0, size.1).map_err(|e| e.to_string())?;
    let camera = Camera::preset(CameraPreset::Front);
    // The script's pixels are for a 1280×720 window: scale them to this size.
    let scale = glam::Vec2::new(size.0 as f32 / 1280.0, size.1 as f32 / 720.0);
    let window = glam::Vec2::new(size.0 as f32, size.1 as f32);
    let (mut time, mut previous) = (0.0, f64::NEG_INFINITY);
    let mut times = Vec::new();
    for i in 0..frames + 20 {
        let started = Instant::now();
        time += 1.0 / 60.0;
        for event in script.events_in(previous, time) {
            let at = |p: glam::Vec2| (camera.ray_through(p * scale, window), p * scale);
            match event.kind {
                PointerEventKind::Down { position, button } => {
                    let (ray, px) = at(position);
                    fur.pointer_down(ray, px, button)
                }
                PointerEventKind::Move { position } => {
                    let (ray, px) = at(position);
                    fur.pointer_move(ray, px)
                }
                PointerEventKind::Up { position, button } => {
                    let (ray, px) = at(position);
                    fur.pointer_up(ray, px, button)
                }
                PointerEventKind::Cancel => fur.pointer_cancel(),
                PointerEventKind::Leave => fur.pointer_leave(),
            }
        }
        previous = time;
        fur.update(1.0 / 60.0).map_err(|e| e.to_string())?;
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        fur.render(&mut encoder, &target.frame, &target.view, &camera)
            .map_err(|e| e.to_string())?;
        ctx.queue.submit(Some(encoder.finish()));
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
        // The hand is down from the sixth frame on; time the frames of the stroke.
        if i >= 20 {
            times.push(started.elapsed().as_secs_f64() * 1e3);
        }
    }
    Ok((median(times), fur.renderer().last_raster()))
}

// ---- Strand and mesh level of detail (a separate block: one tier at each LOD policy) ----

/// One row of the LOD table: the policy's name, strands drawn, skin level, median wall
/// frame and pass timings.
struct LodRow {
    adapter: String,
    policy: &'static str,
    drawn: u32,
    skin_level: usize,
    frame_ms: f64,
    passes: Option<PassTimings>,
}

/// Frames of one coat (`PELT_BENCH_LOD_TIER`, default 32768) at `size` under each LOD
/// policy: the whole coat at full mesh detail, then by screen size at falling densities.
fn measure_lod(ctx: &GpuContext, size: (u32, u32), frames: usize) -> Result<Vec<LodRow>, String> {
    use pelt::render::strand_lod::LodPolicy;
    let strands = std::env::var("PELT_BENCH_LOD_TIER")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(32_768);
    let creature = Creature::default();
    let mut sim = FurSim::new_gpu(&FurConfig::new(strands, 1), creature.clone(), ctx)
        .map_err(|e| e.to_string())?;
    sim.step(10).map_err(|e| e.to_string())?;
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, false);
    let mut renderer = FurRenderer::new(
        &ctx.device,
        &ctx.queue,
        layout,
        &creature,
        RenderSettings::default(),
    )
    .map_err(|e| e.to_string())?;
    renderer
        .set_strands_from_sim(&sim)
        .map_err(|e| e.to_string())?;
    let timed = renderer.enable_timing();
    let target =
        OffscreenTarget::new(&ctx.device, &layout, size.0, size.1).map_err(|e| e.to_string())?;
    let policies: [(&'static str, LodPolicy, Option<usize>); 4] = [
        (
            "whole coat, full mesh",
            LodPolicy {
                by_screen_size: false,
                ..LodPolicy::default()
            },
            Some(0),
        ),
        ("1 strand/px, skin by size", LodPolicy::default(), None),
        (
            "0.25 strand/px, skin by size",
            LodPolicy {
                strands_per_pixel: 0.25,
                ..LodPolicy::default()
            },
            None,
        ),
        (
            "0.1 strand/px, skin by size",
            LodPolicy {
                strands_per_pixel: 0.1,
                ..LodPolicy::default()
            },
            None,
        ),
    ];
    let camera = Camera::preset(CameraPreset::Front);
    let mut rows = Vec::new();
    for (name, policy, skin) in policies {
        renderer.set_lod_policy(policy);
        renderer.set_skin_level(skin);
        let mut frame_ms = Vec::new();
        let mut passes = Vec::new();
        for i in 0..frames + 2 {
            let mut scene = Scene::new(camera, sim.pose_at(sim.time() as f32));
            scene.positions_index = sim.gpu().map_or(0, |g| g.current_index());
            let started = Instant::now();
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            renderer
                .render(&mut encoder, &target.frame, &target.view, &scene)
                .map_err(|e| e.to_string())?;
            ctx.queue.submit(Some(encoder.finish()));
            let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
            if i >= 2 {
                frame_ms.push(started.elapsed().as_secs_f64() * 1e3);
                if timed {
                    passes.push(
                        renderer
                            .read_timings()
                            .map_err(|e| e.to_string())?
                            .unwrap_or_default(),
                    );
                }
            }
        }
        rows.push(LodRow {
            adapter: format!(
                "{} ({:?}), {strands} strands",
                ctx.info().name,
                ctx.info().backend
            ),
            policy: name,
            drawn: renderer.last_lod().drawn,
            skin_level: renderer.skin_level(&camera, size),
            frame_ms: median(frame_ms),
            passes: (!passes.is_empty()).then(|| PassTimings {
                shadow_ms: median(passes.iter().map(|p| p.shadow_ms).collect()),
                surfaces_ms: median(passes.iter().map(|p| p.surfaces_ms).collect()),
                ribbons_ms: median(passes.iter().map(|p| p.ribbons_ms).collect()),
            }),
        });
    }
    Ok(rows)
}

/// Prints the LOD table for every adapter at the first bench size.
fn lod_table(instance: &wgpu::Instance, size: (u32, u32), frames: usize) {
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    println!();
    println!(
        "| adapter | LOD policy | strands drawn | skin level | frame ms (wall) | shadow ms | surfaces ms | ribbons ms |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for adapter in adapters {
        let Ok(ctx) = GpuContext::with_adapter(instance.clone(), adapter) else {
            continue;
        };
        match measure_lod(&ctx, size, frames) {
            Ok(rows) => {
                for r in rows {
                    let p = |f: fn(&PassTimings) -> f64| {
                        r.passes
                            .as_ref()
                            .map_or("–".to_string(), |t| format!("{:.2}", f(t)))
                    };
                    println!(
                        "| {} | {} | {} | {} | {:.2} | {} | {} | {} |",
                        r.adapter,
                        r.policy,
                        r.drawn,
                        r.skin_level,
                        r.frame_ms,
                        p(|t| t.shadow_ms),
                        p(|t| t.surfaces_ms),
                        p(|t| t.ribbons_ms)
                    );
                }
            }
            Err(e) => eprintln!("LOD {}: {e}", ctx.info().name),
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is accepted.
    let load_at_start = std::fs::read_to_string("/proc/loadavg").ok();
    let frames: usize = std::env::var("PELT_BENCH_FRAMES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let tiers = env_list("PELT_BENCH_TIERS", "32768,104960,420032", |s| {
        s.parse().ok()
    });
    let sizes = env_list("PELT_BENCH_SIZES", "1280x720,1920x1080", |s| {
        let (w, h) = s.split_once('x')?;
        Some((w.parse().ok()?, h.parse().ok()?))
    });
    let rasters = env_list("PELT_BENCH_RASTERS", "ribbons,native,strands", |s| {
        s.parse::<Raster>().ok().filter(|r| *r != Raster::Auto)
    });
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    eprintln!(
        "{} adapters: {:?}",
        adapters.len(),
        list_adapters()
            .iter()
            .map(|a| &a.info.name)
            .collect::<Vec<_>>()
    );
    let mut rows = Vec::new();
    let mut demo_rows = Vec::new();
    for adapter in adapters {
        let ctx = match GpuContext::with_adapter(instance.clone(), adapter) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("skipping an adapter: {e}");
                continue;
            }
        };
        for &strands in &tiers {
            for &size in &sizes {
                // Both ways of drawing the hair, side by side.
                for &raster in &rasters {
                    match measure(&ctx, strands, size, frames, raster) {
                        Ok(row) => rows.push(row),
                        Err(e) => eprintln!("{} {strands} {size:?} {raster}: {e}", ctx.info().name),
                    }
                }
                match measure_demo(&ctx, strands, size, frames) {
                    Ok((ms, path)) => demo_rows.push((
                        format!("{} ({:?})", ctx.info().name, ctx.info().backend),
                        strands,
                        size,
                        path,
                        ms,
                    )),
                    Err(e) => eprintln!("demo {} {strands} {size:?}: {e}", ctx.info().name),
                }
            }
        }
    }
    println!();
    if let Some(load) = &load_at_start {
        let load: Vec<&str> = load.split_whitespace().take(3).collect();
        println!("load average when the run began: {}", load.join(" "));
    }
    println!(
        "| adapter | strands | size | hair raster | samples | frame ms (wall) | CPU ms per frame | shadow ms | surfaces ms | hair (cull, shading and the path) ms | solver step ms | render memory MB |"
    );
    println!("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in &rows {
        let p = |f: fn(&PassTimings) -> f64| {
            r.passes
                .as_ref()
                .map_or("–".to_string(), |t| format!("{:.2}", f(t)))
        };
        println!(
            "| {} | {} | {}×{} | {} | {} | {:.2} | {} | {} | {} | {} | {:.2} | {:.1} |",
            r.adapter,
            r.strands,
            r.size.0,
            r.size.1,
            r.raster,
            r.samples,
            r.frame_ms,
            r.cpu_ms.map_or("–".to_string(), |c| format!("{c:.1}")),
            p(|t| t.shadow_ms),
            p(|t| t.surfaces_ms),
            p(|t| t.ribbons_ms),
            r.step_ms,
            r.memory_mb
        );
    }
    println!();
    println!(
        "| adapter | strands | size | hair raster | demo frame ms (pointer events, hand, response, tail, solver, render; no panel) | fps |"
    );
    println!("| --- | ---: | ---: | --- | ---: | ---: |");
    for (adapter, strands, size, path, ms) in &demo_rows {
        println!(
            "| {adapter} | {strands} | {}×{} | {path} | {ms:.2} | {:.1} |",
            size.0,
            size.1,
            1000.0 / ms
        );
    }
    if let Some(&size) = sizes.first() {
        lod_table(&instance, size, frames);
    }
}
