//! The groom: determinism, uniform root density (within and across parts), no buried
//! roots, well-formed root data, Morton order, and roots the solver cannot use refused.

use glam::{Vec2, Vec3};
use pelt::creature::{Creature, Part};
use pelt::groom::{Groom, GroomError, MAX_STRANDS};
use pelt::sim::{FurParams, gpu_roots};

fn root_bits(g: &Groom) -> Vec<u8> {
    let roots = gpu_roots(&g.roots, &Creature::default(), &FurParams::default());
    bytemuck::cast_slice(&roots).to_vec()
}

#[test]
fn same_seed_same_bits_different_seed_different_roots() {
    let c = Creature::default();
    let a = Groom::generate(&c, 3000, 42).unwrap();
    let b = Groom::generate(&c, 3000, 42).unwrap();
    let d = Groom::generate(&c, 3000, 43).unwrap();
    assert_eq!(root_bits(&a), root_bits(&b));
    assert_eq!(
        a.roots.iter().map(|r| r.pattern.pack()).collect::<Vec<_>>(),
        b.roots.iter().map(|r| r.pattern.pack()).collect::<Vec<_>>()
    );
    let same = a
        .roots
        .iter()
        .zip(&d.roots)
        .filter(|(x, y)| x.position == y.position)
        .count();
    assert!(same < 30, "{same} of 3000 roots identical across seeds");
}

/// The parameter of a root of a sphere-mapped part, recovered from its position.
fn direction_of(c: &Creature, part: Part, p: Vec3) -> Vec3 {
    match part {
        Part::Head => (p - c.head.center).normalize(),
        Part::Body => ((p - c.body.center) / c.body.radii).normalize(),
        Part::Paw(i) => {
            let e = c.paws[i as usize];
            ((p - e.center) / e.radii).normalize()
        }
        Part::Tail => unreachable!(),
    }
}

/// A bin index for a direction: 5 bands of y times 4 quadrants of azimuth.
fn sphere_bin(u: Vec3) -> usize {
    let band = (((u.y + 1.0) * 0.5 * 5.0) as usize).min(4);
    let quadrant =
        (((u.z.atan2(u.x) + std::f32::consts::PI) / std::f32::consts::FRAC_PI_2) as usize).min(3);
    band * 4 + quadrant
}

const SPHERE_BINS: usize = 20;
const TAIL_BINS: usize = 10;

/// Visible area (not buried in another part) of each bin of `part`, by quadrature on a fine
/// equal-area lattice independent of the sampler.
fn visible_area_bins(c: &Creature, part: Part) -> Vec<f64> {
    if part == Part::Tail {
        let (nt, np) = (600, 120);
        let mut bins = vec![0.0f64; TAIL_BINS];
        for i in 0..nt {
            let t = (i as f32 + 0.5) / nt as f32;
            for k in 0..np {
                let psi = (k as f32 + 0.5) / np as f32 * std::f32::consts::TAU;
                let s = c.tail.surface(Vec2::new(t, psi));
                if !c.inside_other(part, s.position) {
                    let w = f64::from(s.jacobian) * std::f64::consts::TAU / (nt * np) as f64;
                    bins[((t * TAIL_BINS as f32) as usize).min(TAIL_BINS - 1)] += w;
                }
            }
        }
        return bins;
    }
    let n = 160_000;
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    let mut bins = vec![0.0f64; SPHERE_BINS];
    for i in 0..n {
        let y = 1.0 - 2.0 * (i as f32 + 0.5) / n as f32;
        let r = (1.0 - y * y).sqrt();
        let phi = golden * i as f32;
        let u = Vec3::new(r * phi.cos(), y, r * phi.sin());
        let s = c.surface(part, u);
        if !c.inside_other(part, c.to_body(part, s.position)) {
            bins[sphere_bin(u)] += f64::from(s.jacobian) * 4.0 * std::f64::consts::PI / n as f64;
        }
    }
    bins
}

#[test]
fn roots_are_uniform_per_unit_area_within_and_across_parts() {
    let c = Creature::default();
    let n = 80_000;
    let g = Groom::generate(&c, n, 5).unwrap();
    let areas: Vec<(Part, Vec<f64>)> = Part::ALL
        .iter()
        .map(|&p| (p, visible_area_bins(&c, p)))
        .collect();
    let total: f64 = areas.iter().flat_map(|(_, b)| b.iter()).sum();
    let mut worst = 0.0f64;
    for (part, bins) in &areas {
        let mut counts = vec![0usize; bins.len()];
        for r in g.roots.iter().filter(|r| r.part == *part) {
            let bin = if *part == Part::Tail {
                ((c.tail.nearest_parameter(r.position) * TAIL_BINS as f32) as usize)
                    .min(TAIL_BINS - 1)
            } else {
                sphere_bin(direction_of(&c, *part, r.position))
            };
            counts[bin] += 1;
        }
        let part_expected = n as f64 * bins.iter().sum::<f64>() / total;
        let part_count: usize = counts.iter().sum();
        let z = (part_count as f64 - part_expected) / part_expected.sqrt();
        // The sampler's areas come from 12,000 Jacobians each (about 1% error), so allow
        // that bias on top of counting noise.
        let allowed = 4.0 + 0.015 * part_expected.sqrt();
        assert!(
            z.abs() < allowed,
            "{part:?}: {part_count} roots, expected {part_expected:.0} (z = {z:.1})"
        );
        for (bin, (&count, &area)) in counts.iter().zip(bins).enumerate() {
            let expected = part_count as f64 * area / bins.iter().sum::<f64>();
            if expected < 20.0 {
                continue;
            }
            let z = (count as f64 - expected) / expected.sqrt();
            worst = worst.max(z.abs());
            assert!(
                z.abs() < 5.0,
                "{part:?} bin {bin}: {count} roots, expected {expected:.0} (z = {z:.1})"
            );
        }
    }
    eprintln!("worst bin deviation: {worst:.2} sigma");
}

#[test]
fn no_root_is_buried_and_root_data_is_well_formed() {
    let c = Creature::default();
    let g = Groom::generate(&c, 20_000, 9).unwrap();
    assert_eq!(g.len(), 20_000);
    for r in &g.roots {
        let p = c.to_body(r.part, r.position);
        assert!(
            !c.inside_other(r.part, p),
            "{:?} root at {p} is inside another part",
            r.part
        );
        assert!((r.normal.length() - 1.0).abs() < 1e-4);
        assert!((r.flow.length() - 1.0).abs() < 1e-4);
        assert!(
            r.flow.dot(r.normal).abs() < 1e-4,
            "flow leaves the tangent plane"
        );
        assert!((0.015..=0.25).contains(&r.length));
        assert!((0.0..1.0).contains(&r.random));
        for ch in [
            r.pattern.cream,
            r.pattern.stripe,
            r.pattern.ear_tip,
            r.pattern.blush,
        ] {
            assert!((0.0..=1.0).contains(&ch));
        }
    }
    let mean = |part: fn(Part) -> bool| {
        let l: Vec<f32> = g
            .roots
            .iter()
            .filter(|r| part(r.part))
            .map(|r| r.length)
            .collect();
        l.iter().sum::<f32>() / l.len() as f32
    };
    let head = mean(|p| p == Part::Head);
    let body = mean(|p| p == Part::Body);
    let paws = mean(|p| matches!(p, Part::Paw(_)));
    assert!((0.09..0.15).contains(&head), "head mean length {head}");
    assert!((0.11..0.16).contains(&body), "body mean length {body}");
    assert!((0.04..0.065).contains(&paws), "paw mean length {paws}");
    // Every part grows fur and every pattern channel is used somewhere.
    for part in Part::ALL {
        assert!(
            g.roots.iter().any(|r| r.part == part),
            "{part:?} has no roots"
        );
    }
    assert!(g.roots.iter().any(|r| r.pattern.cream > 0.8));
    assert!(g.roots.iter().any(|r| r.pattern.stripe > 0.8));
    assert!(g.roots.iter().any(|r| r.pattern.ear_tip > 0.8));
    assert!(g.roots.iter().any(|r| r.pattern.blush > 0.5));
}

#[test]
fn bad_strand_counts_are_clear_errors() {
    let c = Creature::default();
    assert!(matches!(
        Groom::generate(&c, 0, 1),
        Err(GroomError::StrandCount { count: 0, .. })
    ));
    let err = Groom::generate(&c, MAX_STRANDS + 1, 1).unwrap_err();
    assert!(err.to_string().contains("out of range"), "{err}");
    // A degenerate creature (every size zero) is an error, not a hang or a panic.
    let mut flat = Creature::default();
    flat.head.base_radius = 0.0;
    for b in flat.head.ears.iter_mut().chain(flat.head.cheeks.iter_mut()) {
        b.height = 0.0;
    }
    flat.head.muzzle.height = 0.0;
    flat.body.radii = Vec3::ZERO;
    for p in &mut flat.paws {
        p.radii = Vec3::ZERO;
    }
    flat.tail.root_radius = 0.0;
    flat.tail.tip_radius = 0.0;
    assert!(matches!(
        Groom::generate(&flat, 10, 1),
        Err(GroomError::Degenerate { .. })
    ));
}

/// The 64-strand blocks (GPU workgroups) holding at least one root within `radius` of
/// `center` (body space), and the fewest blocks those roots could fill.
fn blocks_touched(
    c: &Creature,
    roots: &[pelt::groom::StrandRoot],
    center: Vec3,
    radius: f32,
) -> (usize, usize) {
    let mut blocks = std::collections::BTreeSet::new();
    let mut count = 0usize;
    for (i, r) in roots.iter().enumerate() {
        if c.to_body(r.part, r.position).distance(center) < radius {
            blocks.insert(i / 64);
            count += 1;
        }
    }
    (blocks.len(), count.div_ceil(64))
}

#[test]
fn roots_are_in_morton_order_so_a_hand_sized_patch_touches_few_workgroups() {
    let c = Creature::default();
    let g = Groom::generate(&c, 32_768, 4).unwrap();
    // A palm-sized patch on the back, and one around a root on the head.
    let head = g.roots.iter().find(|r| r.part == Part::Head).unwrap();
    for center in [
        Vec3::new(0.0, -0.08, -0.3),
        c.to_body(Part::Head, head.position),
    ] {
        let (blocks, fewest) = blocks_touched(&c, &g.roots, center, 0.08);
        // The same roots in sampling order (the groom's order before sorting): shuffle
        // deterministically by a stride coprime with the count.
        let shuffled: Vec<_> = (0..g.len())
            .map(|i| g.roots[(i * 7919) % g.len()])
            .collect();
        let (scattered, _) = blocks_touched(&c, &shuffled, center, 0.08);
        eprintln!("patch at {center}: {blocks} blocks (fewest {fewest}), unordered {scattered}");
        assert!(fewest >= 4, "the patch holds too few roots to test");
        assert!(
            blocks <= 4 * fewest,
            "the patch's roots span {blocks} workgroups where {fewest} could hold them"
        );
        assert!(
            blocks * 4 < scattered,
            "Morton order is no better than none"
        );
    }
}

#[test]
fn roots_with_zero_length_or_a_degenerate_normal_are_refused() {
    let c = Creature::default();
    let good = Groom::generate(&c, 200, 2).unwrap().roots;
    assert!(Groom::from_roots(&c, 2, good.clone()).is_ok());
    let mut zero_length = good.clone();
    zero_length[17].length = 0.0;
    let mut flat_normal = good.clone();
    flat_normal[3].normal = Vec3::ZERO;
    let mut nan_normal = good.clone();
    nan_normal[120].normal = Vec3::new(f32::NAN, 1.0, 0.0);
    for (roots, index, words) in [
        (zero_length, 17, "length"),
        (flat_normal, 3, "normal"),
        (nan_normal, 120, "normal"),
    ] {
        let err = Groom::from_roots(&c, 2, roots).unwrap_err();
        assert!(
            matches!(err, GroomError::BadRoot { index: i, .. } if i == index),
            "{err}"
        );
        assert!(err.to_string().contains(words), "{err}");
    }
    assert!(matches!(
        Groom::from_roots(&c, 2, Vec::new()),
        Err(GroomError::StrandCount { count: 0, .. })
    ));
}
