//! The node tree: each node's parent, its own transform, and world matrices computed
//! parents first. A node listed as the child of two parents, or a cycle, is an error (glTF
//! requires a strict tree), so computing world matrices always ends.

use glam::{Mat4, Quat, Vec3};

use super::limits::MAX_NODES;

/// One node's transform relative to its parent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Local {
    /// A matrix as the file gives it (never animated).
    Matrix(Mat4),
    /// Translation, rotation (unit quaternion) and scale, which animations replace.
    Trs {
        /// Translation.
        t: Vec3,
        /// Rotation.
        r: Quat,
        /// Scale.
        s: Vec3,
    },
}

impl Local {
    /// The matrix.
    pub fn matrix(&self) -> Mat4 {
        match *self {
            Local::Matrix(m) => m,
            Local::Trs { t, r, s } => Mat4::from_scale_rotation_translation(s, r, t),
        }
    }

    /// As translation, rotation and scale (a matrix decomposed, for a node an animation
    /// targets).
    pub fn trs(&self) -> (Vec3, Quat, Vec3) {
        match *self {
            Local::Matrix(m) => {
                let (s, r, t) = m.to_scale_rotation_translation();
                (t, r.normalize(), s)
            }
            Local::Trs { t, r, s } => (t, r, s),
        }
    }
}

/// Every node's parent and rest transform, and an order that visits parents first.
#[derive(Clone, Debug)]
pub struct NodeTree {
    /// Each node's parent.
    pub parents: Vec<Option<usize>>,
    /// Each node's transform as the file gives it (the pose with no animation).
    pub rest: Vec<Local>,
    /// Node indices, every parent before its children.
    order: Vec<usize>,
}

impl NodeTree {
    /// Reads the tree of `document`, checking it is one.
    pub fn read(document: &gltf::Document) -> Result<NodeTree, String> {
        let n = document.nodes().len();
        if n > MAX_NODES {
            return Err(format!(
                "it has {n} nodes, more than Pelt reads ({MAX_NODES})"
            ));
        }
        let mut parents = vec![None; n];
        let mut rest = Vec::with_capacity(n);
        for node in document.nodes() {
            for child in node.children() {
                let c = child.index();
                if c == node.index() || parents[c].is_some() {
                    return Err(format!(
                        "node {c} has more than one parent (or is its own child); glTF nodes form a tree"
                    ));
                }
                parents[c] = Some(node.index());
            }
            rest.push(local_of(&node)?);
        }
        // Parents first: a node joins once its parent has. A cycle never joins.
        let mut order = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (c, p) in parents.iter().enumerate() {
            match p {
                Some(p) => children[*p].push(c),
                None => {
                    order.push(c);
                    placed[c] = true;
                }
            }
        }
        let mut at = 0;
        while at < order.len() {
            let node = order[at];
            for &c in &children[node] {
                if !placed[c] {
                    placed[c] = true;
                    order.push(c);
                }
            }
            at += 1;
        }
        if order.len() != n {
            let stuck = placed.iter().position(|p| !p).unwrap_or(0);
            return Err(format!(
                "node {stuck} is in a cycle of children; glTF nodes form a tree"
            ));
        }
        Ok(NodeTree {
            parents,
            rest,
            order,
        })
    }

    /// World matrices from each node's local transform.
    pub fn world(&self, locals: &[Local]) -> Vec<Mat4> {
        let mut world = vec![Mat4::IDENTITY; self.parents.len()];
        for &node in &self.order {
            let local = locals.get(node).map_or(Mat4::IDENTITY, Local::matrix);
            world[node] = match self.parents[node] {
                Some(p) => world[p] * local,
                None => local,
            };
        }
        world
    }

    /// World matrices of the pose with no animation.
    pub fn rest_world(&self) -> Vec<Mat4> {
        self.world(&self.rest)
    }

    /// The nodes reachable from the scene the file shows (its default scene, else its
    /// first, else every root node).
    pub fn shown(&self, document: &gltf::Document) -> Vec<bool> {
        let mut shown = vec![false; self.parents.len()];
        let scene = document
            .default_scene()
            .or_else(|| document.scenes().next());
        let mut stack: Vec<usize> = match scene {
            Some(s) => s.nodes().map(|n| n.index()).collect(),
            None => (0..self.parents.len())
                .filter(|&i| self.parents[i].is_none())
                .collect(),
        };
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); self.parents.len()];
        for (c, p) in self.parents.iter().enumerate() {
            if let Some(p) = p {
                children[*p].push(c);
            }
        }
        while let Some(n) = stack.pop() {
            if !shown[n] {
                shown[n] = true;
                stack.extend(&children[n]);
            }
        }
        shown
    }
}

/// A node's transform, checked finite; its rotation normalised.
fn local_of(node: &gltf::Node) -> Result<Local, String> {
    let bad = || {
        format!(
            "node {}: its transform has a number that is not finite (or a zero rotation)",
            node.index()
        )
    };
    match node.transform() {
        gltf::scene::Transform::Matrix { matrix } => {
            let m = Mat4::from_cols_array_2d(&matrix);
            if !m.is_finite() {
                return Err(bad());
            }
            Ok(Local::Matrix(m))
        }
        gltf::scene::Transform::Decomposed {
            translation,
            rotation,
            scale,
        } => {
            let t = Vec3::from(translation);
            let r = Quat::from_array(rotation);
            let s = Vec3::from(scale);
            if !t.is_finite() || !s.is_finite() || !r.is_finite() || r.length() < 1e-6 {
                return Err(bad());
            }
            Ok(Local::Trs {
                t,
                r: r.normalize(),
                s,
            })
        }
    }
}
