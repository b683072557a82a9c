//! ClothGrid (seed 002): a sphere slips between two bare chains but not between the same
//! chains joined as a grid; close_loop joins last to first; branches copy their eldest
//! sibling.

use glam::Vec3;
use pelt::spring::collider::closest_on_triangle;
use pelt::spring::{
    ChainSpec, ClothGrid, ClothSettings, Frame, JointSpec, SpringChain, SpringError,
    SpringSettings, WorldCollider,
};

const SEGMENTS: usize = 8;
const SEG: f32 = 0.1;

fn warp_settings() -> SpringSettings {
    SpringSettings {
        stiffness: 2.0,
        damping: 0.8,
        gravity: Vec3::new(0.0, -9.81, 0.0),
        radius: 0.01,
    }
}

fn hanging_warp(x: f32, z: f32) -> Vec<Vec3> {
    (0..=SEGMENTS)
        .map(|j| Vec3::new(x, -(j as f32) * SEG, z))
        .collect()
}

fn bare_chain(rest: &[Vec3]) -> SpringChain {
    let mut prev = Vec3::ZERO;
    let joints = rest
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let j = JointSpec {
                name: format!("j{i}"),
                offset: p - prev,
            };
            prev = p;
            j
        })
        .collect();
    SpringChain::new(
        ChainSpec {
            name: "warp".into(),
            anchor: "root".into(),
            joints,
            settings: warp_settings(),
            collider_groups: vec![],
        },
        Frame::IDENTITY,
    )
    .unwrap()
}

/// The warps joined side by side (not in a loop) with side springs of `side_stiffness`.
fn open_grid(warps: &[Vec<Vec3>], side_stiffness: f32) -> ClothGrid {
    ClothGrid::new(
        warps,
        ClothSettings {
            warp: warp_settings(),
            side_stiffness,
            close_loop: false,
        },
        Frame::IDENTITY,
    )
    .unwrap()
}

/// The sphere moves from z = −0.3 to z = +0.1 through x = 0, y = −0.3 in 2.5 s.
fn sphere_at(frame: usize) -> WorldCollider {
    let t = (frame as f32 / 150.0).min(1.0);
    WorldCollider::Sphere {
        center: Vec3::new(0.0, -0.3, -0.3 + 0.4 * t),
        radius: 0.05,
    }
}

#[test]
fn sphere_passes_bare_chains_but_not_the_grid() {
    // Four warps 0.2 m apart; the sphere (0.1 m across) aims at the gap between the middle
    // two.
    let warps: Vec<Vec<Vec3>> = [-0.3, -0.1, 0.1, 0.3]
        .map(|x| hanging_warp(x, 0.0))
        .to_vec();
    let mut bare: Vec<SpringChain> = warps.iter().map(|w| bare_chain(w)).collect();
    let mut grid = open_grid(&warps, 1.0);
    let mut min_gap = f32::MAX;
    for frame in 0..240 {
        let s = [sphere_at(frame)];
        for c in &mut bare {
            c.advance(1.0 / 60.0, Frame::IDENTITY, &s);
        }
        grid.advance(1.0 / 60.0, Frame::IDENTITY, &s);
        // The sphere never gets into the cloth: its centre stays a radius plus the
        // thickness away from every triangle of every cell.
        let WorldCollider::Sphere { center, radius } = s[0] else {
            unreachable!()
        };
        for pair in grid.pairs() {
            let (a, b) = (grid.warp_positions(pair.0), grid.warp_positions(pair.1));
            for j in 0..grid.rows() - 1 {
                for tri in [[a[j], b[j], b[j + 1]], [a[j], b[j + 1], a[j + 1]]] {
                    let (q, _) = closest_on_triangle(tri, center);
                    min_gap = min_gap.min((q - center).length() - radius);
                }
            }
        }
    }
    println!("closest approach of the sphere's surface to the cloth: {min_gap}");
    assert!(
        min_gap > 0.01 - 3.0e-3,
        "the sphere got into the cloth ({min_gap})"
    );
    let WorldCollider::Sphere { center, .. } = sphere_at(240) else {
        unreachable!()
    };
    let bare_max_z = bare
        .iter()
        .flat_map(|c| c.positions().iter())
        .map(|p| p.z.abs())
        .fold(0.0f32, f32::max);
    let grid_pts: Vec<Vec3> = (0..4)
        .flat_map(|w| grid.warp_positions(w).to_vec())
        .collect();
    let grid_max_z = grid_pts.iter().map(|p| p.z).fold(f32::MIN, f32::max);
    println!(
        "sphere at z = {}; bare chains max |z| {bare_max_z}; grid max z {grid_max_z}",
        center.z
    );
    assert!(
        bare_max_z < 0.01,
        "bare chains should not be touched ({bare_max_z})"
    );
    // The grid is carried in front of the sphere: it reaches past the sphere's centre.
    assert!(
        grid_max_z > center.z,
        "the grid should be pushed ahead of the sphere (max z {grid_max_z}, sphere {})",
        center.z
    );
    for p in &grid_pts {
        assert!(p.is_finite());
    }
}

#[test]
fn close_loop_joins_last_to_first() {
    let two = [hanging_warp(0.0, 0.0), hanging_warp(0.1, 0.0)];
    let settings = ClothSettings {
        warp: warp_settings(),
        side_stiffness: 0.5,
        close_loop: true,
    };
    assert!(matches!(
        ClothGrid::new(&two, settings, Frame::IDENTITY),
        Err(SpringError::LoopTooSmall(2))
    ));
    // Four warps on a ring of radius 0.12; push a sphere in through the gap between warp 3
    // (at 270°) and warp 0 (at 0°).
    let ring: Vec<Vec<Vec3>> = (0..4)
        .map(|i| {
            let a = i as f32 * std::f32::consts::FRAC_PI_2;
            hanging_warp(0.12 * a.cos(), 0.12 * a.sin())
        })
        .collect();
    let dir = Vec3::new(1.0, 0.0, -1.0).normalize();
    let run = |close_loop: bool| -> f32 {
        let mut g = ClothGrid::new(
            &ring,
            ClothSettings {
                close_loop,
                ..settings
            },
            Frame::IDENTITY,
        )
        .unwrap();
        let pairs = g.pairs().to_vec();
        assert_eq!(pairs.contains(&(3, 0)), close_loop);
        let mut max_move = 0.0f32;
        for frame in 0..240 {
            let t = (frame as f32 / 150.0).min(1.0);
            let center = dir * (0.3 * (1.0 - t)) + Vec3::new(0.0, -0.4, 0.0);
            let s = [WorldCollider::Sphere {
                center,
                radius: 0.04,
            }];
            g.advance(1.0 / 60.0, Frame::IDENTITY, &s);
            for (w, rest) in ring.iter().enumerate() {
                for (p, r) in g.warp_positions(w).iter().zip(rest) {
                    max_move = max_move.max((*p - *r).length());
                }
            }
        }
        max_move
    };
    let open = run(false);
    let closed = run(true);
    println!("ring pushed through the 3–0 gap: open moves {open}, closed moves {closed}");
    assert!(
        open < 0.005,
        "an open ring lets the sphere through the 3-0 gap ({open})"
    );
    assert!(
        closed > 0.03,
        "a closed ring must be pushed by the sphere ({closed})"
    );
}

#[test]
fn branch_copies_its_eldest_siblings_motion() {
    let warps = [hanging_warp(-0.1, 0.0), hanging_warp(0.1, 0.0)];
    let mut g = ClothGrid::new(&warps, ClothSettings::default(), Frame::IDENTITY).unwrap();
    let offset = Vec3::new(0.05, -0.05, 0.0);
    let b = g.add_branch(0, 2, offset).unwrap();
    assert!(g.add_branch(0, SEGMENTS, offset).is_err());
    assert!(g.add_branch(5, 1, offset).is_err());
    // Swing the anchor so the warps bend.
    for frame in 0..90 {
        let anchor = Frame::from_translation(Vec3::new(0.0, 0.0, (frame as f32 * 0.2).sin() * 0.3));
        g.advance(1.0 / 60.0, anchor, &[]);
    }
    let w = g.warp_positions(0);
    let parent = w[2];
    let eldest = (w[3] - parent).normalize();
    let branch = g.branch_positions()[b] - parent;
    assert!((branch.length() - offset.length()).abs() < 1.0e-4);
    // Same angle to the eldest sibling as at rest (45° from straight down).
    let rest_angle = offset.normalize().angle_between(Vec3::NEG_Y);
    assert!((branch.normalize().angle_between(eldest) - rest_angle).abs() < 1.0e-3);
    assert!(
        eldest.angle_between(Vec3::NEG_Y) > 0.01,
        "the warp should have swung"
    );
}

#[test]
fn shorter_warp_sets_the_length_and_bad_grids_are_errors() {
    let long = hanging_warp(0.0, 0.0);
    let short: Vec<Vec3> = hanging_warp(0.1, 0.0)[..5].to_vec();
    let g = ClothGrid::new(
        &[long.clone(), short],
        ClothSettings::default(),
        Frame::IDENTITY,
    )
    .unwrap();
    assert_eq!(g.rows(), 5);
    assert_eq!(g.warp_positions(0).len(), 5);
    assert!(matches!(
        ClothGrid::new(
            std::slice::from_ref(&long),
            ClothSettings::default(),
            Frame::IDENTITY
        ),
        Err(SpringError::TooFewWarps(1))
    ));
    let bad = ClothSettings {
        side_stiffness: f32::NAN,
        ..ClothSettings::default()
    };
    assert!(ClothGrid::new(&[long.clone(), long], bad, Frame::IDENTITY).is_err());
}

#[test]
fn a_warp_without_side_springs_swings_as_a_bare_chain_bit_for_bit() {
    // Chains and warps take the same Verlet step. Rest points on a 1/8 m grid, so a
    // chain's offsets add up to exactly the warp's points, and side springs of stiffness
    // 0: each warp must then follow its bare chain to the last bit, however the anchor
    // moves.
    let warps: Vec<Vec<Vec3>> = [-0.25, 0.25]
        .map(|x| {
            (0..=SEGMENTS)
                .map(|j| Vec3::new(x, -(j as f32) * 0.125, 0.0))
                .collect()
        })
        .to_vec();
    let mut bare: Vec<SpringChain> = warps.iter().map(|w| bare_chain(w)).collect();
    let mut grid = open_grid(&warps, 0.0);
    let mut moved = 0.0f32;
    for step in 0..240 {
        let t = step as f32 / 120.0;
        let anchor = Frame::from_affine(&glam::Affine3A::from_rotation_translation(
            glam::Quat::from_rotation_z(0.6 * (3.0 * t).sin()),
            Vec3::new(0.2 * (5.0 * t).sin(), 0.1 * t, 0.0),
        ));
        for c in &mut bare {
            c.step(anchor, &[]);
        }
        grid.step(anchor, &[]);
        for (w, chain) in bare.iter().enumerate() {
            assert_eq!(
                grid.warp_positions(w),
                chain.positions(),
                "warp {w} at step {step}"
            );
        }
        moved = moved.max((grid.warp_positions(0)[SEGMENTS] - warps[0][SEGMENTS]).length());
    }
    assert!(moved > 0.1, "the anchor should swing the warps ({moved} m)");
}
