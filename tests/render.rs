//! The renderer, judged by image statistics on lavapipe at a reduced tier: each debug view
//! draws what it should (read from the ID target, not guessed from colours), fur extends the
//! host's silhouette, the coat's lit colour sits near its palette, one strand tapers and
//! fades (and darkens where a hand comes near), the hair's shadow darkens the skin, moving the light moves the shadow, the same
//! inputs give the same bytes, and bad targets are errors.

mod render_common;

use glam::{Affine3A, Vec3, Vec4};
use pelt::creature::{Creature, CreaturePose};
use pelt::gpu::GpuContext;
use pelt::groom::{Pattern, StrandRoot};
use pelt::render::strand_lod::{FULL_COAT_STRANDS, LodPolicy};
use pelt::render::{
    Camera, CameraPreset, DebugMode, FurRenderer, Image, OFFSCREEN_FORMAT, Raster, RenderError,
    RenderSettings, RibbonStrand, Scene, Srgb, TargetLayout, ids,
};
use pelt::sim::FurSim;
use wgpu::util::DeviceExt;

const STRANDS: usize = 4096;

use render_common::{gpu, mean_abs_error};

/// A settled coat of the test tier and a renderer with an ID target bound to it.
fn setup(ctx: &GpuContext, strands: usize) -> (FurSim, FurRenderer) {
    render_common::coat_and_renderer(ctx, strands, 30, true)
}

fn scene<'a>(sim: &FurSim, camera: Camera, mode: DebugMode) -> Scene<'a> {
    let mut s = Scene::new(camera, sim.pose_at(sim.time() as f32));
    s.mode = mode;
    s.positions_index = sim.gpu().unwrap().current_index();
    s
}

fn count(image: &Image, wanted: &[u8]) -> usize {
    image
        .ids
        .as_ref()
        .expect("IDs drawn")
        .iter()
        .filter(|id| wanted.contains(id))
        .count()
}

/// The surface ID at a pixel the test knows is inside an image drawn with IDs.
fn id_at(image: &Image, x: u32, y: u32) -> u8 {
    image.id(x, y).expect("an ID inside the image")
}

/// The colour at a pixel the test knows is inside the image.
fn rgba_at(image: &Image, x: u32, y: u32) -> [u8; 4] {
    image.pixel(x, y).expect("a pixel inside the image")
}

fn luminance(p: [u8; 4]) -> f32 {
    0.2126 * f32::from(p[0]) + 0.7152 * f32::from(p[1]) + 0.0722 * f32::from(p[2])
}

#[test]
fn each_debug_view_draws_only_its_surfaces() {
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, STRANDS);
    let camera = Camera::preset(CameraPreset::Front);
    let (w, h) = (200, 120);
    let skin = renderer
        .render_image(&scene(&sim, camera, DebugMode::Skin), w, h)
        .unwrap();
    let strands = renderer
        .render_image(&scene(&sim, camera, DebugMode::Strands), w, h)
        .unwrap();
    let fin = renderer
        .render_image(&scene(&sim, camera, DebugMode::Final), w, h)
        .unwrap();
    let contact = renderer
        .render_image(&scene(&sim, camera, DebugMode::Contact), w, h)
        .unwrap();
    let host = [ids::SKIN, ids::FACE];
    let opaque = [ids::SKIN, ids::FACE, ids::HAND, ids::FLOOR];
    eprintln!(
        "skin: {} host, {} hair; strands: {} hair, {} opaque; final: {} host, {} hair",
        count(&skin, &host),
        count(&skin, &[ids::HAIR]),
        count(&strands, &[ids::HAIR]),
        count(&strands, &opaque),
        count(&fin, &host),
        count(&fin, &[ids::HAIR])
    );
    // At this tier and size a strand is a fifth of a pixel wide: hair covers sparsely.
    assert_eq!(
        count(&skin, &[ids::HAIR]),
        0,
        "hair pixels in the skin view"
    );
    assert!(count(&skin, &host) > 1500, "the skin view shows the host");
    assert_eq!(
        count(&strands, &opaque),
        0,
        "opaque pixels in the strands view"
    );
    assert!(
        count(&strands, &[ids::HAIR]) > 500,
        "the strands view shows hair"
    );
    assert!(count(&fin, &[ids::HAIR]) > 500 && count(&fin, &host) > 500);
    // The contact view draws the strands and the host, and over them the proxies'
    // translucent cyan wireframe, which no other view has.
    assert!(count(&contact, &[ids::HAIR]) > 500);
    let cyan = |image: &Image| {
        image
            .rgba
            .chunks_exact(4)
            .filter(|p| p[2] > 170 && p[1] > 150 && p[0] < 140)
            .count()
    };
    eprintln!(
        "cyan pixels: contact {}, final {}",
        cyan(&contact),
        cyan(&fin)
    );
    assert!(
        cyan(&contact) > 300,
        "no proxy wireframe in the contact view"
    );
    assert!(cyan(&fin) < 10, "wireframe in the final view");
}

#[test]
fn fur_covers_the_silhouette_and_extends_it() {
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, 16_384);
    let camera = Camera::preset(CameraPreset::Side);
    let (w, h) = (240, 150);
    let skin = renderer
        .render_image(&scene(&sim, camera, DebugMode::Skin), w, h)
        .unwrap();
    let fin = renderer
        .render_image(&scene(&sim, camera, DebugMode::Final), w, h)
        .unwrap();
    let creature = [ids::SKIN, ids::FACE, ids::HAIR];
    let mut host = 0;
    let mut covered = 0;
    for y in 0..h {
        for x in 0..w {
            if matches!(id_at(&skin, x, y), ids::SKIN | ids::FACE) {
                host += 1;
                if creature.contains(&id_at(&fin, x, y)) {
                    covered += 1;
                }
            }
        }
    }
    let creature_final = count(&fin, &creature);
    eprintln!("host {host} px, covered in final {covered}, creature in final {creature_final}");
    assert!(host > 2000);
    assert_eq!(
        covered, host,
        "final leaves part of the host's silhouette empty"
    );
    // 13 cm of fur around a body 68 cm across: the silhouette grows by a good fifth.
    assert!(
        creature_final as f64 > 1.2 * host as f64,
        "fur adds {creature_final} − {host} pixels"
    );
}

/// Red, green and blue as shares of their sum.
fn chromaticity(c: Vec3) -> Vec3 {
    c / (c.x + c.y + c.z).max(1e-6)
}

#[test]
fn lit_coat_sits_near_its_palette() {
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, 16_384);
    // The body's left flank (+X) is plain main colour (no chest, belly or dorsal stripe),
    // facing the key light.
    let flank = Vec3::new(0.40, -0.36, -0.30);
    let camera = Camera::look_at(Vec3::new(2.6, 0.0, -0.3), flank, 30.0);
    let (w, h) = (160, 120);
    let image = renderer
        .render_image(&scene(&sim, camera, DebugMode::Final), w, h)
        .unwrap();
    // Skin and hair share the palette; at this tier the skin shows between the strands.
    let mut sum = Vec3::ZERO;
    let (mut n, mut hair) = (0.0, 0.0);
    for y in h / 2 - 8..h / 2 + 8 {
        for x in w / 2 - 8..w / 2 + 8 {
            let id = id_at(&image, x, y);
            assert!(
                matches!(id, ids::HAIR | ids::SKIN),
                "the flank's centre is coat"
            );
            let p = rgba_at(&image, x, y);
            sum += Vec3::new(f32::from(p[0]), f32::from(p[1]), f32::from(p[2]));
            n += 1.0;
            if id == ids::HAIR {
                hair += 1.0;
            }
        }
    }
    assert!(hair > 0.3 * n, "mostly skin: {hair} of {n} pixels are hair");
    let mean = sum / n;
    let [r, g, b] = Srgb::MAIN.bytes();
    let main = Vec3::new(f32::from(r), f32::from(g), f32::from(b));
    let cream = {
        let [r, g, b] = Srgb::CREAM.bytes();
        Vec3::new(f32::from(r), f32::from(g), f32::from(b))
    };
    let off = (chromaticity(mean) - chromaticity(main)).length();
    let off_cream = (chromaticity(mean) - chromaticity(cream)).length();
    eprintln!(
        "mean flank {mean:?} vs main {main:?}: chromaticity off by {off:.3} (cream {off_cream:.3})"
    );
    assert!(off < 0.05, "the lit coat's hue is off the palette by {off}");
    assert!(
        off < off_cream / 3.0,
        "closer to the main colour than to cream"
    );
    let brightness = (mean.x + mean.y + mean.z) / (main.x + main.y + main.z);
    assert!(
        (0.55..1.25).contains(&brightness),
        "lit coat brightness {brightness} of the palette's"
    );
}

/// A renderer drawing one strand from an explicit position buffer.
fn single_strand(ctx: &GpuContext, points: [Vec3; 6]) -> (FurRenderer, wgpu::Buffer) {
    let positions: Vec<Vec4> = points.iter().map(|p| p.extend(0.0)).collect();
    let buffer = ctx
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("one strand"),
            contents: bytemuck::cast_slice(&positions),
            usage: wgpu::BufferUsages::STORAGE,
        });
    let root = StrandRoot {
        part: pelt::creature::Part::Body,
        position: points[0],
        normal: Vec3::Z,
        flow: Vec3::X,
        length: 0.12,
        lift_root: 1.0,
        lift_tip: 1.0,
        random: 0.5,
        pattern: Pattern::default(),
        tail_t: 0.0,
    };
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, true);
    let mut renderer = FurRenderer::new(
        &ctx.device,
        &ctx.queue,
        layout,
        &Creature::default(),
        RenderSettings::default(),
    )
    .unwrap();
    renderer
        .set_strands([&buffer, &buffer], &[RibbonStrand::new(&root, 0.0)])
        .unwrap();
    (renderer, buffer)
}

/// The view the single-strand tests draw in: 360×60 pixels of 0.4 mm each at the strand,
/// looking down −Z from 0.3 m, and the creature's pose at rest.
fn single_strand_view() -> (u32, u32, Camera, CreaturePose) {
    let (w, h) = (360, 60);
    let fov = 2.0 * (0.5 * 0.0004 * h as f32 / 0.3f32).atan();
    let camera = Camera {
        fov_y: fov,
        ..Camera::look_at(Vec3::new(0.0, 0.0, 0.3), Vec3::ZERO, 1.0)
    };
    let pose = CreaturePose {
        head: Affine3A::IDENTITY,
        body: Affine3A::IDENTITY,
        tail: [Affine3A::IDENTITY; 5],
    };
    (w, h, camera, pose)
}

#[test]
fn a_single_strand_is_wider_at_its_root_and_fades_at_its_tip() {
    let ctx = gpu();
    // A straight 12 cm strand across the view, root at the left.
    let points: [Vec3; 6] = std::array::from_fn(|i| Vec3::new(-0.06 + 0.024 * i as f32, 0.0, 0.0));
    let (mut renderer, _buffer) = single_strand(&ctx, points);
    // 0.4 mm per pixel: the root is 8.5 pixels wide, the tip 1.3.
    let (w, h, camera, pose) = single_strand_view();
    let mut s = Scene::new(camera, pose);
    s.mode = DebugMode::Strands;
    let image = renderer.render_image(&s, w, h).unwrap();
    // Coverage of each column: pixels whose sample 0 is hair. This strand's samples start
    // at sample 0 (its hash rotation is 0), so sample 0 is covered wherever the dithered
    // opacity asks for any sample (probability min(1, 4α)): the count along a column is
    // the ribbon's drawn width, thinned only where it fades below a quarter's opacity.
    let column = |x: u32| (0..h).filter(|&y| id_at(&image, x, y) == ids::HAIR).count() as f32;
    // Columns of the strand: x = 30 (root) … 330 (tip); `along` runs 0 … 1 over them.
    let mean = |a: f32, b: f32| {
        let (x0, x1) = ((30.0 + 300.0 * a) as u32, (30.0 + 300.0 * b) as u32);
        (x0..x1).map(column).sum::<f32>() / (x1 - x0) as f32
    };
    let root = mean(0.02, 0.15);
    let middle = mean(0.45, 0.55);
    let before_fade = mean(0.65, 0.78);
    let tip = mean(0.95, 1.0);
    eprintln!(
        "coverage: root {root:.2}, middle {middle:.2}, before fade {before_fade:.2}, tip {tip:.2}"
    );
    // Width 3.4 mm · (1 − 0.85 a) at 0.4 mm a pixel: 7.9 px at a ≈ 0.085, 4.9 at 0.5,
    // 3.3 at 0.715 (the soft edges lose only the outer pixel rows).
    assert!(root > 4.5 && root < 8.5, "root coverage {root}");
    let taper = root / before_fade;
    assert!(
        (2.0..3.6).contains(&taper),
        "root/late ratio {taper} (expected ≈ 2.7)"
    );
    assert!(
        root > middle && middle > before_fade,
        "coverage does not shrink toward the tip"
    );
    // The last 20% fades: the last 5% keeps at most a fifth of the coverage before it.
    assert!(
        tip < 0.2 * before_fade,
        "tip coverage {tip} vs {before_fade}"
    );
    // Soft edges: across the root, the middle row is brighter than the rows at the edge.
    let x = 50;
    let rows: Vec<u32> = (0..h)
        .filter(|&y| id_at(&image, x, y) == ids::HAIR)
        .collect();
    let (top, bottom) = (rows[0], rows[rows.len() - 1]);
    let mid = (top + bottom) / 2;
    assert!(
        luminance(rgba_at(&image, x, mid)) > luminance(rgba_at(&image, x, top)),
        "no soft edge across the ribbon"
    );
}

#[test]
fn a_hand_near_a_strands_tip_darkens_the_tip_and_leaves_the_root() {
    // The shading pass skips the hand's occlusion for strands whose every point is beyond
    // its falloff, judged from a ball about the root: a hand near the tip alone (farther
    // than the falloff from the root) must still darken the tip.
    use pelt::render::{DrawCapsule, Material};
    let ctx = gpu();
    let points: [Vec3; 6] = std::array::from_fn(|i| Vec3::new(-0.06 + 0.024 * i as f32, 0.0, 0.0));
    let (mut renderer, _buffer) = single_strand(&ctx, points);
    let (w, h, camera, pose) = single_strand_view();
    // Behind the strand, past its tip: 3.5 cm from point 4, 12 cm from the root (the
    // falloff is 6 cm).
    let hand = [DrawCapsule {
        a: Vec3::new(0.07, 0.0, -0.03),
        b: Vec3::new(0.10, 0.0, -0.03),
        radius: 0.01,
        material: Material::Hand,
    }];
    assert!(RenderSettings::default().hand_occlusion_falloff < 0.1);
    let mut draw = |with_hand: bool| {
        let mut s = Scene::new(camera, pose);
        s.mode = DebugMode::Strands;
        if with_hand {
            s.hand = &hand;
            s.hand_occlusion = 1.0;
        }
        renderer.render_image(&s, w, h).unwrap()
    };
    let (plain, touched) = (draw(false), draw(true));
    // Mean luminance of the hair in the columns from `a` to `b` of the strand's length.
    let mean = |image: &Image, a: f32, b: f32| {
        let (x0, x1) = ((30.0 + 300.0 * a) as u32, (30.0 + 300.0 * b) as u32);
        let hair: Vec<f32> = (x0..x1)
            .flat_map(|x| (0..h).map(move |y| (x, y)))
            .filter(|&(x, y)| id_at(image, x, y) == ids::HAIR)
            .map(|(x, y)| luminance(rgba_at(image, x, y)))
            .collect();
        hair.iter().sum::<f32>() / hair.len().max(1) as f32
    };
    let (root_plain, root_touched) = (mean(&plain, 0.02, 0.3), mean(&touched, 0.02, 0.3));
    let (tip_plain, tip_touched) = (mean(&plain, 0.72, 0.8), mean(&touched, 0.72, 0.8));
    eprintln!(
        "hair luminance without / with the hand: root {root_plain:.1} / {root_touched:.1}, near the tip {tip_plain:.1} / {tip_touched:.1}"
    );
    assert!(
        tip_plain > 10.0,
        "the strand's tip is not lit ({tip_plain})"
    );
    assert!(
        tip_touched < 0.9 * tip_plain,
        "the hand did not darken the tip: {tip_touched} vs {tip_plain}"
    );
    assert!(
        (root_touched - root_plain).abs() <= 0.01 * root_plain,
        "the hand changed the root: {root_touched} vs {root_plain}"
    );
}

fn mean_luminance(image: &Image, wanted: &[u8]) -> (f32, usize) {
    let mut sum = 0.0;
    let mut n = 0;
    for y in 0..image.height {
        for x in 0..image.width {
            if wanted.contains(&id_at(image, x, y)) {
                sum += luminance(rgba_at(image, x, y));
                n += 1;
            }
        }
    }
    (sum / n.max(1) as f32, n)
}

/// The brightness of the skin the key light reaches, under the hair's shadow, as a share of
/// its brightness with the hair casting none. Measured over the brighter half of the skin
/// pixels of the unshadowed frame.
fn lit_skin_under_hair(ctx: &GpuContext, strands: usize) -> f32 {
    let (sim, mut renderer) = setup(ctx, strands);
    let s = scene(&sim, Camera::preset(CameraPreset::Front), DebugMode::Skin);
    let with_hair = renderer.render_image(&s, 200, 120).unwrap();
    renderer.set_hair_casts_shadows(false);
    let without = renderer.render_image(&s, 200, 120).unwrap();
    assert_eq!(
        with_hair.ids, without.ids,
        "the same skin pixels both times"
    );
    let (light, _) = mean_luminance(&without, &[ids::SKIN]);
    let (mut dark_sum, mut light_sum) = (0.0, 0.0);
    for y in 0..without.height {
        for x in 0..without.width {
            if id_at(&without, x, y) == ids::SKIN && luminance(rgba_at(&without, x, y)) > light {
                dark_sum += luminance(rgba_at(&with_hair, x, y));
                light_sum += luminance(rgba_at(&without, x, y));
            }
        }
    }
    dark_sum / light_sum
}

#[test]
fn the_hair_casts_a_shadow_and_thicker_fur_a_deeper_one() {
    let ctx = gpu();
    let thin = lit_skin_under_hair(&ctx, 8192);
    let thick = lit_skin_under_hair(&ctx, 65_536);
    eprintln!("lit skin keeps {thin:.3} of its light under 8k strands, {thick:.3} under 64k");
    assert!(thin < 0.97, "thin fur casts no shadow ({thin})");
    assert!(
        thick < 0.8,
        "thick fur darkens the lit skin only to {thick}"
    );
    assert!(
        thick < thin - 0.15,
        "thick fur is not darker than thin ({thick} vs {thin})"
    );
}

/// The mean x of floor pixels that are darker than `threshold` luminance.
fn shadow_centroid_x(image: &Image, threshold: f32) -> f32 {
    let mut sum = 0.0;
    let mut n = 0.0;
    for y in 0..image.height {
        for x in 0..image.width {
            if id_at(image, x, y) == ids::FLOOR && luminance(rgba_at(image, x, y)) < threshold {
                sum += x as f32;
                n += 1.0;
            }
        }
    }
    assert!(n > 50.0, "no shadow on the floor");
    sum / n
}

#[test]
fn moving_the_key_light_moves_the_shadow() {
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, STRANDS);
    // From the front and above, the floor around the paws in view.
    let camera = Camera::look_at(Vec3::new(0.0, 1.2, 2.8), Vec3::new(0.0, -0.6, -0.3), 40.0);
    let mut s = scene(&sim, camera, DebugMode::Skin);
    let mut shadow_x = |x: f32| {
        s.lighting.key_direction = Vec3::new(x, 0.8, 0.2);
        let image = renderer.render_image(&s, 200, 120).unwrap();
        let (floor, _) = mean_luminance(&image, &[ids::FLOOR]);
        shadow_centroid_x(&image, 0.6 * floor)
    };
    let light_right = shadow_x(0.6);
    let light_left = shadow_x(-0.6);
    eprintln!("shadow centroid: x = {light_right:.1} with the light right, {light_left:.1} left");
    assert!(
        light_left - light_right > 8.0,
        "the shadow did not move against the light"
    );
}

#[test]
fn a_frame_after_another_draws_what_a_fresh_renderer_draws() {
    // What a frame keeps for the next (the shadow maps, the points' shaded colours) must
    // be made again: a second frame under another light is the same picture a renderer
    // that never drew the first one draws, by either rasteriser.
    let ctx = gpu();
    for raster in [Raster::Hardware, Raster::Native] {
        let (sim, mut used) = setup(&ctx, STRANDS);
        let (_, mut fresh) = setup(&ctx, STRANDS);
        used.set_raster(raster);
        fresh.set_raster(raster);
        let mut s = scene(&sim, Camera::preset(CameraPreset::Front), DebugMode::Final);
        s.lighting.key_direction = Vec3::new(0.6, 0.8, 0.2);
        let first = used.render_image(&s, 200, 120).unwrap();
        s.lighting.key_direction = Vec3::new(-0.6, 0.8, 0.2);
        let second = used.render_image(&s, 200, 120).unwrap();
        let reference = fresh.render_image(&s, 200, 120).unwrap();
        let moved = mean_abs_error(&first, &reference);
        eprintln!("{raster}: the light's move changed the picture by {moved:.2} levels");
        assert!(
            moved > 1.0,
            "{raster}: the light's move changed too little: {moved:.2}"
        );
        assert!(
            second.rgba == reference.rgba && second.ids == reference.ids,
            "{raster}: the second frame differs from a fresh renderer's by {:.3} levels",
            mean_abs_error(&second, &reference)
        );
    }
}

#[test]
fn the_same_inputs_give_the_same_bytes() {
    let ctx = gpu();
    let render = || {
        let (sim, mut renderer) = setup(&ctx, STRANDS);
        renderer
            .render_image(
                &scene(
                    &sim,
                    Camera::preset(CameraPreset::Closeup),
                    DebugMode::Final,
                ),
                160,
                96,
            )
            .unwrap()
    };
    let a = render();
    let b = render();
    assert!(a.rgba == b.rgba && a.ids == b.ids, "two renders differ");
}

#[test]
fn bad_targets_and_cameras_are_errors() {
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, 256);
    let s = scene(&sim, Camera::preset(CameraPreset::Front), DebugMode::Final);
    let max = ctx.device.limits().max_texture_dimension_2d;
    for (w, h) in [(0, 10), (10, 0), (max + 1, 4), (4, u32::MAX)] {
        match renderer.render_image(&s, w, h) {
            Err(RenderError::TargetSize { width, height, .. }) => {
                assert_eq!((width, height), (w, h));
            }
            other => panic!("{w}×{h}: expected a size error, got {other:?}"),
        }
    }
    let mut bad = s.clone();
    bad.camera.eye.x = f32::NAN;
    assert!(matches!(
        renderer.render_image(&bad, 8, 8),
        Err(RenderError::Camera(_))
    ));
    let mut bad = s.clone();
    bad.camera.target = bad.camera.eye;
    assert!(matches!(
        renderer.render_image(&bad, 8, 8),
        Err(RenderError::Camera(_))
    ));
    let mut bad = s.clone();
    bad.lighting.key_direction = Vec3::ZERO;
    assert!(matches!(
        renderer.render_image(&bad, 8, 8),
        Err(RenderError::Scene(_))
    ));
    // The renderer still works after refusing them.
    assert!(renderer.render_image(&s, 8, 8).is_ok());
}

/// Triangles whose winding disagrees with their vertex normals, and how many had area.
fn inward_triangles(mesh: &pelt::render::mesh::Mesh) -> (usize, usize) {
    let mut inward = 0;
    let mut counted = 0;
    for t in mesh.indices.chunks_exact(3) {
        let v = |i: u32| mesh.vertices[i as usize];
        let p = |i: u32| Vec3::from(v(i).position);
        let facing = (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]));
        if facing.length() < 1e-10 {
            continue;
        }
        counted += 1;
        let normal: Vec3 = t.iter().map(|&i| Vec3::from(v(i).normal)).sum();
        if facing.dot(normal) <= 0.0 {
            inward += 1;
        }
    }
    (inward, counted)
}

#[test]
fn every_surface_is_wound_toward_its_normals_so_culling_keeps_it() {
    use pelt::render::mesh::{creature_skin, face, floor};
    use pelt::render::shapes::capsule_mesh;
    use pelt::render::{CapsuleDetail, DrawCapsule, Material};
    let creature = Creature::default();
    let hand = [DrawCapsule {
        a: Vec3::new(0.1, 0.2, 0.3),
        b: Vec3::new(0.3, 0.25, 0.1),
        radius: 0.02,
        material: Material::Hand,
    }];
    for (name, mesh) in [
        ("skin", creature_skin(&creature, 1.0)),
        ("coarse skin", creature_skin(&creature, 0.3)),
        ("face", face(&creature, &Default::default(), 1.0)),
        ("coarse face", face(&creature, &Default::default(), 0.35)),
        ("hand", capsule_mesh(&hand, |_| CapsuleDetail::FINE)),
        (
            "coarse hand",
            capsule_mesh(&hand, |_| CapsuleDetail::COARSE),
        ),
    ] {
        let (inward, counted) = inward_triangles(&mesh);
        eprintln!("{name}: {inward} of {counted} triangles wound against their normals");
        assert!(counted > 90, "{name} has triangles");
        assert_eq!(
            inward, 0,
            "{name} would lose triangles to back-face culling"
        );
    }
    // The floor is seen from both sides: half its triangles face down.
    let (inward, counted) = inward_triangles(&floor(-0.87, glam::Vec2::ZERO, 4.0));
    assert_eq!(2 * inward, counted, "the floor faces up and down");
}

#[test]
fn glossy_eyes_and_nails_are_drawn_with_their_highlight() {
    use pelt::render::{DrawCapsule, Material};
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, 256);
    let mut s = scene(&sim, Camera::preset(CameraPreset::Closeup), DebugMode::Skin);
    // A fingertip with its nail in front of the muzzle.
    let hand = [
        DrawCapsule {
            a: Vec3::new(0.15, 0.0, 0.62),
            b: Vec3::new(0.3, -0.05, 0.75),
            radius: 0.03,
            material: Material::Hand,
        },
        DrawCapsule {
            a: Vec3::new(0.15, 0.0, 0.62),
            b: Vec3::new(0.11, 0.01, 0.6),
            radius: 0.016,
            material: Material::Nail,
        },
    ];
    s.hand = &hand;
    let image = renderer.render_image(&s, 240, 135).unwrap();
    let face: Vec<f32> = (0..image.height)
        .flat_map(|y| (0..image.width).map(move |x| (x, y)))
        .filter(|&(x, y)| id_at(&image, x, y) == ids::FACE)
        .map(|(x, y)| luminance(rgba_at(&image, x, y)))
        .collect();
    let brightest = face.iter().copied().fold(0.0, f32::max);
    let dark = face.iter().filter(|&&l| l < 60.0).count();
    eprintln!(
        "{} face pixels, {dark} dark, brightest {brightest}; {} hand pixels",
        face.len(),
        count(&image, &[ids::HAND])
    );
    // Dark glossy eyes with a highlight, and the nose: the glossy surfaces are all there.
    assert!(face.len() > 400, "the eyes and the nose are missing");
    assert!(dark > face.len() / 4, "the eyes are not dark");
    assert!(brightest > 200.0, "no highlight on the eyes ({brightest})");
    // The nail is drawn (with the glossy surfaces) along with the rest of the hand.
    let without_nail = {
        s.hand = &hand[..1];
        renderer.render_image(&s, 240, 135).unwrap()
    };
    assert!(
        count(&image, &[ids::HAND]) > count(&without_nail, &[ids::HAND]),
        "the nail is not drawn"
    );
}

#[test]
fn a_hand_small_on_screen_is_drawn_coarser_and_looks_the_same() {
    use pelt::render::{CapsuleDetail, DrawCapsule, Material};
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, 256);
    let mut s = scene(&sim, Camera::preset(CameraPreset::Front), DebugMode::Skin);
    // A forearm and two fingers over the creature's back, a finger's radius a centimetre.
    let capsule = |a: [f32; 3], b: [f32; 3], radius| DrawCapsule {
        a: Vec3::from(a),
        b: Vec3::from(b),
        radius,
        material: Material::Hand,
    };
    let hand = [
        capsule([0.0, 0.45, -0.2], [0.3, 0.6, -0.5], 0.03),
        capsule([0.0, 0.45, -0.2], [-0.08, 0.38, -0.05], 0.01),
        capsule([0.02, 0.44, -0.18], [-0.04, 0.37, -0.02], 0.01),
    ];
    s.hand = &hand;
    // Large on screen (a finger's radius 6.5 pixels at 1080 rows) every capsule is fine
    // (416 triangles); at half that the fingers (3.2 pixels) are coarse (112), the
    // forearm, three times as thick, still fine; smaller still, all three are coarse.
    for (size, triangles) in [
        ((1920, 1080), 3 * 416),
        ((960, 540), 416 + 2 * 112),
        ((240, 135), 3 * 112),
    ] {
        renderer.render_image(&s, size.0, size.1).unwrap();
        assert_eq!(renderer.hand_triangles(), triangles, "at {size:?}");
    }
    // The coarse hand looks like the fine one at the size it is chosen for.
    let small = renderer.render_image(&s, 240, 135).unwrap();
    renderer.set_hand_detail(Some(CapsuleDetail::FINE));
    let fine_small = renderer.render_image(&s, 240, 135).unwrap();
    assert_eq!(renderer.hand_triangles(), 3 * 416);
    let hand_pixels = |image: &Image| count(image, &[ids::HAND]) as f64;
    let (a, b) = (hand_pixels(&small), hand_pixels(&fine_small));
    let mean = small
        .rgba
        .iter()
        .zip(&fine_small.rgba)
        .map(|(x, y)| f64::from(x.abs_diff(*y)))
        .sum::<f64>()
        / small.rgba.len() as f64;
    eprintln!("hand pixels {a} by size, {b} fine; mean difference {mean:.3} levels");
    assert!(b > 20.0, "the hand is on screen");
    assert!(
        (a - b).abs() <= 0.05 * b,
        "the hand's outline moved: {a} against {b} pixels"
    );
    assert!(mean > 0.0 && mean < 0.5, "mean difference {mean}");
}

#[test]
fn culling_hidden_strands_changes_no_pixel() {
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, STRANDS);
    // From the front about a third of the strands are behind the body or the head; close
    // to the face most of the body is also out of view.
    for (preset, at_least) in [(CameraPreset::Front, 0.2), (CameraPreset::Closeup, 0.5)] {
        let s = scene(&sim, Camera::preset(preset), DebugMode::Final);
        renderer.set_hair_culling(true);
        let culled = renderer.render_image(&s, 200, 120).unwrap();
        let count = renderer
            .culled_strands()
            .unwrap()
            .expect("the frame culled");
        renderer.set_hair_culling(false);
        let drawn = renderer.render_image(&s, 200, 120).unwrap();
        assert_eq!(renderer.culled_strands().unwrap(), None);
        let share = count as f64 / STRANDS as f64;
        eprintln!("{preset:?}: {count} strands culled ({:.0}%)", 100.0 * share);
        assert!(
            culled.rgba == drawn.rgba && culled.ids == drawn.ids,
            "{preset:?}: culling changed the picture"
        );
        assert!(share > at_least, "{preset:?}: only {count} strands culled");
    }
    // Nor with the strands widened (a reduced tier drawn to look like the full coat, or
    // a level of detail): the occluders shrink by the widened ribbon's half width.
    renderer.set_lod_policy(LodPolicy {
        by_screen_size: false,
        reference_strands: Some(FULL_COAT_STRANDS),
        ..LodPolicy::default()
    });
    for preset in CameraPreset::ALL {
        let s = scene(&sim, Camera::preset(preset), DebugMode::Final);
        renderer.set_hair_culling(true);
        let culled = renderer.render_image(&s, 320, 180).unwrap();
        let count = renderer
            .culled_strands()
            .unwrap()
            .expect("the frame culled");
        let widened = renderer.last_lod().width_scale;
        renderer.set_hair_culling(false);
        let drawn = renderer.render_image(&s, 320, 180).unwrap();
        let differ = culled
            .rgba
            .chunks_exact(4)
            .zip(drawn.rgba.chunks_exact(4))
            .filter(|(a, b)| a != b)
            .count();
        eprintln!("{preset:?} widened {widened:.2}: {count} culled, {differ} pixels differ");
        assert!(widened > 4.0, "the strands are widened ({widened})");
        assert!(count > 0, "{preset:?}: none culled");
        assert_eq!(
            differ, 0,
            "{preset:?}: culling widened strands changed pixels"
        );
        assert!(culled.ids == drawn.ids);
    }
    renderer.set_lod_policy(LodPolicy::whole_coat());
    // Without the skin in front (the strands view) nothing is culled.
    renderer.set_hair_culling(true);
    let s = scene(
        &sim,
        Camera::preset(CameraPreset::Front),
        DebugMode::Strands,
    );
    renderer.render_image(&s, 200, 120).unwrap();
    assert_eq!(renderer.culled_strands().unwrap(), None);
}

#[test]
fn a_hand_near_the_floor_darkens_it_alike_wherever_it_is() {
    // The floor's vertices are metres apart: a hand over one of them must not darken the
    // floor more than the same hand between them (only its shadow and itself show).
    use pelt::render::mesh::FLOOR_CENTER;
    use pelt::render::{DrawCapsule, Material};
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, 256);
    let floor = RenderSettings::default().floor;
    // A floor vertex: on the inner ring, 2 m out along +x.
    let vertex = Vec3::new(FLOOR_CENTER.x + 2.0, floor, FLOOR_CENTER.y);
    let camera = Camera {
        eye: vertex + Vec3::new(0.0, 1.2, 2.0),
        target: vertex,
        ..Camera::preset(CameraPreset::Front)
    };
    let base = scene(&sim, camera, DebugMode::Skin);
    let plain = renderer.render_image(&base, 240, 135).unwrap();
    let mut darkened = |at: Vec3| {
        let hand = [DrawCapsule {
            a: at + Vec3::new(-0.1, 0.03, 0.0),
            b: at + Vec3::new(0.1, 0.03, 0.0),
            radius: 0.025,
            material: Material::Hand,
        }];
        let mut s = scene(&sim, camera, DebugMode::Skin);
        s.hand = &hand;
        // The demo's occlusion at its strongest (while scratching).
        s.hand_occlusion = 1.0;
        let image = renderer.render_image(&s, 240, 135).unwrap();
        let ids = image.ids.as_ref().unwrap();
        (0..ids.len())
            .filter(|&i| ids[i] == ids::FLOOR)
            .filter(|&i| {
                let sum =
                    |img: &Image| -> i32 { (0..3).map(|c| i32::from(img.rgba[4 * i + c])).sum() };
                sum(&plain) - sum(&image) > 6
            })
            .count()
    };
    let (over_vertex, between) = (
        darkened(vertex),
        darkened(vertex + Vec3::new(0.0, 0.0, 0.4)),
    );
    eprintln!("floor pixels darkened: {over_vertex} over a vertex, {between} between vertices");
    assert!(
        over_vertex <= 3 * between + 100,
        "a hand over a floor vertex darkened {over_vertex} pixels, between them {between}"
    );
}
