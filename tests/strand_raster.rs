//! The native strand rasteriser (`pelt::raster`) on cases worked by hand: one strand's
//! coverage across it against the formula (taper, tip fade, the `min_pixels` floor and the
//! LOD weight included), a strand behind the surfaces hidden, the nearer of two crossing
//! strands winning, the kept layers blending exactly, a stack of opaque strands closing its
//! pixels early, a binning pool too small for the frame changing nothing that shows, the
//! SIMD path against the scalar one, and the same bits on any number of threads; the light
//! maps' first hair and slabs, their one sample a texel, and their early exit.

use glam::{Mat4, Vec3, Vec4};
use pelt::raster::{
    BinStats, EXIT_TRANSMITTANCE, LAYERS, LightSlabs, Lod, Picture, RasterOptions, RasterView,
    StrandStyle, Strands, draw_light_maps, draw_picture, pack_point_color, unpack_point_color,
};

const W: u32 = 96;
const H: u32 = 64;

/// An orthographic view where world x, y are pixels (y down) and world z is the depth
/// buffer's value (reversed: greater is nearer), looking down −z.
fn view() -> RasterView {
    let proj = Mat4::from_cols(
        Vec4::new(2.0 / W as f32, 0.0, 0.0, 0.0),
        Vec4::new(0.0, -2.0 / H as f32, 0.0, 0.0),
        Vec4::new(0.0, 0.0, 1.0, 0.0),
        Vec4::new(-1.0, 1.0, 0.0, 1.0),
    );
    RasterView {
        view_proj: proj,
        eye: Vec3::ZERO,
        forward: Vec3::NEG_Z,
        perspective: false,
        pixel_scale: 1.0,
        width: W,
        height: H,
        reversed_depth: true,
    }
}

/// A straight strand of six evenly spaced points from `a` to `b`.
fn strand(a: Vec3, b: Vec3) -> [Vec4; 6] {
    std::array::from_fn(|i| a.lerp(b, i as f32 / 5.0).extend(0.0))
}

/// Strands of one colour each.
struct Coat {
    positions: Vec<Vec4>,
    colors: Vec<u32>,
}

impl Coat {
    fn new(strands: &[([Vec4; 6], Vec3)]) -> Self {
        Coat {
            positions: strands.iter().flat_map(|s| s.0).collect(),
            colors: strands
                .iter()
                .flat_map(|s| [pack_point_color(s.1); 6])
                .collect(),
        }
    }

    fn strands(&self, style: StrandStyle) -> Strands<'_> {
        Strands {
            positions: &self.positions,
            colors: &self.colors,
            order: None,
            lod: Lod::all((self.positions.len() / 6) as u32),
            style,
            hidden: None,
        }
    }
}

/// Ribbons `root` pixels wide at the root, `tip` of that at the tip, no pixel floor.
fn style(root: f32, tip: f32, tip_fade: f32) -> StrandStyle {
    StrandStyle {
        root_width: root,
        tip_width: tip,
        tip_fade,
        min_pixels: 0.0,
    }
}

fn draw(strands: &Strands, options: &RasterOptions, depth: Option<&[f32]>) -> (Picture, BinStats) {
    draw_picture(strands, &view(), options, depth).expect("a picture")
}

/// How far a value the picture holds may lie from the value drawn: pixels are stored as
/// half floats, rounded to the nearest (within 2⁻¹¹ of the value, relative).
fn stored(v: f32) -> f32 {
    v.abs() / 2048.0
}

fn opacity(p: &Picture, x: u32, y: u32) -> f32 {
    1.0 - p.pixel(x, y).unwrap()[3]
}

/// The coverage the module documents: a pixel-wide box against a band of half-width `h`
/// at distance `d`, times the ribbons' soft edge `1 − (d/h)⁴` at the pixel's centre.
fn formula(d: f32, h: f32) -> f32 {
    let overlap = ((d + 0.5).min(h) - (d - 0.5).max(-h)).clamp(0.0, 1.0);
    overlap * (1.0 - (d / h).powi(4)).max(0.0)
}

#[test]
fn coverage_across_a_strand_follows_the_formula_with_taper_fade_floor_and_weight() {
    let white = Vec3::ONE;
    // Along x from 10 to 70 at y = 20.3: 8 px wide at the root, a quarter of it at the tip,
    // the last 20% fading.
    let coat = Coat::new(&[(
        strand(Vec3::new(10.0, 20.3, 0.5), Vec3::new(70.0, 20.3, 0.5)),
        white,
    )]);
    let (p, _) = draw(
        &coat.strands(style(8.0, 0.25, 0.2)),
        &RasterOptions::default(),
        None,
    );
    let mut worst = 0.0f32;
    for x in [12u32, 25, 39, 50, 61, 66] {
        let along = (x as f32 + 0.5 - 10.0) / 60.0;
        let h = 4.0 * (1.0 - 0.75 * along);
        let fade = ((1.0 - along) / 0.2).clamp(0.0, 1.0);
        for y in 10..31 {
            let want = formula((y as f32 + 0.5 - 20.3).abs(), h) * fade;
            worst = worst.max((opacity(&p, x, y) - want).abs());
        }
    }
    assert!(worst < 1e-3, "coverage off the formula by {worst}");
    // Beyond the strand's ends nothing is drawn.
    assert_eq!(opacity(&p, 9, 20), 0.0);
    assert_eq!(opacity(&p, 71, 20), 0.0);

    // Thinner than the floor: drawn `min_pixels` wide and as much less opaque as it is
    // thinner (0.3 of a 1 px ribbon), times the LOD weight of its place in the order.
    let thin = Coat::new(&[
        (
            strand(Vec3::new(10.0, 40.6, 0.5), Vec3::new(70.0, 40.6, 0.5)),
            white,
        ),
        (
            strand(Vec3::new(10.0, 50.2, 0.5), Vec3::new(70.0, 50.2, 0.5)),
            white,
        ),
    ]);
    let mut s = thin.strands(StrandStyle {
        min_pixels: 1.0,
        ..style(0.3, 1.0, 1e-4)
    });
    // The second strand drawn weighs 0.4.
    s.lod = Lod {
        drawn: 2,
        end: 1.4,
        fade: 1.0,
        width_scale: 1.0,
    };
    let (p, _) = draw(&s, &RasterOptions::default(), None);
    let mut worst = 0.0f32;
    for y in 36..56 {
        let want = 0.3 * formula((y as f32 + 0.5 - 40.6).abs(), 0.5)
            + 0.3 * 0.4 * formula((y as f32 + 0.5 - 50.2).abs(), 0.5);
        worst = worst.max((opacity(&p, 30, y) - want).abs());
    }
    assert!(worst < 1e-3, "thin strands off the formula by {worst}");
    assert!(opacity(&p, 30, 40) > 0.1, "the thin strand vanished");
}

#[test]
fn a_strand_behind_the_surfaces_is_hidden_and_one_in_front_is_not() {
    let coat = Coat::new(&[(
        strand(Vec3::new(10.0, 20.5, 0.5), Vec3::new(80.0, 20.5, 0.5)),
        Vec3::new(0.8, 0.4, 0.1),
    )]);
    let s = coat.strands(style(6.0, 1.0, 1e-4));
    // The surfaces at depth 0.6 (nearer, reversed) on the left half; on the right half at
    // 0.6 in even columns and 0.4 in odd ones, so each of its tiles holds both.
    let depth: Vec<f32> = (0..W * H)
        .map(|i| {
            let x = i % W;
            if x < W / 2 || x.is_multiple_of(2) {
                0.6
            } else {
                0.4
            }
        })
        .collect();
    let (p, stats) = draw(&s, &RasterOptions::default(), Some(&depth));
    for x in [15, 30, 45, 50, 64, 76] {
        assert_eq!(
            opacity(&p, x, 20),
            0.0,
            "hair at x = {x} shows through the surface"
        );
    }
    for x in [51, 65, 77] {
        assert!(opacity(&p, x, 20) > 0.99, "hair at x = {x} hidden");
    }
    assert!(stats.segments > 0);
}

#[test]
fn of_two_crossing_strands_the_nearer_shows_its_colour() {
    let red = Vec3::new(1.0, 0.0, 0.0);
    let green = Vec3::new(0.0, 1.0, 0.0);
    for (red_z, green_z) in [(0.7, 0.3), (0.3, 0.7)] {
        // Drawn green first, red second, whichever is nearer.
        let coat = Coat::new(&[
            (
                strand(
                    Vec3::new(40.5, 5.0, green_z),
                    Vec3::new(40.5, 60.0, green_z),
                ),
                green,
            ),
            (
                strand(Vec3::new(5.0, 30.5, red_z), Vec3::new(90.0, 30.5, red_z)),
                red,
            ),
        ]);
        let (p, _) = draw(
            &coat.strands(style(6.0, 1.0, 1e-4)),
            &RasterOptions::default(),
            None,
        );
        let px = p.pixel(40, 30).unwrap();
        let want = if red_z > green_z { red } else { green };
        let got = Vec3::new(px[0], px[1], px[2]);
        let want = unpack_point_color(pack_point_color(want));
        assert!(
            (got - want).abs().max_element() < 1e-4 + stored(want.max_element()) && px[3] < 1e-4,
            "red at {red_z}, green at {green_z}: the crossing shows {px:?}"
        );
    }
}

/// Each strand's opacity and colour at a pixel, drawn alone.
fn alone(coat: &[([Vec4; 6], Vec3)], style: StrandStyle, x: u32, y: u32) -> Vec<(f32, Vec3)> {
    coat.iter()
        .map(|s| {
            let c = Coat::new(std::slice::from_ref(s));
            let (p, _) = draw(&c.strands(style), &RasterOptions::default(), None);
            let px = p.pixel(x, y).unwrap();
            let a = 1.0 - px[3];
            (a, Vec3::new(px[0], px[1], px[2]) / a.max(1e-12))
        })
        .collect()
}

#[test]
fn up_to_the_kept_layers_a_pixel_blends_exactly_in_depth_order() {
    // Strands tilted in depth with different slopes, listed in no depth order: which is
    // nearer changes along x, so the tile's order (by each segment's nearer end) is not
    // the pixel's.
    let colors = [
        Vec3::new(0.9, 0.1, 0.1),
        Vec3::new(0.1, 0.8, 0.2),
        Vec3::new(0.2, 0.3, 0.9),
        Vec3::new(0.7, 0.7, 0.1),
        Vec3::new(0.5, 0.1, 0.6),
        Vec3::new(0.1, 0.6, 0.6),
    ];
    let coat: Vec<([Vec4; 6], Vec3)> = colors
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let (z0, z1) = (0.2 + 0.1 * i as f32, 0.8 - 0.11 * i as f32);
            (
                strand(Vec3::new(4.0, 30.5, z0), Vec3::new(92.0, 30.5, z1)),
                c,
            )
        })
        .collect();
    // 8 px drawn, a quarter as opaque: translucent layers.
    let st = StrandStyle {
        min_pixels: 8.0,
        ..style(2.0, 1.0, 1e-4)
    };
    let depth_at = |i: usize, x: u32| {
        let t = (x as f32 + 0.5 - 4.0) / 88.0;
        let (z0, z1) = (0.2 + 0.1 * i as f32, 0.8 - 0.11 * i as f32);
        z0 + (z1 - z0) * t
    };
    let exact = |layers: &[(f32, Vec3)], x: u32| {
        let mut order: Vec<usize> = (0..layers.len()).collect();
        order.sort_by(|&a, &b| depth_at(b, x).total_cmp(&depth_at(a, x)));
        let (mut t, mut rgb) = (1.0f32, Vec3::ZERO);
        for i in order {
            rgb += t * layers[i].0 * layers[i].1;
            t *= 1.0 - layers[i].0;
        }
        (rgb, t)
    };
    let mut compared = 0;
    for x in [10u32, 30, 50, 70, 85] {
        for n in [LAYERS, LAYERS + 2] {
            let part = &coat[..n];
            let c = Coat::new(part);
            let (p, _) = draw(&c.strands(st), &RasterOptions::default(), None);
            let px = p.pixel(x, 30).unwrap();
            let (want, want_t) = exact(&alone(part, st, x, 30), x);
            let err = (Vec3::new(px[0], px[1], px[2]) - want)
                .abs()
                .max_element()
                .max((px[3] - want_t).abs());
            if n <= LAYERS {
                // Exact but for the picture's rounding of each value (and of the single
                // strands' pixels the exact blend is made of).
                let rounding = stored(want.max_element().max(want_t).max(1.0));
                assert!(
                    err < 1e-5 + rounding,
                    "{n} layers at x = {x}: off the exact blend by {err}"
                );
                compared += 1;
            } else {
                // Past the kept layers only the far ones' order is lost: close, not exact.
                assert!(err < 0.02, "{n} layers at x = {x}: off by {err}");
            }
        }
    }
    assert_eq!(compared, 5);
}

#[test]
fn a_stack_of_opaque_strands_closes_its_pixels_early() {
    // Forty wide opaque strands on one line, nearest listed last.
    let coat: Vec<([Vec4; 6], Vec3)> = (0..40)
        .map(|i| {
            let z = 0.1 + 0.02 * i as f32;
            let c = if i == 39 {
                Vec3::new(0.2, 0.6, 0.9)
            } else {
                Vec3::new(0.9, 0.2, 0.1)
            };
            (strand(Vec3::new(0.0, 32.0, z), Vec3::new(96.0, 32.0, z)), c)
        })
        .collect();
    let c = Coat::new(&coat);
    // 34 px wide over rows 15 … 49: tile rows 2 … 5 covered whole.
    let (p, stats) = draw(
        &c.strands(style(34.0, 1.0, 1e-4)),
        &RasterOptions::default(),
        None,
    );
    assert!(
        stats.skipped_entries > stats.entries / 2,
        "only {} of {} entries skipped",
        stats.skipped_entries,
        stats.entries
    );
    let px = p.pixel(50, 32).unwrap();
    let front = unpack_point_color(pack_point_color(Vec3::new(0.2, 0.6, 0.9)));
    assert!(px[3] < EXIT_TRANSMITTANCE, "transmittance {}", px[3]);
    assert!(
        (Vec3::new(px[0], px[1], px[2]) - front).abs().max_element() < 1e-3,
        "{px:?}"
    );
}

/// A reproducible tangle of `n` strands over the picture (a small LCG).
fn tangle(n: usize, seed: u64) -> Coat {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let strands: Vec<([Vec4; 6], Vec3)> = (0..n)
        .map(|_| {
            let a = Vec3::new(next() * W as f32, next() * H as f32, 0.1 + 0.8 * next());
            let b = a + Vec3::new(
                next() * 40.0 - 20.0,
                next() * 40.0 - 20.0,
                0.2 * next() - 0.1,
            );
            let bend = Vec3::new(next() * 6.0 - 3.0, next() * 6.0 - 3.0, 0.0);
            let mut s = strand(a, b);
            for (i, p) in s.iter_mut().enumerate() {
                let t = i as f32 / 5.0;
                *p += (bend * 4.0 * t * (1.0 - t)).extend(0.0);
            }
            (s, Vec3::new(next(), next(), next()) * 1.5)
        })
        .collect();
    Coat::new(&strands)
}

fn tangle_style() -> StrandStyle {
    StrandStyle {
        min_pixels: 1.0,
        ..style(2.5, 0.15, 0.2)
    }
}

fn bits(p: &Picture) -> Vec<u32> {
    p.rows().iter().flatten().map(|v| v.to_bits()).collect()
}

#[test]
fn the_simd_path_draws_the_scalar_paths_bits() {
    let coat = tangle(300, 7);
    let s = coat.strands(tangle_style());
    let depth: Vec<f32> = (0..W * H)
        .map(|i| 0.3 + 0.4 * ((i % W) as f32 / W as f32))
        .collect();
    let simd = RasterOptions {
        exposure: Some(1.2),
        ..RasterOptions::default()
    };
    let scalar = RasterOptions {
        simd: false,
        ..simd
    };
    // The eight lanes in two SSE registers, as on a CPU without AVX (`simd` alone draws
    // them in one AVX register where the CPU has it).
    let sse = RasterOptions { avx: false, ..simd };
    let (a, sa) = draw(&s, &simd, Some(&depth));
    let (b, sb) = draw(&s, &scalar, Some(&depth));
    let (c, sc) = draw(&s, &sse, Some(&depth));
    assert!(
        opacity(&a, 48, 32) > 0.0 || a.rows().iter().any(|p| p[3] < 0.5),
        "nothing drawn"
    );
    assert_eq!(
        bits(&a),
        bits(&b),
        "the SIMD picture differs from the scalar one"
    );
    assert_eq!(
        bits(&c),
        bits(&b),
        "the SIMD picture without AVX differs from the scalar one"
    );
    assert_eq!(sa, sb);
    assert_eq!(sc, sb);
    // The light maps too.
    let slabs = LightSlabs {
        depth_range: 2.0,
        ends: [0.012, 0.035, 0.08, 0.2],
    };
    let light = RasterView {
        reversed_depth: false,
        ..view()
    };
    let (la, _) = draw_light_maps(&s, &light, &slabs, &simd).unwrap();
    let (lb, _) = draw_light_maps(&s, &light, &slabs, &scalar).unwrap();
    let (lc, _) = draw_light_maps(&s, &light, &slabs, &sse).unwrap();
    assert_eq!(la, lb, "the SIMD light maps differ from the scalar ones");
    assert_eq!(
        lc, lb,
        "the SIMD light maps without AVX differ from the scalar ones"
    );
}

#[test]
fn the_same_input_gives_the_same_bits_on_any_number_of_threads() {
    // Dense enough that most pixels hold more fragments than the kept layers: the
    // unordered rest's sums would round differently in another order.
    let coat = tangle(3000, 11);
    let s = coat.strands(tangle_style());
    let on = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| draw(&s, &RasterOptions::default(), None))
    };
    let (a, sa) = on(1);
    let (b, sb) = on(4);
    let (c, _) = on(3);
    assert_eq!(bits(&a), bits(&b), "1 thread and 4 threads differ");
    assert_eq!(bits(&b), bits(&c), "4 threads and 3 threads differ");
    assert_eq!(sa, sb);
}

#[test]
fn a_pool_too_small_for_the_frame_is_counted_and_changes_nothing_that_shows() {
    let coat = tangle(400, 3);
    let s = coat.strands(tangle_style());
    let (whole, ws) = draw(&s, &RasterOptions::default(), None);
    assert_eq!((ws.groups, ws.overflow_tiles), (1, 0));
    // Small enough that the frame is binned in groups and the busiest tiles overflow
    // on their own.
    let small = RasterOptions {
        bin_capacity: 24,
        ..RasterOptions::default()
    };
    let (split, ss) = draw(&s, &small, None);
    assert!(ss.groups > 1, "{ss:?}");
    assert!(ss.overflow_tiles > 0 && ss.overflow_entries > 24, "{ss:?}");
    assert_eq!(ss.entries, ws.entries);
    let worst = whole
        .rows()
        .iter()
        .zip(split.rows())
        .flat_map(|(a, b)| (0..4).map(move |c| (a[c] - b[c]).abs()))
        .fold(0.0f32, f32::max);
    assert!(
        worst <= 1.0 / 255.0,
        "the overflowing frame differs by {worst}"
    );
}

#[test]
fn the_light_maps_hold_the_first_hair_and_the_opacity_in_each_slab() {
    // Seen from the light (depth 0 near … 1 far over 2 m): an opaque strand at depth 0.3
    // and a translucent one 5 cm (0.025) behind it, over the same texels.
    let white = Vec3::ONE;
    let coat = Coat::new(&[
        (
            strand(Vec3::new(8.0, 20.5, 0.3), Vec3::new(88.0, 20.5, 0.3)),
            white,
        ),
        (
            strand(Vec3::new(8.0, 20.5, 0.325), Vec3::new(88.0, 20.5, 0.325)),
            white,
        ),
    ]);
    let slabs = LightSlabs {
        depth_range: 2.0,
        ends: [0.012, 0.035, 0.08, 0.2],
    };
    let light = RasterView {
        reversed_depth: false,
        ..view()
    };
    let (maps, _) = draw_light_maps(
        &coat.strands(style(6.0, 1.0, 1e-4)),
        &light,
        &slabs,
        &RasterOptions::default(),
    )
    .unwrap();
    let at = |x: u32, y: u32| (y * W + x) as usize;
    let first = maps.first_hair[at(40, 20)];
    assert!((first - 0.3).abs() < 1e-6, "first hair at {first}");
    assert_eq!(maps.first_hair[at(40, 5)], 1.0, "hair where there is none");
    let o = maps.deep_opacity[at(40, 20)];
    // The first strand (fully opaque at its centre) in every slab; the second (5 cm
    // behind) only in the two that reach past 5 cm.
    assert!(
        (o[0] - 1.0).abs() < 1e-5 && (o[1] - 1.0).abs() < 1e-5,
        "{o:?}"
    );
    assert!(
        (o[2] - 2.0).abs() < 1e-5 && (o[3] - 2.0).abs() < 1e-5,
        "{o:?}"
    );
    // The texels as the `first_hair` texture holds them: R, G, B the depth's 24 bits,
    // most significant first (WGSL `unpack_depth` reads them back), A zero.
    let mut texels = vec![7; 3];
    maps.first_hair_texels_into(&mut texels);
    assert_eq!(texels.len(), (W * H) as usize);
    for (&texel, &depth) in texels.iter().zip(&maps.first_hair) {
        let [r, g, b, a] = texel.to_ne_bytes();
        let unpacked = f64::from(u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b));
        assert_eq!(a, 0);
        assert!(
            (unpacked / 16_777_215.0 - f64::from(depth)).abs() < 1e-7,
            "depth {depth} packed as {r}, {g}, {b}"
        );
    }
    assert!(maps.first_hair.iter().any(|&d| d > 0.0 && d < 1.0));
}

/// The light's view of the hand-worked cases: depth 0 near … 1 far over 2 m.
fn light_view() -> (RasterView, LightSlabs) {
    let light = RasterView {
        reversed_depth: false,
        ..view()
    };
    let slabs = LightSlabs {
        depth_range: 2.0,
        ends: [0.012, 0.035, 0.08, 0.2],
    };
    (light, slabs)
}

#[test]
fn the_light_maps_see_a_strand_by_one_sample_a_texel_as_the_ribbons_shadow_passes() {
    // The ribbons draw the light's maps with one sample a texel: a texel counts a strand
    // where its centre lies inside it, by the soft edge there (no box overlap, which
    // models the camera's four samples). A thick strand (6 px, centre y = 19.8) and a thin
    // one (0.3 px, drawn 1 px wide at 0.3 opacity, centre y = 40.6), far apart in depth
    // so each is alone in its texels.
    let white = Vec3::ONE;
    let coat = Coat::new(&[
        (
            strand(Vec3::new(8.0, 19.8, 0.3), Vec3::new(88.0, 19.8, 0.3)),
            white,
        ),
        (
            strand(Vec3::new(8.0, 40.6, 0.6), Vec3::new(88.0, 40.6, 0.6)),
            white,
        ),
    ]);
    let (light, slabs) = light_view();
    // The width is the frame's: drawn once 6 px wide (the first strand read), once 0.3 px
    // (the second).
    let maps = |root: f32| {
        let s = coat.strands(StrandStyle {
            min_pixels: 1.0,
            ..style(root, 1.0, 1e-4)
        });
        draw_light_maps(&s, &light, &slabs, &RasterOptions::default())
            .unwrap()
            .0
    };
    let (thick_maps, thin_maps) = (maps(6.0), maps(0.3));
    let edge = |d: f32, h: f32| (1.0 - (d / h).powi(4)).max(0.0);
    let mut worst = 0.0f32;
    let (mut sum_thin, mut want_thin) = (0.0f32, 0.0f32);
    for x in [20u32, 47, 70] {
        for y in 12..28 {
            let got = thick_maps.deep_opacity[(y * W + x) as usize][3];
            let want = edge((y as f32 + 0.5 - 19.8).abs(), 3.0);
            worst = worst.max((got - want).abs());
        }
        for y in 36..46 {
            let got = thin_maps.deep_opacity[(y * W + x) as usize][3];
            let want = 0.3 * edge((y as f32 + 0.5 - 40.6).abs(), 0.5);
            worst = worst.max((got - want).abs());
            sum_thin += got;
            want_thin += want;
        }
    }
    assert!(worst < 1e-4, "light opacity off one sample's by {worst}");
    // Across the thin strand, each column holds the ribbons' total: its one texel.
    assert!(
        (sum_thin - want_thin).abs() < 1e-4 && want_thin > 0.8,
        "thin strand: {sum_thin} against {want_thin}"
    );
}

#[test]
fn the_light_maps_stop_reading_a_tile_once_nothing_left_can_change_it() {
    // Deep piles of wide translucent strands (30 over each of 4 rows of tiles, a
    // centimetre apart in depth): read nearest first, a tile stops once every texel's first hair is nearer
    // than what is left and the rest lies past the last slab. A pool too small for any
    // list draws every entry by the slow path, in no order and with no early exit: the
    // same maps.
    let white = Vec3::ONE;
    let mut strands = Vec::new();
    for place in 0..4 {
        let y = 12.0 + 16.0 * place as f32;
        for i in 0..30 {
            let z = 0.1 + 0.01 * i as f32 + 0.002 * place as f32;
            let wobble = 0.37 * i as f32;
            strands.push((
                strand(
                    Vec3::new(-10.0 + wobble, y + 0.05 * i as f32, z),
                    Vec3::new(106.0 - wobble, y - 1.0, z),
                ),
                white,
            ));
        }
    }
    let coat = Coat::new(&strands);
    let mut s = coat.strands(style(16.0, 1.0, 1e-4));
    // Translucent (LOD weights 0.2 … 0.5), so a texel's first hair is often not the
    // nearest strand over it.
    s.lod = Lod {
        drawn: 120,
        end: 200.0,
        fade: 400.0,
        width_scale: 1.0,
    };
    let (light, slabs) = light_view();
    let (fast, fs) = draw_light_maps(&s, &light, &slabs, &RasterOptions::default()).unwrap();
    let slow_options = RasterOptions {
        bin_capacity: 4,
        ..RasterOptions::default()
    };
    let (slow, ss) = draw_light_maps(&s, &light, &slabs, &slow_options).unwrap();
    assert!(
        fs.skipped_entries * 4 > fs.entries,
        "only {} of {} entries skipped",
        fs.skipped_entries,
        fs.entries
    );
    assert!(ss.overflow_tiles > 0 && ss.skipped_entries == 0, "{ss:?}");
    assert_eq!(fast.first_hair, slow.first_hair, "first hair differs");
    let worst = fast
        .deep_opacity
        .iter()
        .zip(&slow.deep_opacity)
        .flat_map(|(a, b)| (0..4).map(move |c| (a[c] - b[c]).abs() / b[c].max(1.0)))
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-5, "deep opacity differs by {worst} (relative)");
    let covered = fast.first_hair.iter().filter(|&&d| d < 1.0).count();
    assert!(covered > 1000, "{covered} texels with hair");
}

#[test]
fn bad_inputs_are_refused_with_what_to_do() {
    let coat = tangle(4, 1);
    let mut s = coat.strands(tangle_style());
    s.positions = &coat.positions[..7];
    let e = draw_picture(&s, &view(), &RasterOptions::default(), None).unwrap_err();
    assert!(e.to_string().contains("whole number of strands"), "{e}");
    let s = coat.strands(tangle_style());
    let e = draw_picture(&s, &view(), &RasterOptions::default(), Some(&[0.0; 3])).unwrap_err();
    assert!(e.to_string().contains("one depth a pixel"), "{e}");
    let zero = RasterView { width: 0, ..view() };
    assert!(draw_picture(&s, &zero, &RasterOptions::default(), None).is_err());
    let order = [9u32];
    let bad = Strands {
        order: Some(&order),
        lod: Lod::all(1),
        ..s
    };
    let e = draw_picture(&bad, &view(), &RasterOptions::default(), None).unwrap_err();
    assert!(e.to_string().contains("strand 9"), "{e}");
}

/// The coat of the creature (16,384 strands: the demo's goal) at a README camera, drawn by the renderer's ribbons (the
/// reference: 4× MSAA, `strands` view, hair alone) and by this rasteriser from the same
/// positions, LOD and camera. The hair's shading is made computable without the GPU: no
/// key or fill light and the same ambient from sky and ground, so a point's colour is its
/// strand's albedo × ambient × the root-to-tip ramp (`shade_hair` in
/// `shaders/ribbons.wgsl` with the other terms zero).
#[test]
fn the_coat_matches_the_ribbons_at_a_readme_camera() {
    use pelt::creature::{Creature, Srgb};
    use pelt::gpu::GpuContext;
    use pelt::render::palette::Lighting;
    use pelt::render::strand_lod::{DRAWN_ORDER_SEED, drawn_order};
    use pelt::render::{
        Camera, CameraPreset, DebugMode, FurRenderer, OFFSCREEN_FORMAT, Raster, RenderSettings,
        Scene, TargetLayout, ids,
    };
    use pelt::sim::{FurConfig, FurSim};

    const STRANDS: usize = 16_384;
    let (w, h) = (320u32, 180u32);
    let ctx = GpuContext::new().expect("a wgpu adapter (CI installs lavapipe)");
    let creature = Creature::default();
    let mut sim = FurSim::new_gpu(&FurConfig::new(STRANDS, 3), creature.clone(), &ctx).unwrap();
    sim.step(30).unwrap();
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, true);
    let settings = RenderSettings {
        raster: Raster::Hardware,
        ..RenderSettings::default()
    };
    let mut renderer =
        FurRenderer::new(&ctx.device, &ctx.queue, layout, &creature, settings).unwrap();
    renderer.set_strands_from_sim(&sim).unwrap();
    renderer.set_hair_culling(false);
    let camera = Camera::preset(CameraPreset::Front);
    let ambient = Vec3::new(0.55, 0.5, 0.45);
    let lighting = Lighting {
        key_irradiance: 0.0,
        fill_irradiance: 0.0,
        sky: ambient,
        ground: ambient,
        exposure: 1.3,
        ..Lighting::default()
    };
    let mut scene = Scene::new(camera, sim.pose_at(sim.time() as f32));
    scene.mode = DebugMode::Strands;
    scene.lighting = lighting;
    scene.positions_index = sim.gpu().unwrap().current_index();
    let reference = renderer.render_image(&scene, w, h).unwrap();
    let lod = renderer.last_lod();

    // The same strands, shaded on the CPU as the shading pass shades them under this light.
    let positions = sim.positions().unwrap();
    let palette = [
        Srgb::MAIN.linear(),
        Srgb::CREAM.linear(),
        Srgb::STRIPE.linear(),
        Srgb::BLUSH.linear(),
    ];
    let colors: Vec<u32> = sim
        .groom()
        .roots
        .iter()
        .flat_map(|r| {
            let packed = r.pattern.pack();
            let ch = |i: u32| ((packed >> (8 * i)) & 0xff) as f32 / 255.0;
            let mut c = palette[0];
            c = c.lerp(palette[1], ch(0));
            c = c.lerp(palette[2], ch(1));
            c = c.lerp(palette[2] * 0.45, ch(2));
            c = c.lerp(palette[3], ch(3));
            let albedo = c * (0.86 + 0.28 * r.random);
            (0..6).map(move |i| {
                let ramp = 0.42 + 0.58 * (i as f32 / 5.0).sqrt();
                pack_point_color(albedo * ambient * ramp)
            })
        })
        .collect();
    let order = drawn_order(STRANDS as u32, DRAWN_ORDER_SEED);
    let settings = renderer.settings();
    let strands = Strands {
        positions: &positions,
        colors: &colors,
        order: Some(&order),
        lod: Lod {
            drawn: lod.drawn,
            end: lod.end,
            fade: lod.fade,
            width_scale: lod.width_scale,
        },
        style: StrandStyle {
            root_width: settings.root_width,
            tip_width: settings.tip_width,
            tip_fade: settings.tip_fade,
            min_pixels: settings.min_pixels,
        },
        hidden: None,
    };
    let view = RasterView::camera(
        camera.view_proj(w as f32 / h as f32),
        camera.eye,
        camera.forward(),
        camera.pixel_scale(h),
        (w, h),
    );
    let options = RasterOptions {
        exposure: Some(lighting.exposure),
        ..RasterOptions::default()
    };
    let (picture, _) = draw_picture(&strands, &view, &options, None).unwrap();
    // Over the reference's own background (a corner with no hair).
    let ids = reference.ids.as_ref().unwrap();
    assert_ne!(ids[0], ids::HAIR, "the corner is hair");
    let bg: Vec<u8> = reference.rgba[..4].repeat((w * h) as usize);
    let ours = picture.composite_srgb8(&bg).unwrap();

    // Hair where a picture differs visibly from the background (16/255 in a channel): the
    // same test on both. (The ribbons' ID target keeps MSAA sample 0 alone, a dithered
    // draw of each pixel's coverage; its overlap with ours is printed, not held.)
    let visible = |img: &[u8]| -> Vec<bool> {
        img.chunks(4)
            .map(|p| (0..3).any(|c| p[c].abs_diff(bg[c]) >= 16))
            .collect()
    };
    let (ours_hair, theirs_hair) = (visible(&ours), visible(&reference.rgba));
    let iou_of = |a: &[bool], b: &[bool]| {
        let both = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
        let either = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
        both as f64 / either.max(1) as f64
    };
    let iou = iou_of(&ours_hair, &theirs_hair);
    let id_iou = iou_of(
        &picture
            .rows()
            .iter()
            .map(|p| p[3] <= 0.5)
            .collect::<Vec<_>>(),
        &ids.iter().map(|&i| i == ids::HAIR).collect::<Vec<_>>(),
    );
    let mae = |rgba: &[u8]| {
        let sum: u64 = rgba
            .chunks(4)
            .zip(reference.rgba.chunks(4))
            .map(|(p, q)| (0..3).map(|c| u64::from(p[c].abs_diff(q[c]))).sum::<u64>())
            .sum();
        sum as f64 / (w * h * 3) as f64
    };
    let error = mae(&ours);
    // What an empty picture would score: the measure can tell hair from none.
    let empty = mae(&bg);
    eprintln!(
        "{} strands drawn of {STRANDS}, width ×{:.2}: hair IoU {iou:.4} ({} ours, {} ribbons; \
         against the ID target's sample 0 {id_iou:.4}), mean abs error {error:.3}/255 per \
         channel (no hair: {empty:.3})",
        lod.drawn,
        lod.width_scale,
        ours_hair.iter().filter(|&&x| x).count(),
        theirs_hair.iter().filter(|&&x| x).count(),
    );
    assert!(
        iou >= 0.93,
        "hair coverage IoU {iou:.4} against the ribbons"
    );
    assert!(
        error <= 3.0,
        "mean abs error {error:.3}/255 per channel against the ribbons"
    );
    assert!(
        empty > 2.0 * error,
        "the picture without hair scores {empty:.3}"
    );
}
