//! `Skeleton`: a tree of named nodes with their rest transforms (translation, rotation,
//! scale), as a glTF file holds them. Rest rotations are stored, never assumed to be the
//! identity: VRM springs bend each bone from its own rest rotation.

use glam::{Affine3A, Quat, Vec3};

use super::{SpringError, check_finite};

/// A node's transform relative to its parent: `parent · T · R · S`, glTF's order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeTransform {
    /// Translation, metres.
    pub translation: Vec3,
    /// Rotation (unit quaternion).
    pub rotation: Quat,
    /// Scale per axis.
    pub scale: Vec3,
}

impl Default for NodeTransform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl NodeTransform {
    /// No translation, rotation or scale.
    pub const IDENTITY: NodeTransform = NodeTransform {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// A pure translation.
    pub fn from_translation(translation: Vec3) -> Self {
        Self {
            translation,
            ..Self::IDENTITY
        }
    }

    /// The transform as an affine matrix.
    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Checks every number is finite and the rotation is a unit quaternion (within 1e-3).
    /// A zero scale is allowed here (files hide nodes so); springs refuse it on their nodes.
    pub fn validate(&self, what: &str) -> Result<(), SpringError> {
        check_finite(what, self.translation)?;
        check_finite(what, self.scale)?;
        let q = self.rotation;
        if !q.is_finite() || (q.length() - 1.0).abs() > 1.0e-3 {
            return Err(SpringError::BadParameter {
                what: format!("{what} rotation"),
                value: q.length(),
                hint: "must be a unit quaternion",
            });
        }
        Ok(())
    }
}

/// One node of a skeleton at rest.
#[derive(Debug, Clone, PartialEq)]
pub struct SkeletonNode {
    /// Name (unique within the skeleton).
    pub name: String,
    /// Index of the parent node; `None` for a root (its parent is the scene).
    pub parent: Option<usize>,
    /// Rest transform relative to the parent.
    pub rest: NodeTransform,
}

/// A forest of nodes: any index order, no cycles, unique names. The scene's own transform
/// (where the whole model stands) is applied above every root.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skeleton {
    nodes: Vec<SkeletonNode>,
    /// Every node after its parent.
    order: Vec<usize>,
    children: Vec<Vec<usize>>,
}

impl Skeleton {
    /// Most nodes a skeleton may have.
    pub const MAX_NODES: usize = 1 << 16;

    /// Builds a skeleton, checking parents exist, there is no cycle, names are unique and
    /// non-empty and every rest transform is valid.
    pub fn new(nodes: Vec<SkeletonNode>) -> Result<Self, SpringError> {
        let n = nodes.len();
        if n > Self::MAX_NODES {
            return Err(SpringError::BadSkeleton(format!(
                "{n} nodes, more than the limit {}",
                Self::MAX_NODES
            )));
        }
        let mut names = std::collections::HashSet::with_capacity(n);
        let mut children = vec![Vec::new(); n];
        for (i, node) in nodes.iter().enumerate() {
            if node.name.is_empty() || !names.insert(node.name.as_str()) {
                return Err(SpringError::BadSkeleton(format!(
                    "node {i} has an empty or repeated name `{}`",
                    node.name
                )));
            }
            // The name goes into the message only on failure (names can be long).
            if let Err(e) = node.rest.validate("rest transform") {
                return Err(SpringError::BadSkeleton(format!(
                    "node `{}`: {e}",
                    node.name
                )));
            }
            if let Some(p) = node.parent {
                if p >= n || p == i {
                    return Err(SpringError::BadSkeleton(format!(
                        "node `{}` has parent {p}, which is not another node (there are {n})",
                        node.name
                    )));
                }
                children[p].push(i);
            }
        }
        let mut order = Vec::with_capacity(n);
        let mut stack: Vec<usize> = (0..n)
            .rev()
            .filter(|&i| nodes[i].parent.is_none())
            .collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(children[i].iter().rev().copied());
        }
        if order.len() != n {
            return Err(SpringError::BadSkeleton(
                "some nodes hang in a cycle of parents".into(),
            ));
        }
        Ok(Self {
            nodes,
            order,
            children,
        })
    }

    /// The nodes, in their own index order.
    pub fn nodes(&self) -> &[SkeletonNode] {
        &self.nodes
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Node indices with every node after its parent (depth first, children in order).
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// The children of node `i`, in order.
    pub fn children(&self, i: usize) -> &[usize] {
        &self.children[i]
    }

    /// The parent of node `i`.
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.nodes[i].parent
    }

    /// The index of the node called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }

    /// True when `ancestor` is a strict ancestor of `node`.
    pub fn is_ancestor(&self, ancestor: usize, node: usize) -> bool {
        let mut cur = self.nodes.get(node).and_then(|n| n.parent);
        while let Some(p) = cur {
            if p == ancestor {
                return true;
            }
            cur = self.nodes[p].parent;
        }
        false
    }

    /// The nodes from `ancestor` down to `node`, both included, or `None` when `ancestor`
    /// is not `node` or one of its ancestors.
    pub fn path(&self, ancestor: usize, node: usize) -> Option<Vec<usize>> {
        let mut path = vec![node];
        let mut cur = node;
        while cur != ancestor {
            cur = self.nodes.get(cur)?.parent?;
            path.push(cur);
        }
        path.reverse();
        Some(path)
    }

    /// World transforms of every node at rest with the scene at `root`.
    pub fn rest_world(&self, root: Affine3A) -> Vec<Affine3A> {
        let mut world = vec![Affine3A::IDENTITY; self.nodes.len()];
        for &i in &self.order {
            let node = &self.nodes[i];
            let parent = node.parent.map_or(root, |p| world[p]);
            world[i] = parent * node.rest.to_affine();
        }
        world
    }
}
