//! The light's level of detail on the native path (`RenderSettings::light_strands_per_texel`): a coat with
//! more strands than its disc in the key light's maps has texels is drawn into the maps as
//! a shorter, widened prefix of its strands, and the `final` picture keeps its shadows:
//! the same brightness on average and only the grain of the strand shadows moved.

mod render_common;

use pelt::creature::Creature;
use pelt::render::strand_lod::LIGHT_STRANDS_PER_TEXEL;
use pelt::render::{
    Camera, CameraPreset, FurRenderer, Image, OFFSCREEN_FORMAT, REAL_TIME_LIGHT_STRANDS_PER_TEXEL,
    Raster, RenderSettings, Scene, TargetLayout,
};
use pelt::sim::{FurConfig, FurSim};

/// More strands than the coat's disc holds texels in the maps of a 320×180 picture (512²
/// over 2.6 m: about 36,900), so the light draws about 56% of them.
const STRANDS: usize = 65_536;
const SIZE: (u32, u32) = (320, 180);

/// The native path's `final` picture of `sim` at `size`, its light maps drawing
/// `per_texel` strands a texel (`None`: every strand the camera draws), rounded down to the
/// power of two at or below the picture's larger side where `rounds_down` (the demo's).
fn picture(
    ctx: &pelt::gpu::GpuContext,
    sim: &FurSim,
    per_texel: Option<f32>,
    size: (u32, u32),
    rounds_down: bool,
) -> Image {
    let creature = Creature::default();
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, false);
    let settings = RenderSettings {
        raster: Raster::Native,
        light_strands_per_texel: per_texel,
        shadow_rounds_down: rounds_down,
        ..RenderSettings::default()
    };
    let mut renderer =
        FurRenderer::new(&ctx.device, &ctx.queue, layout, &creature, settings).unwrap();
    renderer.set_strands_from_sim(sim).unwrap();
    let scene = Scene::new(
        Camera::preset(CameraPreset::Front),
        sim.pose_at(sim.time() as f32),
    );
    let image = renderer.render_image(&scene, size.0, size.1).unwrap();
    assert_eq!(renderer.last_raster(), Raster::Native);
    image
}

/// Mean absolute and mean signed difference per channel of `b` from `a`, levels.
fn differences(a: &Image, b: &Image) -> (f64, f64) {
    let channels = (a.rgba.len() / 4 * 3) as f64;
    let (mut abs, mut signed) = (0u64, 0i64);
    for (p, q) in a.rgba.chunks(4).zip(b.rgba.chunks(4)) {
        for c in 0..3 {
            abs += u64::from(p[c].abs_diff(q[c]));
            signed += i64::from(q[c]) - i64::from(p[c]);
        }
    }
    (abs as f64 / channels, signed as f64 / channels)
}

#[test]
fn the_lights_shorter_prefix_keeps_the_pictures_shadows() {
    let ctx = render_common::gpu();
    let mut sim = FurSim::new_cpu(&FurConfig::new(STRANDS, 3), Creature::default()).unwrap();
    sim.step(10).unwrap();
    let every = picture(&ctx, &sim, None, SIZE, false);
    let fewer = picture(&ctx, &sim, Some(LIGHT_STRANDS_PER_TEXEL), SIZE, false);
    let (mae, bias) = differences(&every, &fewer);
    eprintln!("light LOD against every strand: mean abs {mae:.3}/255, mean {bias:+.3}/255");
    // The setting reaches the light's maps: the pictures differ.
    assert!(mae > 0.01, "the light drew every strand either way ({mae})");
    // Only the grain moved: small on average, and no brighter or darker overall.
    assert!(mae < 1.0, "mean abs difference {mae:.3}/255");
    assert!(bias.abs() < 0.25, "mean difference {bias:+.3}/255");
}

/// The demo's case: 16,384 strands at half of 1280×720 (its maps rounded down to 512²,
/// 36,900 texels of coat) at the real-time level (an eighth of a strand a texel: the light
/// draws about 4,600).
#[test]
fn the_demos_light_level_keeps_the_shadows_too() {
    let ctx = render_common::gpu();
    let mut sim = FurSim::new_cpu(&FurConfig::new(16_384, 3), Creature::default()).unwrap();
    sim.step(10).unwrap();
    let size = (640, 360);
    let every = picture(&ctx, &sim, None, size, true);
    let fewer = picture(
        &ctx,
        &sim,
        Some(REAL_TIME_LIGHT_STRANDS_PER_TEXEL),
        size,
        true,
    );
    let (mae, bias) = differences(&every, &fewer);
    eprintln!(
        "{REAL_TIME_LIGHT_STRANDS_PER_TEXEL} strand a texel: mean abs {mae:.3}/255, mean {bias:+.3}/255"
    );
    assert!(mae > 0.01, "the light drew every strand either way ({mae})");
    assert!(mae < 1.0, "mean abs difference {mae:.3}/255");
    assert!(bias.abs() < 0.25, "mean difference {bias:+.3}/255");
}
