//! A small picture draws its shadows into maps no finer than it needs
//! (`RenderSettings::shadow_extent`), made again at that size when the picture's size
//! changes. Checked on every hair path: a renderer that drew a large picture first draws
//! a small one, and then the large one again, exactly as renderers made for each size do
//! (no map, group or buffer of the other size left behind), and the small
//! picture's shadows are not those of the full maps.

use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::render::{
    Camera, CameraPreset, DebugMode, FurRenderer, Image, OFFSCREEN_FORMAT, Raster, RenderSettings,
    Scene, TargetLayout,
};
use pelt::sim::{FurConfig, FurSim};

const STRANDS: usize = 4096;
/// The target: its larger side 256, so its corner of the 1024² maps is 256².
const SIZE: (u32, u32) = (256, 144);

/// The README's size: its larger side over 512, so it keeps the whole 1024² maps.
const LARGE: (u32, u32) = (640, 360);

fn renderer(ctx: &GpuContext, sim: &FurSim, settings: RenderSettings) -> FurRenderer {
    let creature = Creature::default();
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, false);
    let mut renderer =
        FurRenderer::new(&ctx.device, &ctx.queue, layout, &creature, settings).unwrap();
    renderer.set_strands_from_sim(sim).unwrap();
    renderer
}

fn draw(renderer: &mut FurRenderer, sim: &FurSim, mode: DebugMode, size: (u32, u32)) -> Image {
    let mut scene = Scene::new(
        Camera::preset(CameraPreset::Front),
        sim.pose_at(sim.time() as f32),
    );
    scene.mode = mode;
    scene.positions_index = sim.gpu().unwrap().current_index();
    renderer.render_image(&scene, size.0, size.1).unwrap()
}

/// Mean absolute difference per channel, levels of 255, and the largest.
fn difference(a: &Image, b: &Image) -> (f64, u8) {
    let (mut sum, mut most, mut n) = (0u64, 0u8, 0u64);
    for (p, q) in a.rgba.chunks_exact(4).zip(b.rgba.chunks_exact(4)) {
        for c in 0..3 {
            let d = p[c].abs_diff(q[c]);
            sum += u64::from(d);
            most = most.max(d);
            n += 1;
        }
    }
    (sum as f64 / n as f64, most)
}

#[test]
fn the_extent_follows_the_larger_side_in_powers_of_two_within_the_maps() {
    let s = RenderSettings::default();
    assert_eq!(s.shadow_map_size, 1024);
    assert_eq!(s.shadow_extent((640, 360)), 1024, "the README's pictures");
    assert_eq!(s.shadow_extent((1920, 1080)), 1024);
    assert_eq!(s.shadow_extent((513, 100)), 1024);
    assert_eq!(s.shadow_extent((512, 288)), 512);
    assert_eq!(s.shadow_extent((320, 180)), 512);
    assert_eq!(s.shadow_extent((256, 144)), 256);
    assert_eq!(s.shadow_extent((1, 1)), 256, "never below 256");
    let fixed = RenderSettings {
        shadow_follows_target: false,
        ..s
    };
    assert_eq!(fixed.shadow_extent((64, 64)), 1024);
    let small = RenderSettings {
        shadow_map_size: 200,
        ..s
    };
    assert_eq!(small.shadow_extent((64, 64)), 200, "never past the maps");
}

#[test]
fn rounding_down_takes_the_power_of_two_at_or_below_within_the_maps() {
    let s = RenderSettings {
        shadow_rounds_down: true,
        ..RenderSettings::default()
    };
    assert_eq!(
        s.shadow_extent((640, 360)),
        512,
        "the demo at render scale 0.5"
    );
    assert_eq!(s.shadow_extent((1280, 720)), 1024);
    assert_eq!(s.shadow_extent((1920, 1080)), 1024, "never past the maps");
    assert_eq!(s.shadow_extent((512, 288)), 512, "a power of two is kept");
    assert_eq!(s.shadow_extent((1024, 576)), 1024);
    assert_eq!(s.shadow_extent((320, 180)), 256);
    assert_eq!(s.shadow_extent((300, 100)), 256);
    assert_eq!(s.shadow_extent((100, 50)), 256, "never below 256");
    let fixed = RenderSettings {
        shadow_follows_target: false,
        ..s
    };
    assert_eq!(
        fixed.shadow_extent((640, 360)),
        1024,
        "fixed maps keep their size"
    );
    // Off by default: `pelt render`'s pictures keep their maps.
    assert!(!RenderSettings::default().shadow_rounds_down);
}

#[test]
fn halving_takes_half_the_rounded_size_within_the_maps_and_not_below_256() {
    let s = RenderSettings {
        shadow_rounds_down: true,
        shadow_halved: true,
        ..RenderSettings::default()
    };
    assert_eq!(
        s.shadow_extent((640, 360)),
        256,
        "the demo at render scale 0.5"
    );
    assert_eq!(s.shadow_extent((1280, 720)), 512, "the demo at full scale");
    assert_eq!(s.shadow_extent((1920, 1080)), 512);
    assert_eq!(s.shadow_extent((320, 180)), 256, "never below 256");
    let small = RenderSettings {
        shadow_map_size: 200,
        ..s
    };
    assert_eq!(small.shadow_extent((1280, 720)), 200, "never past the maps");
    // Off by default; the native path's real-time settings turn it on.
    assert!(!RenderSettings::default().shadow_halved);
    let real_time = RenderSettings::default().real_time(pelt::render::Raster::Native);
    assert_eq!(real_time.shadow_extent((640, 360)), 256);
}

#[test]
fn maps_made_again_for_each_size_draw_as_maps_made_for_it() {
    let ctx = GpuContext::new().expect("a wgpu adapter (CI installs lavapipe)");
    let creature = Creature::default();
    let mut sim = FurSim::new_gpu(&FurConfig::new(STRANDS, 3), creature, &ctx).unwrap();
    sim.step(20).unwrap();
    for raster in [Raster::Hardware, Raster::Native] {
        let following = RenderSettings {
            raster,
            ..RenderSettings::default()
        };
        assert_eq!(following.shadow_extent(SIZE), 256);
        let whole_small = RenderSettings {
            shadow_map_size: 256,
            shadow_follows_target: false,
            ..following
        };
        let whole_large = RenderSettings {
            shadow_follows_target: false,
            ..following
        };
        // The skin view shows the hair's shadow on the skin alone; the final view all of it.
        for mode in [DebugMode::Skin, DebugMode::Final] {
            let name = format!("{raster} {}", mode.name());
            // One renderer: large (1024² maps), small (256²), large again.
            let mut r = renderer(&ctx, &sim, following);
            let large = draw(&mut r, &sim, mode, LARGE);
            let large_bytes = r.memory_bytes();
            let small = draw(&mut r, &sim, mode, SIZE);
            let small_bytes = r.memory_bytes();
            let large_again = draw(&mut r, &sim, mode, LARGE);
            // Renderers made for each size, and the small picture on the full maps.
            let fresh_small = draw(&mut renderer(&ctx, &sim, whole_small), &sim, mode, SIZE);
            let fresh_large = draw(&mut renderer(&ctx, &sim, whole_large), &sim, mode, LARGE);
            let full_maps = draw(&mut renderer(&ctx, &sim, whole_large), &sim, mode, SIZE);
            assert!(
                small.rgba == fresh_small.rgba,
                "{name}: the small picture after a large one differs from one drawn with 256² maps"
            );
            assert!(
                large.rgba == fresh_large.rgba && large_again.rgba == large.rgba,
                "{name}: the large picture changed after a small one"
            );
            let (finer, _) = difference(&small, &full_maps);
            eprintln!(
                "{name}: small picture against 1024² maps {finer:.4}/255; memory {large_bytes} → {small_bytes} bytes"
            );
            assert!(
                finer > 0.01,
                "{name}: the small picture's shadows are the full maps' ({finer:.4}/255)"
            );
            // Four maps of 20 bytes a texel in all shrink from 1024² to 256².
            assert!(
                large_bytes >= small_bytes + 20 * (1024 * 1024 - 256 * 256),
                "{name}: the maps did not shrink ({large_bytes} → {small_bytes} bytes)"
            );
        }
    }
}
