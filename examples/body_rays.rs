//! What a pointer ray against a posed body costs: skinning the vertices, refitting the tree
//! built once at the bind pose (what the hand does), building a tree afresh at each pose,
//! and rays through each tree and through every triangle, over a body's animation.
//!
//! `cargo run --example body_rays -- tests/bodies/Fox.glb tests/bodies/cryptovoxels.vrm`

use glam::Vec3;
use pelt::body::{BodyOptions, BodyRays, LoadedBody, posed_triangles};
use pelt::creature::Ray;
use std::time::Instant;

const POSES: usize = 30;
const RAYS: usize = 2000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        return Err("name one or more body files (.glb, .gltf, .vrm)".into());
    }
    for path in paths {
        let body = LoadedBody::read(std::path::Path::new(&path), &BodyOptions { height: 1.0 })?;
        let animation = body.animation_names.first().cloned();
        let motion = body.motion(animation.as_deref())?;
        let mesh = &body.mesh;
        let (lo, hi) = mesh
            .positions
            .iter()
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(*p), hi.max(*p))
            });
        let centre = 0.5 * (lo + hi);
        let mut tree = BodyRays::new(mesh);
        let (mut skin, mut refit, mut build) = (0.0, 0.0, 0.0);
        let (mut refit_rays, mut built_rays, mut brute_rays) = (0.0, 0.0, 0.0);
        let (mut hits, mut disagree) = (0, 0);
        for k in 0..POSES {
            let pose = motion.pose_at(k as f64 / 10.0);
            let started = Instant::now();
            let posed: Vec<Vec3> = (0..mesh.positions.len())
                .map(|v| pose.skin_vertex(mesh, v).0)
                .collect();
            skin += started.elapsed().as_secs_f64();
            let started = Instant::now();
            tree.set_pose(mesh, &pose);
            refit += started.elapsed().as_secs_f64();
            let mut at_pose = mesh.clone();
            at_pose.positions = posed;
            let started = Instant::now();
            let fresh = BodyRays::new(&at_pose);
            build += started.elapsed().as_secs_f64();
            // Rays from a sphere around the body toward points near its centre.
            let rays: Vec<Ray> = (0..RAYS)
                .map(|i| {
                    let u = (i as f32 + 0.5) / RAYS as f32;
                    let (z, a) = (1.0 - 2.0 * u, i as f32 * 2.399_963);
                    let s = (1.0 - z * z).sqrt();
                    let from = centre + Vec3::new(s * a.cos(), z, s * a.sin()) * 2.0;
                    let jitter = Vec3::new((a * 3.1).sin(), (a * 1.7).cos(), (a * 2.3).sin());
                    Ray::new(from, centre + jitter * 0.2 * (hi - lo) - from)
                })
                .collect();
            let started = Instant::now();
            let a: Vec<_> = rays.iter().map(|r| tree.raycast(r)).collect();
            refit_rays += started.elapsed().as_secs_f64();
            let started = Instant::now();
            let b: Vec<_> = rays.iter().map(|r| fresh.raycast(r)).collect();
            built_rays += started.elapsed().as_secs_f64();
            let triangles = posed_triangles(mesh, &pose);
            let started = Instant::now();
            let c: Vec<Option<f32>> = rays
                .iter()
                .take(RAYS / 20)
                .map(|r| {
                    triangles
                        .iter()
                        .filter_map(|t| triangle_hit(r, t))
                        .reduce(f32::min)
                })
                .collect();
            brute_rays += started.elapsed().as_secs_f64() * 20.0;
            for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                hits += usize::from(x.is_some());
                let d = |h: &Option<pelt::body::BodyHit>| h.map(|h| h.distance);
                let far = |p: Option<f32>, q: Option<f32>| match (p, q) {
                    (Some(p), Some(q)) => (p - q).abs() > 1e-4,
                    (p, q) => p.is_some() != q.is_some(),
                };
                if far(d(x), d(y)) || c.get(i).is_some_and(|&c| far(d(x), c)) {
                    disagree += 1;
                }
            }
        }
        let ms = |s: f64| s * 1e3 / POSES as f64;
        let us = |s: f64| s * 1e6 / (POSES * RAYS) as f64;
        println!(
            "{path}: {} vertices, {} triangles, animation {:?}, {POSES} poses × {RAYS} rays \
             ({hits} hits, {disagree} disagreements)\n  per pose: skinning {:.3} ms, refit \
             {:.3} ms (with skinning), fresh tree {:.3} ms (after skinning)\n  per ray: \
             refitted tree {:.2} µs, fresh tree {:.2} µs, every triangle {:.1} µs",
            mesh.positions.len(),
            mesh.triangles.len(),
            animation,
            ms(skin),
            ms(refit),
            ms(build),
            us(refit_rays),
            us(built_rays),
            us(brute_rays),
        );
    }
    Ok(())
}

/// Möller–Trumbore, both sides: the distance to `t` along `ray`.
fn triangle_hit(ray: &Ray, [a, b, c]: &[Vec3; 3]) -> Option<f32> {
    let (e1, e2) = (*b - *a, *c - *a);
    let p = ray.direction.cross(e2);
    let det = e1.dot(p);
    if !(det.abs() > f32::MIN_POSITIVE && det.is_finite()) {
        return None;
    }
    let s = ray.origin - *a;
    let u = s.dot(p) / det;
    let q = s.cross(e1);
    let v = ray.direction.dot(q) / det;
    let t = e2.dot(q) / det;
    (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t >= 0.0).then_some(t)
}
