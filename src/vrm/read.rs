//! `read_glb`: springs back from a GLB. Our `PELT_spring_chains` comes back bit for bit;
//! a file with only `VRMC_springBone` (a VRM made elsewhere) or VRM 0.x
//! `secondaryAnimation` goes through the inverse conversion.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use gltf_json as json;

use super::VrmError;
use super::convert::{VrmJointParams, from_vrm};
use super::ext::{
    PELT_EXT, PELT_VERSION, PeltRecord, VRM0_EXT, VRMC_EXT, Vrm0Secondary, VrmcSpringBone,
};
use crate::spring::{
    ChainSpec, Collider, ColliderGroup, ColliderShape, JointSpec, SpringRig, SpringSettings,
};

/// Most nodes a file may have.
pub const MAX_NODES: usize = 1 << 16;
/// Most joints one chain may have.
pub const MAX_JOINTS: usize = 1024;
/// Most chains, colliders or groups a file may have.
pub const MAX_ITEMS: usize = 4096;

/// Which record the springs came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpringSource {
    /// `PELT_spring_chains`: exact.
    Pelt,
    /// `VRMC_springBone` 1.0, converted.
    VrmcSpringBone,
    /// VRM 0.x `secondaryAnimation`, converted.
    Vrm0,
    /// The file has no springs.
    None,
}

/// The springs found in a file.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedSprings {
    /// Where they came from.
    pub source: SpringSource,
    /// The springs in our model.
    pub springs: SpringRig,
    /// What the conversion had to approximate or skip.
    pub notes: Vec<String>,
}

/// The node tree of a file: names, parents, rest world transforms.
struct Nodes {
    names: Vec<String>,
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    world: Vec<Mat4>,
}

impl Nodes {
    fn build(root: &json::Root) -> Result<Self, VrmError> {
        let n = root.nodes.len();
        if n > MAX_NODES {
            return Err(VrmError::TooMany("node count".into(), n, MAX_NODES));
        }
        let mut parent = vec![None; n];
        let mut children = vec![Vec::new(); n];
        for (i, node) in root.nodes.iter().enumerate() {
            for c in node.children.iter().flatten() {
                let c = c.value();
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
                children[i].push(c);
            }
        }
        // Walk down from the roots; nodes never reached hang in a cycle.
        let mut world = vec![Mat4::IDENTITY; n];
        let mut seen = vec![false; n];
        let mut stack: Vec<usize> = (0..n).filter(|&i| parent[i].is_none()).collect();
        while let Some(i) = stack.pop() {
            seen[i] = true;
            let local = local_matrix(&root.nodes[i]);
            world[i] = match parent[i] {
                Some(p) => world[p] * local,
                None => local,
            };
            stack.extend(children[i].iter().copied());
        }
        if let Some(i) = seen.iter().position(|s| !s) {
            return Err(VrmError::Hierarchy(format!(
                "node {i} is part of a cycle of parents"
            )));
        }
        // Names: the node's own, `node_<i>` when absent, `<name>#<i>` when repeated.
        let mut count: HashMap<String, usize> = HashMap::new();
        for node in &root.nodes {
            if let Some(name) = &node.name {
                *count.entry(name.clone()).or_default() += 1;
            }
        }
        let names = root
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| match &node.name {
                Some(name) if count.get(name) == Some(&1) => name.clone(),
                Some(name) => format!("{name}#{i}"),
                None => format!("node_{i}"),
            })
            .collect();
        Ok(Self {
            names,
            parent,
            children,
            world,
        })
    }

    fn check(&self, what: &str, i: usize) -> Result<usize, VrmError> {
        if i < self.names.len() {
            Ok(i)
        } else {
            Err(VrmError::IndexOutOfRange {
                what: what.to_string(),
                index: i,
                len: self.names.len(),
            })
        }
    }

    fn is_descendant(&self, node: usize, ancestor: usize) -> bool {
        let mut cur = self.parent[node];
        while let Some(p) = cur {
            if p == ancestor {
                return true;
            }
            cur = self.parent[p];
        }
        false
    }

    fn position(&self, i: usize) -> Vec3 {
        self.world[i].w_axis.truncate()
    }
}

fn local_matrix(node: &json::Node) -> Mat4 {
    if let Some(m) = node.matrix {
        let m = Mat4::from_cols_array(&m);
        return if m.is_finite() { m } else { Mat4::IDENTITY };
    }
    let t = node.translation.map(Vec3::from_array).unwrap_or(Vec3::ZERO);
    let r = node
        .rotation
        .map(|q| Quat::from_array(q.0).normalize())
        .filter(|q| q.is_finite())
        .unwrap_or(Quat::IDENTITY);
    let s = node.scale.map(Vec3::from_array).unwrap_or(Vec3::ONE);
    let m = Mat4::from_scale_rotation_translation(s, r, t);
    if m.is_finite() { m } else { Mat4::IDENTITY }
}

fn check_count(what: &str, n: usize, max: usize) -> Result<(), VrmError> {
    if n > max {
        Err(VrmError::TooMany(what.into(), n, max))
    } else {
        Ok(())
    }
}

/// Reads the springs of a GLB. Errors on a malformed container, JSON, node hierarchy or
/// extension; never panics.
pub fn read_glb(bytes: &[u8]) -> Result<ImportedSprings, VrmError> {
    let (json_bytes, _bin) = super::glb::unpack(bytes)?;
    let root = json::Root::from_slice(json_bytes).map_err(|e| VrmError::Json(e.to_string()))?;
    let nodes = Nodes::build(&root)?;
    let others = root.extensions.as_ref().map(|e| &e.others);
    if let Some(v) = others.and_then(|o| o.get(PELT_EXT)) {
        let record: PeltRecord = serde_json::from_value(v.clone())
            .map_err(|e| VrmError::BadExtension(PELT_EXT, e.to_string()))?;
        return read_pelt(&record, &nodes);
    }
    if let Some(v) = others.and_then(|o| o.get(VRMC_EXT)) {
        let ext: VrmcSpringBone = serde_json::from_value(v.clone())
            .map_err(|e| VrmError::BadExtension(VRMC_EXT, e.to_string()))?;
        return read_vrmc(&ext, &nodes);
    }
    if let Some(v) = others
        .and_then(|o| o.get(VRM0_EXT))
        .and_then(|v| v.get("secondaryAnimation"))
    {
        let sec: Vrm0Secondary = serde_json::from_value(v.clone())
            .map_err(|e| VrmError::BadExtension("VRM.secondaryAnimation", e.to_string()))?;
        return read_vrm0(&sec, &nodes);
    }
    Ok(ImportedSprings {
        source: SpringSource::None,
        springs: SpringRig::default(),
        notes: vec!["the file has no spring extension".into()],
    })
}

fn read_pelt(r: &PeltRecord, nodes: &Nodes) -> Result<ImportedSprings, VrmError> {
    if r.version != PELT_VERSION {
        return Err(VrmError::BadExtension(
            PELT_EXT,
            format!("version {} is not {PELT_VERSION}", r.version),
        ));
    }
    check_count("chain count", r.chains.len(), MAX_ITEMS)?;
    check_count("collider count", r.colliders.len(), MAX_ITEMS)?;
    check_count("collider group count", r.collider_groups.len(), MAX_ITEMS)?;
    let named = |what: &str, node: usize, name: &str| -> Result<usize, VrmError> {
        let i = nodes.check(what, node)?;
        if nodes.names[i] != name {
            return Err(VrmError::BadExtension(
                PELT_EXT,
                format!(
                    "{what}: node {i} is `{}`, the record says `{name}`",
                    nodes.names[i]
                ),
            ));
        }
        Ok(i)
    };
    let mut springs = SpringRig::default();
    for c in &r.chains {
        check_count("joint count", c.joints.len(), MAX_JOINTS)?;
        let mut prev: Option<usize> = None;
        for (k, j) in c.joints.iter().enumerate() {
            let i = named("chain joint", j.node, &j.name)?;
            let parent_ok = match prev {
                Some(p) => nodes.parent[i] == Some(p),
                None => nodes.parent[i].map(|p| nodes.names[p].as_str()) == Some(&c.anchor),
            };
            if !parent_ok {
                return Err(VrmError::JointOrder(c.name.clone(), k, k.saturating_sub(1)));
            }
            prev = Some(i);
        }
        springs.chains.push(ChainSpec {
            name: c.name.clone(),
            anchor: c.anchor.clone(),
            joints: c
                .joints
                .iter()
                .map(|j| JointSpec {
                    name: j.name.clone(),
                    offset: Vec3::from_array(j.offset),
                })
                .collect(),
            settings: SpringSettings {
                stiffness: c.stiffness,
                damping: c.damping,
                gravity: Vec3::from_array(c.gravity),
                radius: c.radius,
            },
            collider_groups: c.collider_groups.clone(),
        });
    }
    for c in &r.colliders {
        named("collider", c.node, &c.bone)?;
        let offset = Vec3::from_array(c.offset);
        springs.colliders.push(Collider {
            bone: c.bone.clone(),
            shape: match c.tail {
                None => ColliderShape::Sphere {
                    offset,
                    radius: c.radius,
                },
                Some(t) => ColliderShape::Capsule {
                    offset,
                    tail: Vec3::from_array(t),
                    radius: c.radius,
                },
            },
        });
    }
    for g in &r.collider_groups {
        springs.groups.push(ColliderGroup {
            name: g.name.clone(),
            colliders: g.colliders.clone(),
        });
    }
    springs.validate()?;
    Ok(ImportedSprings {
        source: SpringSource::Pelt,
        springs,
        notes: Vec::new(),
    })
}

/// Builds a chain over `joint_nodes` (root to tip, each a descendant of the one before)
/// from per-bone VRM parameters (`params[k]` for the bone from joint k to joint k+1).
fn chain_from_vrm(
    name: String,
    joint_nodes: &[usize],
    params: &[VrmJointParams],
    collider_groups: Vec<usize>,
    nodes: &Nodes,
    notes: &mut Vec<String>,
) -> Result<ChainSpec, VrmError> {
    let first = joint_nodes[0];
    let (anchor, anchor_world) = match nodes.parent[first] {
        Some(p) => (nodes.names[p].clone(), nodes.world[p]),
        None => (String::new(), Mat4::IDENTITY),
    };
    let (_, anchor_rot, anchor_pos) = anchor_world.to_scale_rotation_translation();
    let inv = anchor_rot.normalize().inverse();
    let mut prev = anchor_pos;
    let mut joints = Vec::with_capacity(joint_nodes.len());
    for &i in joint_nodes {
        let p = nodes.position(i);
        joints.push(JointSpec {
            name: nodes.names[i].clone(),
            offset: inv * (p - prev),
        });
        prev = p;
    }
    // Each bone converts with its own length; the chain keeps the mean.
    let mut sum = SpringSettings {
        stiffness: 0.0,
        damping: 0.0,
        gravity: Vec3::ZERO,
        radius: 0.0,
    };
    let count = params.len().max(1) as f32;
    for (k, p) in params.iter().enumerate() {
        let len = joints.get(k + 1).map(|j| j.offset.length()).unwrap_or(0.1);
        let s = from_vrm(p, len);
        sum.stiffness += s.stiffness / count;
        sum.damping += s.damping / count;
        sum.gravity += s.gravity / count;
        sum.radius += s.radius / count;
    }
    if params.windows(2).any(|w| w[0] != w[1]) {
        notes.push(format!(
            "spring `{name}`: joints have different parameters; Pelt keeps their mean"
        ));
    }
    // Guard the sums against non-finite input (the validation below reports it).
    let spec = ChainSpec {
        name,
        anchor,
        joints,
        settings: sum,
        collider_groups,
    };
    spec.validate()?;
    Ok(spec)
}

fn read_vrmc(ext: &VrmcSpringBone, nodes: &Nodes) -> Result<ImportedSprings, VrmError> {
    check_count("spring count", ext.springs.len(), MAX_ITEMS)?;
    check_count("collider count", ext.colliders.len(), MAX_ITEMS)?;
    check_count("collider group count", ext.collider_groups.len(), MAX_ITEMS)?;
    let mut springs = SpringRig::default();
    let mut notes = Vec::new();
    for c in &ext.colliders {
        let i = nodes.check("collider node", c.node)?;
        let shape = match (&c.shape.sphere, &c.shape.capsule) {
            (Some(s), None) => ColliderShape::Sphere {
                offset: Vec3::from_array(s.offset),
                radius: s.radius,
            },
            (None, Some(cap)) => ColliderShape::Capsule {
                offset: Vec3::from_array(cap.offset),
                tail: Vec3::from_array(cap.tail),
                radius: cap.radius,
            },
            _ => {
                return Err(VrmError::BadExtension(
                    VRMC_EXT,
                    "a collider shape must be exactly one of sphere and capsule".into(),
                ));
            }
        };
        springs.colliders.push(Collider {
            bone: nodes.names[i].clone(),
            shape,
        });
    }
    for (k, g) in ext.collider_groups.iter().enumerate() {
        springs.groups.push(ColliderGroup {
            name: g.name.clone().unwrap_or_else(|| format!("group_{k}")),
            colliders: g.colliders.clone(),
        });
    }
    for (s_i, s) in ext.springs.iter().enumerate() {
        check_count("joint count", s.joints.len(), MAX_JOINTS)?;
        let name = s.name.clone().unwrap_or_else(|| format!("spring_{s_i}"));
        let mut joint_nodes = Vec::with_capacity(s.joints.len());
        for (k, j) in s.joints.iter().enumerate() {
            let i = nodes.check("spring joint node", j.node)?;
            if let Some(&p) = joint_nodes.last()
                && !nodes.is_descendant(i, p)
            {
                return Err(VrmError::JointOrder(name, k, k - 1));
            }
            joint_nodes.push(i);
        }
        if joint_nodes.len() < 2 {
            // VRM allows one joint whose tail is its first child; follow it if present.
            match joint_nodes.first().and_then(|&i| nodes.children[i].first()) {
                Some(&c) => joint_nodes.push(c),
                None => {
                    notes.push(format!("spring `{name}` has a single leaf joint; skipped"));
                    continue;
                }
            }
        }
        if s.center.is_some() {
            notes.push(format!(
                "spring `{name}`: `center` is ignored (Pelt simulates in world space)"
            ));
        }
        let params: Vec<VrmJointParams> = s.joints[..joint_nodes.len() - 1]
            .iter()
            .map(|j| VrmJointParams {
                stiffness: j.stiffness,
                gravity_power: j.gravity_power,
                gravity_dir: Vec3::from_array(j.gravity_dir),
                drag_force: j.drag_force,
                hit_radius: j.hit_radius,
            })
            .collect();
        springs.chains.push(chain_from_vrm(
            name,
            &joint_nodes,
            &params,
            s.collider_groups.clone(),
            nodes,
            &mut notes,
        )?);
    }
    springs.validate()?;
    Ok(ImportedSprings {
        source: SpringSource::VrmcSpringBone,
        springs,
        notes,
    })
}

fn read_vrm0(sec: &Vrm0Secondary, nodes: &Nodes) -> Result<ImportedSprings, VrmError> {
    check_count("bone group count", sec.bone_groups.len(), MAX_ITEMS)?;
    check_count("collider group count", sec.collider_groups.len(), MAX_ITEMS)?;
    let mut springs = SpringRig::default();
    let mut notes = vec!["VRM 0.x: each root bone follows its first child to a leaf".to_string()];
    for (k, g) in sec.collider_groups.iter().enumerate() {
        let i = nodes.check("collider group node", g.node)?;
        check_count(
            "collider count",
            springs.colliders.len() + g.colliders.len(),
            MAX_ITEMS,
        )?;
        let mut ids = Vec::new();
        for c in &g.colliders {
            ids.push(springs.colliders.len());
            springs.colliders.push(Collider {
                bone: nodes.names[i].clone(),
                // VRM 0.x stores z mirrored (Unity's axes), as three-vrm reads it.
                shape: ColliderShape::Sphere {
                    offset: Vec3::new(c.offset.x, c.offset.y, -c.offset.z),
                    radius: c.radius,
                },
            });
        }
        springs.groups.push(ColliderGroup {
            name: format!("group_{k}"),
            colliders: ids,
        });
    }
    for (g_i, g) in sec.bone_groups.iter().enumerate() {
        let dir = g
            .gravity_dir
            .map(|d| Vec3::new(d.x, d.y, d.z))
            .unwrap_or(Vec3::NEG_Y);
        let p = VrmJointParams {
            stiffness: g.stiffness,
            gravity_power: g.gravity_power,
            gravity_dir: dir,
            drag_force: g.drag_force,
            hit_radius: g.hit_radius,
        };
        for (b_i, &b) in g.bones.iter().enumerate() {
            let mut chain = vec![nodes.check("bone group bone", b)?];
            while let Some(&c) = chain.last().and_then(|&l| nodes.children[l].first()) {
                chain.push(c);
                check_count("joint count", chain.len(), MAX_JOINTS)?;
            }
            if chain.len() < 2 {
                notes.push(format!("bone group {g_i} bone {b_i} is a leaf; skipped"));
                continue;
            }
            let name = match &g.comment {
                Some(c) => format!("{c}_{b_i}"),
                None => format!("group_{g_i}_{b_i}"),
            };
            let params = vec![p; chain.len() - 1];
            springs.chains.push(chain_from_vrm(
                name,
                &chain,
                &params,
                g.collider_groups.clone(),
                nodes,
                &mut notes,
            )?);
        }
    }
    springs.validate()?;
    Ok(ImportedSprings {
        source: SpringSource::Vrm0,
        springs,
        notes,
    })
}
