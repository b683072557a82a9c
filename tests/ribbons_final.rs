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

mod render_common;

use pelt::render::{Camera, CameraPreset, DebugMode, FurRenderer, Image, Raster, Scene};
use pelt::sim::FurSim;

const STRANDS: usize = 32_768;
const SIZE: (u32, u32) = (320, 180);

/// Levels off the background a channel must lie for its pixel to count as hair.
const HAIR_LEVELS: u8 = 8;

fn scene<'a>(sim: &FurSim, preset: CameraPreset, mode: DebugMode) -> Scene<'a> {
    let mut s = Scene::new(Camera::preset(preset), sim.pose_at(sim.time() as f32));
    s.mode = mode;
    s.positions_index = sim.gpu().unwrap().current_index();
    s
}

/// Draws `scene` by `raster` and checks that path drew it.
fn draw(renderer: &mut FurRenderer, scene: &Scene, raster: Raster) -> Image {
    renderer.set_raster(raster);
    let image = renderer.render_image(scene, SIZE.0, SIZE.1).unwrap();
    assert_eq!(renderer.last_raster(), raster, "the frame's path");
    image
}

/// How one path's pictures differ from the ribbons'.
#[derive(Debug)]
struct Agreement {
    /// Mean absolute error per channel of the `final` pictures, levels.
    error: [f64; 3],
    /// Mean signed error per channel (the path less the ribbons), levels.
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

/// `ours` against `theirs` (the ribbons'): each a `final` and a `strands` picture.
fn agreement(theirs: [&Image; 2], ours: [&Image; 2]) -> Agreement {
    let n = (theirs[0].rgba.len() / 4) as f64;
    let (mut error, mut bias) = ([0.0; 3], [0.0; 3]);
    for (p, q) in ours[0].rgba.chunks(4).zip(theirs[0].rgba.chunks(4)) {
        for c in 0..3 {
            let d = f64::from(p[c]) - f64::from(q[c]);
            error[c] += d.abs() / n;
            bias[c] += d / n;
        }
    }
    let (a, b) = (hair(theirs[1]), hair(ours[1]));
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
        let ours = pictures(&mut renderer, path);
        let a = agreement([&theirs[0], &theirs[1]], [&ours[0], &ours[1]]);
        eprintln!(
            "{} {preset:?} {}×{}, {STRANDS} strands: {a:?}",
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
    // Bounds just past what the path reaches (docs/architecture.md, "Against the ribbons"):
    // a shift in coverage, width, fade, shading or blending of a level shows. The absolute
    // error is mostly pixel-scale noise (the ribbons' dithered four samples against the
    // analytic footprint), larger where the close-up's strands are wide; the signed mean
    // is what a path that draws the coat lighter or darker moves.
    check(
        Raster::Native,
        &[
            (
                CameraPreset::Front,
                Bounds {
                    error: 3.0,
                    bias: 1.0,
                    iou: 0.95,
                },
            ),
            (
                CameraPreset::Closeup,
                Bounds {
                    error: 5.0,
                    bias: 0.75,
                    iou: 0.96,
                },
            ),
        ],
    );
}
