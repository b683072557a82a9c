//! The strand rasteriser's two twins against the ribbons (their reference) as `pelt render`
//! draws them: one coat grown and settled as `pelt render` settles it (90 steps, seed 1),
//! then every camera preset drawn in `final` and `strands` by the ribbons
//! (`--raster ribbons`), the native twin (`native`) and the WGSL twin (`strands`). Prints,
//! per camera and path, the mean absolute error per channel of the `final` pictures (levels
//! of 255, over the whole picture) and the hair's coverage IoU (a pixel is hair in the
//! `strands` view where a channel lies more than 8 levels off the background), and writes
//! every picture and `|path − ribbons| × 4` of the `final` ones into the output folder.
//!
//! The ribbons' pictures carry the noise of their four dithered samples a pixel, which
//! at the close-up lies several levels from their expected picture by itself. So the
//! ribbons' `final` is drawn again with `DITHERS` other dithers (default 4; 0 skips them,
//! `RenderSettings::ribbon_dither`), and each path is compared with their mean too, as
//! are the default dither's ribbons (their own noise against the mean).
//!
//! `cargo run --example ribbons_match -- [STRANDS] [WIDTH] [HEIGHT] [OUT_DIR]`
//! (defaults: 420032, 640, 360, `ribbons_match`).

use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::render::{
    Camera, CameraPreset, DebugMode, FurRenderer, Image, OFFSCREEN_FORMAT, Raster, RenderSettings,
    Scene, TargetLayout,
};
use pelt::sim::{FurConfig, FurSim};
use std::error::Error;
use std::path::PathBuf;

/// Levels off the background a channel must lie for the pixel to count as hair.
const THRESHOLD: u8 = 8;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: u32| -> Result<u32, Box<dyn Error>> {
        Ok(args
            .get(i)
            .map(|s| s.parse())
            .transpose()?
            .unwrap_or(default))
    };
    let strands = number(0, 420_032)? as usize;
    let (width, height) = (number(1, 640)?, number(2, 360)?);
    let out = PathBuf::from(args.get(3).map_or("ribbons_match", String::as_str));
    std::fs::create_dir_all(&out)?;

    let ctx = GpuContext::new()?;
    let creature = Creature::default();
    let mut sim = FurSim::new_gpu(&FurConfig::new(strands, 1), creature.clone(), &ctx)?;
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, false);
    let mut renderer = FurRenderer::new(
        &ctx.device,
        &ctx.queue,
        layout,
        &creature,
        RenderSettings {
            raster: Raster::Hardware,
            floor: sim.params().floor,
            ..RenderSettings::default()
        },
    )?;
    renderer.set_strands_from_sim(&sim)?;
    if std::env::var_os("NO_CULL").is_some() {
        renderer.set_hair_culling(false);
    }
    if std::env::var_os("NO_HAIR_SHADOW").is_some() {
        renderer.set_hair_casts_shadows(false);
    }
    let started = std::time::Instant::now();
    sim.step(90)?;
    let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    eprintln!(
        "{strands} strands settled in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let presets = [
        ("front", CameraPreset::Front),
        ("side", CameraPreset::Side),
        ("back", CameraPreset::Back),
        ("top", CameraPreset::Top),
        ("closeup", CameraPreset::Closeup),
    ];
    let paths = [
        ("ribbons", Raster::Hardware),
        ("native", Raster::Native),
        ("strands", Raster::Strands),
    ];
    // `CAMERAS=front,closeup` and `PATHS=native` pick some (the ribbons are always drawn).
    let pick = |var: &str| -> Option<Vec<String>> {
        std::env::var(var)
            .ok()
            .map(|s| s.split(',').map(String::from).collect())
    };
    let (only, only_paths) = (pick("CAMERAS"), pick("PATHS"));
    let dithers: u32 = std::env::var("DITHERS").map_or(Ok(4), |s| s.parse())?;
    for (name, preset) in presets {
        if only.as_ref().is_some_and(|o| !o.iter().any(|c| c == name)) {
            continue;
        }
        let mut reference: Option<(Image, Image)> = None;
        let mut mean: Option<Vec<f64>> = None;
        for (path, raster) in paths {
            if raster != Raster::Hardware
                && only_paths
                    .as_ref()
                    .is_some_and(|o| !o.iter().any(|p| p == path))
            {
                continue;
            }
            renderer.set_raster(raster);
            let draw = |renderer: &mut FurRenderer,
                        mode: DebugMode,
                        label: &str|
             -> Result<Image, Box<dyn Error>> {
                let mut scene = Scene::new(Camera::preset(preset), sim.pose_at(sim.time() as f32));
                scene.mode = mode;
                scene.positions_index = sim.gpu().ok_or("a GPU coat")?.current_index();
                let t = std::time::Instant::now();
                let image = renderer.render_image(&scene, width, height)?;
                eprintln!("{name} {path} {label}: {:.2} s", t.elapsed().as_secs_f64());
                std::fs::write(
                    out.join(format!("{name}_{path}_{label}.png")),
                    image.to_png()?,
                )?;
                Ok(image)
            };
            let final_ = draw(&mut renderer, DebugMode::Final, "final")?;
            let strands_view = draw(&mut renderer, DebugMode::Strands, "strands")?;
            match &reference {
                None => {
                    if dithers > 0 {
                        let mut sum = vec![0.0; final_.rgba.len()];
                        for d in 1..=dithers {
                            renderer.set_ribbon_dither(d);
                            let other =
                                draw(&mut renderer, DebugMode::Final, &format!("final_dither{d}"))?;
                            for (s, v) in sum.iter_mut().zip(&other.rgba) {
                                *s += f64::from(*v) / f64::from(dithers);
                            }
                        }
                        renderer.set_ribbon_dither(0);
                        print_against_mean(name, "ribbons", &final_, &sum, dithers);
                        mean = Some(sum);
                    }
                    reference = Some((final_, strands_view));
                }
                Some((ref_final, ref_strands)) => {
                    compare(
                        &out,
                        name,
                        path,
                        [ref_final, ref_strands],
                        [&final_, &strands_view],
                    )?;
                    if let Some(m) = &mean {
                        print_against_mean(name, path, &final_, m, dithers);
                    }
                }
            }
        }
    }
    Ok(())
}

/// Prints how `image` differs from `mean`, the ribbons' `final` averaged over `dithers`
/// dithers: mean absolute and signed error per channel, levels.
fn print_against_mean(name: &str, path: &str, image: &Image, mean: &[f64], dithers: u32) {
    let n = (image.rgba.len() / 4) as f64;
    let (mut abs, mut signed) = ([0.0; 3], [0.0; 3]);
    for (p, q) in image.rgba.chunks(4).zip(mean.chunks(4)) {
        for c in 0..3 {
            let d = f64::from(p[c]) - q[c];
            abs[c] += d.abs() / n;
            signed[c] += d / n;
        }
    }
    println!(
        "{name:8} {path:8} against the ribbons' mean of {dithers} dithers: MAE R {:.2} G {:.2} B {:.2} (signed {:+.2} {:+.2} {:+.2})",
        abs[0], abs[1], abs[2], signed[0], signed[1], signed[2],
    );
}

/// Prints how `path`'s `final` and `strands` pictures (`ours`) differ from the ribbons'
/// (`theirs`) at camera `name`, and writes the difference of the `final` ones.
fn compare(
    out: &std::path::Path,
    name: &str,
    path: &str,
    theirs: [&Image; 2],
    ours: [&Image; 2],
) -> Result<(), Box<dyn Error>> {
    let [ref_final, ref_strands] = theirs;
    let [final_, strands_view] = ours;
    let ref_hair = hair(ref_strands);
    let mae = channel_errors(ref_final, final_);
    let our_hair = hair(strands_view);
    let both = our_hair
        .iter()
        .zip(&ref_hair)
        .filter(|(a, b)| **a && **b)
        .count();
    let either = our_hair
        .iter()
        .zip(&ref_hair)
        .filter(|(a, b)| **a || **b)
        .count();
    // The final pictures' error split by where the ribbons' hair lies.
    let (mut on, mut off, mut n_on) = (0u64, 0u64, 0u64);
    for ((p, q), h) in final_
        .rgba
        .chunks(4)
        .zip(ref_final.rgba.chunks(4))
        .zip(&ref_hair)
    {
        let e: u64 = (0..3).map(|c| u64::from(p[c].abs_diff(q[c]))).sum();
        if *h {
            on += e;
            n_on += 1;
        } else {
            off += e;
        }
    }
    let n = (final_.rgba.len() / 4) as u64;
    let signed: Vec<f64> = (0..3)
        .map(|c| {
            final_
                .rgba
                .chunks(4)
                .zip(ref_final.rgba.chunks(4))
                .map(|(p, q)| f64::from(p[c]) - f64::from(q[c]))
                .sum::<f64>()
                / n as f64
        })
        .collect();
    println!(
        "{name:8} {path:8} MAE R {:.2} G {:.2} B {:.2} (signed {:+.2} {:+.2} {:+.2}; on hair {:.2}, off {:.2}) IoU {:.4} (hair {} ribbons, {} {path})",
        mae[0],
        mae[1],
        mae[2],
        signed[0],
        signed[1],
        signed[2],
        on as f64 / (3 * n_on.max(1)) as f64,
        off as f64 / (3 * (n - n_on).max(1)) as f64,
        both as f64 / either.max(1) as f64,
        ref_hair.iter().filter(|&&h| h).count(),
        our_hair.iter().filter(|&&h| h).count(),
    );
    let diff: Vec<u8> = final_
        .rgba
        .iter()
        .zip(&ref_final.rgba)
        .enumerate()
        .map(|(i, (a, b))| {
            if i % 4 == 3 {
                255
            } else {
                a.abs_diff(*b).saturating_mul(4)
            }
        })
        .collect();
    let d = Image {
        width: final_.width,
        height: final_.height,
        rgba: diff,
        ids: None,
    };
    std::fs::write(out.join(format!("{name}_{path}_diff.png")), d.to_png()?)?;
    Ok(())
}

/// Pixels more than [`THRESHOLD`] levels off the background (the top-left pixel) in a
/// channel.
fn hair(image: &Image) -> Vec<bool> {
    let bg = &image.rgba[..3];
    image
        .rgba
        .chunks(4)
        .map(|p| (0..3).any(|c| p[c].abs_diff(bg[c]) > THRESHOLD))
        .collect()
}

/// Mean absolute error per channel (R, G, B), levels.
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
