//! The creature's skinned mesh for its file: the body ellipsoid on the spine, the head's
//! radial surface on the head, the paws on the hands and feet, and a tube around the tail's
//! centreline skinned to the two nearest tail bones (the weights tail fur follows too).

use glam::Vec3;

use crate::creature::{Creature, Ellipsoid, TAIL_BONES};
use crate::spring::Skeleton;
use crate::vrm::SkinnedMesh;

/// The main coat colour `#f2903b` in linear RGB.
const COAT: [f32; 4] = [0.888, 0.279, 0.044, 1.0];

/// The creature's mesh, skinned to `skeleton`'s nodes (see [`super::creature_skeleton`]).
pub(super) fn creature_mesh(creature: &Creature, skeleton: &Skeleton) -> SkinnedMesh {
    let node = |name: &str| skeleton.index_of(name).unwrap_or(0) as u16;
    let mut mesh = SkinnedMesh {
        color: COAT,
        ..Default::default()
    };
    add_sphere_map(&mut mesh, node("spine"), 12, 16, |u| {
        ellipsoid_point(&creature.body, u)
    });
    add_sphere_map(&mut mesh, node("head"), 12, 16, |u| {
        let s = creature.head.surface(u);
        (creature.head_pivot + s.position, s.normal)
    });
    for (paw, bone) in creature
        .paws
        .iter()
        .zip(["leftHand", "rightHand", "leftFoot", "rightFoot"])
    {
        add_sphere_map(&mut mesh, node(bone), 6, 8, |u| ellipsoid_point(paw, u));
    }
    let tail: Vec<u16> = (0..TAIL_BONES)
        .map(|i| node(&format!("tail_{i}")))
        .collect();
    add_tail_tube(&mut mesh, creature, &tail);
    mesh
}

fn ellipsoid_point(e: &Ellipsoid, u: Vec3) -> (Vec3, Vec3) {
    (e.center + u * e.radii, (u / e.radii).normalize_or(Vec3::Y))
}

/// A (rings × segs) grid over the unit sphere mapped through `place`, all on one bone.
fn add_sphere_map(
    mesh: &mut SkinnedMesh,
    bone: u16,
    rings: u32,
    segs: u32,
    place: impl Fn(Vec3) -> (Vec3, Vec3),
) {
    let base = mesh.positions.len() as u32;
    for i in 0..=rings {
        let theta = std::f32::consts::PI * i as f32 / rings as f32;
        for j in 0..=segs {
            let phi = std::f32::consts::TAU * j as f32 / segs as f32;
            let u = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            let (p, n) = place(u);
            mesh.positions.push(p);
            mesh.normals.push(n);
            mesh.joints.push([bone, 0, 0, 0]);
            mesh.weights.push([1.0, 0.0, 0.0, 0.0]);
        }
    }
    grid_indices(mesh, base, rings, segs);
}

/// The blend of tail bones a point at tail parameter `t` follows: `u = t·TAIL_BONES − 0.5`,
/// bone 0 below `u = 0`, the last bone above `u = TAIL_BONES − 1`, else the two around it.
pub(super) fn tail_weights(t: f32) -> ([usize; 2], [f32; 2]) {
    let u = t.clamp(0.0, 1.0) * TAIL_BONES as f32 - 0.5;
    if u <= 0.0 {
        ([0, 0], [1.0, 0.0])
    } else if u >= (TAIL_BONES - 1) as f32 {
        ([TAIL_BONES - 1, 0], [1.0, 0.0])
    } else {
        let b = u.floor();
        let f = u - b;
        ([b as usize, b as usize + 1], [1.0 - f, f])
    }
}

fn add_tail_tube(mesh: &mut SkinnedMesh, creature: &Creature, bones: &[u16]) {
    const RINGS: u32 = 30;
    const SEGS: u32 = 12;
    let tail = &creature.tail;
    let base = mesh.positions.len() as u32;
    let mut normal_ref = Vec3::Y;
    for i in 0..=RINGS {
        let t = i as f32 / RINGS as f32;
        let p = tail.centerline(t);
        let e = 1.0e-3;
        let tangent = (tail.centerline((t + e).min(1.0)) - tail.centerline((t - e).max(0.0)))
            .normalize_or(Vec3::NEG_Z);
        // Parallel transport of a reference normal keeps the rings from twisting.
        let n = (normal_ref - tangent * normal_ref.dot(tangent))
            .normalize_or(tangent.any_orthonormal_vector());
        normal_ref = n;
        let b = tangent.cross(n);
        let radius = tail.radius(t).max(1.0e-3);
        let (j, w) = tail_weights(t);
        for s in 0..=SEGS {
            let a = std::f32::consts::TAU * s as f32 / SEGS as f32;
            let dir = n * a.cos() + b * a.sin();
            mesh.positions.push(p + dir * radius);
            mesh.normals.push(dir);
            // An unused slot names node 0: the validator flags a real joint with no weight.
            let second = if w[1] > 0.0 { bones[j[1]] } else { 0 };
            mesh.joints.push([bones[j[0]], second, 0, 0]);
            mesh.weights.push([w[0], w[1], 0.0, 0.0]);
        }
    }
    grid_indices(mesh, base, RINGS, SEGS);
}

/// Two triangles per quad of a (rings+1)×(segs+1) vertex grid.
fn grid_indices(mesh: &mut SkinnedMesh, base: u32, rings: u32, segs: u32) {
    let row = segs + 1;
    for i in 0..rings {
        for j in 0..segs {
            let a = base + i * row + j;
            let b = a + row;
            mesh.indices
                .extend_from_slice(&[a, a + 1, b, a + 1, b + 1, b]);
        }
    }
}
