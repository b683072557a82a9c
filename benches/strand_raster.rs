//! The native strand rasteriser (`pelt::raster`) on the creature's coat: the light's hair
//! maps and the camera's picture, each row one frame's worth, at 4,096 strands in 640×360
//! (the frame bench's loaded row) and the full coat (420,032) in 1920×1080, at the front
//! camera. The light maps are the size the renderer makes for that target
//! (`RenderSettings::shadow_extent`). Positions are the CPU solver's after a few steps;
//! colours are one packed coat colour (shading is not this bench's work).
//!
//! Prints, beside criterion's rows, each frame's binning counts and its buffers' bytes
//! (`raster::buffer_bytes`, `raster::light_buffer_bytes`). `PELT_BENCH_FULL=0` skips the full
//! coat.

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use pelt::creature::Creature;
use pelt::raster::{
    BinStats, LightSlabs, Lod, RasterOptions, RasterView, StrandStyle, Strands, buffer_bytes,
    draw_light_maps, draw_picture, light_buffer_bytes, pack_point_color,
};
use pelt::render::light_view::{SLAB_ENDS, light_frame};
use pelt::render::palette::Lighting;
use pelt::render::strand_lod::{DRAWN_ORDER_SEED, drawn_order};
use pelt::render::{Camera, CameraPreset, RenderSettings};
use pelt::sim::{FurConfig, FurSim};
use std::hint::black_box;

struct Frame {
    positions: Vec<glam::Vec4>,
    colors: Vec<u32>,
    order: Vec<u32>,
    camera: RasterView,
    light: RasterView,
    slabs: LightSlabs,
}

impl Frame {
    fn new(strands: usize, (w, h): (u32, u32)) -> Self {
        let mut sim = FurSim::new_cpu(&FurConfig::new(strands, 3), Creature::default())
            .expect("a CPU solver");
        sim.step(3).expect("three steps");
        let positions = sim.positions().expect("positions");
        let colors = vec![pack_point_color(Vec3::new(0.6, 0.3, 0.12)); positions.len()];
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
        Frame {
            order: drawn_order(strands as u32, DRAWN_ORDER_SEED),
            positions,
            colors,
            camera: view,
            light: RasterView::light(light_vp, pass.forward, pass.pixel_scale, size),
            slabs: LightSlabs {
                depth_range: range,
                ends: SLAB_ENDS,
            },
        }
    }

    fn strands(&self) -> Strands<'_> {
        Strands {
            positions: &self.positions,
            colors: &self.colors,
            order: Some(&self.order),
            lod: Lod::all((self.positions.len() / 6) as u32),
            style: StrandStyle::default(),
            hidden: None,
        }
    }
}

/// Entries the binning pool held at once.
fn pool(stats: &BinStats) -> u64 {
    stats
        .entries
        .min(RasterOptions::default().bin_capacity as u64)
}

fn rows(c: &mut Criterion, name: &str, strands: usize, size: (u32, u32)) {
    let frame = Frame::new(strands, size);
    let options = RasterOptions::default();
    let s = frame.strands();
    let (_, picture) = draw_picture(&s, &frame.camera, &options, None).unwrap();
    let (_, light) = draw_light_maps(&s, &frame.light, &frame.slabs, &options).unwrap();
    let points = frame.positions.len() as u64;
    println!(
        "{name}: picture {picture:?}\n{name}: light {}² {light:?}\n{name}: buffers {:.1} MB \
         (picture), {:.1} MB (light maps)",
        frame.light.width,
        buffer_bytes(size.0, size.1, points, pool(&picture)) as f64 / 1e6,
        light_buffer_bytes(frame.light.width, points, pool(&light)) as f64 / 1e6,
    );
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.bench_function("light maps", |b| {
        b.iter(|| black_box(draw_light_maps(&s, &frame.light, &frame.slabs, &options).unwrap()))
    });
    group.bench_function("picture", |b| {
        b.iter(|| black_box(draw_picture(&s, &frame.camera, &options, None).unwrap()))
    });
    group.bench_function("light maps + picture", |b| {
        b.iter(|| {
            black_box(draw_light_maps(&s, &frame.light, &frame.slabs, &options).unwrap());
            black_box(draw_picture(&s, &frame.camera, &options, None).unwrap())
        })
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    rows(c, "4096 strands 640x360", 4096, (640, 360));
    if std::env::var("PELT_BENCH_FULL").as_deref() != Ok("0") {
        rows(c, "420032 strands 1920x1080", 420_032, (1920, 1080));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
