//! `--groom coat.usda`: USD `BasisCurves` read as strands. Pelt's own export reads back
//! curve for curve; a cubic B-spline is resampled onto the analytic curve; a Blender-style
//! file (Z up, centimetres, a transformed `Xform` parent) lands where its transforms put
//! it; binary USD and Alembic are refused with the conversion to text; hostile files give
//! clear errors with line numbers and no panic.

use glam::{DVec3, Vec3};
use pelt::usd::{CurvesError, GroomInput, ImportedCurves, parse_curves, read_groom};
use std::path::Path;

mod cli_common;
use cli_common::{pelt, s, stderr};

/// Reads `text` as curves, which must succeed.
fn curves(text: &str) -> ImportedCurves {
    parse_curves(text.as_bytes(), "test.usda").unwrap_or_else(|e| panic!("{e}"))
}

/// Reads `text` as curves, which must fail; the message.
fn refused(text: &[u8]) -> String {
    let e = parse_curves(text, "test.usda").expect_err("the file must be refused");
    let m = e.to_string();
    assert!(
        m.starts_with("test.usda"),
        "the message names the file: {m}"
    );
    m
}

/// Every number in the array that follows `key` after `from` in `text` (read here by
/// splitting the text, not by Pelt's reader).
fn numbers_after(text: &str, from: &str, key: &str) -> Vec<f64> {
    let start = text.find(from).unwrap();
    let at = start + text[start..].find(key).unwrap() + key.len();
    let end = at + text[at..].find(']').unwrap();
    text[at..end]
        .split(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | 'e' | 'E' | '+')))
        .filter(|w| !w.is_empty())
        .map(|w| w.parse().unwrap())
        .collect()
}

fn export(args: &[&str], out: &Path) -> String {
    let o = pelt()
        .args(["export", "--seed", "5"])
        .args(args)
        .args(["--out", s(out)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn pelt_s_own_export_reads_back_strand_for_strand() {
    let dir = tempfile::tempdir().unwrap();
    // A still export and an animated one (the reader takes the earliest sample).
    for (args, first_sample) in [
        (
            &["--strands", "200", "--steps", "30"][..],
            "point3f[] points = [",
        ),
        (
            &[
                "--strands",
                "200",
                "--steps",
                "10",
                "--frames",
                "3",
                "--every",
                "5",
            ][..],
            "points.timeSamples = {",
        ),
    ] {
        let path = dir.path().join("coat.usda");
        let text = export(args, &path);
        let written = numbers_after(&text, "def BasisCurves \"Coat\"", first_sample);
        let colors = numbers_after(
            &text,
            "def BasisCurves \"Coat\"",
            "primvars:displayColor = [",
        );
        let widths = numbers_after(&text, "def BasisCurves \"Coat\"", "float[] widths = [");
        // The animated sample list starts with its time code: drop it.
        let written = &written[written.len() % 18..];
        let read = match read_groom(&path).unwrap() {
            GroomInput::Curves(c) => c,
            GroomInput::File(_) => panic!("a .usda read as a groom file"),
        };
        assert_eq!(read.curves.len(), 200, "{args:?}");
        assert_eq!(written.len(), 200 * 18, "{args:?}");
        assert_eq!(read.prims, 1);
        let mut worst = 0.0f64;
        for (c, curve) in read.curves.iter().enumerate() {
            for (k, p) in curve.points.iter().enumerate() {
                let w = &written[(c * 6 + k) * 3..][..3];
                let d = DVec3::new(w[0], w[1], w[2]).distance(p.as_dvec3());
                worst = worst.max(d);
            }
            let color = curve.color.unwrap();
            assert!((color.as_dvec3() - DVec3::from_slice(&colors[c * 3..][..3])).length() < 1e-6);
            assert!((f64::from(curve.root_width.unwrap()) - widths[c * 6]).abs() < 1e-9);
        }
        assert!(worst < 1e-5, "{args:?}: a point moved {worst:e} m");
    }
}

/// The uniform cubic B-spline segment `i` of `p` at `t`, worked here in f64.
fn bspline(p: &[DVec3], i: usize, t: f64) -> DVec3 {
    let (t2, t3) = (t * t, t * t * t);
    let w = [
        (1.0 - t).powi(3) / 6.0,
        (3.0 * t3 - 6.0 * t2 + 4.0) / 6.0,
        (-3.0 * t3 + 3.0 * t2 + 3.0 * t + 1.0) / 6.0,
        t3 / 6.0,
    ];
    p[i] * w[0] + p[i + 1] * w[1] + p[i + 2] * w[2] + p[i + 3] * w[3]
}

#[test]
fn a_cubic_bspline_is_resampled_onto_the_analytic_curve_by_arc_length() {
    // A bent strand 20-odd centimetres long: seven control points, four segments.
    let control: Vec<DVec3> = (0..7)
        .map(|i| {
            let a = i as f64 * 0.5;
            DVec3::new(0.05 * a.sin(), 0.04 * i as f64, 0.03 * (a * 1.3).cos())
        })
        .collect();
    let points: Vec<String> = control
        .iter()
        .map(|p| format!("({}, {}, {})", p.x, p.y, p.z))
        .collect();
    let text = format!(
        "#usda 1.0\ndef BasisCurves \"Hair\"\n{{\n    uniform token type = \"cubic\"\n    \
         uniform token basis = \"bspline\"\n    int[] curveVertexCounts = [7]\n    \
         point3f[] points = [{}]\n}}\n",
        points.join(", ")
    );
    let read = curves(&text);
    assert_eq!(read.curves.len(), 1);
    // The analytic curve walked finely, its arc length measured, the even fifths found.
    let fine: Vec<DVec3> = (0..4)
        .flat_map(|seg| {
            let control = &control;
            (0..20_000).map(move |k| bspline(control, seg, k as f64 / 20_000.0))
        })
        .chain(std::iter::once(bspline(&control, 3, 1.0)))
        .collect();
    let lengths: Vec<f64> = std::iter::once(0.0)
        .chain(fine.windows(2).scan(0.0, |acc, w| {
            *acc += w[0].distance(w[1]);
            Some(*acc)
        }))
        .collect();
    let total = lengths[lengths.len() - 1];
    for (k, got) in read.curves[0].points.iter().enumerate() {
        let want_length = total * k as f64 / 5.0;
        let i = lengths
            .partition_point(|&l| l < want_length)
            .min(fine.len() - 1);
        let d = fine[i].distance(got.as_dvec3());
        assert!(
            d < 2e-5,
            "point {k}: {got} is {d:e} m from the curve's {}",
            fine[i]
        );
    }
}

#[test]
fn a_blender_style_file_is_placed_by_its_units_axis_and_transforms() {
    // Centimetres, Z up, a parent Xform moved by a row-vector matrix and scaled by 2 (the
    // scale acts first), a child curve straight up Z from its origin, 10 cm long.
    let text = r#"#usda 1.0
(
    defaultPrim = "root"
    metersPerUnit = 0.01
    upAxis = "Z"
)

def Xform "root"
{
    matrix4d xformOp:transform = ( (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (10, 20, 30, 1) )
    float3 xformOp:scale = (2, 2, 2)
    uniform token[] xformOpOrder = ["xformOp:transform", "xformOp:scale"]

    def BasisCurves "hair" (
        prepend apiSchemas = ["MaterialBindingAPI"]
    )
    {
        uniform token type = "linear"
        int[] curveVertexCounts = [2, 3]
        point3f[] points = [(0, 0, 0), (0, 0, 10), (1, 0, 0), (1, 0, 5), (1, 0, 10)]
        float[] widths = [0.5, 0.5, 0.25, 0.25, 0.25] (
            interpolation = "vertex"
        )
        color3f[] primvars:displayColor = [(1, 0, 0), (0, 1, 0)] (
            interpolation = "uniform"
        )
        rel material:binding = </root/Fur>
    }
}
"#;
    let read = curves(text);
    assert_eq!(read.curves.len(), 2);
    let want_root = Vec3::new(0.1, 0.3, -0.2);
    let want_tip = Vec3::new(0.1, 0.5, -0.2);
    let c = &read.curves[0];
    assert!(c.points[0].distance(want_root) < 1e-6, "{}", c.points[0]);
    assert!(c.points[5].distance(want_tip) < 1e-6, "{}", c.points[5]);
    assert!(c.points[1].distance(want_root.lerp(want_tip, 0.2)) < 1e-6);
    assert!(
        (c.root_width.unwrap() - 0.01).abs() < 1e-7,
        "{:?}",
        c.root_width
    );
    assert_eq!(c.color, Some(Vec3::X));
    let c = &read.curves[1];
    assert!(
        c.points[0].distance(Vec3::new(0.12, 0.3, -0.2)) < 1e-6,
        "{}",
        c.points[0]
    );
    assert_eq!(c.color, Some(Vec3::Y));
    assert!((c.root_width.unwrap() - 0.005).abs() < 1e-7);
}

#[test]
fn binary_usd_and_alembic_are_refused_with_the_conversion_to_text() {
    let dir = tempfile::tempdir().unwrap();
    for (bytes, names) in [
        (
            &b"PXR-USDC\x00\x00\x00\x00"[..],
            "usdcat in.usdc -o out.usda",
        ),
        (&b"PK\x03\x04\x14\x00"[..], "usdcat in.usdz -o out.usda"),
        (&b"Ogawa\xff\x00"[..], "usdcat in.abc -o out.usda"),
    ] {
        // Named .usda, and named .json: the first bytes decide, not the name.
        for name in ["groom.usda", "groom.json"] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            let m = read_groom(&path).unwrap_err().to_string();
            assert!(m.contains(names), "{name}: {m}");
            assert!(m.contains(name), "the message names the file: {m}");
        }
        assert!(matches!(
            parse_curves(bytes, "x"),
            Err(CurvesError::Binary(_))
        ));
    }
}

#[test]
fn hostile_files_get_clear_errors_with_their_line() {
    let curve = |body: &str| format!("#usda 1.0\ndef BasisCurves \"h\"\n{{\n{body}\n}}\n");
    let cases: Vec<(String, &str)> = vec![
        (
            curve(
                "int[] curveVertexCounts = [1000000000000]\npoint3f[] points = [(0,0,0), (0,1,0)]",
            ),
            "curveVertexCounts adds up to 1000000000000, but there are 2 points",
        ),
        (
            curve(
                "uniform token type = \"linear\"\nint[] curveVertexCounts = [2]\npoint3f[] points = [(nan, 0, 0), (0, 1, 0)]",
            ),
            "line 6: `nan` is not a finite number",
        ),
        (
            curve(
                "uniform token type = \"linear\"\nint[] curveVertexCounts = [2]\npoint3f[] points = [(1e39, 0, 0), (0, 1, 0)]",
            ),
            "line 6: a number too large for a 32-bit float",
        ),
        (
            curve(
                "uniform token type = \"linear\"\nint[] curveVertexCounts = [-2]\npoint3f[] points = []",
            ),
            "curve 0 has -2 points; a linear curve has at least 2 points",
        ),
        (
            curve(
                "uniform token type = \"cubic\"\nuniform token basis = \"bezier\"\nint[] curveVertexCounts = [5]\npoint3f[] points = [(0,0,0),(0,1,0),(0,2,0),(0,3,0),(0,4,0)]",
            ),
            "a cubic bezier curve has 4, 7, 10",
        ),
        (
            format!("#usda 1.0\n{}", "def \"a\" {\n".repeat(10_000)),
            "line 66: prims nested more than 64 deep",
        ),
        (
            curve(&format!("custom int x = {}", "{".repeat(10_000))),
            "line 4: brackets nested more than 64 deep",
        ),
        (
            curve(
                "uniform token type = \"linear\"\nint[] curveVertexCounts = [2]\npoint3f[] points = [(0,0,0), (0,1,0)",
            ),
            "line 7: expected `,` or `]` in an array, found `}`",
        ),
        (
            "#usda 1.0\ndef BasisCurves \"h\" {\n  int[] curveVertexCounts = [2]\n".to_string(),
            "line 2: the prim /h opened here is never closed",
        ),
        (
            curve(
                "int[] curveVertexCounts = [2]\npoint3f[] points = [(0,0,0), (0,0,0)]\nuniform token type = \"linear\"",
            ),
            "no curve with a length",
        ),
        (
            "#usda 1.0\ndef Mesh \"skin\" { point3f[] points = [(0,0,0)] }\n".to_string(),
            "there is no BasisCurves prim",
        ),
        (
            "{\"pelt_groom\": 1}".to_string(),
            "does not start with `#usda 1.0`",
        ),
        (
            "#usda 1.0\n(\n metersPerUnit = 0\n)\ndef BasisCurves \"h\" {}\n".to_string(),
            "metersPerUnit is 0",
        ),
        (
            curve(
                "uniform token wrap = \"periodic\"\nint[] curveVertexCounts = [4]\npoint3f[] points = [(0,0,0),(0,1,0),(0,2,0),(0,3,0)]",
            ),
            "closed loops",
        ),
        (
            curve(
                "uniform token type = \"linear\"\nint[] curveVertexCounts = [2]\npoint3f[] points = [(2e5, 0, 0), (2e5, 1, 0)]",
            ),
            "curve 0 lies more than 1e5 m from the origin once placed",
        ),
    ];
    for (text, wanted) in &cases {
        let m = refused(text.as_bytes());
        assert!(m.contains(wanted), "wanted {wanted:?} in: {m}");
        assert!(m.len() < 600, "a short message: {m}");
    }
    // The caps on what is kept: one value past the values cap, one curve past the curves
    // cap (each a few tens of megabytes of text, refused before any strand is made).
    let values = pelt::usd::MAX_KEPT_VALUES + 1;
    let m = refused(curve(&format!("float[] widths = [{}0]", "0,".repeat(values - 1))).as_bytes());
    assert!(m.contains("more than 16777216 values"), "{m}");
    let n = pelt::usd::MAX_CURVES + 1;
    let text = curve(&format!(
        "uniform token type = \"linear\"\nint[] curveVertexCounts = [{}2]\npoint3f[] points = [{}(0,0,0)]",
        "2,".repeat(n - 1),
        "(0,0,0),".repeat(2 * n - 1)
    ));
    let m = refused(text.as_bytes());
    assert!(m.contains("more than 2097152 curves"), "{m}");
    // A truncated export: cut anywhere, it is an error naming a line, never a panic.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("coat.usda");
    let text = export(&["--steps", "2", "--strands", "64"], &path);
    for cut in (1..text.len()).step_by(text.len() / 97 + 1) {
        match parse_curves(&text.as_bytes()[..cut], "cut.usda") {
            Ok(read) => assert!(read.curves.len() <= 64),
            Err(e) => {
                let m = e.to_string();
                assert!(m.starts_with("cut.usda"), "{m}");
            }
        }
    }
}

#[test]
fn the_fuzz_seeds_read_as_the_tools_that_write_them_mean() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/usda_curves");
    let read = |name: &str| {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        parse_curves(&bytes, name).unwrap_or_else(|e| panic!("{e}"))
    };
    // Pelt's layout with time samples: the earliest sample, straight up the first strand.
    let pelt = read("pelt_style.usda");
    assert_eq!(pelt.curves.len(), 2);
    assert!(pelt.curves[0].points[5].distance(Vec3::new(0.0, 0.1, 0.0)) < 1e-6);
    assert_eq!(pelt.curves[1].color, Some(Vec3::new(1.0, 0.9, 0.8)));
    // Houdini's: the class's template and the variant's curves are not on the stage; the
    // earliest sample of points and counts; the parent turned a quarter about Y: the
    // second curve's root (its B-spline starts at (P0 + 4 P1 + P2) / 6 = (1, 0.1, 0)) turns
    // to (0, 0.1, −1), then moves up 1.
    let houdini = read("houdini_style.usda");
    assert_eq!((houdini.curves.len(), houdini.prims), (2, 1));
    let root = houdini.curves[1].points[0];
    assert!(root.distance(Vec3::new(0.0, 1.1, -1.0)) < 1e-6, "{root}");
    assert_eq!(houdini.curves[0].color, Some(Vec3::new(0.2, 0.1, 0.05)));
    assert!((houdini.curves[1].root_width.unwrap() - 0.001).abs() < 1e-9);
    // Blender's: indexed colours, pinned Catmull-Rom through its end points.
    let blender = read("blender_style.usda");
    assert_eq!(blender.curves[1].color, Some(Vec3::X));
    assert!(blender.curves[0].points[0].distance(Vec3::new(0.1, 0.3, -0.2)) < 1e-6);
    assert!(blender.curves[0].points[5].distance(Vec3::new(0.1, 0.5, -0.2)) < 1e-6);
    let bezier = read("bezier.usda");
    assert!(bezier.curves[0].points[5].distance(Vec3::new(0.08, 0.16, 0.0)) < 1e-6);
}

/// Runs Pixar's library on `code` with `args`, which must succeed.
fn pxr(code: &str, args: &[&Path]) {
    let o = std::process::Command::new(cli_common::usd_python())
        .arg("-c")
        .arg(code)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "pxr failed: {}", stderr(&o));
}

#[test]
fn a_usdc_converted_as_the_refusal_says_reads_as_the_text_it_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/usda_curves");
    for name in [
        "blender_style.usda",
        "houdini_style.usda",
        "pelt_style.usda",
    ] {
        let original = curves(&std::fs::read_to_string(seeds.join(name)).unwrap());
        // Binary, as a user would receive it.
        let binary = dir.path().join("in.usdc");
        pxr(
            "import sys\nfrom pxr import Usd\nUsd.Stage.Open(sys.argv[1]).Export(sys.argv[2])",
            &[&seeds.join(name), &binary],
        );
        let m = read_groom(&binary).unwrap_err().to_string();
        // The wheel's command from the message, run as given (in the folder of in.usdc).
        let command = m
            .split("usd-core wheel: `python3 -c \"")
            .nth(1)
            .and_then(|rest| rest.split("\"`").next())
            .unwrap_or_else(|| panic!("no conversion command in: {m}"));
        let o = std::process::Command::new(cli_common::usd_python())
            .arg("-c")
            .arg(command)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{command}: {}", stderr(&o));
        // Pixar's text of the same stage reads as the original text did.
        let text = dir.path().join("out.usda");
        let converted = match read_groom(&text).unwrap() {
            GroomInput::Curves(c) => c,
            GroomInput::File(_) => panic!("{name}: read as a groom file"),
        };
        assert_eq!(converted.curves.len(), original.curves.len(), "{name}");
        for (a, b) in converted.curves.iter().zip(&original.curves) {
            for (p, q) in a.points.iter().zip(&b.points) {
                assert!(p.distance(*q) < 1e-6, "{name}: {p} vs {q}");
            }
            assert_eq!(a.color, b.color, "{name}");
            assert_eq!(a.root_width, b.root_width, "{name}");
        }
    }
}
