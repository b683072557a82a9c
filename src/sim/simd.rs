//! The strand step across [`LANES`] strands at once: the scalar reference
//! ([`super::reference`]) with the point loop in `wide` SIMD lanes (structure of arrays, the
//! strands in lock step, branches as selects). Every operation is the reference's, in the
//! same order, so the two agree bit for bit; a test holds them to it. The per-strand frame
//! (where the root sits, its normal and flow, the comb) stays scalar per lane.
//!
//! A group whose state is not finite, on entry or after any step, is stepped by the
//! reference from its untouched input (the fast path writes only at the end), and the
//! reference resets and counts the bad strands: the fast path never needs to know how.

use super::body_field;
use super::layout::{GpuCapsule, GpuRoot, POINTS_PER_STRAND, SEGMENTS, StepUniforms};
use super::reference::{
    CONTACT_ITERATIONS, root_frame, step_strand_skinned, strand_field, turn_out_of_field,
};
use super::skinned::{GpuRootBinding, SkinnedSteps, StrandSkin, is_skinned};
use glam::{Mat4, Vec3, Vec4, Vec4Swizzles};
use wide::f32x8;

/// Strands stepped together in SIMD lanes.
pub const LANES: usize = 8;

type F = f32x8;

/// Three lanes of vectors: x, y and z of eight strands.
#[derive(Clone, Copy)]
struct V3 {
    x: F,
    y: F,
    z: F,
}

impl V3 {
    fn splat(v: Vec3) -> V3 {
        V3 {
            x: F::splat(v.x),
            y: F::splat(v.y),
            z: F::splat(v.z),
        }
    }
    fn from_lanes(v: &[Vec3; LANES]) -> V3 {
        V3 {
            x: F::from(v.map(|p| p.x)),
            y: F::from(v.map(|p| p.y)),
            z: F::from(v.map(|p| p.z)),
        }
    }
    fn lane(&self, l: usize) -> Vec3 {
        Vec3::new(
            self.x.to_array()[l],
            self.y.to_array()[l],
            self.z.to_array()[l],
        )
    }
    fn add(self, o: V3) -> V3 {
        V3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
    fn sub(self, o: V3) -> V3 {
        V3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
    fn mul(self, s: F) -> V3 {
        V3 {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }
    fn div(self, s: F) -> V3 {
        V3 {
            x: self.x / s,
            y: self.y / s,
            z: self.z / s,
        }
    }
    /// glam's order: x·x' + y·y' + z·z', left to right.
    fn dot(self, o: V3) -> F {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    fn length(self) -> F {
        self.dot(self).sqrt()
    }
    /// glam's `normalize`: times the reciprocal of the length.
    fn normalize(self) -> V3 {
        self.mul(F::splat(1.0) / self.length())
    }
    /// glam's `cross`.
    fn cross(self, o: V3) -> V3 {
        V3 {
            x: self.y * o.z - o.y * self.z,
            y: self.z * o.x - o.z * self.x,
            z: self.x * o.y - o.x * self.y,
        }
    }
    /// `a` where `mask`, else `b`.
    fn select(mask: F, a: V3, b: V3) -> V3 {
        V3 {
            x: mask.select(a.x, b.x),
            y: mask.select(a.y, b.y),
            z: mask.select(a.z, b.z),
        }
    }
    fn ne(self, o: V3) -> F {
        self.x.simd_ne(o.x) | self.y.simd_ne(o.y) | self.z.simd_ne(o.z)
    }
}

/// Whether every lane is a finite number (below infinity in magnitude; NaN compares false).
fn finite_lanes(v: F) -> bool {
    v.abs().simd_lt(F::splat(f32::INFINITY)).all()
}

fn zero() -> F {
    F::splat(0.0)
}

fn perpendicular(n: V3) -> V3 {
    let small = n.x.abs().simd_lt(F::splat(0.9));
    let by_x = n.cross(V3::splat(Vec3::X)).normalize();
    let by_y = n.cross(V3::splat(Vec3::Y)).normalize();
    V3::select(small, by_x, by_y)
}

/// Reference `lift_direction`, lane by lane.
fn lift_direction(d: V3, n: V3, min_dot: F) -> V3 {
    let c = d.dot(n);
    let need = c.simd_lt(min_dot);
    if !need.any() {
        return d;
    }
    let m = min_dot.max(F::splat(-1.0)).min(F::splat(1.0));
    let side = d.sub(n.mul(c));
    let side_len = side.length();
    let side = V3::select(
        side_len.simd_gt(F::splat(1e-6)),
        side.div(side_len),
        perpendicular(n),
    );
    let lifted = n
        .mul(m)
        .add(side.mul((F::splat(1.0) - m * m).max(zero()).sqrt()));
    V3::select(need, lifted, d)
}

/// Reference `project_segment`, lane by lane.
fn project_segment(
    x: V3,
    parent: V3,
    fallback: V3,
    seg: F,
    n: V3,
    skin_min: F,
    floor_min: F,
) -> V3 {
    let dir = x.sub(parent);
    let dir_len = dir.length();
    let mut dir = V3::select(dir_len.simd_gt(F::splat(1e-9)), dir.div(dir_len), fallback);
    let up = V3::splat(Vec3::Y);
    dir = lift_direction(dir, n, skin_min);
    dir = lift_direction(dir, up, floor_min);
    dir = lift_direction(dir, n, skin_min);
    parent.add(dir.mul(seg))
}

/// Reference `axis_point`, for every lane against one capsule.
fn axis_point(a: V3, ab: V3, ab2: F, p: V3) -> V3 {
    let h = (p.sub(a).dot(ab) / ab2).max(zero()).min(F::splat(1.0));
    a.add(ab.mul(h))
}

/// How far beyond the reach of a strand a capsule still counts as reachable, metres: room
/// for f32 rounding in the cull of [`reachable_capsules`].
const CULL_MARGIN: f32 = 1e-3;

// The cull's mask has a bit per capsule.
const _: () = assert!(super::layout::MAX_CAPSULES <= u32::BITS as usize);

/// One step's hand capsules splat across the lanes, made once per step for every group
/// (empty when the step has no hand).
pub struct StepCapsules(Vec<CapsuleLanes>);

impl StepCapsules {
    /// The capsules of each step in `steps`.
    pub fn of(steps: &[StepUniforms]) -> Vec<StepCapsules> {
        steps
            .iter()
            .map(|u| {
                let count = if u.bound_radius > 0.0 {
                    (u.capsule_count as usize).min(u.capsules.len())
                } else {
                    0
                };
                StepCapsules(u.capsules[..count].iter().map(CapsuleLanes::new).collect())
            })
            .collect()
    }
}

/// One capsule's constants, splat across the lanes.
struct CapsuleLanes {
    a: V3,
    ab: V3,
    /// `max(ab·ab, 1e-12)`.
    ab2: F,
    radius: F,
    motion: V3,
}

impl CapsuleLanes {
    fn new(cap: &GpuCapsule) -> Self {
        let a = cap.a;
        let ab = cap.b - a;
        CapsuleLanes {
            a: V3::splat(a),
            ab: V3::splat(ab),
            ab2: F::splat(ab.dot(ab).max(1e-12)),
            radius: F::splat(cap.radius),
            motion: V3::splat(cap.motion),
        }
    }
}

/// Reference `clear_capsule`, lane by lane.
fn clear_capsule(dir: V3, parent: V3, seg: F, cap: &CapsuleLanes) -> V3 {
    let r = cap.radius * F::splat(1.0001);
    let end = parent.add(dir.mul(seg));
    let center = axis_point(cap.a, cap.ab, cap.ab2, end);
    let outside = end.sub(center).length().simd_ge(r);
    if outside.all() {
        return dir;
    }
    let away = parent.sub(center);
    let dist = away.length();
    let tiny = dist.simd_lt(F::splat(1e-6));
    let min_dot = (r * r - dist * dist - seg * seg) / (F::splat(2.0) * seg * dist);
    let lifted = lift_direction(dir, away.div(dist), min_dot);
    V3::select(outside | tiny, dir, lifted)
}

/// The capsules (as bits of a mask, capsule `c` at bit `c`) that any point of these strands
/// can reach this step. After projection each point lies within its strand's length of
/// its root, so a capsule farther than that from every root can neither turn a segment
/// nor wedge one: skipping it changes no bit of the result, only the time.
fn reachable_capsules(
    capsules: &[CapsuleLanes],
    root_w: V3,
    seg: F,
    bound_c: V3,
    bound_r: F,
) -> u32 {
    let reach = seg * F::splat(SEGMENTS as f32) + F::splat(CULL_MARGIN);
    if !root_w.sub(bound_c).length().simd_lt(bound_r + reach).any() {
        return 0;
    }
    let mut mask = 0;
    for (c, cap) in capsules.iter().enumerate() {
        let distance = root_w
            .sub(axis_point(cap.a, cap.ab, cap.ab2, root_w))
            .length();
        if distance
            .simd_lt(cap.radius * F::splat(1.0001) + reach)
            .any()
        {
            mask |= 1 << c;
        }
    }
    mask
}

/// The capsules of `mask` (see [`reachable_capsules`]).
fn masked(capsules: &[CapsuleLanes], mask: u32) -> impl Iterator<Item = &CapsuleLanes> {
    capsules
        .iter()
        .enumerate()
        .filter(move |(c, _)| mask & (1 << c) != 0)
        .map(|(_, cap)| cap)
}

/// Reference `wedge_escape`, lane by lane, over the capsules of `mask` (the others cannot
/// reach). Whether any lane is stuck is found first: the escape direction costs two axis
/// points per capsule and is rarely needed.
fn wedge_escape(dir: V3, parent: V3, seg: F, capsules: &[CapsuleLanes], mask: u32) -> V3 {
    let end = parent.add(dir.mul(seg));
    let mut stuck = F::splat(0.0).simd_ne(F::splat(0.0));
    for cap in masked(capsules, mask) {
        stuck |= end
            .sub(axis_point(cap.a, cap.ab, cap.ab2, end))
            .length()
            .simd_lt(cap.radius);
    }
    if !stuck.any() {
        return dir;
    }
    let mut escape = V3::splat(Vec3::ZERO);
    for cap in masked(capsules, mask) {
        let away = parent.sub(axis_point(cap.a, cap.ab, cap.ab2, parent));
        let dist = away.length();
        let near = dist.simd_lt(cap.radius + seg) & dist.simd_gt(F::splat(1e-6));
        escape = V3::select(near, escape.add(away.div(dist)), escape);
    }
    let len = escape.length();
    V3::select(stuck & len.simd_gt(F::splat(1e-6)), escape.div(len), dir)
}

/// [`super::triangle_frame`] of step `j` for eight skinned roots in the lanes, operation
/// for operation as the scalar function does it (so the bits agree): the columns e1, e2,
/// n and the barycentric point.
fn triangle_frame_lanes(j: usize, skins: &[StrandSkin<'_>; LANES]) -> (V3, V3, V3, V3) {
    let corner = |k: usize| {
        V3::from_lanes(&std::array::from_fn(|l| {
            skins[l].steps.vertex(j, skins[l].binding.vertices[k])
        }))
    };
    let (p0, p1, p2) = (corner(0), corner(1), corner(2));
    let bary = V3::from_lanes(&std::array::from_fn(|l| skins[l].binding.barycentric.xyz()));
    let point = p0.mul(bary.x).add(p1.mul(bary.y)).add(p2.mul(bary.z));
    let edge = p1.sub(p0);
    let cross = edge.cross(p2.sub(p0));
    let edge_len = edge.length();
    let cross_len = cross.length();
    let tiny = F::splat(1e-12);
    let usable = edge_len.simd_gt(tiny) & cross_len.simd_gt(tiny);
    let e1 = edge.div(edge_len);
    let n = cross.div(cross_len);
    let e2 = n.cross(e1);
    (
        V3::select(usable, e1, V3::splat(Vec3::X)),
        V3::select(usable, e2, V3::splat(Vec3::Y)),
        V3::select(usable, n, V3::splat(Vec3::Z)),
        point,
    )
}

/// Steps [`LANES`] strands (roots `roots`, their six points each in `latest` and `older`,
/// their combs in `comb`) through `steps`, exactly as [`super::step_strand`] steps each; returns
/// how many strands were reset for not being finite. `capsules` is
/// [`StepCapsules::of`]`(steps)`, made once for every group.
pub fn step_lanes(
    steps: &[StepUniforms],
    capsules: &[StepCapsules],
    roots: &[GpuRoot],
    latest: &mut [Vec4],
    older: &mut [Vec4],
    comb: &mut [Vec4],
) -> u32 {
    step_lanes_skinned(steps, capsules, None, roots, latest, older, comb)
}

/// [`step_lanes`] for strands whose roots may be bound to a body's triangles: `skin` gives
/// the body's vertices posed for each of `steps` and one binding per root of `roots`.
/// Each lane's frame is built by the reference's own function, so the bits agree.
pub fn step_lanes_skinned(
    steps: &[StepUniforms],
    capsules: &[StepCapsules],
    skin: Option<(SkinnedSteps<'_>, &[GpuRootBinding])>,
    roots: &[GpuRoot],
    latest: &mut [Vec4],
    older: &mut [Vec4],
    comb: &mut [Vec4],
) -> u32 {
    let n = POINTS_PER_STRAND;
    let strand_skin = |s: usize| {
        skin.and_then(|(steps, bindings)| {
            bindings.get(s).map(|binding| StrandSkin { steps, binding })
        })
    };
    let scalar = |latest: &mut [Vec4], older: &mut [Vec4], comb: &mut [Vec4]| {
        (0..roots.len())
            .map(|s| {
                step_strand_skinned(
                    steps,
                    &roots[s],
                    strand_skin(s),
                    &mut latest[s * n..(s + 1) * n],
                    &mut older[s * n..(s + 1) * n],
                    &mut comb[s],
                    None,
                )
            })
            .sum()
    };
    if roots.len() != LANES || steps.is_empty() || capsules.len() != steps.len() {
        return scalar(latest, older, comb);
    }
    let finite = latest
        .iter()
        .chain(older.iter())
        .all(|p| p.xyz().is_finite())
        && comb.iter().all(|c| c.xyz().is_finite());
    if !finite {
        return scalar(latest, older, comb);
    }
    // The fast path writes nothing until every step came out finite, so on failure the
    // input is still in place for the reference.
    if step_finite_lanes(steps, capsules, &strand_skin, roots, latest, older, comb) {
        return 0;
    }
    scalar(latest, older, comb)
}

/// The fast path of [`step_lanes`]; false, with nothing written, when a strand went
/// non-finite (the caller then steps the group by the reference).
fn step_finite_lanes<'a>(
    steps: &[StepUniforms],
    step_capsules: &[StepCapsules],
    strand_skin: &dyn Fn(usize) -> Option<StrandSkin<'a>>,
    roots: &[GpuRoot],
    latest: &mut [Vec4],
    older: &mut [Vec4],
    comb: &mut [Vec4],
) -> bool {
    let n = POINTS_PER_STRAND;
    let root: &[GpuRoot; LANES] = match roots.try_into() {
        Ok(r) => r,
        Err(_) => return false,
    };
    // Per lane without copying the roots (`array::map` would take the array by value).
    let lanes = |f: &dyn Fn(&GpuRoot) -> f32| F::from(std::array::from_fn(|l| f(&root[l])));
    let seg = lanes(&|r| r.position_segment.w);
    let rest_c: [F; SEGMENTS] = std::array::from_fn(|i| lanes(&|r| r.rest_angle(i).x));
    let rest_s: [F; SEGMENTS] = std::array::from_fn(|i| lanes(&|r| r.rest_angle(i).y));
    let point = |buf: &[Vec4], i: usize| -> [Vec3; LANES] {
        std::array::from_fn(|l| buf[l * n + 1 + i].xyz())
    };
    let mut cur: [V3; SEGMENTS] = std::array::from_fn(|i| V3::from_lanes(&point(latest, i)));
    let mut old: [V3; SEGMENTS] = std::array::from_fn(|i| V3::from_lanes(&point(older, i)));
    let mut cur_flag: [F; SEGMENTS] = std::array::from_fn(|i| {
        F::from(std::array::from_fn::<f32, LANES, _>(|l| {
            latest[l * n + 1 + i].w
        }))
    });
    let mut old_flag = [zero(); SEGMENTS];
    let vec_lanes =
        |f: &dyn Fn(&GpuRoot) -> Vec3| V3::from_lanes(&std::array::from_fn(|l| f(&root[l])));
    let position_local = vec_lanes(&|r| r.position_segment.xyz());
    let normal_local = vec_lanes(&|r| r.normal_space.xyz());
    let flow_local = vec_lanes(&|r| r.flow_tail.xyz());
    let gs0 = [0, 1, 2, 3].map(|k| lanes(&|r| r.gust_01[k]));
    let gs1 = [0, 1, 2, 3].map(|k| lanes(&|r| r.gust_23[k]));
    let mut comb_v = V3::from_lanes(&std::array::from_fn(|l| comb[l].xyz()));
    let mut root_w = V3::splat(Vec3::ZERO);

    let skins: [Option<StrandSkin<'a>>; LANES] = std::array::from_fn(strand_skin);
    // Eight roots all bound to a body build their frames in the lanes.
    let all_skinned: Option<[StrandSkin<'a>; LANES]> =
        if (0..LANES).all(|l| skins[l].is_some() && is_skinned(&root[l])) {
            Some(std::array::from_fn(|l| skins[l].expect("checked above")))
        } else {
            None
        };
    let fields: [_; LANES] = std::array::from_fn(|l| strand_field(skins[l], &root[l]));
    let any_field = fields.iter().any(Option::is_some);
    for (j, (u, StepCapsules(capsules))) in steps.iter().zip(step_capsules).enumerate() {
        // The per-strand frame. Each lane's transform is the reference's (a tail root's is
        // a blend of two bones, a skinned root's its triangle's frame); placing through it
        // runs in the lanes.
        let (mx, my, mz, mw) = match &all_skinned {
            Some(skins) => triangle_frame_lanes(j, skins),
            None => {
                let m: [Mat4; LANES] =
                    std::array::from_fn(|l| root_frame(u, j, &root[l], skins[l]));
                let column = |c: usize| V3::from_lanes(&std::array::from_fn(|l| m[l].col(c).xyz()));
                (column(0), column(1), column(2), column(3))
            }
        };
        let rotate = |v: V3| mx.mul(v.x).add(my.mul(v.y)).add(mz.mul(v.z));
        root_w = rotate(position_local).add(mw);
        let n_wv = rotate(normal_local).normalize();
        let flow = flow_local.add(comb_v);
        let flow = flow.sub(normal_local.mul(flow.dot(normal_local)));
        let flow_len = flow.length();
        let flow = V3::select(
            flow_len.simd_gt(F::splat(1e-6)),
            flow.div(flow_len),
            flow_local,
        );
        let f_wv = rotate(flow).normalize();
        let (gt0, gt1) = (u.gust_time_01, u.gust_time_23);
        let sway =
            F::splat(0.6) + F::splat(0.4) * (F::splat(gt0.y) * gs0[0] + F::splat(gt0.x) * gs0[1]);
        let gust = V3 {
            x: F::splat(gt0.w) * gs0[2] + F::splat(gt0.z) * gs0[3],
            y: F::splat(0.3) * (F::splat(gt1.y) * gs1[0] + F::splat(gt1.x) * gs1[1]),
            z: F::splat(gt1.z) * gs1[2] - F::splat(gt1.w) * gs1[3],
        }
        .mul(F::splat(u.gust_strength) * sway);

        let gravity = V3::splat(u.gravity);
        let damping = F::splat(u.damping);
        let floor_y = F::splat(u.floor);
        let friction = F::splat(u.friction);
        let bound_c = V3::splat(u.bound_center);
        let bound_r = F::splat(u.bound_radius);
        let hand = u.bound_radius > 0.0;
        let clearance_c = u.skin_clearance;
        let reachable = if hand {
            reachable_capsules(capsules, root_w, seg, bound_c, bound_r)
        } else {
            0
        };

        let mut parent = root_w;
        let mut pushed = V3::splat(Vec3::ZERO);
        let mut touches = zero();
        for i in 0..SEGMENTS {
            let fi = (i + 1) as f32;
            let t = i as f32 / (SEGMENTS - 1) as f32;
            let p = cur[i];
            let q = old[i];

            let mut x = p
                .add(p.sub(q).mul(damping))
                .add(gravity)
                .add(gust.mul(F::splat(fi / SEGMENTS as f32)));

            let rest_dir = n_wv.mul(rest_c[i]).add(f_wv.mul(rest_s[i]));
            let k = u.root_stiffness * (1.0 - t) + u.tip_stiffness * t;
            x = x
                .mul(F::splat(1.0 - k))
                .add(parent.add(rest_dir.mul(seg)).mul(F::splat(k)));

            let clearance = F::splat(u.skin_clearance * fi);
            let height = x.sub(root_w).dot(n_wv);
            x = V3::select(
                height.simd_lt(clearance),
                x.add(n_wv.mul(clearance - height)),
                x,
            );
            let mut pushed_to: [Option<body_field::Pushed>; LANES] = [None; LANES];
            if any_field {
                // The body's field, lane by lane through the reference's own function.
                let mut lane_x: [Vec3; LANES] = std::array::from_fn(|l| x.lane(l));
                for (l, f) in fields.iter().enumerate() {
                    if let Some((field, grids)) = f {
                        let p = body_field::push_out(field, j, *grids, lane_x[l], clearance_c);
                        lane_x[l] = p.x;
                        pushed_to[l] = Some(p);
                    }
                }
                x = V3::from_lanes(&lane_x);
            }
            x.y = x.y.max(floor_y);

            let mut touched = zero();
            if hand {
                let near = x.sub(bound_c).length().simd_lt(bound_r);
                if near.any() {
                    for cap in capsules {
                        let closest = axis_point(cap.a, cap.ab, cap.ab2, x);
                        let off = x.sub(closest);
                        let dist = off.length();
                        let inside = near & dist.simd_lt(cap.radius);
                        if inside.any() {
                            let out_dir =
                                V3::select(dist.simd_gt(F::splat(1e-6)), off.div(dist), n_wv);
                            let pushed_x = closest
                                .add(out_dir.mul(cap.radius))
                                .add(cap.motion.mul(friction));
                            x = V3::select(inside, pushed_x, x);
                            pushed = V3::select(inside, pushed.add(cap.motion), pushed);
                            touched = inside.select(F::splat(1.0), touched);
                        }
                    }
                }
            }
            touches += touched;

            let skin_min = (clearance - parent.sub(root_w).dot(n_wv)) / seg;
            let floor_min = (floor_y - parent.y) / seg;
            x = project_segment(x, parent, rest_dir, seg, n_wv, skin_min, floor_min);
            if any_field {
                let (seg_l, floor_l) = (seg.to_array(), floor_min.to_array());
                let mut lane_x: [Vec3; LANES] = std::array::from_fn(|l| x.lane(l));
                for (l, f) in fields.iter().enumerate() {
                    if let Some((field, grids)) = f
                        && !pushed_to[l].is_some_and(|p| body_field::still_clear(&p, lane_x[l]))
                    {
                        lane_x[l] = turn_out_of_field(
                            field,
                            j,
                            *grids,
                            lane_x[l],
                            parent.lane(l),
                            seg_l[l],
                            clearance_c,
                            floor_l[l],
                        );
                    }
                }
                x = V3::from_lanes(&lane_x);
            }
            if hand {
                let near = x.sub(bound_c).length().simd_lt(bound_r);
                if near.any() {
                    let mut dir = x.sub(parent).div(seg);
                    for _ in 0..CONTACT_ITERATIONS {
                        for cap in masked(capsules, reachable) {
                            let turned = clear_capsule(dir, parent, seg, cap);
                            touched = (near & turned.ne(dir)).select(F::splat(1.0), touched);
                            dir = turned;
                        }
                    }
                    dir = wedge_escape(dir, parent, seg, capsules, reachable);
                    dir = lift_direction(dir, V3::splat(Vec3::Y), floor_min);
                    x = V3::select(near, parent.add(dir.mul(seg)), x);
                }
            }

            old[i] = p;
            old_flag[i] = cur_flag[i];
            cur[i] = x;
            cur_flag[i] = touched;
            parent = x;
        }

        // The comb decays, follows the hand's motion where it touched, stays in the
        // tangent plane and within its limit.
        let mut c_new = comb_v.mul(F::splat(u.comb_decay));
        let touched_any = touches.simd_gt(zero());
        if touched_any.any() {
            let motion = pushed.div(touches);
            let motion_local = V3 {
                x: mx.dot(motion),
                y: my.dot(motion),
                z: mz.dot(motion),
            };
            let gain = F::splat(u.comb_gain * u.comb_scale) / seg;
            c_new = V3::select(touched_any, c_new.add(motion_local.mul(gain)), c_new);
        }
        c_new = c_new.sub(normal_local.mul(c_new.dot(normal_local)));
        let c_len = c_new.length();
        let limit = F::splat(u.comb_limit);
        comb_v = V3::select(c_len.simd_gt(limit), c_new.mul(limit / c_len), c_new);
        let finite = cur
            .iter()
            .all(|p| finite_lanes(p.x) && finite_lanes(p.y) && finite_lanes(p.z))
            && finite_lanes(comb_v.x)
            && finite_lanes(comb_v.y)
            && finite_lanes(comb_v.z);
        if !finite {
            return false;
        }
    }

    for l in 0..LANES {
        comb[l] = comb_v.lane(l).extend(0.0);
        latest[l * n] = root_w.lane(l).extend(0.0);
        for i in 0..SEGMENTS {
            latest[l * n + 1 + i] = cur[i].lane(l).extend(cur_flag[i].to_array()[l]);
            older[l * n + 1 + i] = old[i].lane(l).extend(old_flag[i].to_array()[l]);
        }
    }
    true
}
