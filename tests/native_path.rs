//! The native hair path (the strand rasteriser on the CPU's cores, `render/hair/native.rs`)
//! against the hardware ribbons, its reference, at the README's front camera on lavapipe
//! at a reduced tier: the `final` pictures agree (hair coverage IoU and mean absolute
//! error per channel); the shadows its light maps cast darken the same skin as the
//! ribbons'; `auto` picks it on a CPU adapter; `--raster` names every path.

mod render_common;

use pelt::creature::Creature;
use pelt::render::{
    Camera, CameraPreset, DebugMode, FurRenderer, Image, OFFSCREEN_FORMAT, Raster, RenderSettings,
    Scene, TargetLayout, ids,
};
use pelt::sim::{FurConfig, FurSim};

const STRANDS: usize = 4096;
const SIZE: (u32, u32) = (320, 180);

/// A coat of the test tier, settled, and a renderer with an ID target drawing by `raster`.
fn setup(ctx: &pelt::gpu::GpuContext, raster: Raster) -> (FurSim, FurRenderer) {
    let creature = Creature::default();
    let mut sim = FurSim::new_gpu(&FurConfig::new(STRANDS, 3), creature.clone(), ctx).unwrap();
    sim.step(30).unwrap();
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, true);
    let settings = RenderSettings {
        raster,
        ..RenderSettings::default()
    };
    let mut renderer =
        FurRenderer::new(&ctx.device, &ctx.queue, layout, &creature, settings).unwrap();
    renderer.set_strands_from_sim(&sim).unwrap();
    (sim, renderer)
}

fn scene<'a>(sim: &FurSim, mode: DebugMode) -> Scene<'a> {
    render_common::preset_scene(sim, CameraPreset::Front, mode)
}

/// Draws `scene` by `raster` and checks that path drew it.
fn draw(renderer: &mut FurRenderer, scene: &Scene, raster: Raster) -> Image {
    render_common::draw_by(renderer, scene, raster, SIZE)
}

/// Intersection over union of two masks.
fn iou(a: &[bool], b: &[bool]) -> f64 {
    let both = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
    both as f64 / either.max(1) as f64
}

/// Mean absolute error per channel, in levels, of each of R, G and B.
fn channel_errors(a: &Image, b: &Image) -> [f64; 3] {
    let mut sum = [0u64; 3];
    for (p, q) in a.rgba.chunks(4).zip(b.rgba.chunks(4)) {
        for c in 0..3 {
            sum[c] += u64::from(p[c].abs_diff(q[c]));
        }
    }
    let n = (a.rgba.len() / 4) as f64;
    sum.map(|s| s as f64 / n)
}

fn luminance(p: &[u8]) -> f64 {
    0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2])
}

/// The hair's coverage by blocks of `BLOCK`×`BLOCK` pixels: a block is hair where its
/// pixels lie on average more than 8 levels (in their most different channel) from `bare`
/// (the picture without hair). By blocks, since the two paths spread a thin strand's
/// coverage differently between the pixels it crosses (the ribbons by 4 samples, the
/// native path by its analytic footprint, one pixel wider and fainter), while a block holds
/// the same total.
fn hair_blocks(image: &Image, bare: &Image) -> Vec<bool> {
    let (w, h) = (image.width as usize, image.height as usize);
    let mut out = Vec::new();
    for by in 0..h / BLOCK {
        for bx in 0..w / BLOCK {
            let mut sum = 0.0;
            for y in by * BLOCK..(by + 1) * BLOCK {
                for x in bx * BLOCK..(bx + 1) * BLOCK {
                    let at = (y * w + x) * 4;
                    let (p, q) = (&image.rgba[at..at + 3], &bare.rgba[at..at + 3]);
                    sum += (0..3).map(|c| p[c].abs_diff(q[c])).max().unwrap_or(0) as f64;
                }
            }
            out.push(sum / (BLOCK * BLOCK) as f64 > 8.0);
        }
    }
    out
}

/// Pixels a side of the blocks [`hair_blocks`] measures coverage by.
const BLOCK: usize = 4;

#[test]
fn the_native_picture_matches_the_ribbons_at_the_front_camera() {
    let ctx = render_common::gpu();
    let (sim, mut renderer) = setup(&ctx, Raster::Hardware);
    // `final`: the picture as shown.
    let s = scene(&sim, DebugMode::Final);
    let ribbons = draw(&mut renderer, &s, Raster::Hardware);
    let native = draw(&mut renderer, &s, Raster::Native);
    let errors = channel_errors(&ribbons, &native);
    // The hair's coverage where it is unambiguous: the `strands` view, over the background
    // alone (in `final` the coat's colour is close to the skin's under it).
    let st = scene(&sim, DebugMode::Strands);
    let strands_r = draw(&mut renderer, &st, Raster::Hardware);
    let strands_n = draw(&mut renderer, &st, Raster::Native);
    let background = {
        let mut bg = strands_r.clone();
        let corner = strands_r.rgba[..4].to_vec();
        for px in bg.rgba.chunks_mut(4) {
            px.copy_from_slice(&corner);
        }
        bg
    };
    let (blocks_r, blocks_n) = (
        hair_blocks(&strands_r, &background),
        hair_blocks(&strands_n, &background),
    );
    let coverage = iou(&blocks_r, &blocks_n);
    let hair_blocks_r = blocks_r.iter().filter(|&&h| h).count();
    // Per pixel (more than 8 levels from the background), for the record.
    let mask = |i: &Image| -> Vec<bool> {
        i.rgba
            .chunks(4)
            .map(|p| (0..3).any(|c| p[c].abs_diff(background.rgba[c]) > 8))
            .collect()
    };
    let per_pixel = iou(&mask(&strands_r), &mask(&strands_n));
    // The hair IDs: the ribbons' at sample 0, the native path's where it covers half.
    let id_mask = |i: &Image| -> Vec<bool> {
        let ids = i.ids.as_ref().unwrap();
        ids.iter().map(|&id| id == ids::HAIR).collect()
    };
    let id_iou = iou(&id_mask(&ribbons), &id_mask(&native));
    eprintln!(
        "{} {}×{}, {STRANDS} strands, final: MAE per channel {:.3} {:.3} {:.3} levels; \
         strands view: hair coverage IoU {coverage:.4} by {BLOCK}×{BLOCK} blocks \
         ({hair_blocks_r} hair blocks), {per_pixel:.4} per pixel; hair ID IoU {id_iou:.4}",
        ctx.info().name,
        SIZE.0,
        SIZE.1,
        errors[0],
        errors[1],
        errors[2]
    );
    assert!(
        hair_blocks_r > 300,
        "only {hair_blocks_r} hair blocks: nothing much to compare"
    );
    assert!(coverage >= 0.95, "hair coverage IoU {coverage:.4} < 0.95");
    // Per pixel the analytic footprint is a pixel wider than the ribbons' samples (see
    // `hair_blocks`): a bound near what it reaches, so a shifted or lost strand shows.
    assert!(
        per_pixel >= 0.72,
        "per-pixel hair IoU {per_pixel:.4} < 0.72"
    );
    assert!(id_iou >= 0.25, "hair ID IoU {id_iou:.4} < 0.25");
    // The bound is 3 levels; the paths agree closer, and a change that moves the
    // native path's shading or coverage by a level must not hide under it.
    for (c, e) in errors.iter().enumerate() {
        assert!(*e <= 2.0, "channel {c}: mean abs error {e:.3} > 2 levels");
    }
}

#[test]
fn the_native_light_maps_shadow_the_same_skin_as_the_ribbons() {
    let ctx = render_common::gpu();
    let (sim, mut renderer) = setup(&ctx, Raster::Hardware);
    let s = scene(&sim, DebugMode::Skin);
    renderer.set_hair_casts_shadows(false);
    let unshadowed = draw(&mut renderer, &s, Raster::Hardware);
    renderer.set_hair_casts_shadows(true);
    let ribbons = draw(&mut renderer, &s, Raster::Hardware);
    let native = draw(&mut renderer, &s, Raster::Native);
    // Per skin pixel, how much the hair's shadow darkens it.
    let skin: Vec<bool> = unshadowed
        .ids
        .as_ref()
        .unwrap()
        .iter()
        .map(|&id| id == ids::SKIN)
        .collect();
    let darkening = |image: &Image| -> Vec<f64> {
        unshadowed
            .rgba
            .chunks(4)
            .zip(image.rgba.chunks(4))
            .map(|(u, p)| luminance(u) - luminance(p))
            .collect()
    };
    let (dr, dn) = (darkening(&ribbons), darkening(&native));
    let on_skin = |d: &[f64]| -> f64 {
        let (sum, n) = d
            .iter()
            .zip(&skin)
            .filter(|(_, s)| **s)
            .fold((0.0, 0), |(sum, n), (v, _)| (sum + v, n + 1));
        sum / f64::from(n.max(1))
    };
    let (mean_r, mean_n) = (on_skin(&dr), on_skin(&dn));
    // Where each path's shadow falls: skin darkened by more than 3 levels.
    let shadowed =
        |d: &[f64]| -> Vec<bool> { d.iter().zip(&skin).map(|(v, s)| *s && *v > 3.0).collect() };
    let (sr, sn) = (shadowed(&dr), shadowed(&dn));
    let overlap = iou(&sr, &sn);
    let shadowed_pixels = sr.iter().filter(|&&s| s).count();
    eprintln!(
        "the hair's shadow darkens the skin by {mean_r:.2} levels (ribbons), {mean_n:.2} \
         (native); shadowed skin IoU {overlap:.4} ({shadowed_pixels} pixels by the ribbons)"
    );
    assert!(
        mean_r > 1.0,
        "no hair shadow to compare ({mean_r:.2} levels)"
    );
    // Both draw the maps with one sample a texel and the same dither, so the shadows
    // agree closely: a fifth of the old 40% (the box overlap of the camera's coverage
    // made the native shadow about 30% lighter) and the same darkened skin.
    assert!(
        (mean_n - mean_r).abs() <= 0.08 * mean_r,
        "hair shadow by native {mean_n:.2} levels, by the ribbons {mean_r:.2}"
    );
    assert!(
        overlap >= 0.95,
        "the shadowed skin overlaps by {overlap:.4}"
    );
}

#[test]
fn auto_draws_by_the_native_path_on_a_cpu_adapter() {
    let ctx = render_common::gpu();
    let (sim, mut renderer) = setup(&ctx, Raster::Auto);
    let expected = if ctx.info().device_type == wgpu::DeviceType::Cpu {
        Raster::Native
    } else {
        Raster::Hardware
    };
    eprintln!("{} ({:?})", ctx.info().name, ctx.info().device_type);
    assert_eq!(renderer.raster(), expected);
    renderer
        .render_image(&scene(&sim, DebugMode::Final), 64, 36)
        .unwrap();
    assert_eq!(renderer.last_raster(), expected);
}

#[test]
fn raster_names_every_path() {
    for (name, raster) in [
        ("ribbons", Raster::Hardware),
        ("native", Raster::Native),
        ("strands", Raster::Strands),
        ("auto", Raster::Auto),
        // The ribbons' earlier name.
        ("hardware", Raster::Hardware),
    ] {
        assert_eq!(name.parse::<Raster>(), Ok(raster), "{name}");
    }
    assert_eq!(Raster::Hardware.name(), "ribbons");
    // What the demo's panel lists is every path `--raster` accepts: each parses back to
    // itself, and none is missing.
    let listed: Vec<&str> = Raster::CHOICES.iter().map(|r| r.name()).collect();
    assert_eq!(listed, ["ribbons", "native", "strands", "auto"]);
    for r in Raster::CHOICES {
        assert_eq!(r.name().parse::<Raster>(), Ok(r));
    }
    let e = "fast".parse::<Raster>().unwrap_err();
    for name in &listed {
        assert!(e.contains(name), "{e}");
    }
    // The retired compute rasteriser is no silent alias: its own error, naming the paths.
    let e = "compute".parse::<Raster>().unwrap_err();
    assert!(e.contains("retired"), "{e}");
    for name in &listed {
        assert!(e.contains(name), "{e}");
    }
}

/// A CPU-stepped coat's native frames draw from the positions the renderer keeps on the
/// host: the same pictures, bit for bit, as a renderer that reads the position buffer back,
/// frame after frame as the coat moves, and one wait for the GPU a frame instead of two.
#[test]
fn a_cpu_stepped_coat_is_drawn_from_the_host_without_reading_its_positions_back() {
    let ctx = render_common::gpu();
    let creature = Creature::default();
    let mut sim = FurSim::new_cpu(&FurConfig::new(1024, 5), creature.clone()).unwrap();
    sim.step(20).unwrap();
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, false);
    let renderer = |raster| {
        let settings = RenderSettings {
            raster,
            ..RenderSettings::default()
        };
        let mut r = FurRenderer::new(&ctx.device, &ctx.queue, layout, &creature, settings).unwrap();
        r.set_strands_from_sim(&sim).unwrap();
        r
    };
    // Bound while the native path is chosen: the renderer keeps the positions it uploads.
    let mut host = renderer(Raster::Native);
    // Bound while the ribbons are chosen, then switched: nothing kept, so read back.
    let mut read = renderer(Raster::Hardware);
    read.set_raster(Raster::Native);
    let mut previous: Option<Image> = None;
    for frame in 0..3 {
        if frame > 0 {
            // The coat moves between frames; both renderers get its new positions.
            sim.step(5).unwrap();
            host.upload_strands_from_sim(&sim).unwrap();
            // Uploaded while the ribbons are chosen: again nothing kept.
            read.set_raster(Raster::Hardware);
            read.upload_strands_from_sim(&sim).unwrap();
            read.set_raster(Raster::Native);
        }
        let mut s = Scene::new(
            Camera::preset(CameraPreset::Front),
            sim.pose_at(sim.time() as f32),
        );
        s.mode = DebugMode::Final;
        let a = host.render_image(&s, SIZE.0, SIZE.1).unwrap();
        let b = read.render_image(&s, SIZE.0, SIZE.1).unwrap();
        assert_eq!(host.last_raster(), Raster::Native);
        assert_eq!(read.last_raster(), Raster::Native);
        let differ = a.rgba.iter().zip(&b.rgba).filter(|(x, y)| x != y).count();
        assert_eq!(differ, 0, "frame {frame}: {differ} bytes differ");
        assert_eq!(host.native_waits(), 1, "frame {frame}: waits from the host");
        assert_eq!(read.native_waits(), 2, "frame {frame}: waits reading back");
        if let Some(p) = &previous {
            let moved = p.rgba.iter().zip(&b.rgba).filter(|(x, y)| x != y).count();
            assert!(moved > 100, "frame {frame}: only {moved} bytes moved");
        }
        previous = Some(b);
    }
}

/// With one sample a pixel (OpenGL's frames, or a layout made so) the native path reads
/// the surfaces' depth by the same shader path and draws the picture it draws over a 4×
/// MSAA frame: the hair hidden behind the skin stays hidden.
#[test]
fn one_sample_frames_hide_the_same_hair_as_multisampled_ones() {
    let ctx = render_common::gpu();
    let (sim, mut four) = setup(&ctx, Raster::Native);
    assert_eq!(four.layout().samples, 4, "lavapipe's layout is 4× MSAA");
    let one_layout = TargetLayout {
        samples: 1,
        ..four.layout()
    };
    let settings = RenderSettings {
        raster: Raster::Native,
        ..RenderSettings::default()
    };
    let mut one = FurRenderer::new(
        &ctx.device,
        &ctx.queue,
        one_layout,
        &Creature::default(),
        settings,
    )
    .unwrap();
    one.set_strands_from_sim(&sim).unwrap();
    let s = scene(&sim, DebugMode::Final);
    let a = draw(&mut four, &s, Raster::Native);
    let b = draw(&mut one, &s, Raster::Native);
    let errors = channel_errors(&a, &b);
    eprintln!("one sample against four: {errors:.2?} levels");
    // The surfaces' edges differ (one sample against four), a tenth of a level or so; hair
    // drawn over the skin that should hide it would add about a level.
    assert!(errors.iter().all(|&e| e < 0.5), "{errors:?}");
}

/// The strands the camera's cull pass hides (wholly behind the creature's shrunk body or
/// head) are left out of the native picture before they are projected, and that changes no
/// pixel: the picture is the one drawn with the cull off, bit for bit.
#[test]
fn the_strands_the_cull_hides_are_left_out_of_the_native_picture_and_change_no_pixel() {
    let ctx = render_common::gpu();
    let (sim, mut renderer) = setup(&ctx, Raster::Native);
    for preset in [CameraPreset::Front, CameraPreset::Side] {
        let s = render_common::preset_scene(&sim, preset, DebugMode::Final);
        renderer.set_hair_culling(true);
        let culled = draw(&mut renderer, &s, Raster::Native);
        let hidden = renderer.culled_strands().unwrap().expect("the cull ran") as usize;
        let drawn = renderer.native_picture_stats().unwrap().segments;
        renderer.set_hair_culling(false);
        let all = draw(&mut renderer, &s, Raster::Native);
        let every = renderer.native_picture_stats().unwrap().segments;
        assert!(
            hidden > STRANDS / 5,
            "{preset:?}: only {hidden} of {STRANDS} strands hidden"
        );
        assert_eq!(
            drawn + hidden as u64 * 5,
            every,
            "{preset:?}: segments drawn"
        );
        let differ = culled
            .rgba
            .iter()
            .zip(&all.rgba)
            .filter(|(x, y)| x != y)
            .count();
        assert_eq!(differ, 0, "{preset:?}: {differ} bytes differ");
    }
}
