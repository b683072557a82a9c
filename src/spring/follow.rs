//! `FollowChain`: the follow-the-leader chain of seed 001. Each node springs toward the node
//! ahead of it (the first toward a driven leader), so lag and overshoot compound down the
//! chain. Works in 2D (`Vec2`) and 3D (`Vec3`).

use std::ops::{Add, Mul, Sub};

use glam::{Vec2, Vec3};

use super::{SpringError, check_range};

/// A vector type the follow chain can run on (`glam::Vec2` and `glam::Vec3`).
pub trait FollowVector:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<f32, Output = Self> + PartialEq
{
    /// The zero vector.
    const ZERO: Self;
    /// True when every component is finite.
    fn finite(self) -> bool;
}

impl FollowVector for Vec2 {
    const ZERO: Self = Vec2::ZERO;
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl FollowVector for Vec3 {
    const ZERO: Self = Vec3::ZERO;
    fn finite(self) -> bool {
        self.is_finite()
    }
}

/// Node `i` chases node `i − 1` (node 0 chases the leader):
/// `v = (v + (target − x)·k)·damp; x += v`, once per fixed 60 Hz frame, as in the seed.
#[derive(Debug, Clone)]
pub struct FollowChain<V: FollowVector> {
    /// Positions of the nodes, first follower first.
    pub nodes: Vec<V>,
    velocities: Vec<V>,
    /// Spring gain per frame (the seed uses 0.09).
    pub stiffness: f32,
    /// Velocity kept per frame (the seed uses 0.86).
    pub damping: f32,
    accumulator: f32,
}

impl<V: FollowVector> FollowChain<V> {
    /// Rate the chain is stepped at, frames per second.
    pub const FRAME_HZ: f32 = 60.0;

    /// `count` nodes all at `start`, at rest, with the seed's gains (0.09, 0.86).
    pub fn new(count: usize, start: V) -> Self {
        Self::with_gains(count, start, 0.09, 0.86).unwrap_or_else(|_| Self {
            nodes: vec![start; count],
            velocities: vec![V::ZERO; count],
            stiffness: 0.09,
            damping: 0.86,
            accumulator: 0.0,
        })
    }

    /// `count` nodes at `start` with the given gains. `stiffness` must lie in `(0, 1]` and
    /// `damping` in `[0, 1)`, else the chain would not settle.
    pub fn with_gains(
        count: usize,
        start: V,
        stiffness: f32,
        damping: f32,
    ) -> Result<Self, SpringError> {
        check_range("follow stiffness", stiffness, 1.0e-6, 1.0, "use (0, 1]")?;
        check_range("follow damping", damping, 0.0, 0.999_999, "use [0, 1)")?;
        Ok(Self {
            nodes: vec![start; count],
            velocities: vec![V::ZERO; count],
            stiffness,
            damping,
            accumulator: 0.0,
        })
    }

    /// Velocities of the nodes, per frame.
    pub fn velocities(&self) -> &[V] {
        &self.velocities
    }

    /// One frame: each node springs toward the one ahead of it (node 0 toward `leader`),
    /// using that node's position already updated this frame, as the seed does.
    pub fn step(&mut self, leader: V) {
        if !leader.finite() {
            return;
        }
        let mut target = leader;
        for (x, v) in self.nodes.iter_mut().zip(self.velocities.iter_mut()) {
            *v = (*v + (target - *x) * self.stiffness) * self.damping;
            *x = *x + *v;
            target = *x;
        }
    }

    /// Advances by `dt` seconds at a fixed 60 frames per second (clipped at 0.1 s a call),
    /// the leader held at `leader`. Returns the number of frames stepped.
    pub fn advance(&mut self, dt: f32, leader: V) -> usize {
        if !dt.is_finite() || dt <= 0.0 {
            return 0;
        }
        self.accumulator += dt.min(0.1);
        let frames = (self.accumulator * Self::FRAME_HZ + 1.0e-4).floor() as usize;
        self.accumulator = (self.accumulator - frames as f32 / Self::FRAME_HZ).max(0.0);
        for _ in 0..frames {
            self.step(leader);
        }
        frames
    }
}
