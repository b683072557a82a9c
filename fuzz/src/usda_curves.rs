//! Fuzz check: USD text curves (`--groom coat.usda`) must read to Ok or Err for any bytes,
//! never panic; whatever is accepted holds at most [`MAX_CURVES`] strands of finite points
//! within [`MAX_CURVE_REACH`], finite non-negative widths and finite colours, and binds to a
//! body with barycentrics that sum to 1.
use glam::Vec3;
use pelt::body::BodyMesh;
use pelt::usd::{MAX_CURVE_REACH, MAX_CURVES, parse_curves};

/// The check, for any bytes: panics where the reader breaks its promise.
pub fn check(data: &[u8]) {
    let Ok(curves) = parse_curves(data, "fuzz.usda") else {
        return;
    };
    assert!(!curves.curves.is_empty() && curves.curves.len() <= MAX_CURVES);
    for c in &curves.curves {
        for p in c.points {
            assert!(p.is_finite() && p.abs().max_element() <= MAX_CURVE_REACH, "point {p}");
        }
        if let Some(w) = c.root_width {
            assert!(w.is_finite() && w >= 0.0, "width {w}");
        }
        if let Some(col) = c.color {
            assert!(col.is_finite(), "colour {col}");
        }
    }
    let body = BodyMesh {
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(0.0, 1.0, 1.0)],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        ..BodyMesh::default()
    };
    let bound = curves.bind_to_mesh(&body).expect("the body has triangles and roots are finite");
    assert_eq!(bound.len(), curves.curves.len());
    for b in bound {
        let w = b.barycentrics;
        assert!(w.is_finite() && (w.element_sum() - 1.0).abs() < 1e-4, "barycentrics {w}");
        assert!(b.triangle < 2 && b.distance.is_finite(), "{b:?}");
    }
}
