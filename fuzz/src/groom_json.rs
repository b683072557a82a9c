//! Fuzz check: a groom file (`--groom groom.json`) must parse to Ok or Err for any bytes,
//! never panic; whatever it accepts is in its documented ranges, gives finite positive
//! lengths, and reads masks and colours on a body without panicking, even at indices past
//! the body's triangles.
use glam::{Vec2, Vec3, Vec4};
use pelt::body::{BodyMesh, BodyTexture};
use pelt::groom::{Colour, Density, Direction, GroomFile, MAX_STRANDS};

/// Two triangles with materials, vertex colours, UVs and a 2×2 texture.
fn body() -> BodyMesh {
    BodyMesh {
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
        normals: vec![Vec3::Y; 4],
        uvs: vec![Vec2::ZERO, Vec2::X, Vec2::Y, Vec2::new(-3.5, 7.25)],
        colors: vec![Vec4::ONE, Vec4::new(1.0, 0.0, 0.5, 1.0), Vec4::ZERO, Vec4::splat(0.5)],
        triangles: vec![[0, 1, 2], [1, 2, 3]],
        triangle_materials: vec![0, 7],
        material_names: vec!["Skin".into(), "Eyes".into()],
        base_color_texture: Some(BodyTexture {
            width: 2,
            height: 2,
            texels: vec![[0, 64, 128, 255], [255, 0, 0, 0], [9, 9, 9, 9], [255; 4]],
        }),
        ..BodyMesh::default()
    }
}

/// The check, for any bytes: panics where the reader breaks its promise.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(g) = GroomFile::from_json(text) else {
        return;
    };
    match g.density {
        Density::Tier => {}
        Density::PerSquareMetre(d) => assert!(d.is_finite() && d > 0.0, "density {d}"),
        Density::Count(n) => assert!((1..=MAX_STRANDS).contains(&n), "count {n}"),
    }
    if let Direction::Fixed(d) = g.direction {
        assert!((d.length() - 1.0).abs() < 1e-5, "direction {d}");
    }
    if let Colour::Constant(c) = g.colour {
        assert!(c.is_finite() && c.min_element() >= 0.0, "colour {c}");
    }
    for random in [0.0, 0.5, 0.999] {
        for clump in [-1.0, 0.0, 1.0] {
            let l = g.length_for(random, clump);
            assert!(l.is_finite() && l > 0.0, "length {l}");
        }
    }
    let mesh = body();
    let _ = g.check_against(&mesh);
    for triangle in [0, 1, 2, usize::MAX] {
        for bary in [Vec3::splat(1.0 / 3.0), Vec3::X, Vec3::new(0.2, 0.0, 0.8)] {
            let _ = g.grows_at(&mesh, triangle, bary);
            let c = g.colour_at(&mesh, triangle, bary);
            assert!(c.is_finite(), "colour {c} at triangle {triangle}");
        }
    }
}
