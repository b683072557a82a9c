//! The strand rasteriser's paths against the ribbons (their reference) as the renderer
//! draws the picture everyone sees, `final` (full shading, the hair's shadows from the
//! light's maps, the surfaces), at two of the README's cameras on lavapipe: a denser coat
//! than `tests/native_path.rs` draws, so the pixels hold many strands behind each other.
//! Per camera and path: the mean absolute error per channel of the `final` pictures over
//! the whole picture, its signed mean (a path that draws the coat lighter or darker shows
//! there even where the noise of the ribbons' four samples hides it in the absolute
//! error), and the hair's coverage IoU in the `strands` view (a pixel is hair where a
//! channel lies more than 8 levels off the background). `examples/ribbons_match.rs`
//! measures the same at the README's sizes and strand counts.
//!
//! The colour is compared with the ribbons' expected picture: the mean of their `final`
//! over [`DITHERS`] dithers (`RenderSettings::ribbon_dither`). One draw of the ribbons
//! holds the noise of its four dithered samples a pixel, which at the close-up lies about
//! as far from that mean by itself as the bound allows; against the mean, what is left is
//! the path's own difference.

mod render_common;
use render_common::preset_scene as scene;

use pelt::render::{CameraPreset, DebugMode, FurRenderer, Image, Raster, Scene};

const STRANDS: usize = 32_768;
const SIZE: (u32, u32) = (320, 180);

/// Dithers of the ribbons (the default's among them) whose mean the paths are held to.
const DITHERS: u32 = 4;

/// Levels off the background a channel must lie for its pixel to count as hair.
const HAIR_LEVELS: u8 = 8;

/// Draws `scene` by `raster` and checks that path drew it.
fn draw(renderer: &mut FurRenderer, scene: &Scene, raster: Raster) -> Image {
    render_common::draw_by(renderer, scene, raster, SIZE)
}

/// How one path's pictures differ from the ribbons'.
#[derive(Debug)]
struct Agreement {
    /// Mean absolute error per channel of the `final` picture against the ribbons' mean
    /// over their dithers, levels.
    error: [f64; 3],
    /// Mean signed error per channel (the path less the ribbons' mean), levels.
    bias: [f64; 3],
    /// Hair coverage IoU in the `strands` view.
    iou: f64,
    /// Hair pixels of the ribbons' `strands` view.
    hair: usize,
}

/// Pixels more than [`HAIR_LEVELS`] off the background (the top-left pixel, no hair).
fn hair(image: &Image) -> Vec<bool> {
    let bg = &image.rgba[..3];
    image
        .rgba
        .chunks(4)
        .map(|p| (0..3).any(|c| p[c].abs_diff(bg[c]) > HAIR_LEVELS))
        .collect()
}

/// The mean of `pictures`, per pixel and channel (RGBA, levels).
fn mean(pictures: &[Image]) -> Vec<f64> {
    let mut sum = vec![0.0; pictures[0].rgba.len()];
    for p in pictures {
        for (s, v) in sum.iter_mut().zip(&p.rgba) {
            *s += f64::from(*v) / pictures.len() as f64;
        }
    }
    sum
}

/// Mean absolute and mean signed error per channel of `ours` against `theirs` (RGBA,
/// levels).
fn errors(ours: &Image, theirs: &[f64]) -> ([f64; 3], [f64; 3]) {
    let n = (ours.rgba.len() / 4) as f64;
    let (mut error, mut bias) = ([0.0; 3], [0.0; 3]);
    for (p, q) in ours.rgba.chunks(4).zip(theirs.chunks(4)) {
        for c in 0..3 {
            let d = f64::from(p[c]) - q[c];
            error[c] += d.abs() / n;
            bias[c] += d / n;
        }
    }
    (error, bias)
}

/// `ours` (a `final` and a `strands` picture) against the ribbons': the mean of their
/// `final` over the dithers, and their `strands` view.
fn agreement(theirs: (&[f64], &Image), ours: [&Image; 2]) -> Agreement {
    let (error, bias) = errors(ours[0], theirs.0);
    let (a, b) = (hair(theirs.1), hair(ours[1]));
    let both = a.iter().zip(&b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(&b).filter(|(x, y)| **x || **y).count();
    Agreement {
        error,
        bias,
        iou: both as f64 / either.max(1) as f64,
        hair: a.iter().filter(|&&h| h).count(),
    }
}

/// The bounds a path holds at one camera: the largest mean absolute error and the largest
/// size of the signed mean in any channel, and the least coverage IoU.
struct Bounds {
    error: f64,
    bias: f64,
    iou: f64,
}

fn check(path: Raster, bounds: &[(CameraPreset, Bounds)]) {
    let ctx = render_common::gpu();
    let (sim, mut renderer) = render_common::coat_and_renderer(&ctx, STRANDS, 30, false);
    for (preset, b) in bounds {
        let pictures = |renderer: &mut FurRenderer, raster| {
            [DebugMode::Final, DebugMode::Strands]
                .map(|mode| draw(renderer, &scene(&sim, *preset, mode), raster))
        };
        let theirs = pictures(&mut renderer, Raster::Hardware);
        let mut dithered = vec![theirs[0].clone()];
        for d in 1..DITHERS {
            renderer.set_ribbon_dither(d);
            let s = scene(&sim, *preset, DebugMode::Final);
            dithered.push(draw(&mut renderer, &s, Raster::Hardware));
        }
        renderer.set_ribbon_dither(0);
        // The dithers are the same coat with other noise: they differ pixel by pixel and
        // not on average (else the mean would not be the ribbons' expected picture).
        let (spread, shift) = errors(&dithered[1], &mean(&dithered[..1]));
        eprintln!("ribbons {preset:?}: dither 1 against dither 0 {spread:.3?}, signed {shift:.3?}");
        for c in 0..3 {
            assert!(
                spread[c] > 0.5 && shift[c].abs() < 0.25,
                "{preset:?}: the ribbons' dithers differ by {spread:?} levels, on average {shift:?}"
            );
        }
        let expected = mean(&dithered);
        let ours = pictures(&mut renderer, path);
        let a = agreement((&expected, &theirs[1]), [&ours[0], &ours[1]]);
        // One draw of the ribbons against the mean of them all, for scale.
        let (noise, _) = errors(&theirs[0], &expected);
        eprintln!(
            "{} {preset:?} {}×{}, {STRANDS} strands: {a:?}; the ribbons' dither 0 against the mean {noise:.3?}",
            path.name(),
            SIZE.0,
            SIZE.1
        );
        assert!(a.hair > 5_000, "only {} hair pixels to compare", a.hair);
        assert!(a.iou >= b.iou, "{preset:?}: hair coverage IoU {:.4}", a.iou);
        for c in 0..3 {
            assert!(
                a.error[c] <= b.error,
                "{preset:?}: channel {c} mean abs error {:.3} levels",
                a.error[c]
            );
            assert!(
                a.bias[c].abs() <= b.bias,
                "{preset:?}: channel {c} drawn {:+.3} levels off the ribbons on average",
                a.bias[c]
            );
        }
    }
}

#[test]
fn the_native_path_draws_the_ribbons_final_picture_at_the_readme_cameras() {
    // Bounds just past what the path reaches (docs/architecture.md, "Against the ribbons'
    // expected picture"): a shift in coverage, width, fade, shading or blending of a level
    // shows. Against the mean of the ribbons' dithers the absolute error is the path's
    // own: larger at the close-up, where strands are a few pixels wide; the signed mean is
    // what a path that draws the coat lighter or darker moves.
    check(
        Raster::Native,
        &[
            (
                CameraPreset::Front,
                Bounds {
                    error: 1.5,
                    bias: 0.5,
                    iou: 0.95,
                },
            ),
            (
                CameraPreset::Closeup,
                Bounds {
                    error: 3.0,
                    bias: 0.75,
                    iou: 0.96,
                },
            ),
        ],
    );
}
