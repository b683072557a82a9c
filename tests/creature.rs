//! The analytic host: Jacobians and normals against finite differences of the surface maps,
//! inside tests against the surfaces, ray hits against the inside tests.

use glam::{Vec2, Vec3};
use pelt::creature::{Creature, Part, Ray, tangent_basis};

/// Directions spread over the sphere (a Fibonacci lattice).
fn directions(n: usize) -> Vec<Vec3> {
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    (0..n)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f32 + 0.5) / n as f32;
            let r = (1.0 - y * y).sqrt();
            let phi = golden * i as f32;
            Vec3::new(r * phi.cos(), y, r * phi.sin())
        })
        .collect()
}

#[test]
fn sphere_part_jacobians_and_normals_match_finite_differences() {
    let creature = Creature::default();
    let h = 1e-3f32;
    for part in [Part::Head, Part::Body, Part::Paw(0)] {
        for u in directions(400) {
            let (a, b) = tangent_basis(u);
            // Moving u along a great circle by angle h in each tangent direction.
            let at = |da: f32, db: f32| {
                let v = (u + a * da.tan() + b * db.tan()).normalize();
                creature.surface(part, v).position
            };
            let du = (at(h, 0.0) - at(-h, 0.0)) / (2.0 * h);
            let dv = (at(0.0, h) - at(0.0, -h)) / (2.0 * h);
            let cross = du.cross(dv);
            let s = creature.surface(part, u);
            let rel = (cross.length() - s.jacobian).abs() / s.jacobian;
            assert!(
                rel < 2e-3,
                "{part:?} Jacobian at {u}: analytic {} vs numeric {}",
                s.jacobian,
                cross.length()
            );
            assert!(
                cross.normalize().dot(s.normal) > 0.9995,
                "{part:?} normal at {u}"
            );
        }
    }
}

#[test]
fn tail_jacobian_and_normal_match_finite_differences() {
    let creature = Creature::default();
    let h = 1e-3f32;
    for i in 1..40 {
        let t = i as f32 / 41.0;
        for k in 0..16 {
            let psi = k as f32 * std::f32::consts::TAU / 16.0;
            let at = |dt: f32, dp: f32| creature.tail.surface(Vec2::new(t + dt, psi + dp)).position;
            let dt = (at(h, 0.0) - at(-h, 0.0)) / (2.0 * h);
            let dp = (at(0.0, h) - at(0.0, -h)) / (2.0 * h);
            let cross = dt.cross(dp);
            let s = creature.tail.surface(Vec2::new(t, psi));
            let rel = (cross.length() - s.jacobian).abs() / s.jacobian;
            assert!(
                rel < 5e-3,
                "tail Jacobian at t={t} ψ={psi}: {} vs {}",
                s.jacobian,
                cross.length()
            );
            assert!(
                cross.normalize().dot(s.normal).abs() > 0.999,
                "tail normal at t={t} ψ={psi}"
            );
            // Outward: stepping along the normal leaves the tube.
            assert!(
                !creature.tail.inside(s.position + s.normal * 0.005),
                "tail normal points inward at t={t}"
            );
        }
    }
}

#[test]
fn surfaces_separate_inside_from_outside() {
    let creature = Creature::default();
    for part in [Part::Head, Part::Body, Part::Paw(2)] {
        for u in directions(300) {
            let s = creature.surface(part, u);
            let p = creature.to_body(part, s.position);
            let n = s.normal;
            assert!(
                creature.inside(part, p - n * 0.004),
                "{part:?}: just under the surface is not inside at {u}"
            );
            assert!(
                !creature.inside(part, p + n * 0.004),
                "{part:?}: just above the surface is inside at {u}"
            );
        }
    }
}

#[test]
fn rays_hit_where_the_inside_test_changes() {
    let creature = Creature::default();
    // Rays from a ring of cameras toward points near the creature's centre.
    let targets = [
        Vec3::new(0.0, 0.12, 0.2),
        Vec3::new(0.0, -0.4, -0.2),
        Vec3::new(0.16, -0.7, 0.1),
        creature.tail.centerline(0.6),
    ];
    let mut hits = 0;
    for (i, target) in targets.iter().enumerate() {
        for k in 0..24 {
            let a = k as f32 * std::f32::consts::TAU / 24.0;
            let origin = *target + Vec3::new(a.cos() * 2.0, 0.3 + 0.05 * i as f32, a.sin() * 2.0);
            let ray = Ray::new(origin, *target - origin);
            let Some((part, hit)) = creature.raycast(&ray) else {
                panic!("ray toward {target} from {origin} missed everything");
            };
            hits += 1;
            assert!(
                !Part::ALL
                    .iter()
                    .any(|&p| creature.inside(p, ray.at(hit.distance - 0.003))),
                "just before the {part:?} hit the ray is already inside something"
            );
            assert!(
                creature.inside(part, ray.at(hit.distance + 0.003)),
                "just past the {part:?} hit is not inside it"
            );
            assert!(
                hit.normal.dot(ray.direction) < 0.0,
                "{part:?} hit normal faces away from the ray"
            );
        }
    }
    assert_eq!(hits, 96);
    // A ray pointing away misses.
    assert!(
        creature
            .raycast(&Ray::new(Vec3::new(0.0, 3.0, 0.0), Vec3::Y))
            .is_none()
    );
}
