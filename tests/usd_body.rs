//! A skinned body written into the coat's USD stage (`pelt::usd::body_skin` through
//! `CoatStageWriter::begin_with_mesh`), read back by Pixar's own library (`pxr`, as in
//! `tests/usd_export.rs`): a two-bone cylinder bending over three time samples. The stage
//! passes the compliance check; the mesh's points at each time code are the skinned
//! positions (worked out here by hand, not by Pelt's skinning); its triangles, normals,
//! extent, texture coordinates and colours are the body's; and the coat's curves are sampled
//! at the same time codes. Bad bodies, poses and timings are refused with what was wrong.

use glam::{Mat4, Vec2, Vec3, Vec4};
use pelt::body::{BodyMesh, BodyTexture, SkinPose};
use pelt::usd::{CoatCurves, CoatStageWriter, StageMesh, StageTiming, body_skin, mesh_usda_bytes};
use serde_json::Value;
use std::path::Path;

mod cli_common;
use cli_common::stderr;

/// The cylinder's radius and height, metres, and the height of its knee (where joint 1
/// takes over from joint 0).
const RADIUS: f32 = 0.1;
const HEIGHT: f32 = 1.0;
const KNEE: f32 = 0.5;

/// Joint 1's share of a vertex at height `y`: none below the knee's band, all above it.
fn upper_weight(y: f32) -> f32 {
    ((y - (KNEE - 0.125)) / 0.25).clamp(0.0, 1.0)
}

/// An open cylinder along +Y, `columns` quads around and `rows` up (the seam's vertices
/// doubled so the UVs run 0 to 1), skinned to two joints: joint 0 below the knee, joint 1
/// above, blended through a band around it.
fn cylinder(columns: u32, rows: u32) -> BodyMesh {
    let mut body = BodyMesh {
        joint_count: 2,
        joint_positions: vec![Vec3::ZERO, Vec3::new(0.0, KNEE, 0.0)],
        joint_parents: vec![None, Some(0)],
        material_names: vec![String::new()],
        ..BodyMesh::default()
    };
    for i in 0..=rows {
        let y = HEIGHT * i as f32 / rows as f32;
        for j in 0..=columns {
            let a = std::f32::consts::TAU * j as f32 / columns as f32;
            let out = Vec3::new(a.cos(), 0.0, a.sin());
            body.positions.push(out * RADIUS + Vec3::Y * y);
            body.normals.push(out);
            body.uvs
                .push(Vec2::new(j as f32 / columns as f32, i as f32 / rows as f32));
            body.colors.push(Vec4::new(
                i as f32 / rows as f32,
                j as f32 / columns as f32,
                0.5,
                1.0,
            ));
            let w = upper_weight(y);
            body.joints.push([0, 1, 0, 0]);
            body.weights.push([1.0 - w, w, 0.0, 0.0]);
        }
    }
    let v = |i: u32, j: u32| i * (columns + 1) + j;
    for i in 0..rows {
        for j in 0..columns {
            // Counter-clockwise seen from outside.
            body.triangles.push([v(i, j), v(i + 1, j), v(i, j + 1)]);
            body.triangles
                .push([v(i, j + 1), v(i + 1, j), v(i + 1, j + 1)]);
            body.triangle_materials.extend([0, 0]);
        }
    }
    body
}

/// The bend at time code `t`: the whole body slides along +X, and the part above the knee
/// turns about Z around the knee, further each step.
fn slide(t: f64) -> Vec3 {
    Vec3::new(0.002 * t as f32, 0.0, 0.0)
}
fn angle(t: f64) -> f32 {
    0.03 * t as f32
}

/// The pose at time code `t`, as joint matrices.
fn pose(t: f64) -> SkinPose {
    let lower = Mat4::from_translation(slide(t));
    let knee = Vec3::new(0.0, KNEE, 0.0);
    let bend = Mat4::from_translation(knee)
        * Mat4::from_rotation_z(angle(t))
        * Mat4::from_translation(-knee);
    SkinPose {
        joints: vec![lower, lower * bend],
    }
}

/// Where vertex `p` (rest) sits at time code `t`, worked out without matrices: the blend of
/// the slid point and the slid, bent point.
fn expected_point(p: Vec3, t: f64) -> Vec3 {
    let w = upper_weight(p.y);
    let (s, c) = angle(t).sin_cos();
    let r = p - Vec3::new(0.0, KNEE, 0.0);
    let bent = Vec3::new(c * r.x - s * r.y, s * r.x + c * r.y + KNEE, r.z);
    (p * (1.0 - w) + bent * w) + slide(t)
}

const TIMES: [f64; 3] = [10.0, 20.0, 30.0];
const STRANDS: usize = 4;

fn curves() -> CoatCurves {
    CoatCurves {
        colors: vec![Vec3::new(0.8, 0.4, 0.1); STRANDS],
        root_normals: vec![Vec3::X; STRANDS],
        random: (0..STRANDS).map(|k| k as f32 / STRANDS as f32).collect(),
        widths: [0.003, 0.0025, 0.002, 0.0015, 0.001, 0.0005],
    }
}

/// The coat's points at time code `t`: straight strands standing off the cylinder.
fn strand_points(t: f64) -> Vec<Vec4> {
    (0..STRANDS * 6)
        .map(|i| {
            let (k, p) = ((i / 6) as f32, (i % 6) as f32);
            Vec4::new(RADIUS + 0.01 * p, 0.2 * k, 0.001 * t as f32, 0.0)
        })
        .collect()
}

fn timing() -> StageTiming {
    StageTiming {
        start: TIMES[0],
        end: TIMES[2],
        per_second: 60.0,
    }
}

/// The stage with `body` posed at `times` and the coat at `curve_times`.
fn write_stage(body: &BodyMesh, times: &[f64], curve_times: &[f64]) -> std::io::Result<Vec<u8>> {
    let skin = body_skin(body, times.to_vec(), pose)?;
    let mut stage = CoatStageWriter::begin_with_mesh(
        Vec::new(),
        timing(),
        &skin,
        &curves(),
        true,
        "a test body",
    )?;
    for &t in curve_times {
        stage.points(t, &strand_points(t))?;
    }
    stage.finish()
}

/// What Pixar's library reads from the stage at `argv[1]`, as JSON, run after
/// [`cli_common::CHECK_COMPLIANCE`] (which checks the file with Pixar's rules and leaves
/// `stage`, `checked_by` and `errors`).
const READ_BODY: &str = r#"
import json
from pxr import Usd, UsdGeom
mesh = UsdGeom.Mesh(stage.GetPrimAtPath("/Pelt/Skin"))
curves = UsdGeom.BasisCurves(stage.GetPrimAtPath("/Pelt/Coat"))
pv = UsdGeom.PrimvarsAPI(mesh.GetPrim())
def flat(values):
    return [c for v in values for c in v]
def sampled(attr):
    return {"times": list(attr.GetTimeSamples()),
            "values": [flat(attr.Get(t)) for t in attr.GetTimeSamples()]}
st = pv.GetPrimvar("st")
print(json.dumps({
    "checked_by": checked_by,
    "errors": errors,
    "valid_topology": bool(UsdGeom.Mesh.ValidateTopology(
        mesh.GetFaceVertexIndicesAttr().Get(), mesh.GetFaceVertexCountsAttr().Get(),
        len(mesh.GetPointsAttr().Get(Usd.TimeCode.EarliestTime())))[0]),
    "points": sampled(mesh.GetPointsAttr()),
    "normals": sampled(mesh.GetNormalsAttr()),
    "normals_interpolation": mesh.GetNormalsInterpolation(),
    "extent": sampled(mesh.GetExtentAttr()),
    "counts": list(mesh.GetFaceVertexCountsAttr().Get()),
    "indices": list(mesh.GetFaceVertexIndicesAttr().Get()),
    "st": flat(st.Get()),
    "st_interpolation": st.GetInterpolation(),
    "st_role": str(st.GetTypeName().role),
    "colors": flat(mesh.GetDisplayColorAttr().Get()),
    "color_interpolation": UsdGeom.Primvar(mesh.GetDisplayColorAttr()).GetInterpolation(),
    "curve_times": list(curves.GetPointsAttr().GetTimeSamples()),
    "start": stage.GetStartTimeCode(),
    "end": stage.GetEndTimeCode(),
}))
"#;

fn read_body(file: &Path) -> Value {
    let o = std::process::Command::new(cli_common::usd_python())
        .arg("-c")
        .arg(format!("{}{READ_BODY}", cli_common::CHECK_COMPLIANCE))
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

fn vec3s(v: &Value) -> Vec<Vec3> {
    floats(v).chunks(3).map(Vec3::from_slice).collect()
}

#[test]
fn a_bending_body_opens_in_pixars_library_posed_at_every_time_code() {
    let body = cylinder(12, 8);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("body.usda");
    let bytes = write_stage(&body, &TIMES, &TIMES).unwrap();
    pelt::files::write_atomic(&file, "the test stage", &bytes).unwrap();
    let stage = read_body(&file);

    assert_eq!(
        stage["errors"],
        Value::Array(vec![]),
        "{}: {stage}",
        stage["checked_by"]
    );
    assert_eq!(stage["valid_topology"], true);
    assert_eq!(stage["start"], TIMES[0]);
    assert_eq!(stage["end"], TIMES[2]);

    // Points: one sample a time code, each the hand-skinned cylinder.
    let times = floats(&stage["points"]["times"]);
    assert_eq!(times, TIMES.map(|t| t as f32));
    let samples = stage["points"]["values"].as_array().unwrap();
    let mut previous: Option<Vec<Vec3>> = None;
    for (sample, &t) in samples.iter().zip(&TIMES) {
        let points = vec3s(sample);
        assert_eq!(points.len(), body.positions.len());
        let off = points
            .iter()
            .zip(&body.positions)
            .map(|(p, &rest)| (*p - expected_point(rest, t)).length())
            .fold(0.0, f32::max);
        assert!(off <= 1e-5, "points at time code {t} are off by {off} m");
        // The top ring moves by far more than the tolerance from one sample to the next.
        if let Some(previous) = &previous {
            let moved = points.last().unwrap().distance(*previous.last().unwrap());
            assert!(moved > 0.01, "the top moved {moved} m before time code {t}");
        }
        previous = Some(points);
    }

    // Normals: time-sampled with the points, unit, turned with the bend above the knee.
    assert_eq!(stage["normals_interpolation"], "vertex");
    assert_eq!(floats(&stage["normals"]["times"]), times);
    for (sample, &t) in stage["normals"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&TIMES)
    {
        let normals = vec3s(sample);
        assert_eq!(normals.len(), body.positions.len());
        let (s, c) = angle(t).sin_cos();
        for ((n, rest), p) in normals.iter().zip(&body.normals).zip(&body.positions) {
            assert!((n.length() - 1.0).abs() < 1e-5, "normal {n}");
            if upper_weight(p.y) == 1.0 {
                let turned = Vec3::new(c * rest.x - s * rest.y, s * rest.x + c * rest.y, rest.z);
                assert!((*n - turned).length() < 1e-5, "normal {n}, turned {turned}");
            }
        }
    }

    // Extent: a box a time code, the box of that sample's points.
    assert_eq!(floats(&stage["extent"]["times"]), times);
    for (ext, sample) in stage["extent"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .zip(samples)
    {
        let ext = vec3s(ext);
        let points = vec3s(sample);
        let lo = points.iter().copied().fold(Vec3::INFINITY, Vec3::min);
        let hi = points.iter().copied().fold(Vec3::NEG_INFINITY, Vec3::max);
        assert!(
            ext[0].distance(lo) < 1e-6 && ext[1].distance(hi) < 1e-6,
            "{ext:?} vs {lo} {hi}"
        );
    }

    // Triangles, UVs (V flipped to USD's origin) and colours: the body's.
    let counts = floats(&stage["counts"]);
    assert_eq!(counts.len(), body.triangles.len());
    assert!(counts.iter().all(|&c| c == 3.0));
    let indices: Vec<u32> = floats(&stage["indices"])
        .iter()
        .map(|&i| i as u32)
        .collect();
    assert_eq!(indices, body.triangles.as_flattened());
    assert_eq!(stage["st_interpolation"], "vertex");
    assert_eq!(stage["st_role"], "TextureCoordinate");
    let st: Vec<f32> = body.uvs.iter().flat_map(|uv| [uv.x, 1.0 - uv.y]).collect();
    assert_eq!(floats(&stage["st"]), st);
    assert_eq!(stage["color_interpolation"], "vertex");
    let colors: Vec<f32> = body
        .colors
        .iter()
        .flat_map(|c| c.truncate().to_array())
        .collect();
    assert_eq!(floats(&stage["colors"]), colors);

    // The coat beside it, at the same time codes.
    assert_eq!(floats(&stage["curve_times"]), times);
}

#[test]
fn a_textured_body_shows_its_texture_in_the_display_colour() {
    let mut body = cylinder(4, 2);
    // Left half red, right half blue (sRGB 255 is linear 1).
    body.base_color_texture = Some(BodyTexture {
        width: 2,
        height: 1,
        texels: vec![[255, 0, 0, 255], [0, 0, 255, 255]],
    });
    let skin = body_skin(&body, vec![0.0], pose).unwrap();
    for ((color, vertex), uv) in skin.colors.iter().zip(&body.colors).zip(&body.uvs) {
        // The sampler repeats, so the seam's u = 1 is u = 0.
        let texel = if uv.x.fract() < 0.5 { Vec3::X } else { Vec3::Z };
        let expected = vertex.truncate() * texel;
        assert!(
            (*color - expected).length() < 1e-6,
            "{color} at {uv}, not {expected}"
        );
    }
}

#[test]
fn bad_bodies_poses_and_timings_are_refused_with_what_was_wrong() {
    let error = |r: std::io::Result<Vec<u8>>| r.unwrap_err().to_string();
    let body = cylinder(6, 4);

    let mut short = body.clone();
    short.normals.pop();
    let e = error(write_stage(&short, &TIMES, &TIMES));
    assert!(e.contains("normals") && e.contains("one a vertex"), "{e}");

    let mut stray = body.clone();
    stray.triangles[3][1] = 10_000;
    let e = error(write_stage(&stray, &TIMES, &TIMES));
    assert!(e.contains("vertex 10000"), "{e}");

    // The coat sampled at other time codes than the body.
    let e = error(write_stage(&body, &TIMES, &[10.0, 20.0, 31.0]));
    assert!(e.contains("skin's time codes"), "{e}");
    let e = error(write_stage(&body, &TIMES, &TIMES[..2]));
    assert!(e.contains("skin's time codes"), "{e}");

    // Time codes out of order.
    let e = error(write_stage(&body, &[10.0, 30.0, 20.0], &TIMES));
    assert!(e.contains("increasing"), "{e}");
    let e = error(write_stage(&body, &[10.0, f64::NAN, 30.0], &TIMES));
    assert!(e.contains("not finite"), "{e}");

    // A pose with fewer joints than the skin.
    let skin = body_skin(&body, TIMES.to_vec(), |_| SkinPose::rest(1)).unwrap();
    let begun = CoatStageWriter::begin_with_mesh(Vec::new(), timing(), &skin, &curves(), true, "");
    let e = begun.err().unwrap().to_string();
    assert!(
        e.contains("1 joint matrices") && e.contains("2 joints"),
        "{e}"
    );

    // Three poses in a still stage.
    let skin = body_skin(&body, TIMES.to_vec(), pose).unwrap();
    let begun = CoatStageWriter::begin_with_mesh(Vec::new(), timing(), &skin, &curves(), false, "");
    let e = begun.err().unwrap().to_string();
    assert!(e.contains("one pose"), "{e}");
}

#[test]
fn the_size_estimate_covers_a_ten_thousand_triangle_body() {
    // 100 quads around, 50 up: 10,000 triangles, 5,151 vertices.
    let body = cylinder(100, 50);
    assert_eq!(body.triangles.len(), 10_000);
    let written = |samples: usize| {
        let times: Vec<f64> = (0..samples).map(|k| 10.0 * k as f64).collect();
        let skin: StageMesh = body_skin(&body, times, pose).unwrap();
        let mut out = Vec::new();
        skin.write(&mut out, "Skin", true).unwrap();
        out.len() as u64
    };
    let (one, four) = (written(1), written(4));
    let per_sample = (four - one) / 3;
    let fixed = one - per_sample;
    println!(
        "10,000 triangles, {} vertices: {per_sample} bytes a time sample, {fixed} bytes fixed",
        body.positions.len()
    );
    // The estimate is at least what is written: not half as much again in all (the fixed
    // colours and indices are estimated at their longest), nor a quarter more for each
    // further sample.
    let estimate =
        |samples| mesh_usda_bytes(body.positions.len(), body.triangles.len(), samples, true);
    let per_sample_estimate = (estimate(4) - estimate(1)) / 3;
    for (what, estimate, actual, slack) in [
        ("one sample", estimate(1), one, 2),
        ("four samples", estimate(4), four, 2),
        ("each further sample", per_sample_estimate, per_sample, 4),
    ] {
        assert!(
            (actual..=actual + actual / slack).contains(&estimate),
            "{what}: estimated {estimate} bytes, wrote {actual}"
        );
    }
}
