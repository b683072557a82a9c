//! Fuzz check: a body file (GLB, VRM or glTF JSON with embedded buffers) must read to Ok or
//! a named error for any bytes, never panic; a body it accepts is consistent (every array
//! one entry per vertex, triangles inside, weights summing to 1, finite positions) and
//! poses to finite positions at any time.
use pelt::body::{BodyOptions, LoadedBody};

/// The check, for any bytes: panics where the reader breaks its promise.
pub fn check(data: &[u8]) {
    let body = match LoadedBody::from_bytes(data, "fuzz.glb", &BodyOptions::default()) {
        Ok(body) => body,
        Err(e) => {
            assert!(e.to_string().starts_with("fuzz.glb: "), "unnamed error: {e}");
            return;
        }
    };
    let mesh = &body.mesh;
    let n = mesh.positions.len();
    for len in [
        mesh.normals.len(),
        mesh.uvs.len(),
        mesh.colors.len(),
        mesh.joints.len(),
        mesh.weights.len(),
    ] {
        assert_eq!(len, n, "a per-vertex array of the wrong length");
    }
    assert_eq!(mesh.triangles.len(), mesh.triangle_materials.len());
    assert!(mesh.triangles.iter().flatten().all(|&i| (i as usize) < n));
    assert!(
        mesh.triangle_materials
            .iter()
            .all(|&m| usize::from(m) < mesh.material_names.len())
    );
    assert!(mesh.joints.iter().flatten().all(|&j| usize::from(j) < mesh.joint_count));
    for w in &mesh.weights {
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-4, "weights {w:?}");
    }
    assert!(mesh.positions.iter().all(|p| p.is_finite()));
    let mut names: Vec<Option<&str>> = vec![None];
    names.extend(body.animation_names.iter().take(2).map(|n| Some(n.as_str())));
    for name in names {
        let Ok(motion) = body.motion(name) else {
            continue;
        };
        for t in [0.0, 0.37, 1.0e6, -3.0, f64::NAN] {
            let pose = motion.pose_at(t);
            assert_eq!(pose.joints.len(), mesh.joint_count.max(1));
            assert!(pose.joints.iter().all(|m| m.is_finite()), "a non-finite pose at t = {t}");
        }
    }
}
