//! A skinned body ([`BodyMesh`]) as the stage's skin: posed by its [`SkinPose`] at each
//! time code through [`SkinPose::skin_vertex`] (the skinning the solvers use), with the
//! body's texture coordinates and colours.

use super::{MeshMotion, StageMesh};
use crate::body::{BodyMesh, SkinPose};
use glam::{Vec2, Vec3};
use std::io;

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// `body` as the stage's skin, posed at each of `times` (time codes, strictly increasing)
/// by `pose_at(time)`.
///
/// Its colour (`primvars:displayColor`) is the vertex colour's RGB times the base colour
/// texture's texel at the vertex's UV where the body has a texture, so a viewport shows
/// roughly the body's colours without the texture file; its `primvars:st` are the UVs with
/// V flipped (glTF's origin is the top left, USD's the bottom left).
///
/// Refuses a body whose per-vertex arrays disagree, that has no triangles, or whose
/// triangles name a vertex it lacks; a pose with fewer joint matrices than the skin has
/// joints is refused when that sample is written.
pub fn body_skin<'a>(
    body: &'a BodyMesh,
    times: Vec<f64>,
    pose_at: impl Fn(f64) -> SkinPose + 'a,
) -> io::Result<StageMesh<'a>> {
    check_body(body)?;
    let colors = body
        .colors
        .iter()
        .zip(&body.uvs)
        .map(|(c, &uv)| {
            let texel = body
                .base_color_texture
                .as_ref()
                .map_or(Vec3::ONE, |t| t.sample(uv).truncate());
            c.truncate() * texel
        })
        .collect();
    let st = body.uvs.iter().map(|uv| Vec2::new(uv.x, 1.0 - uv.y));
    let joints = body.joint_count.max(1);
    let pose_at = move |t: f64| {
        let pose = pose_at(t);
        if pose.joints.len() < joints {
            return Err(invalid(format!(
                "the pose at time code {t} has {} joint matrices for a skin of {joints} joints",
                pose.joints.len()
            )));
        }
        Ok((0..body.positions.len())
            .map(|v| pose.skin_vertex(body, v))
            .unzip())
    };
    Ok(StageMesh {
        indices: body.triangles.as_flattened().to_vec(),
        colors,
        st: Some(st.collect()),
        motion: MeshMotion::Sampled {
            times,
            pose_at: Box::new(pose_at),
        },
    })
}

/// Whether every per-vertex array has one entry a vertex, there is a triangle, and every
/// triangle names vertices the body has.
fn check_body(body: &BodyMesh) -> io::Result<()> {
    let n = body.positions.len();
    let arrays = [
        ("normals", body.normals.len()),
        ("texture coordinates", body.uvs.len()),
        ("colours", body.colors.len()),
        ("joint sets", body.joints.len()),
        ("weight sets", body.weights.len()),
    ];
    if let Some((what, len)) = arrays.iter().find(|(_, len)| *len != n) {
        return Err(invalid(format!(
            "the body has {len} {what} for {n} positions: one a vertex"
        )));
    }
    if body.triangles.is_empty() {
        return Err(invalid("the body has no triangles to write".into()));
    }
    if let Some(bad) = body
        .triangles
        .as_flattened()
        .iter()
        .find(|&&i| i as usize >= n)
    {
        return Err(invalid(format!(
            "a triangle of the body names vertex {bad} of {n}"
        )));
    }
    Ok(())
}
