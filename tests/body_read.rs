//! Reading bodies from files: a skinned two-bone cylinder built here as a GLB (and as a
//! `.gltf` with its buffer beside it), read back and checked against hand-computed
//! positions, weights, poses (LINEAR, STEP and CUBICSPLINE animations), the fit and the
//! texture; VRM 0.x turned to face +Z; hostile files refused with a clear error; and the
//! bodies made by others in tests/bodies/.

mod cli_common;

use std::f32::consts::FRAC_PI_4;
use std::path::Path;

use glam::{Mat4, Quat, Vec3, Vec4};
use pelt::body::{BodyError, BodyOptions, LoadedBody};
use serde_json::{Value, json};

/// The cylinder: radius 0.5, from y = 0 to y = 2 in five rings of eight vertices. Joint 0 is
/// the root (node 0 at the origin), joint 1 the upper bone (node 1 at y = 1). Rings below
/// y = 1 ride joint 0, above it joint 1, the middle ring both (weights written 0.25 + 0.25,
/// which the reader normalises).
const RINGS: [f32; 5] = [0.0, 0.5, 1.0, 1.5, 2.0];
const SEGMENTS: usize = 8;

/// A 2×2 PNG: red, green on the top row; blue, white below.
fn png_2x2() -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, 2, 2);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&[
            255, 0, 0, 255, 0, 255, 0, 255, //
            0, 0, 255, 255, 255, 255, 255, 255,
        ])
        .unwrap();
    }
    out
}

struct Parts {
    json: Value,
    bin: Vec<u8>,
}

fn push_f32(bin: &mut Vec<u8>, values: &[f32]) -> (usize, usize) {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let at = bin.len();
    for v in values {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    (at, bin.len() - at)
}

/// The cylinder's glTF JSON and binary buffer.
fn cylinder() -> Parts {
    let mut positions = Vec::new();
    let mut joints: Vec<u8> = Vec::new();
    let mut weights = Vec::new();
    let mut uvs = Vec::new();
    for &y in &RINGS {
        for s in 0..SEGMENTS {
            let a = s as f32 / SEGMENTS as f32 * std::f32::consts::TAU;
            positions.extend_from_slice(&[0.5 * a.cos(), y, 0.5 * a.sin()]);
            let (j, w) = if y < 1.0 {
                ([0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
            } else if y == 1.0 {
                ([0, 1, 0, 0], [0.25, 0.25, 0.0, 0.0])
            } else {
                ([1, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
            };
            joints.extend_from_slice(&j);
            weights.extend_from_slice(&w);
            uvs.extend_from_slice(&[0.75, 0.25]);
        }
    }
    let mut indices: Vec<u16> = Vec::new();
    for r in 0..RINGS.len() - 1 {
        for s in 0..SEGMENTS {
            let a = (r * SEGMENTS + s) as u16;
            let b = (r * SEGMENTS + (s + 1) % SEGMENTS) as u16;
            let (c, d) = (a + SEGMENTS as u16, b + SEGMENTS as u16);
            indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    let n = positions.len() / 3;
    let mut bin = Vec::new();
    let pos = push_f32(&mut bin, &positions);
    let wts = push_f32(&mut bin, &weights);
    let uv = push_f32(&mut bin, &uvs);
    let jnt_at = bin.len();
    bin.extend_from_slice(&joints);
    let idx_at = bin.len();
    for i in &indices {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    let ibm = push_f32(
        &mut bin,
        &[
            Mat4::IDENTITY.to_cols_array(),
            Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)).to_cols_array(),
        ]
        .concat(),
    );
    // Animations: bend (LINEAR rotation of node 1, 90° about Z over 1 s), hop (STEP
    // translation of node 0: +X from 0.5 s to 1 s), swell (CUBICSPLINE translation of node 0 over 2 s).
    let times01 = push_f32(&mut bin, &[0.0, 1.0]);
    let times02 = push_f32(&mut bin, &[0.0, 2.0]);
    let q90 = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let bend = push_f32(&mut bin, &[0.0, 0.0, 0.0, 1.0, q90.x, q90.y, q90.z, q90.w]);
    let times3 = push_f32(&mut bin, &[0.0, 0.5, 1.0]);
    let hop = push_f32(&mut bin, &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let swell = push_f32(
        &mut bin,
        &[
            0.0, 0.0, 0.0, /* value */ 0.0, 0.0, 0.0, /* out */ 1.0, 0.0, 0.0, //
            0.0, 0.0, 0.0, /* value */ 0.0, 1.0, 0.0, /* out */ 0.0, 0.0, 0.0,
        ],
    );
    let png = png_2x2();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let png_at = bin.len();
    bin.extend_from_slice(&png);
    let view =
        |(at, len): (usize, usize)| json!({"buffer": 0, "byteOffset": at, "byteLength": len});
    let json = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 2]}],
        "nodes": [
            {"name": "root", "children": [1]},
            {"name": "upper", "translation": [0.0, 1.0, 0.0]},
            {"name": "body", "mesh": 0, "skin": 0}
        ],
        "skins": [{"joints": [0, 1], "inverseBindMatrices": 6}],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2, "TEXCOORD_0": 3},
            "indices": 4, "material": 0
        }]}],
        "materials": [{"name": "fur", "pbrMetallicRoughness": {
            "baseColorFactor": [0.5, 0.5, 0.5, 1.0], "baseColorTexture": {"index": 0}}}],
        "textures": [{"source": 0}],
        "images": [{"bufferView": 13, "mimeType": "image/png"}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3",
             "min": [-0.5, 0.0, -0.5], "max": [0.5, 2.0, 0.5]},
            {"bufferView": 1, "componentType": 5121, "count": n, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": n, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5126, "count": n, "type": "VEC2"},
            {"bufferView": 4, "componentType": 5123, "count": indices.len(), "type": "SCALAR"},
            {"bufferView": 5, "componentType": 5126, "count": 1, "type": "SCALAR"},
            {"bufferView": 5, "componentType": 5126, "count": 2, "type": "MAT4"},
            {"bufferView": 6, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 7, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [2.0]},
            {"bufferView": 8, "componentType": 5126, "count": 2, "type": "VEC4"},
            {"bufferView": 9, "componentType": 5126, "count": 3, "type": "VEC3"},
            {"bufferView": 10, "componentType": 5126, "count": 6, "type": "VEC3"},
            {"bufferView": 14, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0.0], "max": [1.0]}
        ],
        "bufferViews": [
            view(pos), view(wts).clone(), view(wts), view(uv),
            {"buffer": 0, "byteOffset": idx_at, "byteLength": indices.len() * 2},
            view(ibm), view(times01), view(times02), view(bend), view(hop), view(swell),
            {"buffer": 0, "byteOffset": 0, "byteLength": 4},
            {"buffer": 0, "byteOffset": 0, "byteLength": 4},
            {"buffer": 0, "byteOffset": png_at, "byteLength": png.len()},
            view(times3)
        ],
        "buffers": [{"byteLength": bin.len()}],
        "animations": [
            {"name": "bend", "samplers": [{"input": 7, "output": 9, "interpolation": "LINEAR"}],
             "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]},
            {"name": "hop", "samplers": [{"input": 12, "output": 10, "interpolation": "STEP"}],
             "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]},
            {"name": "swell", "samplers": [{"input": 8, "output": 11, "interpolation": "CUBICSPLINE"}],
             "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}
        ]
    });
    let mut parts = Parts { json, bin };
    // Buffer view 1 holds the joints (bytes), not the weights.
    parts.json["bufferViews"][1] =
        json!({"buffer": 0, "byteOffset": jnt_at, "byteLength": joints.len()});
    parts
}

fn glb(parts: &Parts) -> Vec<u8> {
    pelt::vrm::glb::pack(&serde_json::to_vec(&parts.json).unwrap(), &parts.bin)
}

fn read(bytes: &[u8]) -> Result<LoadedBody, BodyError> {
    LoadedBody::from_bytes(bytes, "cylinder.glb", &BodyOptions::default())
}

fn error_of(bytes: &[u8]) -> String {
    match read(bytes) {
        Ok(_) => panic!("the file was read"),
        Err(e) => e.to_string(),
    }
}

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).length() <= tol
}

/// The fit of the test cylinder at the default 1 m height: 2 units tall → scale 0.5, no
/// shift (its feet are at y = 0 and it is centred on the axis).
fn fitted(p: Vec3) -> Vec3 {
    p * 0.5
}

/// The vertex of ring `r`, segment 0 (on +X).
fn vertex(r: usize) -> usize {
    r * SEGMENTS
}

#[test]
fn positions_weights_and_fit_read_back() {
    let body = read(&glb(&cylinder())).unwrap();
    let mesh = &body.mesh;
    assert_eq!(mesh.positions.len(), RINGS.len() * SEGMENTS);
    assert_eq!(mesh.triangles.len(), (RINGS.len() - 1) * SEGMENTS * 2);
    assert_eq!(mesh.joint_count, 2);
    assert_eq!(mesh.joint_parents, vec![None, Some(0)]);
    for (r, &y) in RINGS.iter().enumerate() {
        let p = mesh.positions[vertex(r)];
        assert!(
            close(p, fitted(Vec3::new(0.5, y, 0.0)), 1e-5),
            "ring {r}: {p}"
        );
    }
    // The middle ring's 0.25 + 0.25 is normalised to a half each.
    let w = mesh.weights[vertex(2)];
    assert!(
        (w[0] - 0.5).abs() < 1e-6 && (w[1] - 0.5).abs() < 1e-6,
        "{w:?}"
    );
    assert_eq!(mesh.joints[vertex(2)][..2], [0, 1]);
    assert_eq!(mesh.weights[vertex(4)], [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(mesh.joints[vertex(4)][0], 1);
    let lo = mesh.positions.iter().fold(f32::INFINITY, |m, p| m.min(p.y));
    let hi = mesh
        .positions
        .iter()
        .fold(f32::NEG_INFINITY, |m, p| m.max(p.y));
    assert!(
        (hi - lo - 1.0).abs() < 1e-4 && lo.abs() < 1e-6,
        "{lo}..{hi}"
    );
    assert!(close(
        mesh.joint_positions[1],
        Vec3::new(0.0, 0.5, 0.0),
        1e-6
    ));
    assert_eq!(body.animation_names, ["bend", "hop", "swell"]);
    assert_eq!(body.animation_duration("swell"), Some(2.0));
    // Normals from the triangles point outwards (+X at the segment-0 vertex).
    assert!(
        mesh.normals[vertex(1)].x > 0.9,
        "{}",
        mesh.normals[vertex(1)]
    );
}

#[test]
fn a_fitted_height_is_met_and_a_bad_one_refused() {
    let bytes = glb(&cylinder());
    let body = LoadedBody::from_bytes(&bytes, "c.glb", &BodyOptions { height: 1.7 }).unwrap();
    let ys: Vec<f32> = body.mesh.positions.iter().map(|p| p.y).collect();
    let h =
        ys.iter().cloned().fold(f32::MIN, f32::max) - ys.iter().cloned().fold(f32::MAX, f32::min);
    assert!((h - 1.7).abs() < 1e-4, "{h}");
    assert!((body.fit.scale - 0.85).abs() < 1e-6, "{}", body.fit.scale);
    for height in [f32::NAN, 0.0, -1.0, 1e6] {
        let err = LoadedBody::from_bytes(&bytes, "c.glb", &BodyOptions { height }).unwrap_err();
        assert!(err.to_string().contains("give a height in metres"), "{err}");
    }
}

#[test]
fn linear_rotation_bends_the_upper_bone() {
    let body = read(&glb(&cylinder())).unwrap();
    let motion = body.motion(Some("bend")).unwrap();
    // Half-way: 45° about Z around the upper joint at file y = 1.
    let pose = motion.pose_at(0.5);
    let top = Vec3::new(0.5, 2.0, 0.0);
    let r = Quat::from_rotation_z(FRAC_PI_4);
    let want = fitted(r * (top - Vec3::Y) + Vec3::Y);
    let (got, _) = pose.skin_vertex(&body.mesh, vertex(4));
    assert!(close(got, want, 1e-5), "{got} vs {want}");
    // The lower ring does not move; the middle ring moves half-way (linear blend).
    let (low, _) = pose.skin_vertex(&body.mesh, vertex(0));
    assert!(close(low, fitted(Vec3::new(0.5, 0.0, 0.0)), 1e-6), "{low}");
    let mid = Vec3::new(0.5, 1.0, 0.0);
    let want_mid = fitted((mid + (r * (mid - Vec3::Y) + Vec3::Y)) * 0.5);
    let (got_mid, _) = pose.skin_vertex(&body.mesh, vertex(2));
    assert!(close(got_mid, want_mid, 1e-5), "{got_mid} vs {want_mid}");
    // A quarter of the way: 22.5° (spherical interpolation; a normalised linear blend of
    // the quaternions would give 21.6°).
    let r = Quat::from_rotation_z(FRAC_PI_4 / 2.0);
    let want = fitted(r * (top - Vec3::Y) + Vec3::Y);
    let (quarter, _) = motion.pose_at(0.25).skin_vertex(&body.mesh, vertex(4));
    assert!(close(quarter, want, 1e-5), "{quarter} vs {want}");
    // Looped: 1.5 s is 0.5 s again; before the first key and at the end, the end values.
    let again = motion.pose_at(1.5).skin_vertex(&body.mesh, vertex(4)).0;
    assert!(close(again, got, 1e-5), "{again} vs {got}");
    let end = motion
        .pose_at(0.999_999)
        .skin_vertex(&body.mesh, vertex(4))
        .0;
    let r90 = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    assert!(
        close(end, fitted(r90 * (top - Vec3::Y) + Vec3::Y), 1e-4),
        "{end}"
    );
}

#[test]
fn step_translation_jumps_at_its_key() {
    let body = read(&glb(&cylinder())).unwrap();
    let motion = body.motion(Some("hop")).unwrap();
    let base = body.mesh.positions[vertex(0)];
    let at = |t: f64| motion.pose_at(t).skin_vertex(&body.mesh, vertex(0)).0;
    // Keys at 0, 0.5 and 1 s: (0, 0, 0), (1, 0, 0), (0, 0, 0), each held until the next.
    let shifted = base + fitted(Vec3::X);
    assert!(close(at(0.3), base, 1e-6), "{}", at(0.3));
    assert!(close(at(0.5), shifted, 1e-6), "{}", at(0.5));
    assert!(close(at(0.99), shifted, 1e-6), "{}", at(0.99));
    // Looped: 1.25 s is 0.25 s.
    assert!(close(at(1.25), base, 1e-6), "{}", at(1.25));
}

#[test]
fn cubic_spline_translation_follows_the_hermite_curve() {
    let body = read(&glb(&cylinder())).unwrap();
    let motion = body.motion(Some("swell")).unwrap();
    // Keys (0, 0, 0) at 0 s with out-tangent (1, 0, 0), (0, 1, 0) at 2 s with in-tangent 0:
    // at 1 s, u = 0.5, tangents × 2 s: 0.5 p0 + 0.125 (2, 0, 0) + 0.5 p1 = (0.25, 0.5, 0).
    let pose = motion.pose_at(1.0);
    let base = body.mesh.positions[vertex(3)];
    let (got, _) = pose.skin_vertex(&body.mesh, vertex(3));
    let want = base + fitted(Vec3::new(0.25, 0.5, 0.0));
    assert!(close(got, want, 1e-5), "{got} vs {want}");
    // At 0.5 s: u = 0.25 → h00 = 0.84375, h10 = 0.140625, h01 = 0.15625.
    let (q, _) = motion.pose_at(0.5).skin_vertex(&body.mesh, vertex(3));
    let want = base + fitted(Vec3::new(0.140_625 * 2.0, 0.156_25, 0.0));
    assert!(close(q, want, 1e-5), "{q} vs {want}");
}

#[test]
fn the_rest_pose_is_the_files_and_unknown_animations_are_named() {
    // The file shows the upper bone turned 90° about Z (its node's own rotation), so its
    // rest pose is not its bind pose: the body is fitted as shown, and the still motion
    // holds that pose.
    let mut parts = cylinder();
    let q = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    parts.json["nodes"][1]["rotation"] = json!([q.x, q.y, q.z, q.w]);
    let body = read(&glb(&parts)).unwrap();
    // Shown: y from 0 to 1.5, x from -1 to 0.5 (file units) → scale 1/1.5, centre x -0.25.
    assert!(
        (body.fit.scale - 1.0 / 1.5).abs() < 1e-5,
        "{}",
        body.fit.scale
    );
    let still = body.motion(None).unwrap().pose_at(3.0);
    assert_eq!(still, body.rest_pose);
    // The top vertex (file (0.5, 2, 0)) is shown at (-1, 1.5, 0): fitted (-0.5, 1, 0).
    let (top, _) = still.skin_vertex(&body.mesh, vertex(4));
    assert!(close(top, Vec3::new(-0.5, 1.0, 0.0), 1e-5), "{top}");
    // The lower ring stays where the bind pose has it.
    let (low, _) = still.skin_vertex(&body.mesh, vertex(0));
    assert!(close(low, body.mesh.positions[vertex(0)], 1e-6), "{low}");
    let err = body.motion(Some("dance")).err().unwrap().to_string();
    assert!(
        err.contains("\"dance\"") && err.contains("\"bend\", \"hop\", \"swell\""),
        "{err}"
    );
}

#[test]
fn the_base_colour_texture_is_sampled_at_the_vertex_uv() {
    let body = read(&glb(&cylinder())).unwrap();
    let mesh = &body.mesh;
    let texture = mesh.base_color_texture.as_ref().expect("a texture");
    // UV (0.75, 0.25) is the top-right texel: green.
    let c = texture.sample(mesh.uvs[vertex(1)]);
    assert!((c - Vec4::new(0.0, 1.0, 0.0, 1.0)).length() < 1e-6, "{c}");
    // The factor 0.5 is in the vertex colour.
    assert!((mesh.colors[0] - Vec4::new(0.5, 0.5, 0.5, 1.0)).length() < 1e-6);
    assert_eq!(mesh.material_names, ["fur"]);
    assert!(mesh.triangle_materials.iter().all(|&m| m == 0));
}

#[test]
fn a_jpeg_base_colour_is_decoded() {
    // An 8×8 JPEG of one colour in place of the PNG (the image's bytes at the end of the
    // buffer, its view widened to them).
    let mut parts = cylinder();
    let mut jpeg = Vec::new();
    let pixels = [200u8, 80, 30].repeat(64);
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 95)
        .encode(&pixels, 8, 8, image::ExtendedColorType::Rgb8)
        .unwrap();
    let at = parts.bin.len();
    parts.bin.extend_from_slice(&jpeg);
    parts.json["bufferViews"][13] =
        json!({"buffer": 0, "byteOffset": at, "byteLength": jpeg.len()});
    parts.json["images"][0]["mimeType"] = json!("image/jpeg");
    parts.json["buffers"][0]["byteLength"] = json!(parts.bin.len());
    let body = read(&glb(&parts)).unwrap();
    let texture = body.mesh.base_color_texture.as_ref().unwrap();
    assert_eq!((texture.width, texture.height), (8 + 1, 8));
    let [r, g, b, a] = texture.texels[3 * 9 + 3];
    for (got, want) in [(r, 200), (g, 80), (b, 30), (a, 255)] {
        assert!(got.abs_diff(want) <= 3, "{:?}", [r, g, b, a]);
    }
}

/// The cylinder marked as a VRM 0.x avatar (root extension `VRM`), or as VRM 1.0.
fn as_vrm(version0: bool) -> Vec<u8> {
    let mut parts = cylinder();
    // A nose on the file's -Z side (VRM 0.x faces -Z): move segment 6 (at -Z) outwards.
    let at = (vertex(3) + 6) * 12 + 8;
    parts.bin[at..at + 4].copy_from_slice(&(-1.0f32).to_le_bytes());
    if version0 {
        parts.json["extensionsUsed"] = json!(["VRM"]);
        parts.json["extensions"] = json!({"VRM": {"exporterVersion": "test"}});
    } else {
        parts.json["extensionsUsed"] = json!(["VRMC_vrm"]);
        parts.json["extensions"] = json!({"VRMC_vrm": {"specVersion": "1.0"}});
    }
    glb(&parts)
}

#[test]
fn a_vrm0_avatar_is_turned_to_face_plus_z() {
    let nose = vertex(3) + 6;
    let old = read(&as_vrm(true)).unwrap();
    assert!(old.fit.turned);
    let p = old.mesh.positions[nose];
    // Turned half a turn about +Y, then centred: the nose (file z = -1) is now in front.
    assert!(p.z > 0.2, "{p}");
    let new = read(&as_vrm(false)).unwrap();
    assert!(!new.fit.turned);
    assert!(
        new.mesh.positions[nose].z < -0.2,
        "{}",
        new.mesh.positions[nose]
    );
    assert!(old.summary.contains("turned to face +Z"), "{}", old.summary);
    // The pose is turned with it: bending about Z tips the top towards -X once turned.
    let top = old
        .motion(Some("bend"))
        .unwrap()
        .pose_at(0.5)
        .skin_vertex(&old.mesh, vertex(4))
        .0;
    assert!(
        top.x > 0.0 && old.mesh.positions[vertex(4)].x < 0.0,
        "{top}"
    );
}

#[test]
fn a_gltf_with_its_buffer_beside_it_reads_and_one_missing_or_escaping_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut parts = cylinder();
    parts.json["buffers"][0]["uri"] = json!("cyl%20data.bin");
    std::fs::write(dir.path().join("cyl data.bin"), &parts.bin).unwrap();
    let path = dir.path().join("cyl.gltf");
    std::fs::write(&path, serde_json::to_vec(&parts.json).unwrap()).unwrap();
    let body = LoadedBody::read(&path, &BodyOptions::default()).unwrap();
    assert_eq!(body.mesh.joint_count, 2);

    parts.json["buffers"][0]["uri"] = json!("missing.bin");
    std::fs::write(&path, serde_json::to_vec(&parts.json).unwrap()).unwrap();
    let err = LoadedBody::read(&path, &BodyOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cyl.gltf") && err.contains("buffer 0") && err.contains("missing.bin"),
        "{err}"
    );

    parts.json["buffers"][0]["uri"] = json!("../cyl data.bin");
    std::fs::write(&path, serde_json::to_vec(&parts.json).unwrap()).unwrap();
    let err = LoadedBody::read(&path, &BodyOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("leaves the glTF file's folder"), "{err}");

    // A data URI works too.
    use base64::Engine;
    let data = base64::engine::general_purpose::STANDARD.encode(&parts.bin);
    parts.json["buffers"][0]["uri"] = json!(format!("data:application/octet-stream;base64,{data}"));
    let body = LoadedBody::from_bytes(
        &serde_json::to_vec(&parts.json).unwrap(),
        "d.gltf",
        &BodyOptions::default(),
    )
    .unwrap();
    assert_eq!(body.mesh.triangles.len(), 64);
}

#[test]
fn hostile_files_get_clear_errors() {
    let good = glb(&cylinder());
    // Truncated: half the file.
    let err = error_of(&good[..good.len() / 2]);
    assert!(
        err.starts_with("cylinder.glb: ") && err.contains("file has"),
        "{err}"
    );

    let edit = |f: &dyn Fn(&mut Parts)| {
        let mut p = cylinder();
        f(&mut p);
        error_of(&glb(&p))
    };
    // A joint index past the skin, with weight.
    let err =
        edit(&|p| p.bin[p.json["bufferViews"][1]["byteOffset"].as_u64().unwrap() as usize] = 70);
    assert!(
        err.contains("mesh 0 primitive 0: JOINTS_0 refers to joint 70 but the skin has 2"),
        "{err}"
    );
    // A vertex index past the vertices.
    let err = edit(&|p| {
        let at = p.json["bufferViews"][4]["byteOffset"].as_u64().unwrap() as usize;
        p.bin[at..at + 2].copy_from_slice(&999u16.to_le_bytes());
    });
    assert!(
        err.contains("indices refer to vertex 999 but the primitive has 40"),
        "{err}"
    );
    // A huge count.
    let err = edit(&|p| p.json["accessors"][0]["count"] = json!(4_000_000_000u64));
    assert!(
        err.contains("POSITION") && err.contains("more than"),
        "{err}"
    );
    // A count past the buffer view.
    let err = edit(&|p| p.json["accessors"][4]["count"] = json!(240));
    assert!(
        err.contains("indices") && err.contains("run past buffer view 4"),
        "{err}"
    );
    // NaN in a position.
    let err = edit(&|p| p.bin[4..8].copy_from_slice(&f32::NAN.to_le_bytes()));
    assert!(
        err.contains("POSITION") && err.contains("not a finite number"),
        "{err}"
    );
    // A POSITION accessor that does not exist (the `gltf` crate's validation would panic).
    let err = edit(&|p| p.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(77));
    assert!(
        err.contains("mesh 0 primitive 0: POSITION names accessor 77, but the file has 13"),
        "{err}"
    );
    // A node index that does not exist.
    let err = edit(&|p| p.json["nodes"][0]["children"] = json!([9]));
    assert!(err.contains("nodes[0].children[0]"), "{err}");
    // A cycle of children.
    let err = edit(&|p| p.json["nodes"][1]["children"] = json!([0]));
    assert!(
        err.contains("cycle") || err.contains("more than one parent"),
        "{err}"
    );
    // An animation channel aimed at a path or a node that does not exist (the `gltf`
    // crate's validation passes both).
    let err = edit(&|p| p.json["animations"][0]["channels"][0]["target"]["path"] = json!("bogus"));
    assert!(
        err.contains("animation 0 channel 0: its target path"),
        "{err}"
    );
    let err = edit(&|p| p.json["animations"][1]["channels"][0]["target"]["node"] = json!(99));
    assert!(
        err.contains("animation 1 channel 0 targets node 99"),
        "{err}"
    );
    // A GLB whose BIN chunk is missing.
    let err = error_of(&pelt::vrm::glb::pack(
        &serde_json::to_vec(&cylinder().json).unwrap(),
        &[],
    ));
    assert!(
        err.contains("buffer 0") && err.contains("binary chunk"),
        "{err}"
    );
    // Key times that go backwards.
    let err = edit(&|p| {
        let at = p.json["bufferViews"][6]["byteOffset"].as_u64().unwrap() as usize;
        p.bin[at + 4..at + 8].copy_from_slice(&(-1.0f32).to_le_bytes());
    });
    assert!(
        err.contains("animation 0 channel 0") && err.contains("backwards"),
        "{err}"
    );
    // A broken texture: its pixels cut short.
    let err = edit(&|p| {
        let at = p.json["bufferViews"][13]["byteOffset"].as_u64().unwrap() as usize;
        let len = p.json["bufferViews"][13]["byteLength"].as_u64().unwrap() as usize;
        p.bin[at + 33..at + len].fill(0);
    });
    assert!(err.contains("image 0 does not decode"), "{err}");
    // A texture whose header claims 20000 × 20000 texels: left out before decoding (its
    // texels, which are not there, would fail to decode), the body read without it.
    let claims_huge = |p: &mut Parts| {
        let at = p.json["bufferViews"][13]["byteOffset"].as_u64().unwrap() as usize;
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend_from_slice(&20_000u32.to_be_bytes());
        ihdr.extend_from_slice(&20_000u32.to_be_bytes());
        ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
        p.bin[at + 12..at + 29].copy_from_slice(&ihdr);
        p.bin[at + 29..at + 33].copy_from_slice(&cli_common::png_crc32(&ihdr).to_be_bytes());
    };
    let mut p = cylinder();
    claims_huge(&mut p);
    let body = read(&glb(&p)).expect("a body whose texture is left out");
    assert!(
        body.summary.contains("1 textures left out") && body.mesh.base_color_texture.is_none(),
        "{}",
        body.summary
    );
    // Not glTF at all.
    let err = error_of(b"hello");
    assert!(err.contains("neither a GLB"), "{err}");
}

/// A device is refused after its first bytes (not read to the 256 MiB cap), a folder at once.
#[cfg(unix)]
#[test]
fn a_device_or_a_folder_is_refused_quickly() {
    let err = LoadedBody::read(Path::new("/dev/zero"), &BodyOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("/dev/zero: ") && err.contains("neither a GLB"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let err = LoadedBody::read(dir.path(), &BodyOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("it is a folder"), "{err}");
}

#[test]
fn random_damage_never_panics() {
    // Every byte of the GLB flipped in turn (a small sample of a fuzzer's work): each read
    // ends in a body or an error naming the file.
    let good = glb(&cylinder());
    for at in (0..good.len()).step_by(7) {
        let mut bad = good.clone();
        bad[at] ^= 0xa5;
        if let Err(e) = read(&bad) {
            assert!(e.to_string().starts_with("cylinder.glb: "), "{e}");
        }
    }
}

fn asset(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bodies")
        .join(name)
}

fn height_of(body: &LoadedBody) -> f32 {
    let ys = body
        .mesh
        .positions
        .iter()
        .enumerate()
        .map(|(v, _)| body.rest_pose.skin_vertex(&body.mesh, v).0.y);
    let (lo, hi) = ys.fold((f32::MAX, f32::MIN), |(lo, hi), y| (lo.min(y), hi.max(y)));
    assert!(lo.abs() < 1e-4, "feet at {lo}");
    hi - lo
}

#[test]
fn the_fox_reads_with_its_skeleton_and_animations() {
    let body = LoadedBody::read(&asset("Fox.glb"), &BodyOptions { height: 0.6 }).unwrap();
    assert_eq!(body.mesh.joint_count, 24);
    assert_eq!(body.animation_names, ["Survey", "Walk", "Run"]);
    assert!(
        (height_of(&body) - 0.6).abs() < 1e-4,
        "{}",
        height_of(&body)
    );
    assert!(body.mesh.base_color_texture.is_some());
    // The walk moves the feet: some vertex travels, none leaves the neighbourhood.
    let walk = body.motion(Some("Walk")).unwrap();
    let d = body.animation_duration("Walk").unwrap();
    let (a, b) = (walk.pose_at(0.0), walk.pose_at(d * 0.5));
    let moved = (0..body.mesh.positions.len())
        .map(|v| (a.skin_vertex(&body.mesh, v).0 - b.skin_vertex(&body.mesh, v).0).length())
        .fold(0.0f32, f32::max);
    assert!(moved > 0.02 && moved < 0.6, "{moved}");
    // The fox faces +Z (its nose is the vertex furthest along z).
    let nose = body
        .mesh
        .positions
        .iter()
        .map(|p| p.z)
        .fold(f32::MIN, f32::max);
    let tail = body
        .mesh
        .positions
        .iter()
        .map(|p| p.z)
        .fold(f32::MAX, f32::min);
    assert!(nose > 0.0 && tail < 0.0, "{nose} {tail}");
}

#[test]
fn the_vrm0_avatar_reads_turned_and_fitted() {
    let body = LoadedBody::read(&asset("cryptovoxels.vrm"), &BodyOptions { height: 1.6 }).unwrap();
    assert!(body.fit.turned);
    assert_eq!(body.mesh.joint_count, 57);
    assert!(body.animation_names.is_empty());
    assert!(
        (height_of(&body) - 1.6).abs() < 1e-4,
        "{}",
        height_of(&body)
    );
}
