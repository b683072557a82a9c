//! The body's distance field (per-bone grids, rigid with their bones) against exact triangle
//! distances, on bodies the test builds: a closed sphere and a two-bone skinned cylinder,
//! bent, and the Fox sample standing still. And the goal's measure, `fraction_inside`, on a
//! known set of points.

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use pelt::body::{
    BodyField, BodyMesh, BodyOptions, DEFAULT_BODY_HEIGHT, DistanceError, FieldOptions, LoadedBody,
    SkinPose, TriangleTree, count_inside, fraction_inside, posed_triangles,
};

/// A body of `positions` and `triangles`, each vertex on up to two joints.
fn body(
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    skin: impl Fn(Vec3) -> ([u16; 4], [f32; 4]),
    joint_count: usize,
) -> BodyMesh {
    let n = positions.len();
    let (joints, weights) = positions.iter().map(|p| skin(*p)).unzip();
    BodyMesh {
        normals: positions.iter().map(|p| p.normalize_or(Vec3::Y)).collect(),
        uvs: vec![Vec2::ZERO; n],
        colors: vec![Vec4::ONE; n],
        joints,
        weights,
        triangle_materials: vec![0; triangles.len()],
        material_names: vec![String::new()],
        joint_count,
        joint_positions: vec![Vec3::ZERO; joint_count],
        joint_parents: (0..joint_count)
            .map(|j| (j > 0).then(|| j as u16 - 1))
            .collect(),
        positions,
        triangles,
        base_color_texture: None,
    }
}

/// Triangles of a grid of `rows` × `cols` vertices (row-major from `first`), columns wrapping
/// around (rows going up +Y, columns going round clockwise seen from above), wound to face
/// outward.
fn band(first: u32, rows: u32, cols: u32, tris: &mut Vec<[u32; 3]>) {
    for r in 0..rows - 1 {
        for c in 0..cols {
            let a = first + r * cols + c;
            let b = first + r * cols + (c + 1) % cols;
            let (d, e) = (a + cols, b + cols);
            tris.push([a, b, d]);
            tris.push([b, e, d]);
        }
    }
}

/// A closed UV sphere of `radius` about the origin, on one joint.
fn sphere(radius: f32, rows: u32, cols: u32) -> BodyMesh {
    let mut pos = vec![Vec3::new(0.0, -radius, 0.0)];
    for r in 1..rows {
        let phi = std::f32::consts::PI * r as f32 / rows as f32;
        for c in 0..cols {
            let th = std::f32::consts::TAU * c as f32 / cols as f32;
            pos.push(radius * Vec3::new(phi.sin() * th.cos(), -phi.cos(), -phi.sin() * th.sin()));
        }
    }
    pos.push(Vec3::new(0.0, radius, 0.0));
    let mut tris = vec![];
    let ring = rows - 1;
    for c in 0..cols {
        tris.push([0, 1 + (c + 1) % cols, 1 + c]);
    }
    band(1, ring, cols, &mut tris);
    let top = pos.len() as u32 - 1;
    let last = 1 + (ring - 1) * cols;
    for c in 0..cols {
        tris.push([top, last + c, last + (c + 1) % cols]);
    }
    body(pos, tris, |_| ([0; 4], [1.0, 0.0, 0.0, 0.0]), 1)
}

/// Cylinder's radius and length (along +Y from the origin); the knee is halfway.
const RADIUS: f32 = 0.1;
const LENGTH: f32 = 1.0;
const KNEE: f32 = 0.5;

/// A closed cylinder skinned to two joints: joint 0 below the knee, joint 1 above, blended
/// linearly over 0.1 m around it.
fn cylinder() -> BodyMesh {
    let (rows, cols) = (41u32, 32u32);
    let mut pos = vec![];
    for r in 0..rows {
        let y = LENGTH * r as f32 / (rows - 1) as f32;
        for c in 0..cols {
            let th = std::f32::consts::TAU * c as f32 / cols as f32;
            pos.push(Vec3::new(RADIUS * th.cos(), y, -RADIUS * th.sin()));
        }
    }
    let mut tris = vec![];
    band(0, rows, cols, &mut tris);
    let (bottom, top) = (pos.len() as u32, pos.len() as u32 + 1);
    pos.push(Vec3::ZERO);
    pos.push(Vec3::new(0.0, LENGTH, 0.0));
    let last = (rows - 1) * cols;
    for c in 0..cols {
        tris.push([bottom, (c + 1) % cols, c]);
        tris.push([top, last + c, last + (c + 1) % cols]);
    }
    body(
        pos,
        tris,
        |p| {
            let w = ((p.y - (KNEE - 0.05)) / 0.1).clamp(0.0, 1.0);
            ([0, 1, 0, 0], [1.0 - w, w, 0.0, 0.0])
        },
        2,
    )
}

/// The cylinder's pose with its upper half bent `degrees` about the knee (about +Z).
fn bent(degrees: f32) -> SkinPose {
    let knee = Vec3::new(0.0, KNEE, 0.0);
    let bend = Mat4::from_translation(knee)
        * Mat4::from_quat(Quat::from_rotation_z(degrees.to_radians()))
        * Mat4::from_translation(-knee);
    SkinPose {
        joints: vec![Mat4::IDENTITY, bend],
    }
}

/// Seeded points, uniform in the box `lo`..`hi` (a small xorshift: the test needs no
/// generator of its own beyond repeatable numbers).
fn points(n: usize, lo: Vec3, hi: Vec3, seed: u64) -> Vec<Vec3> {
    let mut s = seed | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|_| lo + (hi - lo) * Vec3::new(next(), next(), next()))
        .collect()
}

/// Exact signed distance to the triangles (negative inside by the winding number).
fn exact(tree: &TriangleTree, p: Vec3) -> f32 {
    let d = tree.nearest(p).expect("a mesh with triangles").distance;
    if tree.contains(p) { -d } else { d }
}

/// The largest cell of the field's grids.
fn largest_cell(field: &BodyField) -> f32 {
    field
        .grids
        .iter()
        .map(|g| g.origin_cell[3])
        .fold(0.0, f32::max)
}

/// Checks the field against exact distances at `samples` in `pose`: every sample the
/// field reaches is within half a cell, and the sign is right wherever the surface is more
/// than a cell away. Returns how many samples the field reached.
fn agrees(mesh: &BodyMesh, field: &BodyField, pose: &SkinPose, samples: &[Vec3]) -> usize {
    let tree = TriangleTree::new(posed_triangles(mesh, pose));
    let posed = field.posed(pose);
    let cell = largest_cell(field);
    let mut reached = 0;
    for p in samples {
        let want = exact(&tree, *p);
        let Some(got) = posed.signed_distance(*p) else {
            continue;
        };
        reached += 1;
        assert!(
            (got - want).abs() <= 0.5 * cell,
            "at {p}: field {got}, exact {want}, cell {cell}"
        );
        if want.abs() > cell {
            assert_eq!(
                got < 0.0,
                want < 0.0,
                "sign at {p}: field {got}, exact {want}"
            );
        }
    }
    reached
}

#[test]
fn a_sphere_s_field_is_within_half_a_cell_of_the_exact_distance() {
    let mesh = sphere(0.3, 24, 48);
    let field = BodyField::build(&mesh, FieldOptions::default()).expect("a field");
    assert_eq!(field.grids.len(), 1);
    let samples = points(2000, Vec3::splat(-0.33), Vec3::splat(0.33), 7);
    let reached = agrees(&mesh, &field, &SkinPose::rest(1), &samples);
    assert_eq!(
        reached,
        samples.len(),
        "the grid covers the sphere and its margin"
    );
    // The sign far inside and the distance at the centre (the radius, to a cell).
    let centre = field
        .signed_distance(&SkinPose::rest(1), Vec3::ZERO)
        .expect("the centre is in the grid");
    assert!((centre + 0.3).abs() < largest_cell(&field), "{centre}");
}

#[test]
fn a_cylinder_s_field_is_exact_to_half_a_cell_at_rest_and_bent() {
    let mesh = cylinder();
    let field = BodyField::build(&mesh, FieldOptions::default()).expect("a field");
    assert_eq!(field.grids.len(), 2, "one grid per bone");
    let lo = Vec3::new(-0.13, -0.03, -0.13);
    let hi = Vec3::new(0.13, LENGTH + 0.03, 0.13);
    let samples = points(3000, lo, hi, 11);
    let reached = agrees(&mesh, &field, &SkinPose::rest(2), &samples);
    assert_eq!(reached, samples.len());

    // Bent, the grids move rigidly while the blended band around the knee does not: away
    // from the band the field still agrees with the skinned mesh.
    let pose = bent(60.0);
    let lower: Vec<Vec3> = samples
        .iter()
        .copied()
        .filter(|p| p.y < KNEE - 0.15)
        .collect();
    let upper: Vec<Vec3> = samples
        .iter()
        .filter(|p| p.y > KNEE + 0.15)
        .map(|p| pose.joints[1].transform_point3(*p))
        .collect();
    assert!(agrees(&mesh, &field, &pose, &lower) > 500);
    assert!(agrees(&mesh, &field, &pose, &upper) > 500);
}

/// Just outside the skin of a body of many bones, where one bone's part meets another's, a
/// grid must not call a point inside: the push would throw a strand there centimetres out,
/// and stiffness bring it back, every step (a deep reading under a neighbour's skin,
/// interpolated across it, did so at 12% of these points, up to 32 mm wrong).
#[test]
fn the_standing_foxs_field_calls_few_points_just_outside_its_skin_inside() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bodies/Fox.glb");
    let height = DEFAULT_BODY_HEIGHT;
    let fox = LoadedBody::read(&path, &BodyOptions { height }).expect("the Fox reads");
    let pose = fox.motion(None).expect("a rest pose").pose_at(0.0);
    let field = BodyField::build(&fox.mesh, FieldOptions::default()).expect("a field");
    let posed = field.posed(&pose);
    let triangles = posed_triangles(&fox.mesh, &pose);
    let tree = TriangleTree::new(triangles.clone());
    // Points on each face (its centre and toward each corner), lifted 0.5 to 8 mm along the
    // face's normal; those the exact distance puts more than 0.5 mm outside are counted.
    let (mut outside, mut called_inside, mut worst) = (0usize, 0usize, 0.0f32);
    for t in &triangles {
        let normal = (t[1] - t[0]).cross(t[2] - t[0]).normalize_or_zero();
        for w in [
            Vec3::ONE,
            Vec3::new(4.0, 1.0, 1.0),
            Vec3::new(1.0, 4.0, 1.0),
            Vec3::new(1.0, 1.0, 4.0),
        ] {
            let on = (t[0] * w.x + t[1] * w.y + t[2] * w.z) / (w.x + w.y + w.z);
            for lift_mm in [0.5f32, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0] {
                let p = on + normal * (lift_mm * 1e-3);
                let want = exact(&tree, p);
                let Some(got) = posed.signed_distance(p) else {
                    continue;
                };
                if want > 0.5e-3 {
                    outside += 1;
                    if got < 0.0 {
                        called_inside += 1;
                        worst = worst.max(want - got);
                    }
                }
            }
        }
    }
    let share = called_inside as f64 / outside as f64;
    let cell = largest_cell(&field);
    eprintln!(
        "fox: {called_inside} of {outside} points outside called inside, worst {worst} m (cell {cell} m)"
    );
    assert!(outside > 10_000, "only {outside} points reached");
    assert!(
        share <= 0.03,
        "{called_inside} of {outside} points outside the Fox called inside"
    );
    assert!(
        worst <= 0.5 * cell,
        "a point outside the Fox read {worst} m deeper than it is (cells up to {cell} m)"
    );
}

#[test]
fn a_point_pushed_out_of_the_bent_cylinder_lands_outside() {
    let mesh = cylinder();
    let field = BodyField::build(&mesh, FieldOptions::default()).expect("a field");
    let pose = bent(60.0);
    let tree = TriangleTree::new(posed_triangles(&mesh, &pose));
    let posed = field.posed(&pose);
    // Points inside the bent cylinder, the knee's blended band included.
    let inside: Vec<Vec3> = points(
        6000,
        Vec3::new(-1.0, -0.05, -0.15),
        Vec3::new(0.2, 1.05, 0.15),
        3,
    )
    .into_iter()
    .filter(|p| tree.contains(*p))
    .collect();
    assert!(inside.len() > 300, "{} points inside", inside.len());
    // The field is exact to half a cell (the test above): asked for that much clearance, a
    // pushed point clears the true surface even where interpolation misjudges it most (the
    // cap's rim).
    let clearance = 0.5 * largest_cell(&field);
    let pushed: Vec<Vec3> = inside
        .iter()
        .map(|p| posed.push_out(*p, clearance))
        .collect();
    for (p, q) in inside.iter().zip(&pushed) {
        let d = exact(&tree, *q);
        assert!(d > 0.0, "{p} pushed to {q} is still {d} m inside");
        assert!(
            (q - p).length() < 2.0 * RADIUS,
            "{p} pushed to {q}, farther than across the cylinder"
        );
    }
    assert_eq!(count_inside(&mesh, &pose, &pushed, 0.0), 0);
}

#[test]
fn fraction_inside_counts_points_deeper_than_the_depth_only() {
    let mesh = sphere(0.3, 24, 48);
    let pose = SkinPose::rest(1);
    let dirs = points(40, Vec3::splat(-1.0), Vec3::splat(1.0), 5)
        .into_iter()
        .map(|d| d.normalize())
        .collect::<Vec<_>>();
    // The tessellated sphere's surface lies within 1 mm inside the true sphere along these
    // directions, so radii are chosen well clear of the 1 mm depth.
    let mut set = vec![];
    set.extend(dirs[0..10].iter().map(|d| d * 0.15)); // deep inside: counted
    set.extend(dirs[10..15].iter().map(|d| d * 0.28)); // 2 cm inside: counted
    set.extend(dirs[15..25].iter().map(|d| d * 0.35)); // outside
    set.extend(dirs[25..40].iter().map(|d| d * 0.3)); // on the surface, within 1 mm
    set.push(Vec3::NAN); // lost: counted
    let counted = count_inside(&mesh, &pose, &set, 0.001);
    assert_eq!(counted, 16);
    let f = fraction_inside(&mesh, &pose, &set, 0.001);
    assert!((f - 16.0 / 41.0).abs() < 1e-12, "{f}");
    // Deeper than 5 cm: only the deep ten (and the lost point).
    assert_eq!(count_inside(&mesh, &pose, &set, 0.05), 11);
    assert_eq!(fraction_inside(&mesh, &pose, &[], 0.001), 0.0);
}

#[test]
fn a_sphere_with_a_hole_still_has_an_inside() {
    let mut mesh = sphere(0.3, 24, 48);
    // Open the top: drop the polar cap's triangles.
    let top = mesh.positions.len() as u32 - 1;
    mesh.triangles.retain(|t| !t.contains(&top));
    let tree = TriangleTree::new(posed_triangles(&mesh, &SkinPose::rest(1)));
    assert!(tree.contains(Vec3::new(0.0, -0.1, 0.0)));
    assert!(tree.contains(Vec3::new(0.1, 0.1, 0.0)));
    assert!(
        !tree.contains(Vec3::new(0.0, 0.5, 0.0)),
        "above the hole is outside"
    );
    assert!(!tree.contains(Vec3::new(0.4, 0.0, 0.1)));
    let field = BodyField::build(&mesh, FieldOptions::default()).expect("a field");
    let d = field
        .signed_distance(&SkinPose::rest(1), Vec3::ZERO)
        .expect("in the grid");
    assert!(d < -0.25, "the centre is inside by about the radius: {d}");
}

#[test]
fn bad_bodies_and_options_are_refused_with_what_was_wrong() {
    let mut mesh = sphere(0.3, 6, 8);
    let ok = FieldOptions::default();
    let bad = FieldOptions {
        nodes_per_axis: 1,
        ..ok
    };
    let err = BodyField::build(&mesh, bad).unwrap_err();
    assert!(
        matches!(err, DistanceError::BadOptions { nodes: 1, .. }),
        "{err}"
    );
    let nan = FieldOptions {
        margin: f32::NAN,
        ..ok
    };
    assert!(BodyField::build(&mesh, nan).is_err());
    mesh.triangles[3][1] = 9999;
    let err = BodyField::build(&mesh, ok).unwrap_err();
    assert!(err.to_string().contains("vertex 9999"), "{err}");
    mesh.triangles.clear();
    assert_eq!(BodyField::build(&mesh, ok), Err(DistanceError::NoTriangles));
    let mut mesh = sphere(0.3, 6, 8);
    mesh.positions[2].x = f32::INFINITY;
    assert_eq!(
        BodyField::build(&mesh, ok),
        Err(DistanceError::NotFinite(2))
    );
}

#[test]
fn a_body_of_very_many_bones_is_refused_before_any_node_is_measured() {
    // Every vertex on a joint of its own: some thousand bones of a full grid each.
    let mut mesh = sphere(0.3, 24, 48);
    for (v, j) in mesh.joints.iter_mut().enumerate() {
        *j = [v as u16, 0, 0, 0];
    }
    mesh.joint_count = mesh.positions.len();
    let err = BodyField::build(&mesh, FieldOptions::default()).unwrap_err();
    assert!(err.to_string().contains("fewer nodes per axis"), "{err}");
    match err {
        DistanceError::TooLarge {
            nodes,
            bones,
            limit,
        } => {
            assert_eq!(bones, mesh.positions.len());
            assert_eq!(limit, pelt::body::MAX_FIELD_NODES);
            assert!(nodes > limit, "{nodes}");
        }
        other => panic!("expected the size refusal, got: {other}"),
    }
}

#[test]
fn a_smaller_node_cap_refuses_a_field_that_fits_the_default() {
    let mesh = cylinder();
    let full = BodyField::build(&mesh, FieldOptions::default()).expect("a field");
    let needed = full.values.len();
    let capped = |max_nodes| FieldOptions {
        max_nodes,
        ..FieldOptions::default()
    };
    // Exactly the nodes it needs fits; one fewer is refused with both numbers.
    assert_eq!(BodyField::build(&mesh, capped(needed)), Ok(full));
    match BodyField::build(&mesh, capped(needed - 1)) {
        Err(DistanceError::TooLarge { nodes, limit, .. }) => {
            assert_eq!((nodes, limit), (needed, needed - 1));
        }
        other => panic!("expected the size refusal, got {other:?}"),
    }
    // A cap above the crate's own is the crate's.
    assert!(BodyField::build(&mesh, capped(usize::MAX)).is_ok());
}

#[test]
fn each_grid_stays_within_its_node_budget() {
    let mesh = cylinder();
    for nodes in [8u32, 32, 48] {
        let options = FieldOptions {
            nodes_per_axis: nodes,
            ..FieldOptions::default()
        };
        let field = BodyField::build(&mesh, options).expect("a field");
        let mut total = 0usize;
        for g in &field.grids {
            assert!(
                g.dims_joint[..3].iter().all(|&d| (2..=nodes).contains(&d)),
                "{g:?}"
            );
            assert_eq!(g.offset[0] as usize, total);
            total += g.dims_joint[..3]
                .iter()
                .map(|&d| d as usize)
                .product::<usize>();
        }
        assert_eq!(total, field.values.len());
        assert_eq!(field.memory_bytes(), 4 * total + 48 * field.grids.len());
    }
}

/// Every query near a pile of identical triangles measures each of them (the tree cannot
/// prune equal distances), and the pile passes the estimate from the triangles' boxes (they
/// hold one cell of its lattice): the build is stopped by the tests it actually spends.
#[test]
fn a_pile_of_identical_triangles_is_stopped_by_the_tests_it_spends() {
    let clean = sphere(0.3, 24, 48);
    let budget = FieldOptions {
        max_tests_per_node: 1024,
        ..FieldOptions::default()
    };
    BodyField::build(&clean, budget).expect("the sphere alone fits the budget");
    let mut piled = clean.clone();
    let on_equator = piled.triangles[piled.triangles.len() / 2];
    piled
        .triangles
        .extend(std::iter::repeat_n(on_equator, 200_000));
    piled.triangle_materials = vec![0; piled.triangles.len()];
    match BodyField::build(&piled, budget) {
        Err(DistanceError::TooMuchWork { tests, limit }) => {
            assert!(tests > limit, "{tests} tests, at most {limit}");
            let err = DistanceError::TooMuchWork { tests, limit }.to_string();
            assert!(err.contains("piled on one spot"), "{err}");
        }
        other => panic!(
            "the pile was not stopped: {:?}",
            other.map(|f| f.memory_bytes())
        ),
    }
}
