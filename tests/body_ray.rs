//! Rays against a skinned body at a posed frame ([`BodyRays`]): the skinned cylinder bent
//! by its animation is hit where its geometry says (the unbent lower tube and the upper
//! tube turned about the joint), as often as a brute-force test of every posed triangle
//! says; rays beside it, away from it or not finite miss; degenerate triangles neither
//! panic nor get hit.

use glam::{Mat3, Vec3, Vec4};
use pelt::body::{
    BodyMesh, BodyMotion, BodyRays, CylinderSpec, SkinPose, posed_triangles, skinned_cylinder,
};
use pelt::creature::Ray;
use rand::{RngExt, SeedableRng};

/// The bent cylinder's pose a quarter period in (the upper bone turned by the full bend).
fn bent() -> (BodyMesh, SkinPose, CylinderSpec) {
    let spec = CylinderSpec::default();
    let (mesh, motion) = skinned_cylinder(&spec);
    let pose = motion.pose_at(spec.period / 4.0);
    (mesh, pose, spec)
}

/// The largest gap between the polygonal tube and its circle: the sag of one side.
fn sag(spec: &CylinderSpec) -> f32 {
    spec.radius * (1.0 - (std::f32::consts::PI / spec.segments as f32).cos())
}

#[test]
fn rays_hit_the_bent_cylinder_where_its_geometry_says() {
    let (mesh, pose, spec) = bent();
    let mut rays = BodyRays::new(&mesh);
    rays.set_pose(&mesh, &pose);
    let r = spec.radius;
    let pivot = Vec3::new(0.0, spec.base + 0.5 * spec.height, 0.0);
    // The upper bone is turned about +X through the joint; the lower one is where it was.
    let turn = Mat3::from_rotation_x(spec.bend);
    let upper = |p: Vec3| pivot + turn * (p - pivot);
    let mut worst: f32 = 0.0;
    // Heights wholly on one bone (below a quarter of the tube and above three quarters).
    for (rest_y, on_upper) in [(-0.55, false), (-0.42, false), (0.22, true), (0.33, true)] {
        for k in 0..12 {
            let a = std::f32::consts::TAU * (k as f32 + 0.3) / 12.0;
            let radial = Vec3::new(a.sin(), 0.0, a.cos());
            let rest_point = Vec3::new(0.0, rest_y, 0.0) + radial * r;
            let (point, outward) = if on_upper {
                (upper(rest_point), turn * radial)
            } else {
                (rest_point, radial)
            };
            // From a metre out along the surface's normal, straight at it.
            let ray = Ray::new(point + outward, -outward);
            let hit = rays
                .raycast(&ray)
                .unwrap_or_else(|| panic!("the ray at {rest_y} m, {a:.2} rad missed"));
            // Back in the bone's rest frame, the hit lies on the tube between its sides
            // and its circle, at the height and angle aimed at.
            let local = if on_upper {
                pivot + turn.transpose() * (hit.point - pivot)
            } else {
                hit.point
            };
            let radius = Vec3::new(local.x, 0.0, local.z).length();
            assert!(
                radius <= r + 1e-4 && radius >= r - sag(&spec) - 1e-4,
                "{rest_y} m, {a:.2} rad: the hit is {radius} m from the axis, not on the tube"
            );
            let off = (local - rest_point).length();
            worst = worst.max(off);
            assert!(
                off < sag(&spec) + 1e-3,
                "{rest_y} m, {a:.2} rad: the hit is {off} m from the analytic surface point"
            );
            assert!((hit.distance - 1.0).abs() < sag(&spec) + 1e-3);
            assert!(
                hit.normal.dot(outward) > 0.99,
                "the normal {} is not the surface's {outward}",
                hit.normal
            );
            // The triangle named holds the hit at the barycentrics given.
            let t = mesh.triangles[hit.triangle as usize];
            assert_eq!(t, hit.vertices);
            let b = hit.barycentric;
            assert!(b.min_element() >= -1e-5 && (b.element_sum() - 1.0).abs() < 1e-5);
            let corners = t.map(|i| pose.skin_vertex(&mesh, i as usize).0);
            let again = corners[0] * b.x + corners[1] * b.y + corners[2] * b.z;
            assert!((again - hit.point).length() < 1e-5);
        }
    }
    eprintln!("farthest hit from the analytic surface point: {worst:.2e} m");
}

#[test]
fn rays_find_the_nearest_posed_triangle_as_a_brute_force_test_does() {
    let (mesh, pose, _) = bent();
    let mut rays = BodyRays::new(&mesh);
    rays.set_pose(&mesh, &pose);
    let triangles = posed_triangles(&mesh, &pose);
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(17);
    let (mut hits, mut misses) = (0, 0);
    for _ in 0..400 {
        // From a box around the bent tube toward a point near it, so most rays hit.
        let origin = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        let aim = Vec3::new(
            rng.random_range(-0.2..0.2),
            rng.random_range(-0.7..0.6),
            rng.random_range(-0.2..0.5),
        );
        let ray = Ray::new(origin, aim - origin);
        let brute = triangles
            .iter()
            .filter_map(|t| brute_hit(&ray, t))
            .fold(f32::INFINITY, f32::min);
        match rays.raycast(&ray) {
            Some(hit) => {
                hits += 1;
                assert!(
                    (hit.distance - brute).abs() < 1e-4,
                    "{ray:?}: the tree's hit at {} m, the nearest triangle at {brute} m",
                    hit.distance
                );
            }
            None => {
                misses += 1;
                assert!(
                    brute.is_infinite(),
                    "{ray:?} missed a triangle {brute} m away"
                );
            }
        }
    }
    eprintln!("{hits} hits, {misses} misses");
    assert!(hits > 200 && misses > 10, "{hits} hits, {misses} misses");
}

/// Every triangle tested alone, by the plane and three edge signs (another method than
/// the tree's).
fn brute_hit(ray: &Ray, [a, b, c]: &[Vec3; 3]) -> Option<f32> {
    let n = (*b - *a).cross(*c - *a);
    let along = n.dot(ray.direction);
    if along.abs() < 1e-12 {
        return None;
    }
    let t = n.dot(*a - ray.origin) / along;
    if t < 0.0 {
        return None;
    }
    let p = ray.at(t);
    let inside = [(*a, *b), (*b, *c), (*c, *a)]
        .iter()
        .all(|(u, v)| (*v - *u).cross(p - *u).dot(n) >= -1e-9);
    inside.then_some(t)
}

#[test]
fn rays_beside_away_from_or_past_the_posed_body_miss() {
    let (mesh, pose, spec) = bent();
    let mut rays = BodyRays::new(&mesh);
    // Across the back of the upper tube at rest.
    let aim_at_rest_top = Ray::new(Vec3::new(-1.0, 0.35, -0.1), Vec3::X);
    assert!(rays.raycast(&aim_at_rest_top).is_some(), "the rest tube");
    rays.set_pose(&mesh, &pose);
    for (what, ray) in [
        (
            "beside the lower tube",
            Ray::new(Vec3::new(spec.radius + 0.01, -0.5, 1.0), Vec3::NEG_Z),
        ),
        ("away from it", Ray::new(Vec3::new(0.0, -0.5, 1.0), Vec3::Z)),
        (
            "above the bent top",
            Ray::new(Vec3::new(0.0, 0.6, 0.0), Vec3::Y),
        ),
        // The upper tube was here at rest; bent by 0.7 rad it swung toward +z.
        ("where the top was at rest", aim_at_rest_top),
        (
            "not finite",
            Ray::new(Vec3::new(f32::NAN, 0.0, 1.0), Vec3::NEG_Z),
        ),
        (
            "from infinitely far",
            Ray::new(Vec3::new(0.0, -0.5, f32::INFINITY), Vec3::NEG_Z),
        ),
    ] {
        assert_eq!(rays.raycast(&ray), None, "{what}");
    }
    // From inside the open tube, the wall ahead is hit, never the one behind: from the
    // axis, and from a tenth of a millimetre inside the near wall (in that wall's box).
    let out = rays
        .raycast(&Ray::new(Vec3::new(0.0, -0.5, 0.0), Vec3::Z))
        .expect("the wall ahead");
    assert!(
        out.point.z > 0.0 && (out.distance - spec.radius).abs() < sag(&spec) + 1e-4,
        "from the axis: {out:?}"
    );
    let inward = Ray::new(Vec3::new(0.0, -0.5, spec.radius - 1e-4), Vec3::NEG_Z);
    let across = rays.raycast(&inward).expect("the far wall");
    assert!(
        across.point.z < 0.0 && (across.distance - 2.0 * spec.radius).abs() < 1e-3,
        "from inside the near wall: {across:?}"
    );
    // Within a reach: the far wall is found within a little more than its distance, the
    // same hit, and missed within a little less.
    let d = across.distance;
    assert_eq!(rays.raycast_within(&inward, d + 1e-3, &mut 0), Some(across));
    assert_eq!(rays.raycast_within(&inward, d - 1e-3, &mut 0), None);
    // A body with no triangles hits nothing.
    let empty = BodyRays::new(&BodyMesh::default());
    assert!(empty.is_empty());
    assert_eq!(
        empty.raycast(&Ray::new(Vec3::Z, Vec3::NEG_Z)),
        None,
        "no triangles"
    );
}

#[test]
fn degenerate_triangles_are_never_hit_and_never_panic() {
    let n = f32::NAN;
    let positions = vec![
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(3.0, 0.0, 0.0),
        Vec3::new(n, 0.0, 0.0),
        Vec3::new(f32::INFINITY, 0.0, 0.0),
    ];
    let count = positions.len();
    let mesh = BodyMesh {
        normals: vec![Vec3::Z; count],
        joints: vec![[0; 4]; count],
        weights: vec![[1.0, 0.0, 0.0, 0.0]; count],
        colors: vec![Vec4::ONE; count],
        positions,
        triangles: vec![
            [3, 3, 3],  // a point
            [3, 4, 3],  // a line
            [0, 5, 1],  // a corner that is not a number
            [0, 6, 2],  // an infinite corner
            [0, 1, 99], // a vertex the mesh lacks: left out
            [0, 1, 2],  // the one real triangle
        ],
        joint_count: 1,
        ..BodyMesh::default()
    };
    let rays = BodyRays::new(&mesh);
    assert_eq!(
        rays.len(),
        5,
        "the triangle naming a missing vertex is left out"
    );
    let hit = rays
        .raycast(&Ray::new(Vec3::new(0.1, -0.2, 1.0), Vec3::NEG_Z))
        .expect("the real triangle");
    assert_eq!(hit.triangle, 5);
    assert!((hit.point - Vec3::new(0.1, -0.2, 0.0)).length() < 1e-6);
    assert!((hit.normal - Vec3::Z).length() < 1e-6);
    for ray in [
        Ray::new(Vec3::new(2.5, 0.0, 1.0), Vec3::NEG_Z),
        Ray::new(Vec3::new(2.5, -1.0, 0.0), Vec3::Y),
        Ray::new(Vec3::new(-5.0, 0.0, 0.0), Vec3::X),
        Ray::new(Vec3::new(3.0, 0.0, 1.0), Vec3::NEG_Z),
    ] {
        let hit = rays.raycast(&ray);
        assert!(hit.is_none(), "{ray:?} hit {hit:?}");
    }
    // Posed by a matrix that is not finite, nothing is hit and nothing panics.
    let mut posed = rays.clone();
    posed.set_pose(
        &mesh,
        &SkinPose {
            joints: vec![glam::Mat4::from_scale(Vec3::splat(f32::NAN))],
        },
    );
    assert_eq!(
        posed.raycast(&Ray::new(Vec3::new(0.1, -0.2, 1.0), Vec3::NEG_Z)),
        None
    );
}

#[test]
fn rays_through_a_vertex_or_along_an_edge_hit_the_near_side() {
    // A ray aimed exactly at a vertex (or at an edge's midpoint) lies on the boundary of
    // every triangle there: rounding must not let it slip between them to the far side.
    let spec = CylinderSpec::default();
    let (mesh, _) = skinned_cylinder(&spec);
    let rays = BodyRays::new(&mesh);
    let mut aimed = 0;
    let mut targets: Vec<Vec3> = mesh.positions.clone();
    for t in &mesh.triangles {
        for k in 0..3 {
            let (a, b) = (t[k] as usize, t[(k + 1) % 3] as usize);
            targets.push(0.5 * (mesh.positions[a] + mesh.positions[b]));
        }
    }
    for target in targets {
        let radial = Vec3::new(target.x, 0.0, target.z);
        // The caps' centres have no outward direction of their own.
        if radial.length() < 0.5 * spec.radius {
            continue;
        }
        let outward = radial.normalize();
        let ray = Ray::new(target + outward, -outward);
        let hit = rays
            .raycast(&ray)
            .unwrap_or_else(|| panic!("the ray at {target} missed the tube"));
        assert!(
            (hit.point - target).length() < 1e-4,
            "the ray at {target} hit {} instead ({} m along it, not 1 m)",
            hit.point,
            hit.distance
        );
        aimed += 1;
    }
    assert!(
        aimed > 3 * spec.segments as usize,
        "only {aimed} rays aimed"
    );
}
