//! `VrmSpring` throughput: 1, 100 and 10,000 chains of 8 joints, each chain meeting 4
//! colliders (2 spheres, a capsule and a plane), the scene moving every step: a crowd of
//! avatars. 10,000 chains run as 100 avatars of 100 chains. Prints steps per second and
//! joint updates per second; `tests/vrm-conformance/bench.mjs` measures three-vrm on the
//! same work.

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use glam::{Affine3A, Quat, Vec3};
use pelt::spring::{
    ChainEnd, NodeTransform, Skeleton, SkeletonNode, VrmChain, VrmCollider, VrmColliderGroup,
    VrmColliderShape, VrmJoint, VrmSpring, VrmSpringRig,
};

/// Joints per chain.
const JOINTS: usize = 8;
/// Most chains in one avatar.
const PER_AVATAR: usize = 100;

/// An avatar: a root with `chains` anchors in a ring, each with a chain of 8 joints (and an
/// end node) hanging from it and 4 colliders beside it.
fn avatar(chains: usize) -> VrmSpringRig {
    let mut nodes = vec![SkeletonNode {
        name: "root".into(),
        parent: None,
        rest: NodeTransform::IDENTITY,
    }];
    let mut rig = VrmSpringRig::default();
    for c in 0..chains {
        let angle = c as f32 / chains as f32 * std::f32::consts::TAU;
        let anchor = nodes.len();
        nodes.push(SkeletonNode {
            name: format!("anchor{c}"),
            parent: Some(0),
            rest: NodeTransform {
                translation: Vec3::new(angle.cos() * 0.3, 1.5, angle.sin() * 0.3),
                rotation: Quat::from_rotation_y(-angle),
                scale: Vec3::ONE,
            },
        });
        let mut joints = Vec::new();
        for j in 0..=JOINTS {
            let node = nodes.len();
            nodes.push(SkeletonNode {
                name: format!("c{c}j{j}"),
                parent: Some(node - 1),
                rest: NodeTransform::from_translation(if j == 0 {
                    Vec3::ZERO
                } else {
                    Vec3::new(0.02, -0.06, 0.0)
                }),
            });
            if j < JOINTS {
                joints.push(VrmJoint {
                    node,
                    stiffness: 1.0,
                    gravity_power: 0.4,
                    gravity_dir: Vec3::NEG_Y,
                    drag_force: 0.3,
                    hit_radius: 0.02,
                });
            }
        }
        let first = rig.colliders.len();
        for shape in [
            VrmColliderShape::sphere(Vec3::new(0.1, -0.1, 0.05), 0.08),
            VrmColliderShape::sphere(Vec3::new(-0.1, -0.2, 0.05), 0.06),
            VrmColliderShape::capsule(Vec3::new(0.0, -0.1, -0.1), Vec3::new(0.0, -0.4, -0.1), 0.05),
            VrmColliderShape::Plane {
                offset: Vec3::new(0.0, -0.45, 0.0),
                normal: Vec3::Y,
            },
        ] {
            rig.colliders.push(VrmCollider {
                node: anchor,
                shape,
            });
        }
        rig.groups.push(VrmColliderGroup {
            name: format!("g{c}"),
            colliders: (first..first + 4).collect(),
        });
        rig.chains.push(VrmChain {
            name: format!("chain{c}"),
            joints,
            end: ChainEnd::Node(nodes.len() - 1),
            collider_groups: vec![c],
            center: None,
        });
    }
    rig.skeleton = Skeleton::new(nodes).expect("bench skeleton");
    rig
}

fn crowd(chains: usize) -> Vec<VrmSpring> {
    let mut left = chains;
    let mut out = Vec::new();
    while left > 0 {
        let n = left.min(PER_AVATAR);
        out.push(VrmSpring::new(avatar(n), Affine3A::IDENTITY).expect("bench rig"));
        left -= n;
    }
    out
}

/// The scene's place at step `s`: walking a circle and turning.
fn root_at(s: u64) -> Affine3A {
    let t = s as f32 / 60.0;
    Affine3A::from_rotation_translation(
        Quat::from_rotation_y(t * 0.8),
        Vec3::new((t * 0.8).cos(), 0.0, (t * 0.8).sin()),
    )
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut summary = Vec::new();
    for chains in [1usize, 100, 10_000] {
        let mut crowd = crowd(chains);
        let mut step = 0u64;
        let mut group = c.benchmark_group("vrm_spring");
        group
            .throughput(Throughput::Elements((chains * JOINTS) as u64))
            .sample_size(if chains >= 10_000 { 10 } else { 50 })
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(if chains >= 10_000 { 8 } else { 3 }));
        let mut best = f64::MAX;
        group.bench_function(format!("{chains}_chains"), |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    step += 1;
                    let root = root_at(step);
                    for s in &mut crowd {
                        s.step(root);
                    }
                }
                let took = start.elapsed();
                best = best.min(took.as_secs_f64() / iters as f64);
                took
            })
        });
        group.finish();
        assert!(
            crowd
                .iter()
                .all(|s| s.world().iter().all(|w| w.is_finite())),
            "the crowd stayed finite"
        );
        summary.push((chains, best));
    }
    println!("\nVrmSpring, chains of {JOINTS} joints with 4 colliders each (best iteration):");
    println!(
        "{:>8} {:>14} {:>16} {:>18}",
        "chains", "ms / step", "steps / s", "joint updates / s"
    );
    for (chains, s) in summary {
        println!(
            "{chains:>8} {:>14.4} {:>16.0} {:>18.3e}",
            s * 1e3,
            1.0 / s,
            (chains * JOINTS) as f64 / s
        );
    }
    c.final_summary();
}
