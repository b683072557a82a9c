//! FollowChain (seed 001): lag grows down the chain, in 2D and 3D.

use glam::{Vec2, Vec3};
use pelt::spring::FollowChain;

/// Frames until each node first passes half of a unit step of the leader.
fn half_rise_frames(nodes: usize) -> Vec<usize> {
    let mut c = FollowChain::new(nodes, Vec2::ZERO);
    let mut first = vec![usize::MAX; nodes];
    for frame in 0..600 {
        c.step(Vec2::new(1.0, 0.0));
        for (i, n) in c.nodes.iter().enumerate() {
            if first[i] == usize::MAX && n.x >= 0.5 {
                first[i] = frame;
            }
        }
    }
    first
}

#[test]
fn lag_grows_down_the_chain_after_a_step() {
    let first = half_rise_frames(9);
    println!("frames to half rise: {first:?}");
    assert!(
        first.iter().all(|&f| f < 600),
        "every node follows: {first:?}"
    );
    for w in first.windows(2) {
        assert!(w[1] > w[0], "lag must grow strictly: {first:?}");
    }
}

#[test]
fn lag_grows_down_the_chain_for_the_seed_leader_path() {
    // The seed's leader: x = 100 + 76 sin(a), y = 50 + 30 sin(2.3 a), a = t·0.0032 per ms.
    let leader = |ms: f32| {
        let a = ms * 0.0032;
        Vec3::new(100.0 + a.sin() * 76.0, 50.0 + (a * 2.3).sin() * 30.0, 0.0)
    };
    let mut c = FollowChain::new(9, leader(0.0));
    // Mean distance to the leader per node over 20 s at 60 fps after a warm-up.
    let mut dist = [0.0f32; 9];
    let mut frames = 0;
    for f in 0..1200 {
        let ms = f as f32 * 1000.0 / 60.0;
        let l = leader(ms);
        c.step(l);
        if f > 120 {
            frames += 1;
            for (i, n) in c.nodes.iter().enumerate() {
                assert!(n.is_finite());
                dist[i] += (*n - l).length();
            }
        }
    }
    let mean: Vec<f32> = dist.iter().map(|d| d / frames as f32).collect();
    println!("mean distance to the leader per node: {mean:?}");
    for w in mean.windows(2) {
        assert!(w[1] > w[0], "lag must grow down the chain: {mean:?}");
    }
}

#[test]
fn settles_on_a_still_leader_and_advance_is_frame_rate_independent() {
    let target = Vec3::new(1.0, 2.0, 3.0);
    let mut a = FollowChain::new(6, Vec3::ZERO);
    let mut b = FollowChain::new(6, Vec3::ZERO);
    for _ in 0..600 {
        a.advance(1.0 / 60.0, target);
    }
    for _ in 0..1200 {
        b.advance(1.0 / 120.0, target);
    }
    for (p, q) in a.nodes.iter().zip(&b.nodes) {
        assert!((*p - target).length() < 1.0e-3);
        assert!((*p - *q).length() < 1.0e-4);
    }
    assert!(FollowChain::<Vec2>::with_gains(3, Vec2::ZERO, 1.5, 0.8).is_err());
    assert!(FollowChain::<Vec2>::with_gains(3, Vec2::ZERO, 0.1, f32::NAN).is_err());
}
