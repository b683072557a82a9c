//! The file's node tree: the scenes checked against the nodes, the nodes made into a
//! [`Skeleton`] (unique names, one parent each) and each node's rest transform from its
//! TRS or matrix, refused where glTF or the springs cannot use it.

use std::collections::HashMap;

use glam::{Affine3A, Mat4, Quat, Vec3};

use super::VrmError;
use super::bounded::check_count;
use super::ext::{GltfNode, GltfScene};
use crate::spring::{NodeTransform, Skeleton, SkeletonNode};

/// Checks `scene` and `scenes` against the nodes: the default scene exists, and every
/// scene lists existing root nodes (a node with a parent cannot start a scene).
pub(super) fn check_scenes(
    scene: Option<usize>,
    scenes: &[GltfScene],
    nodes: &[GltfNode],
) -> Result<(), VrmError> {
    if let Some(s) = scene
        && s >= scenes.len()
    {
        return Err(VrmError::IndexOutOfRange {
            what: "default scene".into(),
            index: s,
            len: scenes.len(),
        });
    }
    let mut has_parent = vec![false; nodes.len()];
    for node in nodes {
        for &c in node.children.iter() {
            if let Some(p) = has_parent.get_mut(c) {
                *p = true;
            }
        }
    }
    for (s, sc) in scenes.iter().enumerate() {
        for &n in sc.nodes.iter() {
            if n >= nodes.len() {
                return Err(VrmError::IndexOutOfRange {
                    what: format!("scene {s} node"),
                    index: n,
                    len: nodes.len(),
                });
            }
            if has_parent[n] {
                return Err(VrmError::Hierarchy(format!(
                    "scene {s} lists node {n}, which has a parent; a scene lists root nodes only"
                )));
            }
        }
    }
    Ok(())
}

/// The file's node tree as a skeleton: names made unique (`node_<i>` when absent,
/// `<name>#<i>` when repeated), rest transforms from TRS or a matrix.
pub(super) fn build_skeleton(mut nodes: Vec<GltfNode>) -> Result<Skeleton, VrmError> {
    let n = nodes.len();
    check_count("node count", n, Skeleton::MAX_NODES)?;
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for (i, node) in nodes.iter().enumerate() {
        for &c in node.children.iter() {
            if c >= n {
                return Err(VrmError::IndexOutOfRange {
                    what: format!("node {i} child"),
                    index: c,
                    len: n,
                });
            }
            if parent[c].is_some() || c == i {
                return Err(VrmError::Hierarchy(format!(
                    "node {c} has two parents or is its own child"
                )));
            }
            parent[c] = Some(i);
        }
    }
    // Which names repeat (counted on borrowed names, so nothing is copied).
    let repeated: Vec<bool> = {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for node in &nodes {
            if let Some(name) = node.name.as_deref().filter(|s| !s.is_empty()) {
                *count.entry(name).or_default() += 1;
            }
        }
        nodes
            .iter()
            .map(|node| {
                node.name
                    .as_deref()
                    .is_some_and(|s| count.get(s).is_some_and(|&c| c > 1))
            })
            .collect()
    };
    let mut names: Vec<String> = nodes
        .iter_mut()
        .enumerate()
        .map(
            |(i, node)| match node.name.take().filter(|s| !s.is_empty()) {
                Some(name) if !repeated[i] => name,
                Some(name) => format!("{name}#{i}"),
                None => format!("node_{i}"),
            },
        )
        .collect();
    // A made-up name can still meet a real one (a node really called `node_3`).
    let mut seen = std::collections::HashSet::with_capacity(n);
    if !names.iter().all(|s| seen.insert(s.as_str())) {
        drop(seen);
        for (i, s) in names.iter_mut().enumerate() {
            s.push_str(&format!("#{i}"));
        }
    }
    let mut out = Vec::with_capacity(n);
    for (i, (node, name)) in nodes.iter().zip(names).enumerate() {
        out.push(SkeletonNode {
            name,
            parent: parent[i],
            rest: node_transform(i, node)?,
        });
    }
    Skeleton::new(out).map_err(|e| match e {
        crate::spring::SpringError::BadSkeleton(m) => VrmError::Hierarchy(m),
        other => VrmError::Spring(other),
    })
}

/// One node's rest transform, from its matrix or its TRS (not both).
fn node_transform(i: usize, node: &GltfNode) -> Result<NodeTransform, VrmError> {
    let bad = |m: &str| VrmError::BadNode(i, m.to_string());
    if node.matrix.is_some()
        && (node.translation.is_some() || node.rotation.is_some() || node.scale.is_some())
    {
        return Err(bad(
            "it has both a matrix and translation/rotation/scale; glTF allows one or the other",
        ));
    }
    if let Some(m) = node.matrix {
        let m = Mat4::from_cols_array(&m);
        if !m.is_finite() {
            return Err(bad("its matrix has a non-finite number"));
        }
        let (scale, rotation, translation) = Affine3A::from_mat4(m).to_scale_rotation_translation();
        if !scale.is_finite() || !rotation.is_finite() || rotation.length() < 1.0e-6 {
            return Err(bad("its matrix is not a rotation, scale and translation"));
        }
        return Ok(NodeTransform {
            translation,
            rotation: rotation.normalize(),
            scale,
        });
    }
    let translation = Vec3::from_array(node.translation.unwrap_or([0.0; 3]));
    let q = Quat::from_array(node.rotation.unwrap_or([0.0, 0.0, 0.0, 1.0]));
    let scale = Vec3::from_array(node.scale.unwrap_or([1.0; 3]));
    if !translation.is_finite() || !q.is_finite() || !scale.is_finite() {
        return Err(bad(
            "its translation, rotation or scale has a non-finite number",
        ));
    }
    if q.length() < 1.0e-6 {
        return Err(bad("its rotation is the zero quaternion"));
    }
    // Kept as written when it is a unit quaternion to rounding (three.js uses it as is).
    let rotation = if (q.length() - 1.0).abs() < 1.0e-4 {
        q
    } else {
        q.normalize()
    };
    Ok(NodeTransform {
        translation,
        rotation,
        scale,
    })
}
