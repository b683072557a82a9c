//! The groom a body gets with no groom file keeps fur off the parts a user expects bare
//! (materials named like eyes, teeth, claws: `BARE_MATERIAL_WORDS`, matched ignoring case)
//! and no more: the third-party bodies in `tests/bodies/` keep every root, and a file's
//! `no_fur` replaces the list; no fur grows on skin that another layer of the body covers.

use pelt::body::{BodyMesh, BodyOptions, LoadedBody, TriangleTree};
use pelt::groom::{BodyGroom, BodyGroomSource, GroomFile, Mask};
use std::path::Path;

fn asset(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bodies")
        .join(name)
}

/// The body's groom with a file whose `no_fur` is `masks`.
fn grown_with(mesh: &BodyMesh, masks: Vec<Mask>, count: usize) -> BodyGroom {
    let file = BodyGroomSource::File(GroomFile {
        no_fur: masks,
        ..GroomFile::default()
    });
    BodyGroom::grow(mesh, Some(&file), count, 3).unwrap()
}

#[test]
fn the_third_party_bodies_keep_every_root() {
    for (name, height) in [("Fox.glb", 0.6), ("cryptovoxels.vrm", 1.6)] {
        let body = LoadedBody::read(&asset(name), &BodyOptions { height }).unwrap();
        let mesh = &body.mesh;
        // A file that leaves `no_fur` out gets the default list, as no file does.
        let default = grown_with(mesh, GroomFile::default().no_fur, 20_000);
        let unmasked = grown_with(mesh, Vec::new(), 20_000);
        let same = default
            .roots
            .iter()
            .zip(&unmasked.roots)
            .filter(|(a, b)| a == b)
            .count();
        eprintln!(
            "{name}: materials {:?}; {same} of {} roots as with no masks",
            mesh.material_names,
            unmasked.roots.len()
        );
        // The list removed nothing and shortened nothing: the same roots, bit for bit.
        assert_eq!(same, unmasked.roots.len(), "{name}");
        assert_eq!(default.roots.len(), unmasked.roots.len(), "{name}");
    }
}

/// Two triangles a metre apart for each material name given: the first of each pair at
/// x = 2k, the second beside it.
fn named_parts(names: &[&str]) -> BodyMesh {
    let mut mesh = BodyMesh::default();
    for (k, name) in names.iter().enumerate() {
        let x = 2.0 * k as f32;
        let base = mesh.positions.len() as u32;
        for p in [
            [x, 0.0, 0.0],
            [x + 1.0, 0.0, 0.0],
            [x, 1.0, 0.0],
            [x + 1.0, 1.0, 0.0],
        ] {
            mesh.positions.push(glam::Vec3::from(p));
            mesh.normals.push(glam::Vec3::Z);
            mesh.uvs.push(glam::Vec2::ZERO);
            mesh.colors.push(glam::Vec4::ONE);
            mesh.joints.push([0; 4]);
            mesh.weights.push([1.0, 0.0, 0.0, 0.0]);
        }
        mesh.triangles.push([base, base + 1, base + 2]);
        mesh.triangles.push([base + 1, base + 3, base + 2]);
        mesh.triangle_materials.extend([k as u16; 2]);
        mesh.material_names.push(name.to_string());
    }
    mesh.joint_count = 1;
    mesh.joint_positions = vec![glam::Vec3::new(0.0, 2.0, 0.0)];
    mesh.joint_parents = vec![None];
    mesh
}

#[test]
fn materials_named_like_a_face_are_bare_and_a_file_s_masks_replace_the_list() {
    // A VRoid avatar's material names, and an animal's.
    let names = [
        "F00_000_00_Body_00_SKIN",
        "F00_000_00_Face_00_SKIN",
        "F00_000_00_EyeIris_00_EYE",
        "F00_000_00_FaceMouth_00_FACE",
        "Hair_001",
        "TEETH",
        "fox_material",
        "Claws_L",
        // Words that only hold a listed one: the coat's own materials.
        "Sabertooth_Body",
        "Bighorn_Sheep",
    ];
    let bare = [
        false, false, true, true, false, true, false, true, false, false,
    ];
    let mesh = named_parts(&names);
    let on = |groom: &BodyGroom| {
        let mut n = vec![0usize; names.len()];
        for r in &groom.roots {
            n[usize::from(mesh.triangle_materials[r.triangle as usize])] += 1;
        }
        n
    };
    let default = on(&BodyGroom::generate(&mesh, 8_000, 1).unwrap());
    for (k, name) in names.iter().enumerate() {
        assert_eq!(default[k] == 0, bare[k], "{name}: {} roots", default[k]);
    }
    // A file's own list replaces the default one: here only the hair is bare.
    let own = on(&grown_with(
        &mesh,
        vec![Mask::MaterialContaining("hair".into())],
        8_000,
    ));
    for (k, name) in names.iter().enumerate() {
        assert_eq!(own[k] == 0, k == 4, "{name}: {} roots", own[k]);
    }
    // A body made only of parts the list names is furred all the same.
    let claws = named_parts(&["Claw"]);
    assert_eq!(
        BodyGroom::generate(&claws, 100, 1).unwrap().roots.len(),
        100
    );
}

#[test]
fn fur_beside_a_bare_part_is_short() {
    // The coat at x in [0, 1], a bare "Eyes" square at x in [2, 3]: roots near x = 1 are
    // within half a strand's length of nothing bare, so untouched; move the eye beside
    // the coat and the roots nearest it shorten.
    let mut mesh = named_parts(&["Coat", "Eyes"]);
    let far = BodyGroom::generate(&mesh, 4_000, 2).unwrap();
    for p in mesh.positions.iter_mut().skip(4) {
        p.x -= 1.0;
        p.z += 0.001;
    }
    let near = BodyGroom::generate(&mesh, 4_000, 2).unwrap();
    let eye: Vec<[glam::Vec3; 3]> = vec![
        [mesh.positions[4], mesh.positions[5], mesh.positions[6]],
        [mesh.positions[5], mesh.positions[7], mesh.positions[6]],
    ];
    let tree = TriangleTree::new(eye);
    let mut shortened = 0;
    for (a, b) in far.roots.iter().zip(&near.roots) {
        assert_eq!(a.position, b.position);
        let d = tree.nearest(b.position).unwrap().distance;
        if d < 0.5 * a.length {
            // Linear from a fifth of the length at the eye to all of it at half a length.
            let want = a.length * (0.2 + 0.8 * d / (0.5 * a.length));
            assert!(
                (b.length - want).abs() < 1e-5,
                "at {d}: {} want {want}",
                b.length
            );
            shortened += 1;
        } else {
            assert_eq!(a.length, b.length);
        }
    }
    assert!(shortened > 100, "{shortened} roots shortened");
}

#[test]
fn the_default_list_is_not_used_where_it_would_bare_most_of_the_skin() {
    let count = |mesh: &BodyMesh, groom: &BodyGroom| {
        let mut n = vec![0usize; mesh.material_names.len()];
        for r in &groom.roots {
            n[usize::from(mesh.triangle_materials[r.triangle as usize])] += 1;
        }
        n
    };
    // An eye on a body twice its size: bare, with no file and with a file that leaves
    // `no_fur` out alike.
    let small_eye = named_parts(&["Eye", "Body", "Skin"]);
    let no_file = count(
        &small_eye,
        &BodyGroom::generate(&small_eye, 3_000, 1).unwrap(),
    );
    let file = count(
        &small_eye,
        &grown_with(&small_eye, GroomFile::default().no_fur, 3_000),
    );
    for n in [&no_file, &file] {
        assert_eq!(n[0], 0, "{n:?}");
        assert!(n[1] > 0 && n[2] > 0, "{n:?}");
    }
    // Two thirds of the skin named like eyes: the names are the coat's, so it is furred
    // everywhere (a file's own list is used as written, though).
    let mostly_eyes = named_parts(&["Eye_of_the_storm", "EyeShell", "Body"]);
    for groom in [
        BodyGroom::generate(&mostly_eyes, 3_000, 1).unwrap(),
        grown_with(&mostly_eyes, GroomFile::default().no_fur, 3_000),
    ] {
        let n = count(&mostly_eyes, &groom);
        assert!(n.iter().all(|&k| k > 500), "{n:?}");
    }
    let own = count(
        &mostly_eyes,
        &grown_with(
            &mostly_eyes,
            vec![Mask::MaterialContaining("eye".into())],
            3_000,
        ),
    );
    assert_eq!(&own[..2], &[0, 0], "{own:?}");
}

/// A sphere of `radius` (`rows` × `cols` quads, wound outward) added to `mesh`, its
/// triangles after those already there.
fn add_sphere(mesh: &mut BodyMesh, radius: f32, rows: u32, cols: u32) {
    let base = mesh.positions.len() as u32;
    for i in 0..=rows {
        let theta = std::f32::consts::PI * i as f32 / rows as f32;
        for j in 0..cols {
            let phi = std::f32::consts::TAU * j as f32 / cols as f32;
            let n = glam::Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            mesh.positions.push(n * radius);
            mesh.normals.push(n);
            mesh.uvs.push(glam::Vec2::ZERO);
            mesh.colors.push(glam::Vec4::ONE);
            mesh.joints.push([0; 4]);
            mesh.weights.push([1.0, 0.0, 0.0, 0.0]);
        }
    }
    let at = |i: u32, j: u32| base + i * cols + j % cols;
    for i in 0..rows {
        for j in 0..cols {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            mesh.triangles.push([a, c, b]);
            mesh.triangles.push([a, d, c]);
            mesh.triangle_materials.extend([0u16; 2]);
        }
    }
}

/// A body modelled whole under another layer (a body under its clothes): the coat grows on
/// the outer layer alone, as many strands as asked; the avatar in `tests/bodies/`, whose
/// clothes and head lie over its body, loses the fur it grew under them (14% of its roots,
/// whose skin's outside is inside the body).
#[test]
fn skin_under_another_layer_of_the_body_grows_no_fur() {
    let mut mesh = BodyMesh::default();
    add_sphere(&mut mesh, 0.5, 16, 32);
    let outer = mesh.triangles.len() as u32;
    add_sphere(&mut mesh, 0.45, 16, 32);
    mesh.material_names.push("skin".into());
    mesh.joint_count = 1;
    mesh.joint_positions = vec![glam::Vec3::ZERO];
    mesh.joint_parents = vec![None];
    let tree = TriangleTree::new(pelt::body::posed_triangles(
        &mesh,
        &pelt::body::SkinPose::rest(1),
    ));
    assert!(
        tree.contains(glam::Vec3::ZERO),
        "the spheres are wound outward"
    );
    let groom = BodyGroom::generate(&mesh, 4_000, 5).unwrap();
    assert_eq!(groom.roots.len(), 4_000);
    let under = groom.roots.iter().filter(|r| r.triangle >= outer).count();
    assert_eq!(under, 0, "{under} roots grew on the inner sphere");

    let avatar =
        LoadedBody::read(&asset("cryptovoxels.vrm"), &BodyOptions { height: 1.0 }).unwrap();
    let mesh = &avatar.mesh;
    let tree = TriangleTree::new(pelt::body::posed_triangles(
        mesh,
        &pelt::body::SkinPose::rest(mesh.joint_count),
    ));
    let groom = BodyGroom::generate(mesh, 4_096, 1).unwrap();
    let buried = groom
        .roots
        .iter()
        .filter(|r| tree.contains(r.position + r.normal * 0.002))
        .count();
    eprintln!(
        "avatar: {buried} of {} roots under another layer",
        groom.roots.len()
    );
    assert!(
        buried * 100 <= 3 * groom.roots.len(),
        "{buried} of {} of the avatar's roots grew under another layer",
        groom.roots.len()
    );
}

/// A density counts the skin that grows fur: the count planned before growing (what the
/// device limits are checked against) is the count grown, on a body with a covered layer.
#[test]
fn a_density_plans_the_count_it_grows_on_a_body_with_a_covered_layer() {
    let mut mesh = BodyMesh::default();
    add_sphere(&mut mesh, 0.5, 16, 32);
    add_sphere(&mut mesh, 0.45, 16, 32);
    mesh.material_names.push("skin".into());
    mesh.joint_count = 1;
    mesh.joint_positions = vec![glam::Vec3::ZERO];
    mesh.joint_parents = vec![None];
    let file = BodyGroomSource::File(GroomFile {
        density: pelt::groom::Density::PerSquareMetre(2_000.0),
        ..GroomFile::default()
    });
    let planned = BodyGroom::planned_count(&mesh, Some(&file), 1);
    let grown = BodyGroom::grow(&mesh, Some(&file), 1, 3)
        .unwrap()
        .roots
        .len();
    // The outer sphere's area (a little under 4π r²) times the density.
    assert!((5_500..=6_300).contains(&grown), "{grown} strands grown");
    assert_eq!(planned, grown);
}
