//! Times the native strand rasteriser's two draws (`pelt::raster::draw_light_maps` and
//! `draw_picture`) on the frames of `benches/strand_raster.rs`, in CPU time (this process's
//! user and system time, every thread's) as well as wall time, so that a shared machine's
//! load moves the numbers less than it moves the bench's; and prints a hash of each output,
//! so that two builds of the rasteriser can be checked to draw the same bits.
//!
//! `cargo run --release --example raster_time -- [small|full] [repeats] [light|picture|both]`
//! (`PELT_RASTER_LANES=sse` or `scalar` for the lanes without AVX or one pixel at a time)
//! (`small`: 4,096 strands at 640×360; `full`: the whole coat, 420,032, at 1920×1080). The
//! solver's positions are kept in the system's temporary folder between runs (the full
//! coat's take a while to step).

use glam::{Vec3, Vec4};
use pelt::creature::Creature;
use pelt::raster::{
    LightSlabs, Lod, RasterOptions, RasterView, StrandStyle, Strands, draw_light_maps,
    draw_picture, pack_point_color,
};
use pelt::render::light_view::{SLAB_ENDS, light_frame};
use pelt::render::palette::Lighting;
use pelt::render::strand_lod::{DRAWN_ORDER_SEED, drawn_order};
use pelt::render::{Camera, CameraPreset, RenderSettings};
use pelt::sim::{FurConfig, FurSim};
use std::time::{Duration, Instant};

/// This process's CPU time so far, all threads.
fn cpu_time() -> Duration {
    // SAFETY: getrusage writes into the struct it is given and reads nothing else.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// FNV-1a over bytes: a short fingerprint of an output.
fn fingerprint(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The solver's positions after three steps, from the temporary folder when kept there.
fn positions(strands: usize) -> Vec<Vec4> {
    let path = std::env::temp_dir().join(format!("pelt_raster_time_{strands}.bin"));
    if let Ok(bytes) = std::fs::read(&path)
        && bytes.len() == strands * 6 * 16
    {
        return bytes
            .chunks_exact(16)
            .map(|c| {
                let f = |i: usize| f32::from_le_bytes(c[i * 4..i * 4 + 4].try_into().unwrap());
                Vec4::new(f(0), f(1), f(2), f(3))
            })
            .collect();
    }
    let mut sim =
        FurSim::new_cpu(&FurConfig::new(strands, 3), Creature::default()).expect("a CPU solver");
    sim.step(3).expect("three steps");
    let p = sim.positions().expect("positions");
    let bytes: Vec<u8> = p
        .iter()
        .flat_map(|v| v.to_array().map(f32::to_le_bytes))
        .flatten()
        .collect();
    std::fs::write(&path, bytes).expect("positions kept");
    p
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (strands, (w, h)) = match args.first().map(String::as_str) {
        Some("full") => (420_032, (1920u32, 1080u32)),
        _ => (4096, (640, 360)),
    };
    let repeats: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let what = args.get(2).map(String::as_str).unwrap_or("both");
    let positions = positions(strands);
    let colors = vec![pack_point_color(Vec3::new(0.6, 0.3, 0.12)); positions.len()];
    let order = drawn_order(strands as u32, DRAWN_ORDER_SEED);
    let camera = Camera::preset(CameraPreset::Front);
    let view = RasterView::camera(
        camera.view_proj(w as f32 / h as f32),
        camera.eye,
        camera.forward(),
        camera.pixel_scale(h),
        (w, h),
    );
    let size = RenderSettings::default().shadow_extent((w, h));
    let (light_vp, range, pass) = light_frame(Lighting::default().key_direction, size);
    let light = RasterView::light(light_vp, pass.forward, pass.pixel_scale, size);
    let slabs = LightSlabs {
        depth_range: range,
        ends: SLAB_ENDS,
    };
    let s = Strands {
        positions: &positions,
        colors: &colors,
        order: Some(&order),
        lod: Lod::all(strands as u32),
        style: StrandStyle::default(),
        hidden: None,
    };
    // `PELT_RASTER_LANES=sse` keeps the eight lanes in two SSE registers where the CPU has
    // AVX (the same bits), `scalar` draws a pixel at a time.
    let lanes = std::env::var("PELT_RASTER_LANES").unwrap_or_default();
    let options = RasterOptions {
        simd: lanes != "scalar",
        avx: lanes != "sse",
        ..RasterOptions::default()
    };
    let mut times: Vec<(&str, Duration, Duration)> = Vec::new();
    for rep in 0..repeats {
        if what != "picture" {
            let (c, t) = (cpu_time(), Instant::now());
            let (maps, stats) = draw_light_maps(&s, &light, &slabs, &options).unwrap();
            times.push(("light", cpu_time() - c, t.elapsed()));
            if rep == 0 {
                let first = fingerprint(maps.first_hair.iter().flat_map(|v| v.to_le_bytes()));
                let deep = fingerprint(
                    maps.deep_opacity
                        .iter()
                        .flatten()
                        .flat_map(|v| v.to_le_bytes()),
                );
                println!("light {size}²: first hair {first:016x} deep opacity {deep:016x}");
                println!("light {stats:?}");
            }
        }
        if what != "light" {
            let (c, t) = (cpu_time(), Instant::now());
            let (picture, stats) = draw_picture(&s, &view, &options, None).unwrap();
            times.push(("picture", cpu_time() - c, t.elapsed()));
            if rep == 0 {
                let bits = fingerprint(
                    picture
                        .half_rows()
                        .iter()
                        .flatten()
                        .flat_map(|v| v.to_le_bytes()),
                );
                println!("picture {w}×{h}: {bits:016x}");
                println!("picture {stats:?}");
            }
        }
    }
    for name in ["light", "picture"] {
        let mut cpu: Vec<f64> = times
            .iter()
            .filter(|t| t.0 == name)
            .map(|t| t.1.as_secs_f64() * 1e3)
            .collect();
        let mut wall: Vec<f64> = times
            .iter()
            .filter(|t| t.0 == name)
            .map(|t| t.2.as_secs_f64() * 1e3)
            .collect();
        if cpu.is_empty() {
            continue;
        }
        cpu.sort_by(f64::total_cmp);
        wall.sort_by(f64::total_cmp);
        println!(
            "{name}: cpu min {:.2} ms median {:.2} ms, wall min {:.2} ms median {:.2} ms ({} runs)",
            cpu[0],
            cpu[cpu.len() / 2],
            wall[0],
            wall[wall.len() / 2],
            cpu.len()
        );
    }
}
