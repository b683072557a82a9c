//! A prim's local transform from its `xformOp:*` attributes in `xformOpOrder`, as USD
//! composes them: the ops multiply in the listed order (the last listed acts on the point
//! first), `!invert!` inverts one, `!resetXformStack!` drops the parents' transforms, and an
//! op not listed does nothing. Matrices are column-vector (glam's); USD's text writes
//! row-vector matrices, so a `matrix4d` is transposed as it is read.

use glam::{DMat4, DQuat, DVec3};

/// One authored transform op's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum OpValue {
    /// A vector (translate, scale, rotateXYZ-style angles in degrees).
    Vec3(DVec3),
    /// One number (rotateX/Y/Z, degrees; a uniform scale).
    Scalar(f64),
    /// A quaternion (orient), `(w, x, y, z)` as USD writes it.
    Quat(DQuat),
    /// A full matrix (transform), already column-vector.
    Matrix(DMat4),
}

/// The matrix of op `name` (`xformOp:rotateXYZ:pivot` → kind `rotateXYZ`) with `value`, or
/// why it cannot be one.
pub(crate) fn op_matrix(name: &str, value: OpValue) -> Result<DMat4, String> {
    let kind = name
        .strip_prefix("xformOp:")
        .and_then(|rest| rest.split(':').next())
        .unwrap_or("");
    let rad = f64::to_radians;
    let axis_turn = |order: &str, v: DVec3| {
        // rotateXYZ turns about X first, then Y, then Z.
        order.chars().fold(DMat4::IDENTITY, |m, axis| {
            let turn = match axis {
                'X' => DMat4::from_rotation_x(rad(v.x)),
                'Y' => DMat4::from_rotation_y(rad(v.y)),
                _ => DMat4::from_rotation_z(rad(v.z)),
            };
            turn * m
        })
    };
    let m = match (kind, value) {
        ("translate", OpValue::Vec3(v)) => DMat4::from_translation(v),
        ("scale", OpValue::Vec3(v)) => DMat4::from_scale(v),
        ("scale", OpValue::Scalar(s)) => DMat4::from_scale(DVec3::splat(s)),
        ("rotateX", OpValue::Scalar(a)) => DMat4::from_rotation_x(rad(a)),
        ("rotateY", OpValue::Scalar(a)) => DMat4::from_rotation_y(rad(a)),
        ("rotateZ", OpValue::Scalar(a)) => DMat4::from_rotation_z(rad(a)),
        (
            order @ ("rotateXYZ" | "rotateXZY" | "rotateYXZ" | "rotateYZX" | "rotateZXY"
            | "rotateZYX"),
            OpValue::Vec3(v),
        ) => axis_turn(&order["rotate".len()..], v),
        ("orient", OpValue::Quat(q)) => DMat4::from_quat(q.normalize()),
        ("transform", OpValue::Matrix(m)) => m,
        _ => {
            return Err(format!(
                "`{name}` is not a transform op Pelt reads (translate, scale, rotateX/Y/Z, \
                 rotateXYZ and its orders, orient, transform), or its value has the wrong type"
            ));
        }
    };
    if m.is_finite() {
        Ok(m)
    } else {
        Err(format!("`{name}` is not a finite transform"))
    }
}

/// The local matrix of a prim with `ops` (name, value) listed by `order`, and whether the
/// order resets the parents' transforms.
pub(crate) fn local_matrix(
    ops: &[(String, OpValue)],
    order: &[String],
) -> Result<(DMat4, bool), String> {
    let mut m = DMat4::IDENTITY;
    let mut reset = false;
    for entry in order {
        if entry == "!resetXformStack!" {
            reset = true;
            m = DMat4::IDENTITY;
            continue;
        }
        let (name, invert) = match entry.strip_prefix("!invert!") {
            Some(name) => (name, true),
            None => (entry.as_str(), false),
        };
        let value = ops
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .ok_or_else(|| format!("xformOpOrder lists `{name}`, which the prim does not have"))?;
        let mut op = op_matrix(name, value)?;
        if invert {
            if op.determinant().abs() < 1e-300 {
                return Err(format!("`{name}` cannot be inverted (it is singular)"));
            }
            op = op.inverse();
        }
        m *= op;
    }
    Ok((m, reset))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: DVec3, b: DVec3) -> bool {
        (a - b).length() < 1e-12
    }

    #[test]
    fn translate_rotate_scale_act_in_usd_order() {
        let ops = vec![
            (
                "xformOp:translate".to_string(),
                OpValue::Vec3(DVec3::new(1.0, 0.0, 0.0)),
            ),
            ("xformOp:rotateZ".to_string(), OpValue::Scalar(90.0)),
            (
                "xformOp:scale".to_string(),
                OpValue::Vec3(DVec3::splat(2.0)),
            ),
        ];
        let order: Vec<String> = ops.iter().map(|(n, _)| n.clone()).collect();
        let (m, reset) = local_matrix(&ops, &order).unwrap();
        assert!(!reset);
        // (1,0,0) scaled to (2,0,0), turned to (0,2,0), moved to (1,2,0).
        let p = m.transform_point3(DVec3::X);
        assert!(close(p, DVec3::new(1.0, 2.0, 0.0)), "{p}");
        // Inverting the translate moves the other way; an unlisted op does nothing.
        let order = vec!["!invert!xformOp:translate".to_string()];
        let (m, _) = local_matrix(&ops, &order).unwrap();
        assert!(close(
            m.transform_point3(DVec3::ZERO),
            DVec3::new(-1.0, 0.0, 0.0)
        ));
    }

    #[test]
    fn rotate_xyz_turns_about_x_first() {
        let m = op_matrix(
            "xformOp:rotateXYZ",
            OpValue::Vec3(DVec3::new(90.0, 90.0, 0.0)),
        )
        .unwrap();
        // Y about X by 90° is Z; Z about Y by 90° is X.
        assert!(close(m.transform_vector3(DVec3::Y), DVec3::X));
        assert!(op_matrix("xformOp:shear", OpValue::Scalar(1.0)).is_err());
        assert!(local_matrix(&[], &["xformOp:translate".to_string()]).is_err());
    }
}
