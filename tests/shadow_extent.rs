//! A small picture draws its shadows into a corner of the shadow maps no finer than it
//! needs (`RenderSettings::shadow_extent`), and looks as if the maps were that size: the
//! lookups' coordinates shrink with the corner. Checked on both rasterisers against a
//! renderer whose whole maps are the corner's size, and against the full maps, whose
//! sharper shadows differ more.

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

fn render(ctx: &GpuContext, sim: &FurSim, settings: RenderSettings, mode: DebugMode) -> Image {
    let creature = Creature::default();
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, false);
    let mut renderer =
        FurRenderer::new(&ctx.device, &ctx.queue, layout, &creature, settings).unwrap();
    renderer.set_strands_from_sim(sim).unwrap();
    let mut scene = Scene::new(
        Camera::preset(CameraPreset::Front),
        sim.pose_at(sim.time() as f32),
    );
    scene.mode = mode;
    scene.positions_index = sim.gpu().unwrap().current_index();
    renderer.render_image(&scene, SIZE.0, SIZE.1).unwrap()
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
fn shadows_in_a_corner_of_the_maps_look_like_maps_of_that_size() {
    let ctx = GpuContext::new().expect("a wgpu adapter (CI installs lavapipe)");
    let creature = Creature::default();
    let mut sim = FurSim::new_gpu(&FurConfig::new(STRANDS, 3), creature, &ctx).unwrap();
    sim.step(20).unwrap();
    for raster in [Raster::Hardware, Raster::Compute] {
        let corner = RenderSettings {
            raster,
            ..RenderSettings::default()
        };
        assert_eq!(corner.shadow_extent(SIZE), 256);
        let whole_small = RenderSettings {
            shadow_map_size: 256,
            shadow_follows_target: false,
            ..corner
        };
        let whole_large = RenderSettings {
            shadow_follows_target: false,
            ..corner
        };
        // The skin view shows the hair's shadow on the skin alone; the final view all of it.
        for mode in [DebugMode::Skin, DebugMode::Final] {
            let a = render(&ctx, &sim, corner, mode);
            let b = render(&ctx, &sim, whole_small, mode);
            let c = render(&ctx, &sim, whole_large, mode);
            let (same, same_most) = difference(&a, &b);
            let (finer, _) = difference(&a, &c);
            eprintln!(
                "{raster} {}: corner of 1024² against 256² maps {same:.4}/255 (largest {same_most}); against 1024² maps {finer:.4}/255",
                mode.name()
            );
            // Rounding in the lookups' scaled coordinates may move a comparison by a
            // hair; a misplaced corner moves every shadow.
            assert!(
                same < 0.01 && same_most <= 4,
                "{raster} {}: the corner's shadows differ from 256² maps by {same:.4}/255 (largest {same_most})",
                mode.name()
            );
            assert!(
                finer > 10.0 * same.max(0.001),
                "{raster} {}: the corner looks like the full maps ({finer:.4}/255) as much as like 256² ones ({same:.4}/255)",
                mode.name()
            );
        }
    }
}
