//! `CpuSolver`: the strand step of `shaders/strand_step.wgsl` mirrored line for line in
//! Rust, one strand per task on rayon. It is the reference the GPU is tested against and a
//! real fallback where the only adapter is a software one.

use super::layout::{GpuCapsule, GpuRoot, POINTS_PER_STRAND, StepUniforms};
use super::{SimError, StrandSolver};
use glam::{Mat4, Vec2, Vec3, Vec4, Vec4Swizzles};
use rayon::prelude::*;

const SEGMENTS: f32 = 5.0;
const TAU: f32 = std::f32::consts::TAU;
/// Extra push-out and projection rounds for points the hand touched (WGSL twin).
const CONTACT_ITERATIONS: usize = 3;

fn mix(a: Vec3, b: Vec3, t: f32) -> Vec3 {
    a * (1.0 - t) + b * t
}

fn mix1(a: f32, b: f32, t: f32) -> f32 {
    a * (1.0 - t) + b * t
}

fn rotate(m: &Mat4, v: Vec3) -> Vec3 {
    m.x_axis.xyz() * v.x + m.y_axis.xyz() * v.y + m.z_axis.xyz() * v.z
}

fn unrotate(m: &Mat4, v: Vec3) -> Vec3 {
    Vec3::new(
        m.x_axis.xyz().dot(v),
        m.y_axis.xyz().dot(v),
        m.z_axis.xyz().dot(v),
    )
}

fn transform(m: &Mat4, p: Vec3) -> Vec3 {
    m.x_axis.xyz() * p.x + m.y_axis.xyz() * p.y + m.z_axis.xyz() * p.z + m.w_axis.xyz()
}

/// The slow gust at root `r` (WGSL `gust`).
fn gust(r: Vec3, time: f32, strength: f32) -> Vec3 {
    let sway = 0.6 + 0.4 * (0.23 * time + 1.3 * r.x + 0.9 * r.y).sin();
    let dir = Vec3::new(
        (0.9 * time + 2.1 * r.x + 1.3 * r.z).sin(),
        0.3 * (1.7 * time + 3.1 * r.y).sin(),
        (0.7 * time + 1.7 * r.z - 0.9 * r.x).cos(),
    );
    dir * (strength * sway)
}

fn perpendicular(n: Vec3) -> Vec3 {
    if n.x.abs() < 0.9 {
        n.cross(Vec3::X).normalize()
    } else {
        n.cross(Vec3::Y).normalize()
    }
}

/// Unit `d` turned toward unit `n` until `dot(d, n) >= min_dot` (WGSL `lift_direction`).
fn lift_direction(d: Vec3, n: Vec3, min_dot: f32) -> Vec3 {
    let c = d.dot(n);
    if c >= min_dot {
        return d;
    }
    let m = min_dot.clamp(-1.0, 1.0);
    let side = d - n * c;
    let side_len = side.length();
    let side = if side_len > 1e-6 {
        side / side_len
    } else {
        perpendicular(n)
    };
    n * m + side * (1.0 - m * m).max(0.0).sqrt()
}

/// `x` moved to exactly `seg` from `parent`, then turned about the parent until it clears
/// the skin plane and the floor (WGSL `project_segment`).
fn project_segment(
    x: Vec3,
    parent: Vec3,
    fallback: Vec3,
    seg: f32,
    n: Vec3,
    skin_min: f32,
    floor_min: f32,
) -> Vec3 {
    let dir = x - parent;
    let dir_len = dir.length();
    let mut dir = if dir_len > 1e-9 {
        dir / dir_len
    } else {
        fallback
    };
    dir = lift_direction(dir, n, skin_min);
    dir = lift_direction(dir, Vec3::Y, floor_min);
    dir = lift_direction(dir, n, skin_min);
    parent + dir * seg
}

/// Unit `dir` turned about `parent` until the segment's end clears `cap` (WGSL
/// `clear_capsule`, which explains the bound).
fn clear_capsule(dir: Vec3, parent: Vec3, seg: f32, cap: &GpuCapsule) -> Vec3 {
    let a = cap.a_radius.xyz();
    let ab = cap.b.xyz() - a;
    let r = cap.a_radius.w * 1.0001;
    let end = parent + dir * seg;
    let h = ((end - a).dot(ab) / ab.dot(ab).max(1e-12)).clamp(0.0, 1.0);
    let center = a + ab * h;
    if end.distance(center) >= r {
        return dir;
    }
    let away = parent - center;
    let dist = away.length();
    if dist < 1e-6 {
        return dir;
    }
    let min_dot = (r * r - dist * dist - seg * seg) / (2.0 * seg * dist);
    lift_direction(dir, away / dist, min_dot)
}

/// The transform a root follows and its world position, normal and groom frame.
pub(crate) struct RootFrame {
    pub m: Mat4,
    pub root_w: Vec3,
    pub n_w: Vec3,
    pub f_w: Vec3,
}

/// The root's world frame with the comb `comb_old` added to its flow.
pub(crate) fn root_frame(u: &StepUniforms, root: &GpuRoot, comb_old: Vec3) -> RootFrame {
    let m = if root.normal_space.w > 0.5 {
        u.head
    } else {
        u.body
    };
    let normal_local = root.normal_space.xyz();
    let mut flow = root.flow_random.xyz() + comb_old;
    flow -= normal_local * flow.dot(normal_local);
    let flow_len = flow.length();
    let flow = if flow_len > 1e-6 {
        flow / flow_len
    } else {
        root.flow_random.xyz()
    };
    RootFrame {
        m,
        root_w: transform(&m, root.position_length.xyz()),
        n_w: rotate(&m, normal_local).normalize(),
        f_w: rotate(&m, flow).normalize(),
    }
}

/// (cos, sin) of a small angle by its Taylor series (WGSL `small_cos_sin`).
fn small_cos_sin(k: f32) -> Vec2 {
    let k2 = k * k;
    let c = 1.0 - k2 / 2.0 * (1.0 - k2 / 12.0 * (1.0 - k2 / 30.0 * (1.0 - k2 / 56.0)));
    let s = k * (1.0 - k2 / 6.0 * (1.0 - k2 / 20.0 * (1.0 - k2 / 42.0)));
    Vec2::new(c, s)
}

/// The angle (c, s) turned by the angle (dc, ds) (WGSL `turn`).
fn turn(a: Vec2, d: Vec2) -> Vec2 {
    Vec2::new(a.x * d.x - a.y * d.y, a.y * d.x + a.x * d.y)
}

/// (cos, sin) of the kink wave's advance per segment, TAU · 1.7 / 4 (WGSL `KINK_STEP`).
const KINK_STEP: Vec2 = Vec2::new(-0.891_006_5, 0.453_990_5);

/// The groomed rest angles of a strand's segments, root to tip, as (cos, sin) from the
/// normal: linear from `lift.x` to `lift.y` plus the kink, stepped as rotations (WGSL twin
/// in `step`).
pub(crate) struct RestAngles {
    lift: Vec2,
    lift_step: Vec2,
    kink_wave: Vec2,
    kink: f32,
    segment: usize,
}

impl RestAngles {
    pub(crate) fn new(root: &GpuRoot, kink: f32) -> Self {
        let lift_angle_step = (root.lift.y - root.lift.x) / (SEGMENTS - 1.0);
        let phase = TAU * root.flow_random.w * 3.0;
        RestAngles {
            lift: Vec2::new(root.lift.x.cos(), root.lift.x.sin()),
            lift_step: Vec2::new(lift_angle_step.cos(), lift_angle_step.sin()),
            kink_wave: Vec2::new(phase.cos(), phase.sin()),
            kink,
            segment: 0,
        }
    }

    /// The next segment's rest direction in the frame's world normal and flow.
    pub(crate) fn next_direction(&mut self, frame: &RootFrame) -> Vec3 {
        let t = self.segment as f32 / (SEGMENTS - 1.0);
        let rest = turn(self.lift, small_cos_sin(self.kink * t * self.kink_wave.y));
        self.lift = turn(self.lift, self.lift_step);
        self.kink_wave = turn(self.kink_wave, KINK_STEP);
        self.segment += 1;
        frame.n_w * rest.x + frame.f_w * rest.y
    }
}

/// One strand's step: reads `current`, reads the previous positions from `next` and
/// overwrites them with the new ones, updates the comb.
pub(crate) fn step_strand(
    u: &StepUniforms,
    root: &GpuRoot,
    current: &[Vec4],
    next: &mut [Vec4],
    comb: &mut Vec4,
) {
    let comb_old = comb.xyz();
    let frame = root_frame(u, root, comb_old);
    let (m, root_w, n_w) = (frame.m, frame.root_w, frame.n_w);
    let normal_local = root.normal_space.xyz();
    let seg = root.position_length.w / SEGMENTS;

    let gravity = u.gravity_damping.xyz();
    let damping = u.gravity_damping.w;
    let g = gust(root_w, u.wind.y, u.wind.x);
    let floor_y = u.limits.x;
    let friction = u.contact.x;
    let hand = u.bound.w > 0.0;
    let capsules = &u.capsules[..(u.counts.y as usize).min(u.capsules.len())];

    let mut rest = RestAngles::new(root, u.wind.z);

    next[0] = root_w.extend(0.0);
    let mut parent = root_w;
    let mut pushed = Vec3::ZERO;
    let mut touches = 0.0f32;
    for i in 1..POINTS_PER_STRAND {
        let fi = i as f32;
        let t = (fi - 1.0) / (SEGMENTS - 1.0);
        let p = current[i].xyz();
        let q = next[i].xyz();

        let mut x = p + (p - q) * damping + gravity + g * (fi / SEGMENTS);

        let rest_dir = rest.next_direction(&frame);
        let k = mix1(u.stiffness.x, u.stiffness.y, t);
        x = mix(x, parent + rest_dir * seg, k);

        let clearance = u.limits.y * fi;
        let height = (x - root_w).dot(n_w);
        if height < clearance {
            x += n_w * (clearance - height);
        }
        x.y = x.y.max(floor_y);

        let mut touched = 0.0f32;
        if hand && x.distance(u.bound.xyz()) < u.bound.w {
            for cap in capsules {
                let a = cap.a_radius.xyz();
                let ab = cap.b.xyz() - a;
                let r = cap.a_radius.w;
                let h = ((x - a).dot(ab) / ab.dot(ab).max(1e-12)).clamp(0.0, 1.0);
                let closest = a + ab * h;
                let off = x - closest;
                let dist = off.length();
                if dist < r {
                    let out_dir = if dist > 1e-6 { off / dist } else { n_w };
                    x = closest + out_dir * r + cap.motion.xyz() * friction;
                    pushed += cap.motion.xyz();
                    touched = 1.0;
                }
            }
        }
        touches += touched;

        let skin_min = (clearance - (parent - root_w).dot(n_w)) / seg;
        let floor_min = (floor_y - parent.y) / seg;
        x = project_segment(x, parent, rest_dir, seg, n_w, skin_min, floor_min);
        if hand && x.distance(u.bound.xyz()) < u.bound.w {
            let mut dir = (x - parent) / seg;
            for _ in 0..CONTACT_ITERATIONS {
                for cap in capsules {
                    let turned = clear_capsule(dir, parent, seg, cap);
                    if turned != dir {
                        touched = 1.0;
                    }
                    dir = turned;
                }
            }
            dir = lift_direction(dir, Vec3::Y, floor_min);
            x = parent + dir * seg;
        }

        next[i] = x.extend(touched);
        parent = x;
    }

    let mut c_new = comb_old * u.stiffness.w;
    if touches > 0.0 {
        let motion_local = unrotate(&m, pushed / touches);
        c_new += motion_local * (u.stiffness.z * u.contact.y / seg);
    }
    c_new -= normal_local * c_new.dot(normal_local);
    let c_len = c_new.length();
    if c_len > u.limits.z {
        c_new *= u.limits.z / c_len;
    }
    *comb = c_new.extend(0.0);
}

/// The rest shape of every strand under `u` (no comb): each segment along its groomed rest
/// direction. This is the solver's starting state.
pub fn rest_positions(u: &StepUniforms, roots: &[GpuRoot]) -> Vec<Vec4> {
    let mut out = vec![Vec4::ZERO; roots.len() * POINTS_PER_STRAND];
    out.par_chunks_mut(POINTS_PER_STRAND)
        .zip(roots.par_iter())
        .for_each(|(points, root)| {
            let frame = root_frame(u, root, Vec3::ZERO);
            let seg = root.position_length.w / SEGMENTS;
            let mut rest = RestAngles::new(root, u.wind.z);
            let mut p = frame.root_w;
            points[0] = p.extend(0.0);
            for point in points.iter_mut().skip(1) {
                p += rest.next_direction(&frame) * seg;
                *point = p.extend(0.0);
            }
        });
    out
}

/// The CPU strand solver: the same buffers and step as the GPU, in host memory.
#[derive(Clone, Debug)]
pub struct CpuSolver {
    roots: Vec<GpuRoot>,
    /// Ping-pong position buffers; `current` indexes the latest.
    positions: [Vec<Vec4>; 2],
    current: usize,
    comb: Vec<Vec4>,
}

impl CpuSolver {
    /// A solver over `roots`, starting at rest (`initial` positions, previous equal).
    pub fn new(roots: Vec<GpuRoot>, initial: Vec<Vec4>) -> Result<Self, SimError> {
        if initial.len() != roots.len() * POINTS_PER_STRAND {
            return Err(SimError::StateSize {
                expected: roots.len() * POINTS_PER_STRAND,
                got: initial.len(),
            });
        }
        let comb = vec![Vec4::ZERO; roots.len()];
        Ok(CpuSolver {
            roots,
            positions: [initial.clone(), initial],
            current: 0,
            comb,
        })
    }
}

impl StrandSolver for CpuSolver {
    fn strand_count(&self) -> usize {
        self.roots.len()
    }

    fn step(&mut self, steps: &[StepUniforms]) -> Result<(), SimError> {
        for u in steps {
            let [a, b] = &mut self.positions;
            let (current, next) = if self.current == 0 {
                (&*a, b)
            } else {
                (&*b, a)
            };
            next.par_chunks_mut(POINTS_PER_STRAND)
                .zip(current.par_chunks(POINTS_PER_STRAND))
                .zip(self.comb.par_iter_mut())
                .zip(self.roots.par_iter())
                .for_each(|(((next, current), comb), root)| {
                    step_strand(u, root, current, next, comb);
                });
            self.current ^= 1;
        }
        Ok(())
    }

    fn positions(&mut self) -> Result<Vec<Vec4>, SimError> {
        Ok(self.positions[self.current].clone())
    }

    fn comb(&mut self) -> Result<Vec<Vec4>, SimError> {
        Ok(self.comb.clone())
    }
}
