//! `--groom FILE` through the commands, on the creature exported as a VRM and read back as
//! a body: a groom file's mask keeps every root off what it covers, its length and count
//! are what the coat gets, curves come back as the strands' rest shape (Pelt's own export
//! of the body's coat, and the same curves moved into the body's file frame as a tool
//! that groomed the file would write them), a groom without a body and a bad groom file
//! are refused naming the file and the key, with nothing written.

use glam::{Vec3, Vec4};
use pelt::body::{BodyMesh, BodyOptions, LoadedBody};
use pelt::groom::{bind_roots, colour_at_point};
use pelt::usd::{GroomInput, ImportedCurves, read_groom};
use std::path::Path;

mod cli_common;
use cli_common::{export_creature_vrm, fails, pelt, s, stderr};

/// The body as the commands read it (the default height).
fn body(path: &Path) -> LoadedBody {
    LoadedBody::read(path, &BodyOptions::default()).unwrap()
}

/// `pelt export --body BODY --steps 0 … --out OUT.usda` (the coat at its rest shape); the
/// curves written and stderr.
fn coat(body: &Path, extra: &[&str], out: &Path) -> (ImportedCurves, String) {
    let o = pelt()
        .args(["export", "--body", s(body), "--steps", "0", "--seed", "3"])
        .args(extra)
        .args(["--out", s(out)])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{extra:?}: {err}");
    match read_groom(out).unwrap() {
        GroomInput::Curves(c) => (c, err),
        GroomInput::File(_) => panic!("the coat read as a groom file"),
    }
}

/// Each curve's polyline length.
fn lengths(c: &ImportedCurves) -> Vec<f32> {
    c.curves
        .iter()
        .map(|c| c.points.windows(2).map(|w| w[0].distance(w[1])).sum())
        .collect()
}

/// The vertex colour of `mesh` under each root (its nearest point).
fn colours_under(mesh: &BodyMesh, c: &ImportedCurves) -> Vec<Vec4> {
    bind_roots(&c.roots(), mesh)
        .unwrap()
        .iter()
        .map(|b| colour_at_point(mesh, b.triangle as usize, b.barycentrics))
        .collect()
}

#[test]
fn a_mask_keeps_fur_off_what_it_covers_and_length_and_count_are_obeyed() {
    let dir = tempfile::tempdir().unwrap();
    let vrm = export_creature_vrm(dir.path());
    let loaded = body(&vrm);
    // The exported coat's colours: the pale (cream) places have a blue channel far above
    // the main orange's (0.044 linear).
    let pale = |c: Vec4| c.z > 0.3;
    let (plain, plain_err) = coat(&vrm, &["--strands", "600"], &dir.path().join("plain.usda"));
    // With no groom file the summary names the parts left bare.
    assert!(
        plain_err.contains("no fur on the materials \"eyes\", \"nose\""),
        "{plain_err}"
    );
    let covered = colours_under(&loaded.mesh, &plain)
        .into_iter()
        .filter(|&c| pale(c))
        .count();
    assert!(
        covered > 30,
        "without a mask {covered} of 600 roots grow on the pale skin"
    );
    let groom = dir.path().join("groom.json");
    std::fs::write(
        &groom,
        r#"{"pelt_groom": 1, "count": 600, "length": 0.05, "length_variation": 0,
            "clumping": {"strength": 0},
            "no_fur": [{"vertex_colour": "b", "above": 0.3}]}"#,
    )
    .unwrap();
    let (masked, err) = coat(
        &vrm,
        &["--groom", s(&groom)],
        &dir.path().join("masked.usda"),
    );
    assert!(err.contains("groom file"), "the summary names it: {err}");
    assert_eq!(masked.curves.len(), 600, "the file's count");
    let on_pale = colours_under(&loaded.mesh, &masked)
        .into_iter()
        .filter(|&c| pale(c))
        .count();
    assert_eq!(on_pale, 0, "roots on the masked skin");
    // Length 0.05 with no variation and no clumps: the solver keeps its segments' lengths.
    for l in lengths(&masked) {
        assert!((l - 0.05).abs() < 1e-3, "a strand {l} m long");
    }
    // A density: candidates over the skin that grows fur (no mask; not the skin another
    // layer of the body covers, such as the eyeballs' backs), so density × its area.
    let cover = pelt::groom::CoveredSkin::new(&loaded.mesh);
    let area: f64 = loaded
        .mesh
        .triangles
        .iter()
        .enumerate()
        .filter(|(i, _)| !cover.is_covered(*i))
        .map(|(_, t)| {
            let p = t.map(|i| loaded.mesh.positions[i as usize]);
            0.5 * f64::from((p[1] - p[0]).cross(p[2] - p[0]).length())
        })
        .sum();
    assert!(
        !cover.is_empty(),
        "the creature's eyes and nose reach inside its head"
    );
    std::fs::write(
        &groom,
        r#"{"pelt_groom": 1, "density": 300, "length": 0.1, "length_variation": 0,
            "clumping": {"strength": 0}, "no_fur": []}"#,
    )
    .unwrap();
    let (dense, _) = coat(&vrm, &["--groom", s(&groom)], &dir.path().join("d.usda"));
    assert_eq!(dense.curves.len(), (300.0 * area).round() as usize);
    for l in lengths(&dense) {
        assert!((l - 0.1).abs() < 2e-3, "a strand {l} m long");
    }
    // `simulate` says the count the density grew (not the solver's tier) and writes it.
    let npy = dir.path().join("d.npy");
    let o = pelt()
        .args([
            "simulate",
            "--solver",
            "cpu",
            "--body",
            s(&vrm),
            "--steps",
            "1",
        ])
        .args(["--groom", s(&groom), "--out", s(&npy)])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    // The strand count: the first number of the .npy header's shape, (strands, 6, 3).
    let bytes = std::fs::read(&npy).unwrap();
    let header = String::from_utf8_lossy(&bytes[..bytes.len().min(256)]);
    let shape = header.split("'shape': (").nth(1).expect("an npy shape");
    let written: usize = shape.split(',').next().unwrap().trim().parse().unwrap();
    assert_eq!(written, dense.curves.len());
    assert!(
        err.contains(&format!("solver: CPU ({written} strands")),
        "{err}"
    );
}

/// The largest distance from a point of a curve in `got` to the same point of the curve
/// in `want` whose root is nearest its root.
fn worst_shape_error(want: &ImportedCurves, got: &ImportedCurves) -> f32 {
    let mut worst = 0.0f32;
    for g in &got.curves {
        let w = want
            .curves
            .iter()
            .min_by(|a, b| {
                a.points[0]
                    .distance(g.points[0])
                    .total_cmp(&b.points[0].distance(g.points[0]))
            })
            .unwrap();
        for (a, b) in g.points.iter().zip(&w.points) {
            worst = worst.max(a.distance(*b));
        }
    }
    worst
}

/// `curves` as a linear `BasisCurves` prim in USD text, each point moved by `place`.
fn usda(curves: &ImportedCurves, place: impl Fn(Vec3) -> Vec3) -> String {
    let points: Vec<String> = curves
        .curves
        .iter()
        .flat_map(|c| c.points.iter().map(|&p| place(p)))
        .map(|p| format!("({}, {}, {})", p.x, p.y, p.z))
        .collect();
    format!(
        "#usda 1.0\ndef BasisCurves \"hair\"\n{{\n    uniform token type = \"linear\"\n    \
         int[] curveVertexCounts = [{}]\n    point3f[] points = [{}]\n}}\n",
        vec!["6"; curves.curves.len()].join(", "),
        points.join(", ")
    )
}

#[test]
fn curves_come_back_as_the_strands_rest_shape() {
    let dir = tempfile::tempdir().unwrap();
    let vrm = export_creature_vrm(dir.path());
    let (written, _) = coat(&vrm, &["--strands", "300"], &dir.path().join("a.usda"));
    // Pelt's own export, already in the fitted body's frame.
    let (back, err) = coat(
        &vrm,
        &["--groom", s(&dir.path().join("a.usda"))],
        &dir.path().join("b.usda"),
    );
    assert!(err.contains("already in the fitted body's frame"), "{err}");
    assert_eq!(back.curves.len(), 300);
    let worst = worst_shape_error(&written, &back);
    eprintln!("Pelt's export back: worst point {worst} m");
    assert!(worst < 1e-3, "a strand point came back {worst} m away");
    // The same curves in the body's file frame, as a tool that groomed the file writes
    // them; the commands fit the body (and so them) to 2 m.
    let tall = BodyOptions { height: 2.0 };
    let fit = LoadedBody::read(&vrm, &tall).unwrap().fit;
    let at_one_metre = body(&vrm).fit;
    let to_file = |p: Vec3| at_one_metre.inverse().transform_point3(p);
    let file_frame = dir.path().join("file.usda");
    std::fs::write(&file_frame, usda(&written, to_file)).unwrap();
    let (moved, err) = coat(
        &vrm,
        &["--body-height", "2", "--groom", s(&file_frame)],
        &dir.path().join("c.usda"),
    );
    assert!(err.contains("placed through the body's fit"), "{err}");
    let mut want = written.clone();
    for c in &mut want.curves {
        c.points = c.points.map(|p| fit.matrix().transform_point3(to_file(p)));
    }
    let worst = worst_shape_error(&want, &moved);
    eprintln!("the file frame through the fit: worst point {worst} m");
    assert!(worst < 2e-3, "a strand point came back {worst} m away");
}

#[test]
fn a_groom_needs_a_body_and_a_bad_one_is_named_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let groom = dir.path().join("groom.json");
    std::fs::write(&groom, r#"{"pelt_groom": 1}"#).unwrap();
    for (command, out) in [
        ("render", "x.png"),
        ("simulate", "x.npy"),
        ("export", "x.usda"),
        ("demo", ""),
    ] {
        let mut args = vec![command, "--groom", s(&groom)];
        let out = dir.path().join(out);
        if command != "demo" {
            args.extend(["--out", s(&out)]);
        }
        let e = fails(&args);
        assert!(
            e.contains("--groom")
                && e.contains("needs --body")
                && e.contains("export --out creature.vrm")
                && !e.contains("  "),
            "{command}: {e}"
        );
        assert!(!out.is_file(), "{command} wrote {}", out.display());
    }
    let vrm = export_creature_vrm(dir.path());
    // `COMMAND --body VRM --groom GROOM --out OUT`, which must fail: its stderr.
    let refused = |command: &str, out: &Path| {
        fails(&[
            command,
            "--body",
            s(&vrm),
            "--groom",
            s(&groom),
            "--out",
            s(out),
        ])
    };
    for (text, names) in [
        (
            r#"{"pelt_groom": 1, "length": 7}"#,
            &["groom.json", "`length`", "between"][..],
        ),
        (
            r#"{"pelt_groom": 1, "no_fur": [{"material": "Eyes"}]}"#,
            &["groom.json", "no_fur[0]", "\"Eyes\"", "\"coat\""][..],
        ),
    ] {
        std::fs::write(&groom, text).unwrap();
        for (command, out) in [
            ("render", "x.png"),
            ("simulate", "x.npy"),
            ("export", "x.usda"),
        ] {
            let out = dir.path().join(out);
            std::fs::write(&out, b"before").unwrap();
            let e = refused(command, &out);
            for n in names {
                assert!(e.contains(n), "{command}: {n} not in {e}");
            }
            assert_eq!(std::fs::read(&out).unwrap(), b"before", "{command}");
        }
    }
    // A count past what the device holds is refused before anything is grown (by the
    // renderer's binding, whichever solver steps the coat).
    std::fs::write(&groom, r#"{"pelt_groom": 1, "count": 16777216}"#).unwrap();
    let out = dir.path().join("big.png");
    let e = refused("render", &out);
    assert!(e.contains("16777216"), "{e}");
    assert!(!out.exists());
    // So is one past what the CPU solver can hold in this machine's memory (64 GiB for
    // 16,777,216 strands), on every command, whichever solver `auto` picks here; the
    // output is left as it was.
    let cpu = pelt::sim::SolverKind::Auto
        .for_adapter(&pelt::gpu::GpuContext::new().unwrap().info())
        == pelt::sim::SolverKind::Cpu;
    for (command, out) in [("simulate", "big.npy"), ("export", "big.usda")] {
        let out = dir.path().join(out);
        std::fs::write(&out, b"before").unwrap();
        let e = refused(command, &out);
        let named = if cpu {
            "the groom's 16777216 strands"
        } else {
            "16777216"
        };
        assert!(e.contains(named), "{command}: {e}");
        assert_eq!(std::fs::read(&out).unwrap(), b"before", "{command}");
    }
    // The groom file is an input: never the output.
    let g = dir.path().join("g.usda");
    std::fs::write(&g, "#usda 1.0\n").unwrap();
    let e = fails(&[
        "export",
        "--body",
        s(&vrm),
        "--groom",
        s(&g),
        "--out",
        s(&g),
    ]);
    assert!(e.contains("is the input") && e.contains("g.usda"), "{e}");
    assert_eq!(std::fs::read_to_string(&g).unwrap(), "#usda 1.0\n");
}
