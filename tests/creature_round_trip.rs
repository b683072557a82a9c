//! The round trip: the creature written by `pelt export --vrm`, read back through `--body`
//! and furred by the body's own groom, covers and colours like the built-in creature at
//! the README's front camera. Both are drawn at the same size from the same eye (moved by
//! the body's fit, which stands the body's feet on y = 0), at a reduced strand count: the
//! hair's coverage (the strand field alone, `--mode strands`) must overlap (intersection
//! over union), and the final pictures' colours must agree on average.

use glam::Vec3;
use pelt::body::{BodyOptions, LoadedBody};
use pelt::render::{Camera, CameraPreset};
use std::path::Path;

mod cli_common;
use cli_common::{pelt, s, stderr};

const WIDTH: u32 = 320;
const HEIGHT: u32 = 180;
const STRANDS: &str = "16384";

/// `pelt render … --out OUT`; the picture as RGBA8 rows.
fn render(args: &[&str], out: &Path) -> Vec<[u8; 4]> {
    let (w, h) = (WIDTH.to_string(), HEIGHT.to_string());
    let o = pelt()
        .args([
            "render",
            "--strands",
            STRANDS,
            "--width",
            &w,
            "--height",
            &h,
        ])
        .args(["--raster", "native", "--seed", "2", "--steps", "30"])
        .args(args)
        .args(["--out", s(out)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let img = image::open(out).unwrap().to_rgba8();
    assert_eq!((img.width(), img.height()), (WIDTH, HEIGHT));
    img.pixels().map(|p| p.0).collect()
}

fn xyz(v: Vec3) -> String {
    format!("{},{},{}", v.x, v.y, v.z)
}

/// Pixels that differ from the picture's corner (the background behind the strands).
fn covered(img: &[[u8; 4]]) -> Vec<bool> {
    let bg = img[0];
    img.iter()
        .map(|p| (0..3).any(|c| p[c].abs_diff(bg[c]) > 12))
        .collect()
}

#[test]
fn the_exported_creature_furred_as_a_body_looks_like_the_creature() {
    let dir = tempfile::tempdir().unwrap();
    let vrm = dir.path().join("creature.vrm");
    let o = pelt()
        .args(["export", "--vrm", "--out", s(&vrm)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // Fitted at its own height the body keeps its size; the fit only shifts it.
    let height = LoadedBody::read(&vrm, &BodyOptions { height: 1.0 })
        .unwrap()
        .fit
        .file_height;
    let fit = LoadedBody::read(&vrm, &BodyOptions { height }).unwrap().fit;
    assert!((fit.scale - 1.0).abs() < 1e-5, "scale {}", fit.scale);
    let front = Camera::preset(CameraPreset::Front);
    let shifted = |p: Vec3| xyz(p + fit.translation);
    let (eye, target) = (xyz(front.eye), xyz(front.target));
    let (body_eye, body_target) = (shifted(front.eye), shifted(front.target));
    let creature = |mode: &str, name: &str| {
        render(
            &["--mode", mode, "--eye", &eye, "--target", &target],
            &dir.path().join(name),
        )
    };
    let height = height.to_string();
    let body = |mode: &str, name: &str| {
        render(
            &[
                "--mode",
                mode,
                "--eye",
                &body_eye,
                "--target",
                &body_target,
                "--body",
                s(&vrm),
                "--body-height",
                &height,
            ],
            &dir.path().join(name),
        )
    };
    let (a, b) = (
        covered(&creature("strands", "a_strands.png")),
        covered(&body("strands", "b_strands.png")),
    );
    let both = a.iter().zip(&b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(&b).filter(|(x, y)| **x || **y).count();
    let iou = both as f64 / either.max(1) as f64;
    let hair = a;
    let (a, b) = (
        creature("final", "a_final.png"),
        body("final", "b_final.png"),
    );
    // Colours compared where the creature's hair is.
    let mut sum = [0.0f64; 3];
    let mut n = 0usize;
    for ((p, q), inside) in a.iter().zip(&b).zip(hair) {
        if inside {
            for c in 0..3 {
                sum[c] += f64::from(p[c].abs_diff(q[c]));
            }
            n += 1;
        }
    }
    let mean = sum.map(|x| x / n.max(1) as f64);
    let mean_all = mean.iter().sum::<f64>() / 3.0;
    eprintln!(
        "hair coverage IoU {iou:.3}; mean |Δ| over the creature's hair (sRGB bytes) r {:.1} g {:.1} b {:.1}, all {mean_all:.1}",
        mean[0], mean[1], mean[2]
    );
    assert!(iou > 0.84, "hair coverage IoU {iou:.3}");
    // The coat's pattern carried per vertex, well below a flat orange export (the numbers
    // are in docs/formats.md).
    assert!(mean_all < 24.0, "mean colour difference {mean_all:.1}");
}
