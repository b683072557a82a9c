//! `pelt export --out coat.usda` read back by Pixar's own USD library (`pxr` from the
//! `usd-core` wheel, in the virtual environment `scripts/setup.sh` makes at
//! `target/usd-venv`; `PELT_USD_PYTHON` names another interpreter). The file passes
//! `UsdUtils.ComplianceChecker` (or, where `pxr` no longer has it, `pxr.UsdValidation`),
//! holds one six-point curve per strand at `pelt simulate`'s positions, widths tapering root
//! to tip, the groom's colours and random values, and with `--frames` a time sample a frame,
//! each at the positions `simulate` gives after that many steps.

use glam::Vec3;
use pelt::creature::{Creature, Srgb};
use pelt::groom::{Groom, Pattern};
use serde_json::Value;
use std::io::Read;
use std::path::Path;

mod cli_common;
use cli_common::{CHECK_COMPLIANCE, fails, pelt, s, stderr, usd_python};

/// What Pixar's library reads from `file`, as JSON, run after [`CHECK_COMPLIANCE`] (which
/// checks the file with Pixar's rules and leaves `stage`, `checked_by` and `errors`).
const READ_STAGE: &str = r#"
import json
from pxr import Usd, UsdGeom
curves = UsdGeom.BasisCurves(stage.GetPrimAtPath("/Pelt/Coat"))
skin = UsdGeom.Mesh(stage.GetPrimAtPath("/Pelt/Skin"))
points = curves.GetPointsAttr()
times = points.GetTimeSamples()
def flat(values):
    return [c for v in values for c in v]
pv = UsdGeom.PrimvarsAPI(curves.GetPrim())
out = {
    "checked_by": checked_by,
    "errors": errors,
    "samples": [flat(points.Get(t)) for t in times],
    "default_prim": stage.GetDefaultPrim().GetPath().pathString,
    "up_axis": UsdGeom.GetStageUpAxis(stage),
    "meters_per_unit": UsdGeom.GetStageMetersPerUnit(stage),
    "type": curves.GetTypeAttr().Get(),
    "counts": list(curves.GetCurveVertexCountsAttr().Get()),
    "times": list(times),
    "points": flat(points.Get(times[0] if times else Usd.TimeCode.Default())),
    "widths": list(curves.GetWidthsAttr().Get()),
    "widths_interpolation": curves.GetWidthsInterpolation(),
    "colors": flat(curves.GetDisplayColorAttr().Get()),
    "color_interpolation": UsdGeom.Primvar(curves.GetDisplayColorAttr()).GetInterpolation(),
    "random": list(pv.GetPrimvar("random").Get()),
    "root_normals": flat(pv.GetPrimvar("rootNormal").Get()),
    "skin_points": len(skin.GetPointsAttr().Get()),
    "skin_colors": len(skin.GetDisplayColorAttr().Get()),
    "skin_faces": len(skin.GetFaceVertexCountsAttr().Get()),
}
print(json.dumps(out))
"#;

fn read_stage(file: &Path) -> Value {
    let o = std::process::Command::new(usd_python())
        .arg("-c")
        .arg(format!("{CHECK_COMPLIANCE}{READ_STAGE}"))
        .arg(file)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "pxr could not read {}: {}",
        file.display(),
        stderr(&o)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

/// The `positions` array of a `pelt simulate` `.npz` (float32, C order, stored uncompressed).
fn npz_positions(path: &Path) -> Vec<f32> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut bytes = Vec::new();
    zip.by_name("positions.npy")
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    bytes[10 + header_len..]
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Runs `pelt` with `args`, which must succeed.
fn run(args: &[&str]) {
    let o = pelt().args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
}

/// The coat colour of `p`, written out here from the palette (not through Pelt's USD
/// code): main mixed toward cream, stripe, darkened stripe and blush by the channels as the
/// GPU reads them (bytes).
fn expected_color(p: &Pattern) -> Vec3 {
    let [cream, stripe, ear, blush] = p.pack().to_le_bytes().map(|b| f32::from(b) / 255.0);
    let mut c = Srgb::MAIN.linear();
    c += (Srgb::CREAM.linear() - c) * cream;
    c += (Srgb::STRIPE.linear() - c) * stripe;
    c += (Srgb::STRIPE.linear() * 0.45 - c) * ear;
    c += (Srgb::BLUSH.linear() - c) * blush;
    c
}

fn max_difference(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

const STRANDS: usize = 300;

#[test]
fn the_coat_opens_in_pixars_library_and_matches_simulate() {
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/back_stroke.json");
    let coat = dir.path().join("coat.usda");
    let state = dir.path().join("state.npz");
    let common = [
        "--strands",
        "300",
        "--steps",
        "40",
        "--seed",
        "7",
        "--capsule-script",
        s(&script),
    ];
    run(&[&["export"][..], &common, &["--out", s(&coat)]].concat());
    run(&[&["simulate"][..], &common, &["--out", s(&state)]].concat());
    let stage = read_stage(&coat);

    assert_eq!(
        stage["errors"],
        Value::Array(vec![]),
        "{}: {stage}",
        stage["checked_by"]
    );
    assert_eq!(stage["default_prim"], "/Pelt");
    assert_eq!(stage["up_axis"], "Y");
    assert_eq!(stage["meters_per_unit"], 1.0);
    assert_eq!(stage["type"], "linear");
    assert_eq!(
        stage["times"],
        Value::Array(vec![]),
        "a still export has no time samples"
    );

    let counts = stage["counts"].as_array().unwrap();
    assert_eq!(counts.len(), STRANDS, "one curve a strand");
    assert!(counts.iter().all(|c| c == 6), "six points a curve");

    let points = floats(&stage["points"]);
    let simulated = npz_positions(&state);
    let off = max_difference(&points, &simulated);
    assert!(off <= 1e-5, "points differ from simulate's by {off} m");

    // Widths: per vertex, 3.4 mm at the root down to 15 % of it at the tip, every strand.
    assert_eq!(stage["widths_interpolation"], "vertex");
    let widths = floats(&stage["widths"]);
    assert_eq!(widths.len(), STRANDS * 6);
    for w in widths.chunks(6) {
        assert!((w[0] - 0.0034).abs() < 1e-7, "root width {}", w[0]);
        assert!((w[5] - 0.0034 * 0.15).abs() < 1e-7, "tip width {}", w[5]);
        assert!(
            w.windows(2).all(|p| p[1] < p[0]),
            "widths do not taper: {w:?}"
        );
    }

    // Colours and random values: the groom's, strand by strand.
    let groom = Groom::generate(&Creature::default(), STRANDS, 7).unwrap();
    assert_eq!(stage["color_interpolation"], "uniform");
    let colors = floats(&stage["colors"]);
    let expected: Vec<f32> = groom
        .roots
        .iter()
        .flat_map(|r| expected_color(&r.pattern).to_array())
        .collect();
    let off = max_difference(&colors, &expected);
    assert!(off <= 1e-6, "colours differ from the groom's by {off}");
    let distinct = colors
        .chunks(3)
        .map(|c| format!("{c:?}"))
        .collect::<std::collections::HashSet<_>>();
    assert!(
        distinct.len() > 10,
        "the pattern shows in the colours: {}",
        distinct.len()
    );
    let random: Vec<f32> = groom.roots.iter().map(|r| r.random).collect();
    assert_eq!(max_difference(&floats(&stage["random"]), &random), 0.0);

    // Root normals: unit, and the strands leave the skin along them.
    let normals = floats(&stage["root_normals"]);
    assert_eq!(normals.len(), STRANDS * 3);
    let mut outward = 0;
    for (n, p) in normals.chunks(3).zip(points.chunks(18)) {
        let n = Vec3::from_slice(n);
        assert!((n.length() - 1.0).abs() < 1e-4, "root normal {n}");
        let first = Vec3::from_slice(&p[3..6]) - Vec3::from_slice(&p[0..3]);
        outward += usize::from(n.dot(first) > 0.0);
    }
    assert!(
        outward * 10 >= STRANDS * 9,
        "only {outward} strands leave along their normal"
    );

    let skin = stage["skin_points"].as_u64().unwrap();
    assert!(skin > 1000, "skin has {skin} points");
    assert_eq!(stage["skin_colors"], skin);
    assert!(stage["skin_faces"].as_u64().unwrap() > 1000);
}

#[test]
fn frames_write_time_samples_over_the_stroke() {
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/back_stroke.json");
    let coat = dir.path().join("stroke.usda");
    let common = [
        "--strands",
        "300",
        "--seed",
        "2",
        "--capsule-script",
        s(&script),
    ];
    run(&[
        &["export"][..],
        &common,
        &[
            "--steps",
            "20",
            "--frames",
            "4",
            "--every",
            "10",
            "--out",
            s(&coat),
        ],
    ]
    .concat());
    let stage = read_stage(&coat);
    assert_eq!(
        stage["errors"],
        Value::Array(vec![]),
        "{}: {stage}",
        stage["checked_by"]
    );
    let times: Vec<f32> = floats(&stage["times"]);
    assert_eq!(times, [20.0, 30.0, 40.0, 50.0]);
    // Every sample is the coat `simulate` gives after that many steps (and no other: the
    // coat moves by far more than the tolerance from one sample to the next).
    let samples: Vec<Vec<f32>> = stage["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(floats)
        .collect();
    assert_eq!(samples.len(), times.len());
    let mut previous: Option<&Vec<f32>> = None;
    for (sample, &step) in samples.iter().zip(&times) {
        let state = dir.path().join(format!("state-{step}.npz"));
        let steps = (step as u32).to_string();
        run(&[
            &["simulate"][..],
            &common,
            &["--steps", &steps, "--out", s(&state)],
        ]
        .concat());
        let off = max_difference(sample, &npz_positions(&state));
        assert!(
            off <= 1e-5,
            "the sample at step {step} differs from simulate's by {off} m"
        );
        if let Some(previous) = previous {
            let moved = max_difference(previous, sample);
            assert!(
                moved > 1e-4,
                "the coat moved only {moved} m in the 10 steps before step {step}"
            );
        }
        previous = Some(sample);
    }
}

#[test]
fn usdc_is_refused_with_the_reason_and_the_way_to_get_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("coat.usdc");
    let err = fails(&["export", "--strands", "64", "--out", s(&out)]);
    assert!(err.contains(".usda") && err.contains("usdcat"), "{err}");
    assert!(!out.exists());
    let err = fails(&[
        "export",
        "--frames",
        "2",
        "--out",
        s(&dir.path().join("a.glb")),
    ]);
    assert!(err.contains("--frames") && err.contains(".usda"), "{err}");
    // A bare `.usda` is a name with no stem, not a rig given the coat's flags.
    let bare = dir.path().join(".usda");
    let err = fails(&["export", "--strands", "64", "--out", s(&bare)]);
    assert!(err.contains("give a name before it"), "{err}");
    assert!(!bare.exists());
}
