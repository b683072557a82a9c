//! The body's joints: every skin's joints (node + inverse bind matrix) and one joint per
//! node that carries an unskinned mesh (rigid to that node), merged into one list so one
//! [`SkinPose`](super::SkinPose) moves the whole body. The same node with the same inverse
//! bind matrix in two skins is one joint.

use std::collections::HashMap;

use glam::Mat4;

use super::accessor;
use super::gltf_read::Source;
use super::limits::MAX_JOINTS;
use super::nodes::NodeTree;

/// One joint: the node that moves it and the matrix from bind space to that node's space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Joint {
    /// The node.
    pub node: usize,
    /// Its inverse bind matrix.
    pub inverse_bind: Mat4,
}

/// The joints found so far, and each skin's joints as indices into them.
#[derive(Clone, Debug, Default)]
pub struct Joints {
    /// Every joint.
    pub list: Vec<Joint>,
    /// For each skin of the file, its joints (in the skin's order) as indices into `list`.
    pub skins: Vec<Vec<u16>>,
    /// Each joint's index in `list` by its node and matrix, so finding one already added
    /// takes one look-up, not a walk of the list (a file may list hundreds of skins of
    /// thousands of joints each).
    index: HashMap<JointKey, u16>,
}

/// A joint as a map key: its node and its matrix's bits (−0 counted as 0, as `==` does).
type JointKey = (usize, [u32; 16]);

fn key(node: usize, inverse_bind: &Mat4) -> JointKey {
    (
        node,
        inverse_bind.to_cols_array().map(|x| (x + 0.0).to_bits()),
    )
}

impl Joints {
    /// Reads every skin's joints and inverse bind matrices.
    pub fn read(source: &Source) -> Result<Joints, String> {
        let mut joints = Joints::default();
        for skin in source.document.skins() {
            let what = format!("skin {}", skin.index());
            let nodes: Vec<usize> = skin.joints().map(|n| n.index()).collect();
            if nodes.is_empty() {
                return Err(format!("{what} has no joints"));
            }
            if nodes.len() > MAX_JOINTS {
                return Err(format!(
                    "{what} has {} joints, more than Pelt reads ({MAX_JOINTS})",
                    nodes.len()
                ));
            }
            let matrices = match skin.inverse_bind_matrices() {
                Some(a) => {
                    let m = accessor::floats::<16>(
                        source,
                        &a,
                        MAX_JOINTS,
                        &format!("{what}: inverseBindMatrices"),
                    )?;
                    if m.len() < nodes.len() {
                        return Err(format!(
                            "{what}: inverseBindMatrices has {} matrices for {} joints",
                            m.len(),
                            nodes.len()
                        ));
                    }
                    m.iter().map(Mat4::from_cols_array).collect()
                }
                None => vec![Mat4::IDENTITY; nodes.len()],
            };
            let mut map = Vec::with_capacity(nodes.len());
            for (k, (node, ibm)) in nodes.iter().zip(matrices).enumerate() {
                // The joint's bind position is the inverse's origin: it must exist.
                let det = ibm.determinant();
                if !(det.is_finite() && det != 0.0 && ibm.inverse().is_finite()) {
                    return Err(format!(
                        "{what}: the inverse bind matrix of joint {k} cannot be inverted"
                    ));
                }
                map.push(joints.add(*node, ibm, &what)?);
            }
            joints.skins.push(map);
        }
        Ok(joints)
    }

    /// The index of the joint (`node`, `inverse_bind`), added if new.
    pub fn add(&mut self, node: usize, inverse_bind: Mat4, what: &str) -> Result<u16, String> {
        let k = key(node, &inverse_bind);
        if let Some(&i) = self.index.get(&k) {
            return Ok(i);
        }
        if self.list.len() >= MAX_JOINTS {
            return Err(format!(
                "{what}: the body has more than {MAX_JOINTS} joints, more than Pelt reads"
            ));
        }
        self.list.push(Joint { node, inverse_bind });
        let i = (self.list.len() - 1) as u16;
        self.index.insert(k, i);
        Ok(i)
    }

    /// Each joint's parent joint: the joint of its nearest ancestor node that is one.
    pub fn parents(&self, tree: &NodeTree) -> Vec<Option<u16>> {
        let mut of_node: Vec<Option<u16>> = vec![None; tree.parents.len()];
        for (i, j) in self.list.iter().enumerate() {
            if of_node[j.node].is_none() {
                of_node[j.node] = Some(i as u16);
            }
        }
        self.list
            .iter()
            .map(|j| {
                let mut at = tree.parents[j.node];
                // The tree was checked acyclic, so this walk ends.
                while let Some(n) = at {
                    if let Some(k) = of_node[n] {
                        return Some(k);
                    }
                    at = tree.parents[n];
                }
                None
            })
            .collect()
    }

    /// The skinning matrices for nodes' `world` matrices: world × inverse bind.
    pub fn pose(&self, world: &[Mat4]) -> Vec<Mat4> {
        self.list
            .iter()
            .map(|j| world.get(j.node).copied().unwrap_or(Mat4::IDENTITY) * j.inverse_bind)
            .collect()
    }
}
