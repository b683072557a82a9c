//! Hostile bodies: `--body` files and library bodies built to break the reader, the groom
//! and the commands. Each must end in a clear error that names the file and the part (or a
//! body that reads), never a panic, with no output destroyed and no work spent on what is
//! refused.

mod cli_common;

use cli_common::{pelt, s, stderr};
use pelt::body::{BodyMesh, BodyOptions, LoadedBody};
use serde_json::{Value, json};
use std::path::Path;

/// A strand count no adapter holds: a run that reaches the GPU is refused for it.
const NO_ADAPTER_HOLDS: &str = "999999999999";

/// A glTF document and its binary buffer, edited by each test before packing.
struct Parts {
    json: Value,
    bin: Vec<u8>,
}

impl Parts {
    /// Appends `bytes` 4-aligned as a new buffer view; its index.
    fn view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let at = self.bin.len();
        self.bin.extend_from_slice(bytes);
        let views = self.json["bufferViews"].as_array_mut().unwrap();
        views.push(json!({"buffer": 0, "byteOffset": at, "byteLength": bytes.len()}));
        let index = views.len() - 1;
        self.json["buffers"][0]["byteLength"] = json!(self.bin.len());
        index
    }

    /// Appends an accessor over a new view of `bytes`; its index.
    fn accessor(&mut self, bytes: &[u8], component: u32, count: usize, kind: &str) -> usize {
        let view = self.view(bytes);
        let list = self.json["accessors"].as_array_mut().unwrap();
        list.push(
            json!({"bufferView": view, "componentType": component, "count": count, "type": kind}),
        );
        list.len() - 1
    }

    fn glb(&self) -> Vec<u8> {
        pelt::vrm::glb::pack(&serde_json::to_vec(&self.json).unwrap(), &self.bin)
    }
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// An unskinned tetrahedron one unit tall: four vertices, four triangles, one node.
fn tetrahedron() -> Parts {
    let mut p = Parts {
        json: json!({
            "asset": {"version": "2.0"},
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0}],
            "meshes": [{"primitives": [{"attributes": {}, "indices": 1}]}],
            "accessors": [],
            "bufferViews": [],
            "buffers": [{"byteLength": 0}]
        }),
        bin: Vec::new(),
    };
    let positions = f32_bytes(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
    let pos = p.accessor(&positions, 5126, 4, "VEC3");
    p.json["accessors"][pos]["min"] = json!([0.0, 0.0, 0.0]);
    p.json["accessors"][pos]["max"] = json!([1.0, 1.0, 1.0]);
    let idx: Vec<u8> = [0u16, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    let ind = p.accessor(&idx, 5123, 12, "SCALAR");
    p.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(pos);
    p.json["meshes"][0]["primitives"][0]["indices"] = json!(ind);
    p
}

fn read(bytes: &[u8]) -> Result<LoadedBody, String> {
    LoadedBody::from_bytes(bytes, "hostile.glb", &BodyOptions::default()).map_err(|e| e.to_string())
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `--body` named as the command's own output (the reader knows a body by its bytes, not
/// its name, so a GLB called `fur.png` reads), or a hard link to it: refused before any
/// work, as every other input is, and the body is left as it was.
#[test]
fn a_body_that_is_the_output_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let body = tetrahedron().glb();
    let cases: [(&str, &str, &str); 4] = [
        ("render", "fur.png", "--out"),
        ("simulate", "state.npy", "--out"),
        ("export", "coat.usda", "--out"),
        ("demo", "shot.png", "--screenshot"),
    ];
    for (command, name, flag) in cases {
        for linked in [false, true] {
            let out = dir.path().join(name);
            let input = if linked {
                let other = dir.path().join(format!("linked-{name}"));
                std::fs::write(&other, &body).unwrap();
                let _ = std::fs::remove_file(&out);
                std::fs::hard_link(&other, &out).unwrap();
                other
            } else {
                std::fs::write(&out, &body).unwrap();
                out.clone()
            };
            let before = listing(dir.path());
            let mut args = vec![
                command,
                "--strands",
                NO_ADAPTER_HOLDS,
                "--body",
                s(&input),
                flag,
                s(&out),
            ];
            if command == "demo" {
                args.extend(["--frames", "1"]);
            }
            let o = pelt()
                .args(&args)
                .env_remove("DISPLAY")
                .env_remove("WAYLAND_DISPLAY")
                .output()
                .unwrap();
            let err = stderr(&o);
            assert!(!o.status.success(), "{args:?} succeeded: {err}");
            assert!(
                err.contains("is the input") && err.contains("would destroy it"),
                "{args:?}: {err}"
            );
            assert_eq!(std::fs::read(&input).unwrap(), body, "{args:?}");
            assert_eq!(listing(dir.path()), before, "{args:?} wrote something");
            let _ = std::fs::remove_file(&out);
            let _ = std::fs::remove_file(dir.path().join(format!("linked-{name}")));
        }
    }
}

/// A `width`×`height` RGBA PNG, every texel `rgba`.
fn png(width: u32, height: u32, rgba: [u8; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap();
        let texels: Vec<u8> = (0..width * height).flat_map(|_| rgba).collect();
        w.write_image_data(&texels).unwrap();
    }
    out
}

/// The tetrahedron with two materials' base colour textures: the first (on the triangles)
/// `first`, the second (on no triangle, so packed last) `second`.
fn two_textures(first: &[u8], second: &[u8]) -> Parts {
    let mut p = tetrahedron();
    let a = p.view(first);
    let b = p.view(second);
    p.json["images"] = json!([{"bufferView": a, "mimeType": "image/png"},
                              {"bufferView": b, "mimeType": "image/png"}]);
    p.json["textures"] = json!([{"source": 0}, {"source": 1}]);
    p.json["materials"] = json!([
        {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}},
        {"pbrMetallicRoughness": {"baseColorTexture": {"index": 1}}}
    ]);
    p.json["meshes"][0]["primitives"][0]["material"] = json!(0);
    p
}

/// A PNG `width`×`height` whose left half is `left` and right half `right`.
fn two_tone_png(width: u32, height: u32, left: [u8; 4], right: [u8; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap();
        let row: Vec<u8> = (0..width)
            .flat_map(|x| if x < width / 2 { left } else { right })
            .collect();
        let texels: Vec<u8> = (0..height).flat_map(|_| row.iter().copied()).collect();
        w.write_image_data(&texels).unwrap();
    }
    out
}

/// An avatar's texture of more texels than the packed texture holds is shrunk to fit,
/// keeping its pattern, rather than refusing the body or dropping its colours.
#[test]
fn a_texture_past_the_packed_size_is_shrunk_not_refused() {
    let (red, blue) = ([220, 20, 20, 255], [20, 20, 220, 255]);
    let big = two_tone_png(4200, 4100, red, blue);
    // The second material's image would take the packed texture past its size once the
    // big one has been shrunk to fill it, so it alone is left out.
    let body = read(&two_textures(&big, &png(2, 2, [9; 4])).glb()).unwrap();
    assert!(
        body.summary.contains("1 textures left out"),
        "{}",
        body.summary
    );
    let texture = body.mesh.base_color_texture.as_ref().unwrap();
    let (w, h) = (texture.width as usize, texture.height as usize);
    assert!(
        (w - 1) * h <= 4096 * 4096
            && (w - 1) * h > 4090 * 4090
            && ((w - 1) as f64 / h as f64 - 4200.0 / 4100.0).abs() < 1e-3,
        "packed {w}×{h}: the big tile should be shrunk, its aspect kept, to fill 4096² texels"
    );
    // Each half keeps its colour (the white column sits at the right end).
    let at = |x: usize, y: usize| texture.texels[y * w + x];
    assert_eq!(at(10, h / 2), red);
    assert_eq!(at(w - 20, h / 2), blue);
}

/// A header claiming more texels than Pelt decodes leaves that texture out (its material
/// keeps its colour factor) before any decoding: the body still reads.
#[test]
fn a_texture_past_the_decode_cap_is_left_out_undecoded() {
    let mut huge = png(2, 2, [9; 4]);
    let ihdr = huge.windows(4).position(|w| w == b"IHDR").unwrap();
    huge[ihdr + 4..ihdr + 8].copy_from_slice(&9000u32.to_be_bytes());
    huge[ihdr + 8..ihdr + 12].copy_from_slice(&9000u32.to_be_bytes());
    let crc = cli_common::png_crc32(&huge[ihdr..ihdr + 17]);
    huge[ihdr + 17..ihdr + 21].copy_from_slice(&crc.to_be_bytes());
    let body = read(&two_textures(&huge, &png(2, 2, [9; 4])).glb()).unwrap();
    assert!(
        body.summary.contains("1 textures left out"),
        "{}",
        body.summary
    );
    let texture = body.mesh.base_color_texture.as_ref().unwrap();
    assert_eq!((texture.width, texture.height), (3, 2));
}

/// An image that cannot join the packed texture is left out on its header's word, never
/// decoded: a file of thousands of images (each a small PNG of millions of texels, all
/// one buffer view) would otherwise cost thousands of full decodes. The second image here
/// has a sound header but broken texels, so decoding it would fail the read.
#[test]
fn an_image_left_out_of_the_texture_is_never_decoded() {
    let wide = png(4096, 1, [200, 100, 50, 255]);
    let mut tall = png(1, 4096, [0, 0, 0, 255]);
    let idat = tall.windows(4).position(|w| w == b"IDAT").unwrap();
    let len = u32::from_be_bytes(tall[idat - 4..idat].try_into().unwrap()) as usize;
    tall[idat + 4..idat + 4 + len].fill(0xff);
    let body = read(&two_textures(&wide, &tall).glb()).unwrap();
    assert!(
        body.summary.contains("1 textures left out"),
        "{}",
        body.summary
    );
    let texture = body.mesh.base_color_texture.as_ref().unwrap();
    assert_eq!((texture.width, texture.height), (4097, 1));
    // The same broken image where it fits is decoded, and its fault named.
    let err = read(&two_textures(&png(2, 2, [9; 4]), &tall).glb()).unwrap_err();
    assert!(
        err.starts_with("hostile.glb: image 1 does not decode"),
        "{err}"
    );
}

/// A body whose triangles all lie on one line (it has a height, so it can be fitted, but no
/// surface) is refused as such when read, naming the file; built in code, the library's
/// groom says the same of the body rather than of the built-in creature.
#[test]
fn a_body_of_collapsed_triangles_is_refused_as_having_no_area() {
    let mut p = tetrahedron();
    let line = f32_bytes(&[0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0]);
    let view = p.view(&line);
    p.json["accessors"][0]["bufferView"] = json!(view);
    let err = read(&p.glb()).unwrap_err();
    assert!(
        err.starts_with("hostile.glb: its 4 triangles have no area"),
        "{err}"
    );

    let body = read(&tetrahedron().glb()).unwrap();
    let mut mesh = body.mesh.clone();
    let top = mesh.positions[3];
    for v in &mut mesh.positions {
        *v = top * v.y;
    }
    let err = grow_on(mesh).unwrap_err();
    assert!(
        err.contains("the body's 4 triangles have no area") && !err.contains("creature"),
        "{err}"
    );
}

/// Grows a few strands on `mesh` (its own rest pose) on the CPU solver and steps once.
fn grow_on(mesh: BodyMesh) -> Result<(), String> {
    let loaded = LoadedBody::from_mesh(mesh);
    let motion = loaded.motion(None).map_err(|e| e.to_string())?;
    let body = pelt::sim::FurBody {
        mesh: std::sync::Arc::new(loaded.mesh),
        motion: std::sync::Arc::from(motion),
        groom: None,
    };
    let mut sim = pelt::sim::FurSim::new_cpu_on_body(&pelt::sim::FurConfig::new(64, 5), body)
        .map_err(|e| e.to_string())?;
    sim.step(2).map_err(|e| e.to_string())?;
    Ok(())
}

/// One change to a body built in code.
type Edit = Box<dyn Fn(&mut BodyMesh)>;

/// A body built in code whose arrays disagree in length, or whose triangles and joints
/// name what is not there: the library grows on what is usable or says why, never panics.
#[test]
fn a_library_body_whose_arrays_disagree_never_panics() {
    let good = read(&tetrahedron().glb()).unwrap().mesh;
    let edits: Vec<(&str, Edit)> = vec![
        ("normals short", Box::new(|m| m.normals.truncate(1))),
        ("uvs empty", Box::new(|m| m.uvs.clear())),
        ("colors empty", Box::new(|m| m.colors.clear())),
        ("joints empty", Box::new(|m| m.joints.clear())),
        ("weights short", Box::new(|m| m.weights.truncate(2))),
        ("joint past the skin", Box::new(|m| m.joints[0] = [9000; 4])),
        ("weights NaN", Box::new(|m| m.weights[1] = [f32::NAN; 4])),
        (
            "weights zero",
            Box::new(|m| m.weights.iter_mut().for_each(|w| *w = [0.0; 4])),
        ),
        (
            "triangle past the vertices",
            Box::new(|m| m.triangles[0] = [0, 1, 4_000_000_000]),
        ),
        (
            "materials short",
            Box::new(|m| m.triangle_materials.clear()),
        ),
        (
            "joint lists short",
            Box::new(|m| {
                m.joint_positions.clear();
                m.joint_parents = vec![Some(7); 3];
            }),
        ),
        (
            "texture smaller than it says",
            Box::new(|m| {
                m.base_color_texture = Some(pelt::body::BodyTexture {
                    width: 1000,
                    height: 1000,
                    texels: vec![[1; 4]; 3],
                });
            }),
        ),
        (
            "positions NaN but one triangle",
            Box::new(|m| {
                m.positions[3] = glam::Vec3::NAN;
            }),
        ),
        ("no triangles", Box::new(|m| m.triangles.clear())),
    ];
    for (what, edit) in edits {
        let mut mesh = good.clone();
        edit(&mut mesh);
        let outcome = std::panic::catch_unwind(|| grow_on(mesh));
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(e)) => assert!(!e.is_empty() && !e.contains(".rs:"), "{what}: {e}"),
            Err(_) => panic!("{what}: the library panicked"),
        }
    }
}

/// A body whose file stands 1e-30 or 1e30 units tall (or at the edge of f32) is fitted to
/// its height like any other: the fit's inverse is composed from its parts, not found
/// through a determinant (the scale cubed), which over- or underflows in f32.
#[test]
fn a_body_of_any_scale_in_its_file_is_fitted_to_its_height() {
    for scale in [1e-30f32, 1e-12, 1e12, 1e30, 3e38] {
        let mut p = tetrahedron();
        let corners = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0];
        let scaled: Vec<f32> = corners.iter().map(|c| c * scale).collect();
        let view = p.view(&f32_bytes(&scaled));
        p.json["accessors"][0]["bufferView"] = json!(view);
        let body = read(&p.glb()).unwrap_or_else(|e| panic!("{scale:e}: {e}"));
        let ys = body.mesh.positions.iter().map(|v| v.y);
        let height = ys.clone().fold(f32::MIN, f32::max) - ys.fold(f32::MAX, f32::min);
        assert!((height - 1.0).abs() < 1e-5, "{scale:e}: {height} m tall");
        assert!(
            body.rest_pose
                .joints
                .iter()
                .all(|m| m.abs_diff_eq(glam::Mat4::IDENTITY, 1e-5)),
            "{scale:e}: the rest pose moves the body"
        );
    }
}

/// A `.gltf` body's buffer or texture beside it named as the output: refused once the body
/// is read and before any work (the GPU is never reached, the file never replaced). Only
/// the read shows which files a `.gltf` names, so the check runs after it.
#[test]
fn a_gltf_bodys_buffer_or_texture_as_the_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = tetrahedron();
    let texture = png(2, 2, [10, 200, 30, 255]);
    p.json["buffers"][0]["uri"] = json!("state.npy");
    p.json["images"] = json!([{"uri": "fur.png"}]);
    p.json["textures"] = json!([{"source": 0}]);
    p.json["materials"] = json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    p.json["meshes"][0]["primitives"][0]["material"] = json!(0);
    let gltf = dir.path().join("body.gltf");
    std::fs::write(&gltf, serde_json::to_vec(&p.json).unwrap()).unwrap();
    std::fs::write(dir.path().join("state.npy"), &p.bin).unwrap();
    std::fs::write(dir.path().join("fur.png"), &texture).unwrap();
    let body = LoadedBody::read(&gltf, &BodyOptions::default()).unwrap();
    assert_eq!(
        body.files,
        [dir.path().join("state.npy"), dir.path().join("fur.png")]
    );
    let before = listing(dir.path());
    for (command, out) in [("simulate", "state.npy"), ("render", "fur.png")] {
        let out = dir.path().join(out);
        let o = pelt()
            .args([
                command,
                "--strands",
                NO_ADAPTER_HOLDS,
                "--body",
                s(&gltf),
                "--out",
                s(&out),
            ])
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(!o.status.success(), "{command} succeeded: {err}");
        assert!(
            err.contains("is the input") && err.contains("would destroy it"),
            "{command}: {err}"
        );
    }
    assert_eq!(std::fs::read(dir.path().join("state.npy")).unwrap(), p.bin);
    assert_eq!(std::fs::read(dir.path().join("fur.png")).unwrap(), texture);
    assert_eq!(listing(dir.path()), before);
}

/// The same node with the same inverse bind matrix in several skins is one joint (found by
/// a map: a file of hundreds of 4096-joint skins once took seconds of list walking).
#[test]
fn a_joint_listed_by_many_skins_is_one_joint() {
    let mut p = tetrahedron();
    p.json["nodes"] = json!([{"mesh": 0}, {}, {"translation": [0.0, 1.0, 0.0]}]);
    p.json["scenes"][0]["nodes"] = json!([0, 1, 2]);
    p.json["skins"] = json!([{"joints": [1, 2]}, {"joints": [2, 1]}, {"joints": [1]}]);
    let body = read(&p.glb()).unwrap();
    // Nodes 1 and 2, and the joint that carries the unskinned mesh of node 0.
    assert_eq!(body.mesh.joint_count, 3);
}

/// A file of very many long-named animations: the summary and the error for an animation
/// it lacks name the first few, each cut short, and count the rest, in one short line.
#[test]
fn thousands_of_animations_are_listed_in_one_short_line() {
    let mut p = tetrahedron();
    let times = p.accessor(&f32_bytes(&[0.0, 1.0]), 5126, 2, "SCALAR");
    p.json["accessors"][times]["min"] = json!([0.0]);
    p.json["accessors"][times]["max"] = json!([1.0]);
    let moves = p.accessor(&f32_bytes(&[0.0; 6]), 5126, 2, "VEC3");
    let clip = |i: usize| {
        json!({"name": format!("{i}{}", "x".repeat(1000)),
               "samplers": [{"input": times, "output": moves}],
               "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]})
    };
    p.json["animations"] = Value::Array((0..3000).map(clip).collect());
    let body = read(&p.glb()).unwrap();
    assert_eq!(body.animation_names.len(), 3000);
    assert!(
        body.summary.len() < 2_000 && body.summary.contains("and 2988 more"),
        "{} bytes: {}",
        body.summary.len(),
        &body.summary[..200]
    );
    let err = body.motion(Some("walk")).err().unwrap().to_string();
    assert!(
        err.len() < 2_000 && err.contains("and 2988 more"),
        "{} bytes",
        err.len()
    );
}

/// The most memory this process has held so far, bytes.
#[cfg(unix)]
fn peak_resident_bytes() -> u64 {
    // SAFETY: getrusage writes one plain struct that we own.
    let usage = unsafe {
        let mut u = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    usage.ru_maxrss as u64 * 1024
}

/// `--groom` curves named `.usda` that are a device (a link to `/dev/zero`) or a large file
/// of something else: refused after their first bytes as not USD text, not read to the
/// 1 GiB cap first.
#[cfg(unix)]
#[test]
fn groom_curves_that_are_not_usd_text_are_refused_after_their_first_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("coat.usda");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let before = peak_resident_bytes();
    let err = pelt::usd::read_groom(&link).unwrap_err().to_string();
    let grown = peak_resident_bytes().saturating_sub(before);
    assert!(
        err.contains("coat.usda") && err.contains("does not start with `#usda 1.0`"),
        "{err}"
    );
    assert!(grown < 64 << 20, "reading it took {} MiB", grown >> 20);
    // Text that is USD still reads past its first bytes.
    let usda = dir.path().join("real.usda");
    std::fs::write(&usda, "#usda 1.0\n(\n    upAxis = \"Y\"\n)\n").unwrap();
    let err = pelt::usd::read_groom(&usda).unwrap_err().to_string();
    assert!(!err.contains("does not start"), "{err}");
}
