//! The user's environment map: a bright map changes the eyes' and nose's pixels (their
//! reflection) and the skin's (its ambient term), never the strands' (`strands` mode is the
//! same bytes with and without it); a missing, huge or corrupt file is a clear error, and
//! the shipped map reads.

use pelt::creature::Creature;
use pelt::gpu::GpuContext;
use pelt::render::{
    Camera, CameraPreset, DebugMode, EnvironmentError, EnvironmentMap, FurRenderer, Image,
    OFFSCREEN_FORMAT, RenderSettings, Scene, TargetLayout, ids,
};
use pelt::sim::{FurConfig, FurSim};
use std::path::Path;

mod cli_common;
use cli_common::{fails, s};

/// A Radiance `.hdr` of `w × h` pixels all of linear colour `c` (flat RGBE scanlines).
fn uniform_hdr(w: usize, h: usize, c: [f32; 3]) -> Vec<u8> {
    let m = c.iter().cloned().fold(0.0f32, f32::max);
    let e = m.log2().floor() as i32 + 1;
    let scale = 256.0 / 2f32.powi(e);
    let pixel = [
        (c[0] * scale) as u8,
        (c[1] * scale) as u8,
        (c[2] * scale) as u8,
        (e + 128) as u8,
    ];
    let mut bytes = format!("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {h} +X {w}\n").into_bytes();
    for _ in 0..w * h {
        bytes.extend_from_slice(&pixel);
    }
    bytes
}

fn render(ctx: &GpuContext, sim: &FurSim, map: Option<&EnvironmentMap>, mode: DebugMode) -> Image {
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, true);
    let mut renderer = FurRenderer::new(
        &ctx.device,
        &ctx.queue,
        layout,
        &Creature::default(),
        RenderSettings::default(),
    )
    .unwrap();
    renderer.set_strands_from_sim(sim).unwrap();
    renderer.set_environment(map);
    let mut scene = Scene::new(
        Camera::preset(CameraPreset::Closeup),
        sim.pose_at(sim.time() as f32),
    );
    scene.mode = mode;
    scene.positions_index = sim.gpu().unwrap().current_index();
    renderer.render_image(&scene, 320, 180).unwrap()
}

/// Mean absolute difference of the RGB bytes of `a` and `b` over the pixels whose ID (in
/// `a`) is one of `wanted`, and how many such pixels there are.
fn change_where(a: &Image, b: &Image, wanted: &[u8]) -> (f64, usize) {
    let ids = a.ids.as_ref().unwrap();
    let mut sum = 0.0;
    let mut n = 0;
    for (i, id) in ids.iter().enumerate() {
        if wanted.contains(id) {
            let p = &a.rgba[i * 4..i * 4 + 3];
            let q = &b.rgba[i * 4..i * 4 + 3];
            sum += p
                .iter()
                .zip(q)
                .map(|(x, y)| (f64::from(*x) - f64::from(*y)).abs())
                .sum::<f64>()
                / 3.0;
            n += 1;
        }
    }
    (sum / n.max(1) as f64, n)
}

#[test]
fn a_bright_map_lights_the_face_and_skin_and_never_the_strands() {
    let ctx = GpuContext::new().expect("a wgpu adapter (CI installs lavapipe)");
    let mut sim = FurSim::new_gpu(&FurConfig::new(2048, 4), Creature::default(), &ctx).unwrap();
    sim.step(10).unwrap();
    let bright =
        EnvironmentMap::from_bytes(&uniform_hdr(64, 32, [6.0, 6.0, 6.0]), "bright").unwrap();

    let plain = render(&ctx, &sim, None, DebugMode::Final);
    let lit = render(&ctx, &sim, Some(&bright), DebugMode::Final);
    let (face, face_pixels) = change_where(&plain, &lit, &[ids::FACE]);
    assert!(
        face_pixels > 50,
        "the close-up shows {face_pixels} eye and nose pixels"
    );
    assert!(
        face > 8.0,
        "the eyes and nose changed by {face} levels on average"
    );
    let bare = render(&ctx, &sim, None, DebugMode::Skin);
    let bare_lit = render(&ctx, &sim, Some(&bright), DebugMode::Skin);
    let (skin, skin_pixels) = change_where(&bare, &bare_lit, &[ids::SKIN]);
    assert!(
        skin_pixels > 0 && skin > 2.0,
        "skin changed by {skin} over {skin_pixels} pixels"
    );

    let strands = render(&ctx, &sim, None, DebugMode::Strands);
    let strands_lit = render(&ctx, &sim, Some(&bright), DebugMode::Strands);
    assert!(
        strands.rgba == strands_lit.rgba,
        "the strands view differs with an environment map"
    );
    // And the map can be taken away again: the renderer is back to the built-in sky.
    let again = render(&ctx, &sim, None, DebugMode::Final);
    assert!(again.rgba == plain.rgba);
}

#[test]
fn missing_huge_and_corrupt_maps_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.hdr");
    let err = EnvironmentMap::from_path(&missing).unwrap_err();
    assert!(matches!(err, EnvironmentError::File(_)), "{err}");
    assert!(err.to_string().contains("missing.hdr"), "{err}");

    // A header claiming 100,000 × 50,000 pixels: refused from the header, before decoding.
    let huge = dir.path().join("huge.hdr");
    std::fs::write(
        &huge,
        b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 50000 +X 100000\n",
    )
    .unwrap();
    let err = EnvironmentMap::from_path(&huge).unwrap_err();
    assert!(matches!(err, EnvironmentError::TooLarge { .. }), "{err}");
    assert!(err.to_string().contains("100000×50000"), "{err}");

    // Scanlines cut short.
    let short = dir.path().join("short.hdr");
    let mut bytes = uniform_hdr(32, 16, [1.0, 1.0, 1.0]);
    bytes.truncate(bytes.len() - 300);
    std::fs::write(&short, &bytes).unwrap();
    let err = EnvironmentMap::from_path(&short).unwrap_err();
    assert!(matches!(err, EnvironmentError::Corrupt { .. }), "{err}");

    let text = dir.path().join("notes.png");
    std::fs::write(&text, "not a picture").unwrap();
    let err = EnvironmentMap::from_path(&text).unwrap_err();
    assert!(matches!(err, EnvironmentError::Format { .. }), "{err}");

    // Through the command line, before any GPU work: the message names the file.
    let out = dir.path().join("x.png");
    let err = fails(&["render", "--env", s(&huge), "--out", s(&out)]);
    assert!(err.contains("huge.hdr") && err.contains("pixels"), "{err}");
    let err = fails(&["render", "--env", s(&missing), "--out", s(&out)]);
    assert!(err.contains("missing.hdr"), "{err}");
    assert!(!out.exists());
}

#[test]
fn the_shipped_map_reads_and_is_brighter_toward_the_key_light() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/studio.hdr");
    let map = EnvironmentMap::from_path(&path).unwrap();
    assert_eq!(map.radiance_size, (256, 128));
    let brightest = map
        .radiance
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.x.total_cmp(&b.1.x))
        .unwrap()
        .0;
    // The key light is up and to the right (+X, +Y, toward the camera at +Z): the upper
    // half of the map, right of its centre column (which looks toward −Z).
    let (w, h) = map.radiance_size;
    let (x, y) = (brightest % w, brightest / w);
    assert!(y < h / 2, "brightest texel in row {y}");
    assert!(x > w / 2, "brightest texel in column {x}");
}
