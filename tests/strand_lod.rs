//! Strand level of detail on lavapipe at small sizes: every prefix of the drawn order is
//! spread evenly over the body, neighbouring levels change the coat's covered pixels by
//! less than 2%, a reduced tier widened toward a denser coat covers the skin like it
//! (within 5%), and the same inputs give the same bytes.

mod render_common;

use glam::Vec3;
use pelt::creature::{Creature, Part};
use pelt::gpu::GpuContext;
use pelt::groom::{Groom, morton_code};
use pelt::render::camera::CREATURE_CENTER;
use pelt::render::strand_lod::{LodPolicy, WIDENING_EXPONENT, coat_pixels, drawn_order};
use pelt::render::{Camera, CameraPreset, DebugMode, FurRenderer, Image, Scene, ids};
use pelt::sim::FurSim;

use render_common::gpu;

/// A settled coat of `strands` and a renderer with an ID target bound to it.
fn setup(ctx: &GpuContext, strands: usize) -> (FurSim, FurRenderer) {
    render_common::coat_and_renderer(ctx, strands, 20, true)
}

fn render(renderer: &mut FurRenderer, sim: &FurSim, mode: DebugMode, size: (u32, u32)) -> Image {
    let mut scene = Scene::new(
        Camera::preset(CameraPreset::Front),
        sim.pose_at(sim.time() as f32),
    );
    scene.mode = mode;
    scene.positions_index = sim.gpu().unwrap().current_index();
    renderer.render_image(&scene, size.0, size.1).unwrap()
}

fn ids_of(image: &Image) -> &[u8] {
    image.ids.as_deref().expect("IDs drawn")
}

/// Pixels of the final picture where hair is in front.
fn hair_pixels(image: &Image) -> usize {
    ids_of(image).iter().filter(|&&id| id == ids::HAIR).count()
}

/// The share of the host's pixels (skin and face, seen without hair) that hair covers in
/// the final picture.
fn skin_coverage(renderer: &mut FurRenderer, sim: &FurSim, size: (u32, u32)) -> f64 {
    let skin = render(renderer, sim, DebugMode::Skin, size);
    let fin = render(renderer, sim, DebugMode::Final, size);
    let (mut host, mut covered) = (0usize, 0usize);
    for (&s, &f) in ids_of(&skin).iter().zip(ids_of(&fin)) {
        if s == ids::SKIN || s == ids::FACE {
            host += 1;
            covered += usize::from(f == ids::HAIR);
        }
    }
    assert!(host > 1000, "the host shows ({host} pixels)");
    covered as f64 / host as f64
}

/// A policy that draws about `target` strands at the front camera in a target `height`
/// pixels tall, widened toward `reference`.
fn policy_for(target: f32, height: u32, reference: Option<u32>) -> LodPolicy {
    let camera = Camera::preset(CameraPreset::Front);
    LodPolicy {
        by_screen_size: true,
        strands_per_pixel: target / coat_pixels(&camera, CREATURE_CENTER, height),
        min_drawn: 1,
        reference_strands: reference,
        ..LodPolicy::default()
    }
}

#[test]
fn every_prefix_of_the_order_is_spread_evenly_over_the_body() {
    let creature = Creature::default();
    let groom = Groom::generate(&creature, 4096, 11).unwrap();
    let n = groom.roots.len();
    // Cells of an octree two levels deep over the roots' body-space box (the box the
    // Morton order is built on), and the body parts.
    let body: Vec<Vec3> = groom
        .roots
        .iter()
        .map(|r| creature.to_body(r.part, r.position))
        .collect();
    let lo = body.iter().fold(Vec3::INFINITY, |a, &p| a.min(p));
    let hi = body.iter().fold(Vec3::NEG_INFINITY, |a, &p| a.max(p));
    let cell = |i: usize| (morton_code(body[i], lo, hi) >> 24) as usize;
    let part = |i: usize| match groom.roots[i].part {
        Part::Head => 64,
        Part::Body => 65,
        Part::Paw(_) => 66,
        Part::Tail => 67,
    };
    let mut total = [0usize; 68];
    for i in 0..n {
        total[cell(i)] += 1;
        total[part(i)] += 1;
    }
    let mut misses = Vec::new();
    for seed in [0, 1, 99] {
        let order = drawn_order(n as u32, seed);
        for prefix in [64, 100, 256, 1000, 1024, 2048, 3000] {
            let mut got = [0usize; 68];
            for &s in &order[..prefix] {
                got[cell(s as usize)] += 1;
                got[part(s as usize)] += 1;
            }
            for (k, (&g, &t)) in got.iter().zip(&total).enumerate() {
                let expected = prefix as f64 * t as f64 / n as f64;
                // An even stride along the Morton curve puts each octree cell's share of
                // the prefix within a strand or two of its share of the coat (a cell is a
                // run of the curve); a body part is many runs, so a few strands more. A
                // shuffled order misses by the square root of the count, the identity
                // order by the whole share.
                let tolerance = if k < 64 {
                    2.5 + 0.03 * expected
                } else {
                    3.0 + 0.05 * expected
                };
                if (g as f64 - expected).abs() > tolerance {
                    misses.push(format!(
                        "seed {seed}, prefix {prefix}, region {k}: {g} strands, expected {expected:.1}"
                    ));
                }
            }
        }
    }
    assert!(misses.is_empty(), "{}", misses.join("\n"));
}

#[test]
fn neighbouring_levels_change_the_covered_pixels_by_under_two_percent() {
    let ctx = gpu();
    let strands = 8192;
    let (sim, mut renderer) = setup(&ctx, strands);
    let size = (480, 270);
    let mut last: Option<(f32, usize)> = None;
    let mut counts = Vec::new();
    // Levels a quarter octave apart, from the whole coat to an eighth of it (below that the
    // widening reaches its cap, and coverage falls with the count).
    for j in 0..=12 {
        let target = strands as f32 * 2f32.powf(-j as f32 / 4.0);
        renderer.set_lod_policy(policy_for(target, size.1, None));
        let image = render(&mut renderer, &sim, DebugMode::Final, size);
        let lod = renderer.last_lod();
        let covered = hair_pixels(&image);
        counts.push((lod.drawn, lod.width_scale, covered));
        if let Some((t, c)) = last {
            let change = (covered as f64 - c as f64).abs() / c as f64;
            assert!(
                change < 0.02,
                "{t:.0} → {target:.0} strands changed the covered pixels by {:.1}%: {counts:?}",
                change * 100.0
            );
        }
        last = Some((target, covered));
    }
    eprintln!("drawn, width scale, hair pixels: {counts:?}");
    // The levels did reduce the strands drawn, and widened them as they did.
    let (first, last) = (counts[0], counts[counts.len() - 1]);
    assert!(last.0 <= strands as u32 / 7);
    assert!(
        first.1 == 1.0 && last.1 > 4.0,
        "width scale {} at the whole coat, {} at an eighth of it",
        first.1,
        last.1
    );
    // Small steps must not add up: every level covers within 8% of the whole coat's
    // pixels, and an eighth of the coat within 5%.
    let apart = |c: usize| (c as f64 - first.2 as f64).abs() / first.2 as f64;
    let worst = counts.iter().map(|c| apart(c.2)).fold(0.0, f64::max);
    assert!(
        worst < 0.08 && apart(last.2) < 0.05,
        "the whole coat covers {} pixels, an eighth of it {}; a level is {:.1}% off: {counts:?}",
        first.2,
        last.2,
        worst * 100.0
    );
}

#[test]
fn a_reduced_tier_widened_covers_the_skin_like_a_denser_coat() {
    let ctx = gpu();
    let size = (320, 180);
    let (dense, reduced) = (16_384, 2048);
    let whole = |reference| LodPolicy {
        by_screen_size: false,
        reference_strands: reference,
        ..LodPolicy::default()
    };
    let (sim, mut renderer) = setup(&ctx, dense);
    renderer.set_lod_policy(whole(None));
    let dense_coverage = skin_coverage(&mut renderer, &sim, size);
    drop((sim, renderer));
    let (sim, mut renderer) = setup(&ctx, reduced);
    renderer.set_lod_policy(whole(None));
    let thin_coverage = skin_coverage(&mut renderer, &sim, size);
    renderer.set_lod_policy(whole(Some(dense as u32)));
    let widened_coverage = skin_coverage(&mut renderer, &sim, size);
    let scale = renderer.last_lod().width_scale;
    // Widened by other exponents: linearly (the thin Poisson layer) and by the square root.
    let mut other = |exponent: f32| {
        renderer.set_lod_policy(LodPolicy {
            widening_exponent: exponent,
            ..whole(Some(dense as u32))
        });
        skin_coverage(&mut renderer, &sim, size)
    };
    let (linear, root) = (other(1.0), other(0.5));
    eprintln!(
        "skin covered: {dense} strands {dense_coverage:.4}, {reduced} strands {thin_coverage:.4}, widened {widened_coverage:.4} (scale {scale:.2}); widened linearly {linear:.4}, by the square root {root:.4}"
    );
    // The case must differ: unwidened, the reduced tier covers far less than the dense coat.
    assert!(
        thin_coverage < 0.5 * dense_coverage,
        "unwidened, {reduced} strands cover {thin_coverage:.4} of the skin, {dense} strands {dense_coverage:.4}: nothing for the widening to do"
    );
    // Every strand drawn: the density ratio to the measured exponent.
    let expected = (dense as f32 / reduced as f32).powf(WIDENING_EXPONENT);
    assert!(
        (scale - expected).abs() < 1e-3 * expected,
        "width scale {scale}, expected {expected}"
    );
    assert!(
        (widened_coverage - dense_coverage).abs() <= 0.05 * dense_coverage,
        "the widened reduced tier covers {widened_coverage:.4} of the skin, the dense coat {dense_coverage:.4}"
    );
    // The exponent matters: the Poisson layer's 1 overshoots, the square root falls short.
    assert!(
        linear > 1.05 * dense_coverage && root < 0.95 * dense_coverage,
        "widened linearly {linear:.4}, by the square root {root:.4}, the dense coat {dense_coverage:.4}"
    );
}

#[test]
fn the_same_inputs_give_the_same_bytes_at_a_reduced_level() {
    let ctx = gpu();
    let size = (160, 90);
    let draw = || {
        let (sim, mut renderer) = setup(&ctx, 2048);
        renderer.set_lod_policy(policy_for(700.0, size.1, Some(8192)));
        let image = render(&mut renderer, &sim, DebugMode::Final, size);
        assert!(renderer.last_lod().drawn < 2048);
        image
    };
    let (a, b) = (draw(), draw());
    assert!(hair_pixels(&a) > 100);
    assert!(a.rgba == b.rgba && a.ids == b.ids, "two runs differ");
}

#[test]
fn each_skin_level_draws_close_to_the_full_mesh() {
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, 64);
    // Large enough that a sagging silhouette would show.
    let size = (480, 270);
    let tris = renderer.skin_triangles();
    renderer.set_skin_level(Some(0));
    let full = render(&mut renderer, &sim, DebugMode::Skin, size);
    let host = |image: &Image| -> Vec<bool> {
        ids_of(image)
            .iter()
            .map(|&id| id == ids::SKIN || id == ids::FACE)
            .collect()
    };
    let full_host = host(&full);
    let full_count = full_host.iter().filter(|&&h| h).count();
    let face_pixels = |image: &Image| ids_of(image).iter().filter(|&&id| id == ids::FACE).count();
    let full_face = face_pixels(&full);
    let face_tris = renderer.face_triangles();
    assert!(
        full_face > 100,
        "the eyes and nose cover {full_face} pixels"
    );
    for level in 1..tris.len() {
        renderer.set_skin_level(Some(level));
        let image = render(&mut renderer, &sim, DebugMode::Skin, size);
        let differ = host(&image)
            .iter()
            .zip(&full_host)
            .filter(|(a, b)| a != b)
            .count();
        // Mean colour difference over the host, per channel (0 … 255).
        let mut sum = 0u64;
        for (i, &h) in full_host.iter().enumerate() {
            if h {
                for c in 0..3 {
                    sum += u64::from(full.rgba[4 * i + c].abs_diff(image.rgba[4 * i + c]));
                }
            }
        }
        let mae = sum as f64 / (3 * full_count) as f64;
        eprintln!(
            "skin level {level} ({} of {} triangles): {differ} of {full_count} host pixels differ, colour MAE {mae:.2}/255",
            tris[level], tris[0]
        );
        assert!(tris[level] < tris[level - 1], "levels get coarser");
        assert!(
            (differ as f64) < 0.01 * full_count as f64,
            "skin level {level}: {differ} of {full_count} host pixels differ"
        );
        assert!(mae < 3.0, "skin level {level}: colour MAE {mae:.2}");
        // The eyes and nose follow the skin's level, down to half their facets, and keep
        // their outline.
        let face = face_pixels(&image);
        eprintln!(
            "  face: {} of {} triangles, {face} pixels against {full_face}",
            face_tris[level], face_tris[0]
        );
        assert!(
            face_tris[level] <= face_tris[level - 1] && face_tris[2] * 3 < face_tris[0],
            "face levels get coarser: {face_tris:?}"
        );
        assert!(
            face.abs_diff(full_face) as f64 <= 0.02 * full_face as f64,
            "face at level {level}: {face} pixels against {full_face}"
        );
    }
}
