//! Root motions: rotations written with huge or tiny components keep the rotation they
//! write (they are scaled before they are normalised), and a rotation that is no rotation
//! is refused with the keyframe named.

use glam::{Quat, Vec3};
use pelt::spring::RootMotion;
use pelt::spring::motion::MotionError;

fn motion_with(rotation: &str) -> Result<RootMotion, MotionError> {
    RootMotion::from_json(&format!(
        r#"[{{"t": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]}},
            {{"t": 1, "position": [1, 2, 3], "rotation": {rotation}}}]"#
    ))
}

#[test]
fn huge_and_tiny_rotations_keep_the_rotation_they_write() {
    // [1e30, 1e30, 0, 0] is a half turn about (1, 1, 0)/√2: its squared length overflows
    // f32, which once made it the identity. [1e-30, 0, 0, 1e-30] is a quarter turn about x.
    let half = Quat::from_axis_angle(Vec3::new(1.0, 1.0, 0.0).normalize(), std::f32::consts::PI);
    let quarter = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    for (text, want) in [
        ("[1e30, 1e30, 0, 0]", half),
        ("[-3e38, -3e38, 0, 0]", half),
        ("[1e-30, 0, 0, 1e-30]", quarter),
        ("[1e-45, 0, 0, 1e-45]", quarter),
    ] {
        let m = motion_with(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let got = Quat::from_array(m.keys()[1].rotation);
        assert!(
            got.dot(want).abs() > 1.0 - 1e-6,
            "{text} became {got}, not {want}"
        );
        assert!(
            (got.length() - 1.0).abs() < 1e-6,
            "{text}: length {}",
            got.length()
        );
        // Sampled at its key, the root is turned that way, not left unturned.
        let (_, r, t) = m.at(1.0).to_scale_rotation_translation();
        assert!(r.dot(want).abs() > 1.0 - 1e-6, "{text}: sampled {r}");
        assert_eq!(t, Vec3::new(1.0, 2.0, 3.0));
    }
}

#[test]
fn a_rotation_that_is_no_rotation_is_refused_by_keyframe() {
    for text in ["[0, 0, 0, 0]", "[-0.0, 0, 0, 0]", "[1e30, 0, 0, 3.5e38]"] {
        match motion_with(text) {
            // 3.5e38 does not fit an f32: the parser itself refuses it.
            Err(MotionError::Json(_)) if text.contains("3.5e38") => {}
            Err(e @ MotionError::BadKeyframe(1)) => {
                assert!(e.to_string().contains("keyframe 1"), "{e}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}
