//! The round trip: the creature written by `pelt export --vrm`, read back through `--body`
//! and furred by the body's own groom, covers and colours like the built-in creature at
//! the README's front camera, its eyes and nose bare. Both are drawn at the same size from
//! the same eye (moved by the body's fit, which stands the body's feet on y = 0), at a
//! reduced strand count: the hair's coverage (the strand field alone, `--mode strands`)
//! must overlap (intersection over union), the final pictures' colours must agree on
//! average, and the eyes must show dark through the coat as the creature's do.

use glam::{Vec2, Vec3};
use pelt::body::{BodyOptions, LoadedBody};
use pelt::creature::{Creature, FaceLayout};
use pelt::groom::{BodyGroom, BodyGroomSource, GroomFile};
use pelt::render::{Camera, CameraPreset};
use std::path::Path;
use std::sync::OnceLock;

mod cli_common;
use cli_common::{export_creature_vrm, pelt, s, stderr};

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

/// The exported file read back at its own height, where the fit only shifts it.
fn read_at_own_height(vrm: &Path) -> LoadedBody {
    let height = LoadedBody::read(vrm, &BodyOptions { height: 1.0 })
        .unwrap()
        .fit
        .file_height;
    let body = LoadedBody::read(vrm, &BodyOptions { height }).unwrap();
    assert!(
        (body.fit.scale - 1.0).abs() < 1e-5,
        "scale {}",
        body.fit.scale
    );
    body
}

/// The four pictures, drawn once for the tests that read them: the creature's and the
/// body's strand fields and final pictures.
struct Pictures {
    creature_strands: Vec<[u8; 4]>,
    body_strands: Vec<[u8; 4]>,
    creature_final: Vec<[u8; 4]>,
    body_final: Vec<[u8; 4]>,
}

fn pictures() -> &'static Pictures {
    static PICTURES: OnceLock<Pictures> = OnceLock::new();
    PICTURES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let vrm = export_creature_vrm(dir.path());
        let body = read_at_own_height(&vrm);
        let front = Camera::preset(CameraPreset::Front);
        let shifted = |p: Vec3| xyz(p + body.fit.translation);
        let (eye, target) = (xyz(front.eye), xyz(front.target));
        let (body_eye, body_target) = (shifted(front.eye), shifted(front.target));
        let creature = |mode: &str, name: &str| {
            render(
                &["--mode", mode, "--eye", &eye, "--target", &target],
                &dir.path().join(name),
            )
        };
        let height = body.fit.file_height.to_string();
        let furred = |mode: &str, name: &str| {
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
        Pictures {
            creature_strands: creature("strands", "a_strands.png"),
            body_strands: furred("strands", "b_strands.png"),
            creature_final: creature("final", "a_final.png"),
            body_final: furred("final", "b_final.png"),
        }
    })
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
    let p = pictures();
    let (a, b) = (covered(&p.creature_strands), covered(&p.body_strands));
    let both = a.iter().zip(&b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(&b).filter(|(x, y)| **x || **y).count();
    let iou = both as f64 / either.max(1) as f64;
    // Colours compared where the creature's hair is.
    let mut sum = [0.0f64; 3];
    let mut n = 0usize;
    for ((p, q), inside) in p.creature_final.iter().zip(&p.body_final).zip(&a) {
        if *inside {
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
    assert!(iou > 0.845, "hair coverage IoU {iou:.3}");
    // The coat's pattern carried per vertex, the eyes and nose bare (the numbers are in
    // docs/formats.md).
    assert!(mean_all < 19.5, "mean colour difference {mean_all:.1}");
}

/// Rec. 709 luma of an sRGB pixel, 0 to 255.
fn luma(p: [u8; 4]) -> f64 {
    0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2])
}

/// Pixels darker than an eye's edge (luma below 25 of 255: the coat, the nose, the floor
/// and the background are all far brighter) within `half` pixels of `centre`.
fn dark_pixels(img: &[[u8; 4]], centre: Vec2, half: Vec2) -> usize {
    let mut n = 0;
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let d = (Vec2::new(x as f32 + 0.5, y as f32 + 0.5) - centre).abs();
            if d.x <= half.x && d.y <= half.y && luma(img[(y * WIDTH + x) as usize]) < 25.0 {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn the_exported_creature_s_eyes_show_dark_through_its_coat() {
    let p = pictures();
    let creature = Creature::default();
    let front = Camera::preset(CameraPreset::Front);
    let view_proj = front.view_proj(WIDTH as f32 / HEIGHT as f32);
    // The eyes' midpoint at rest on the picture (the fit shifts the body's camera with the
    // body, so the same pixel for both), and a window around both eyes wide enough for
    // the built-in creature's idle motion, which has moved its head a few pixels by the
    // step drawn while the body holds its rest pose.
    let eyes = FaceLayout::default().eye_features(&creature.head);
    let mid = creature.head_pivot + (eyes[0].center + eyes[1].center) * 0.5;
    let c = view_proj * mid.extend(1.0);
    let ndc = c.truncate() / c.w;
    let at = Vec2::new(
        (ndc.x * 0.5 + 0.5) * WIDTH as f32,
        (0.5 - ndc.y * 0.5) * HEIGHT as f32,
    );
    let half = Vec2::new(25.0, 12.0);
    let (built_in, furred) = (
        dark_pixels(&p.creature_final, at, half),
        dark_pixels(&p.body_final, at, half),
    );
    eprintln!("dark pixels around the eyes at {at}: built-in {built_in}, furred body {furred}");
    assert!(
        built_in >= 10,
        "the built-in creature's eyes: {built_in} dark pixels"
    );
    assert!(
        furred * 10 >= built_in * 7,
        "the furred body's eyes are covered: {furred} dark pixels around them, the built-in creature's {built_in}"
    );
}

#[test]
fn the_exported_creature_read_back_grows_no_fur_on_its_eyes_and_nose() {
    let dir = tempfile::tempdir().unwrap();
    let body = read_at_own_height(&export_creature_vrm(dir.path()));
    let mesh = &body.mesh;
    let creature = Creature::default();
    let head = creature.head_pivot + body.fit.translation;
    let material = |name: &str| {
        mesh.material_names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("no material \"{name}\" in {:?}", mesh.material_names))
            as u16
    };
    let face = [material("eyes"), material("nose")];
    // Every vertex of the eyes and the nose rides the head's joint alone.
    let mut face_vertices = 0;
    for (t, m) in mesh.triangles.iter().zip(&mesh.triangle_materials) {
        if face.contains(m) {
            for &v in t {
                let (j, w) = (mesh.joints[v as usize], mesh.weights[v as usize]);
                let at = mesh.joint_positions[usize::from(j[0])];
                assert!(
                    w[0] > 0.999 && (at - head).length() < 1e-4,
                    "vertex {v}: joints {j:?} weights {w:?}, joint at {at}"
                );
                face_vertices += 1;
            }
        }
    }
    assert!(face_vertices > 0);
    let on_face = |groom: &BodyGroom| {
        groom
            .roots
            .iter()
            .filter(|r| face.contains(&mesh.triangle_materials[r.triangle as usize]))
            .count()
    };
    let count = 100_000;
    let bare = BodyGroom::generate(mesh, count, 5).unwrap();
    let everywhere = BodyGroomSource::File(GroomFile {
        no_fur: Vec::new(),
        ..GroomFile::default()
    });
    let furred = BodyGroom::grow(mesh, Some(&everywhere), count, 5).unwrap();
    eprintln!(
        "roots on the eyes and nose: {} with the default groom, {} with no masks, of {count}",
        on_face(&bare),
        on_face(&furred)
    );
    assert_eq!(bare.roots.len(), count);
    assert_eq!(on_face(&bare), 0);
    // Without the masks the face has its share of roots, so the masks took them.
    assert!(on_face(&furred) > 100, "{}", on_face(&furred));
}
