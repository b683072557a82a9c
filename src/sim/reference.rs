//! The strand step as plain scalar Rust: `shaders/strand_step.wgsl` mirrored line for line.
//! This is the one definition of the step: the WGSL kernel and the SIMD mirror
//! (`simd.rs`) are both tested against it.

use super::body_field::{self, CANDIDATES, FieldSteps, NO_GRID};
use super::layout::{GpuCapsule, GpuRoot, POINTS_PER_STRAND, SEGMENTS, StepUniforms};
use super::skinned::{GpuRootBinding, SkinnedSteps, StrandSkin, is_skinned};
use crate::creature::{Space, place_direction, place_point, root_transform};
use glam::{Mat4, Vec3, Vec4, Vec4Swizzles};

/// Extra push-out and projection rounds for points the hand touched (WGSL twin).
pub(crate) const CONTACT_ITERATIONS: usize = crate::shaders::CONTACT_ITERATIONS as usize;

fn mix(a: Vec3, b: Vec3, t: f32) -> Vec3 {
    a * (1.0 - t) + b * t
}

fn mix1(a: f32, b: f32, t: f32) -> f32 {
    a * (1.0 - t) + b * t
}

fn unrotate(m: &Mat4, v: Vec3) -> Vec3 {
    Vec3::new(
        m.x_axis.xyz().dot(v),
        m.y_axis.xyz().dot(v),
        m.z_axis.xyz().dot(v),
    )
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
    let a = cap.a;
    let ab = cap.b - a;
    let r = cap.radius * 1.0001;
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

/// The nearest point of `cap`'s axis to `p`.
fn axis_point(cap: &GpuCapsule, p: Vec3) -> Vec3 {
    let a = cap.a;
    let ab = cap.b - a;
    let h = ((p - a).dot(ab) / ab.dot(ab).max(1e-12)).clamp(0.0, 1.0);
    a + ab * h
}

/// Unit `dir`, or, when its end is still inside a capsule after the clearing rounds (wedged
/// between two capsules, where turning out of one turns into the other), the direction
/// straight away from every capsule within reach of the parent (WGSL `wedge_escape`).
fn wedge_escape(dir: Vec3, parent: Vec3, seg: f32, capsules: &[GpuCapsule]) -> Vec3 {
    let end = parent + dir * seg;
    let mut stuck = false;
    let mut escape = Vec3::ZERO;
    for cap in capsules {
        let r = cap.radius;
        if end.distance(axis_point(cap, end)) < r {
            stuck = true;
        }
        let away = parent - axis_point(cap, parent);
        let dist = away.length();
        if dist < r + seg && dist > 1e-6 {
            escape += away / dist;
        }
    }
    let len = escape.length();
    if stuck && len > 1e-6 {
        escape / len
    } else {
        dir
    }
}

/// The body's distance field and the grids a skinned root's points ask, where it has any.
pub(crate) fn strand_field<'a>(
    skin: Option<StrandSkin<'a>>,
    root: &GpuRoot,
) -> Option<(FieldSteps<'a>, [u32; CANDIDATES])> {
    let skin = skin.filter(|_| is_skinned(root))?;
    let grids = skin.binding.grids;
    let field = skin.steps.field?;
    grids
        .iter()
        .any(|&g| g != NO_GRID)
        .then_some((field, grids))
}

/// `x`, one segment from `parent`, turned about the parent (length kept) until its end
/// clears the body's field by `clearance` to first order, then lifted above the floor
/// again; unchanged where the end already clears it (WGSL `turn_out_of_field`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn turn_out_of_field(
    field: &FieldSteps<'_>,
    j: usize,
    grids: [u32; CANDIDATES],
    x: Vec3,
    parent: Vec3,
    seg: f32,
    clearance: f32,
    floor_min: f32,
) -> Vec3 {
    match body_field::turn_min_dot(field, j, grids, x, parent, seg, clearance) {
        Some((dir, n, min_dot)) => {
            let dir = lift_direction(dir, n, min_dot);
            let dir = lift_direction(dir, Vec3::Y, floor_min);
            parent + dir * seg
        }
        None => x,
    }
}

/// The space a root's code stands for (WGSL compares the code against 0.5 and 1.5).
pub(crate) fn space_of(root: &GpuRoot) -> Space {
    let code = root.normal_space.w;
    if code < 0.5 {
        Space::Body
    } else if code < 1.5 {
        Space::Head
    } else {
        Space::Tail
    }
}

/// The transform a root follows in step `u`.
pub(crate) fn root_matrix(u: &StepUniforms, root: &GpuRoot) -> Mat4 {
    root_transform(&u.pose, space_of(root), root.flow_tail.w)
}

/// The transform a root follows in step `j` (uniforms `u`): its skinned triangle's frame
/// for a root bound to a body (when `skin` gives the posed vertices), else its pivot's.
pub(crate) fn root_frame(
    u: &StepUniforms,
    j: usize,
    root: &GpuRoot,
    skin: Option<StrandSkin<'_>>,
) -> Mat4 {
    match skin {
        Some(skin) if is_skinned(root) => skin.frame(j),
        _ => root_matrix(u, root),
    }
}

/// The rest shape of one strand under transform `m`: each segment along its groomed rest
/// direction, with no comb. Points 1..5.
pub(crate) fn rest_shape(m: &Mat4, root: &GpuRoot) -> (Vec3, [Vec3; SEGMENTS]) {
    let root_w = place_point(m, root.position_segment.xyz());
    let n_w = place_direction(m, root.normal_space.xyz());
    let f_w = place_direction(m, root.flow_tail.xyz());
    let seg = root.position_segment.w;
    let mut p = root_w;
    let mut out = [Vec3::ZERO; SEGMENTS];
    for (i, o) in out.iter_mut().enumerate() {
        let rest = root.rest_angle(i);
        p += (n_w * rest.x + f_w * rest.y) * seg;
        *o = p;
    }
    (root_w, out)
}

/// The rest shape of every strand under `u` (no comb): the solver's starting state.
pub fn rest_positions(u: &StepUniforms, roots: &[GpuRoot]) -> Vec<Vec4> {
    rest_positions_on(u, roots, None)
}

/// [`rest_positions`], roots bound to a body placed on its triangles as step 0 of `skin`
/// poses them (`skin`: the posed vertices and one binding per root).
pub fn rest_positions_on(
    u: &StepUniforms,
    roots: &[GpuRoot],
    skin: Option<(SkinnedSteps<'_>, &[GpuRootBinding])>,
) -> Vec<Vec4> {
    let mut out = Vec::with_capacity(roots.len() * POINTS_PER_STRAND);
    for (i, root) in roots.iter().enumerate() {
        let strand = skin.and_then(|(steps, bindings)| {
            bindings.get(i).map(|binding| StrandSkin { steps, binding })
        });
        let (root_w, points) = rest_shape(&root_frame(u, 0, root, strand), root);
        out.push(root_w.extend(0.0));
        out.extend(points.iter().map(|p| p.extend(0.0)));
    }
    out
}

/// Whether every component is a finite number.
fn finite3(v: Vec3) -> bool {
    v.is_finite()
}

/// One strand through `steps` in order (WGSL `step`). On entry `latest` and `older` hold
/// the strand's latest positions and those one step before (six each); on exit the same
/// roles after the steps, the comb updated. A state that is not finite, on entry or after
/// any step, is reset to the rest shape; returns how many resets that took.
pub fn step_strand(
    steps: &[StepUniforms],
    root: &GpuRoot,
    latest: &mut [Vec4],
    older: &mut [Vec4],
    comb: &mut Vec4,
) -> u32 {
    step_strand_in(steps, root, latest, older, comb, None)
}

/// A volume grid as [`step_strand_in`] reads it: splatted from the state its first step
/// starts from.
#[derive(Clone, Copy, Debug)]
pub struct GridView<'a> {
    /// The grid's integers (see [`super::volume`]).
    pub grid: &'a [i32],
    /// Per node, the density above which it pushes.
    pub rest: &'a [f32],
    /// Where it lies and how strongly it acts.
    pub uniforms: super::volume::VolumeUniforms,
}

/// [`step_strand`] with the volume grid read by every point between its forces and its
/// projection (WGSL `volume_correct`) in the first of `steps` when `volume` is given: a
/// grid splatted from the state the steps start from.
pub fn step_strand_in(
    steps: &[StepUniforms],
    root: &GpuRoot,
    latest: &mut [Vec4],
    older: &mut [Vec4],
    comb: &mut Vec4,
    volume: Option<GridView<'_>>,
) -> u32 {
    step_strand_skinned(steps, root, None, latest, older, comb, volume)
}

/// [`step_strand_in`] for a strand whose root may be bound to a body's triangle: `skin`
/// gives the body's vertices posed for each of `steps` and the root's triangle.
pub fn step_strand_skinned(
    steps: &[StepUniforms],
    root: &GpuRoot,
    skin: Option<StrandSkin<'_>>,
    latest: &mut [Vec4],
    older: &mut [Vec4],
    comb: &mut Vec4,
    volume: Option<GridView<'_>>,
) -> u32 {
    let Some(last) = steps.last() else {
        return 0;
    };
    let position_local = root.position_segment.xyz();
    let normal_local = root.normal_space.xyz();
    let flow_local = root.flow_tail.xyz();
    let seg = root.position_segment.w;

    let mut cur = [Vec3::ZERO; SEGMENTS];
    let mut old = [Vec3::ZERO; SEGMENTS];
    let mut cur_flag = [0.0f32; SEGMENTS];
    let mut old_flag = [0.0f32; SEGMENTS];
    let mut good = true;
    for i in 0..SEGMENTS {
        let p = latest[1 + i];
        let q = older[1 + i];
        cur[i] = p.xyz();
        old[i] = q.xyz();
        cur_flag[i] = p.w;
        good = good && finite3(p.xyz()) && finite3(q.xyz());
    }
    let mut comb_v = comb.xyz();
    good = good && finite3(comb_v);
    let mut root_w = Vec3::ZERO;
    let mut resets = 0;
    let field = strand_field(skin, root);

    for (j, u) in steps.iter().enumerate() {
        let m = root_frame(u, j, root, skin);
        root_w = place_point(&m, position_local);
        let n_w = place_direction(&m, normal_local);

        if !good {
            let (_, rest) = rest_shape(&m, root);
            cur = rest;
            old = rest;
            cur_flag = [0.0; SEGMENTS];
            old_flag = [0.0; SEGMENTS];
            comb_v = Vec3::ZERO;
            resets += 1;
            good = true;
            continue;
        }

        let mut flow = flow_local + comb_v;
        flow -= normal_local * flow.dot(normal_local);
        let flow_len = flow.length();
        let flow = if flow_len > 1e-6 {
            flow / flow_len
        } else {
            flow_local
        };
        let f_w = place_direction(&m, flow);

        let (gt0, gt1, gs0, gs1) = (u.gust_time_01, u.gust_time_23, root.gust_01, root.gust_23);
        let sway = 0.6 + 0.4 * (gt0.y * gs0.x + gt0.x * gs0.y);
        let gust = Vec3::new(
            gt0.w * gs0.z + gt0.z * gs0.w,
            0.3 * (gt1.y * gs1.x + gt1.x * gs1.y),
            gt1.z * gs1.z - gt1.w * gs1.w,
        ) * (u.gust_strength * sway);

        let gravity = u.gravity;
        let damping = u.damping;
        let floor_y = u.floor;
        let skin_offset = u.skin_clearance;
        let friction = u.friction;
        let hand = u.bound_radius > 0.0;
        let capsules = &u.capsules[..(u.capsule_count as usize).min(u.capsules.len())];

        let mut parent = root_w;
        let mut pushed = Vec3::ZERO;
        let mut touches = 0.0f32;
        for i in 0..SEGMENTS {
            let fi = (i + 1) as f32;
            let t = i as f32 / (SEGMENTS - 1) as f32;
            let p = cur[i];
            let q = old[i];

            let mut x = p + (p - q) * damping + gravity + gust * (fi / SEGMENTS as f32);

            let rest = root.rest_angle(i);
            let rest_dir = n_w * rest.x + f_w * rest.y;
            let k = mix1(u.root_stiffness, u.tip_stiffness, t);
            x = mix(x, parent + rest_dir * seg, k);

            let clearance = skin_offset * fi;
            let height = (x - root_w).dot(n_w);
            if height < clearance {
                x += n_w * (clearance - height);
            }
            let mut pushed_to = None;
            if let Some((field, grids)) = field {
                let p = body_field::push_out(&field, j, grids, x, skin_offset);
                x = p.x;
                pushed_to = Some(p);
            }
            x.y = x.y.max(floor_y);

            let mut touched = 0.0f32;
            if hand && x.distance(u.bound_center) < u.bound_radius {
                for cap in capsules {
                    let a = cap.a;
                    let ab = cap.b - a;
                    let r = cap.radius;
                    let h = ((x - a).dot(ab) / ab.dot(ab).max(1e-12)).clamp(0.0, 1.0);
                    let closest = a + ab * h;
                    let off = x - closest;
                    let dist = off.length();
                    if dist < r {
                        let out_dir = if dist > 1e-6 { off / dist } else { n_w };
                        x = closest + out_dir * r + cap.motion * friction;
                        pushed += cap.motion;
                        touched = 1.0;
                    }
                }
            }
            touches += touched;

            if let (Some(grid), 0) = (volume, j) {
                x = super::volume::correct(grid.grid, grid.rest, &grid.uniforms, x, p, q);
            }

            let skin_min = (clearance - (parent - root_w).dot(n_w)) / seg;
            let floor_min = (floor_y - parent.y) / seg;
            x = project_segment(x, parent, rest_dir, seg, n_w, skin_min, floor_min);
            if let Some((field, grids)) = field
                && !pushed_to.is_some_and(|p| body_field::still_clear(&p, x))
            {
                x = turn_out_of_field(&field, j, grids, x, parent, seg, skin_offset, floor_min);
            }
            if hand && x.distance(u.bound_center) < u.bound_radius {
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
                dir = wedge_escape(dir, parent, seg, capsules);
                dir = lift_direction(dir, Vec3::Y, floor_min);
                x = parent + dir * seg;
            }

            old[i] = p;
            old_flag[i] = cur_flag[i];
            cur[i] = x;
            cur_flag[i] = touched;
            good = good && finite3(x);
            parent = x;
        }

        let mut c_new = comb_v * u.comb_decay;
        if touches > 0.0 {
            let motion_local = unrotate(&m, pushed / touches);
            c_new += motion_local * (u.comb_gain * u.comb_scale / seg);
        }
        c_new -= normal_local * c_new.dot(normal_local);
        let c_len = c_new.length();
        if c_len > u.comb_limit {
            c_new *= u.comb_limit / c_len;
        }
        comb_v = c_new;
        good = good && finite3(comb_v);
    }

    if !good {
        let (_, rest) = rest_shape(&root_frame(last, steps.len() - 1, root, skin), root);
        cur = rest;
        old = rest;
        cur_flag = [0.0; SEGMENTS];
        old_flag = [0.0; SEGMENTS];
        comb_v = Vec3::ZERO;
        resets += 1;
    }

    *comb = comb_v.extend(0.0);
    latest[0] = root_w.extend(0.0);
    for i in 0..SEGMENTS {
        latest[1 + i] = cur[i].extend(cur_flag[i]);
        older[1 + i] = old[i].extend(old_flag[i]);
    }
    resets
}
