//! `read_glb`: springs back from a GLB, one to one. `VRMC_springBone` 1.0 comes back per
//! joint (with the extended colliders and `center`), VRM 0.x `secondaryAnimation` as VRM
//! tools run it (every descendant of each root bone, branches as chains of their own, the
//! 7 cm tail on leaves, each group's `center`), and our `PELT_spring_chains` bit for bit.
//!
//! The reader is bounded: the JSON chunk is at most [`MAX_JSON_BYTES`], every array it keeps
//! draws on a [`MAX_PARSED_BYTES`] budget as it is parsed (so a small file of empty objects
//! cannot make it allocate gigabytes), node, chain and joint counts are capped, and
//! [`read_glb_from`] reads at most the header and the JSON chunk of a stream.

use glam::{Quat, Vec3};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::VrmError;
use super::bounded::{ParseBudget, check_count};
use super::ext::{
    EXTENDED_COLLIDER_EXT, GltfDoc, PELT_EXT, PELT_VERSION, PeltRecord, VRM_SPEC_VERSION, VRM0_EXT,
    VRMC_EXT, Vrm0Extension, Vrm0Secondary, VrmcSpringBone,
};
pub use super::glb::MAX_JSON_BYTES;
use super::node_tree::{build_skeleton, check_scenes};
use crate::spring::{
    ChainEnd, ChainSpec, Collider, ColliderGroup, ColliderShape, JointSpec, Skeleton, SpringRig,
    SpringSettings, VrmChain, VrmCollider, VrmColliderGroup, VrmColliderShape, VrmJoint,
    VrmSpringRig,
};

/// Bytes the arrays one read keeps may hold (16 MiB; 65,536 nodes take 11 MiB).
pub const MAX_PARSED_BYTES: usize = 16 << 20;
/// Most nodes a file may have.
pub const MAX_NODES: usize = Skeleton::MAX_NODES;
/// Most joints one chain may have.
pub const MAX_JOINTS: usize = crate::spring::vrm_rig::MAX_CHAIN_JOINTS;
/// Most springs, chains, colliders or groups a file may have.
pub const MAX_ITEMS: usize = crate::spring::vrm_rig::MAX_RIG_ITEMS;
/// Most notes one read records (the rest are counted in a last note).
const MAX_NOTES: usize = 64;

/// Which record the VRM springs came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpringSource {
    /// `VRMC_springBone` 1.0.
    VrmcSpringBone,
    /// VRM 0.x `secondaryAnimation`.
    Vrm0,
    /// The file has no VRM springs.
    None,
}

/// The springs found in a file.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedSprings {
    /// Every node of the file, and the VRM springs and colliders as the file gives them.
    pub springs: VrmSpringRig,
    /// Where `springs` came from.
    pub source: SpringSource,
    /// Indices into `springs.chains` of the springs that approximate Pelt's anchored chains
    /// (which `chains` holds exactly).
    pub approximations: Vec<usize>,
    /// Pelt's anchored chains, exactly, from `PELT_spring_chains`.
    pub chains: SpringRig,
    /// True when the file is a full VRM 1.0 (it has `VRMC_vrm`).
    pub is_vrm: bool,
    /// What the reader could not keep, or kept differently from some tool.
    pub notes: Vec<String>,
}

struct Notes(Vec<String>, usize);

impl Notes {
    fn push(&mut self, n: String) {
        if self.0.len() < MAX_NOTES {
            self.0.push(n);
        } else {
            self.1 += 1;
        }
    }

    fn finish(mut self) -> Vec<String> {
        if self.1 > 0 {
            self.0
                .push(format!("... and {} more notes like these", self.1));
        }
        self.0
    }
}

fn node_index(what: &str, i: i64, len: usize) -> Result<usize, VrmError> {
    let Ok(index) = usize::try_from(i) else {
        // Reported as written: a negative index is not "index 0".
        return Err(VrmError::BadExtension(
            VRM0_EXT,
            format!("{what} index {i} is negative; indices count from 0"),
        ));
    };
    if index < len {
        Ok(index)
    } else {
        Err(VrmError::IndexOutOfRange {
            what: what.to_string(),
            index,
            len,
        })
    }
}

/// Reads the springs of GLB bytes. Errors on a malformed container, JSON, node hierarchy or
/// extension; never panics.
pub fn read_glb(bytes: &[u8]) -> Result<ImportedSprings, VrmError> {
    let (json, _bin) = super::glb::unpack(bytes)?;
    read_gltf_json(json)
}

/// Reads the springs of a GLB from a stream (a file, a pipe), reading only its header and
/// JSON chunk: at most 20 bytes plus [`MAX_JSON_BYTES`]. Returns the springs and the file
/// length the header declares (compare it with the real length to catch a truncated file).
pub fn read_glb_from(input: impl std::io::Read) -> Result<(ImportedSprings, usize), VrmError> {
    let (json, total) = super::glb::read_json_chunk(input)?;
    Ok((read_gltf_json(&json)?, total))
}

/// Reads the springs of a glTF JSON document (the JSON chunk of a GLB).
pub fn read_gltf_json(json: &[u8]) -> Result<ImportedSprings, VrmError> {
    if json.len() > MAX_JSON_BYTES {
        return Err(VrmError::TooMany(
            "JSON length".into(),
            json.len(),
            MAX_JSON_BYTES,
        ));
    }
    let budget = ParseBudget::new(MAX_PARSED_BYTES);
    let spent = |e: VrmError| {
        if budget.spent() {
            VrmError::TooLarge(MAX_PARSED_BYTES >> 20)
        } else {
            e
        }
    };
    if let Some(message) = crate::json_numbers::too_deep(json) {
        return Err(VrmError::Json(message));
    }
    let doc: GltfDoc = serde_json::from_slice(json).map_err(|e| {
        let message = std::str::from_utf8(json).map_or_else(
            |_| e.to_string(),
            |text| crate::json_numbers::describe(text, &e),
        );
        spent(VrmError::Json(message))
    })?;
    let GltfDoc {
        asset,
        nodes,
        scene,
        scenes,
        extensions_used,
        extensions,
    } = doc;
    if !asset.version.starts_with("2.") {
        return Err(VrmError::UnsupportedVersion {
            what: "the glTF asset",
            found: asset.version,
            expected: "2.0",
        });
    }
    check_scenes(scene, &scenes, &nodes)?;
    // The parsed nodes, the biggest list, are consumed (and freed) building the skeleton.
    let skeleton = build_skeleton(nodes.0)?;
    let ext = extensions.unwrap_or_default();
    let mut notes = Notes(Vec::new(), 0);
    let used = |name: &str| extensions_used.iter().any(|u| u == name);

    let (chains, pelt_springs) = match ext.pelt {
        Some(raw) => {
            let record: PeltRecord = parse_ext(PELT_EXT, raw).map_err(spent)?;
            read_pelt(&record, &skeleton)?
        }
        None => (SpringRig::default(), Vec::new()),
    };

    let (springs, source, spring_to_chain) = if let Some(raw) = ext.vrmc_spring_bone {
        if !used(VRMC_EXT) {
            notes.push(format!(
                "{VRMC_EXT} is not listed in extensionsUsed; three-vrm would ignore it"
            ));
        }
        if ext.vrm0.is_some() {
            notes.push("the file also has VRM 0.x springs; the VRM 1.0 ones are read".into());
        }
        let spring: VrmcSpringBone = parse_ext(VRMC_EXT, raw).map_err(spent)?;
        let (rig, map) = read_vrmc(&spring, skeleton, &mut notes)?;
        (rig, SpringSource::VrmcSpringBone, map)
    } else if let Some(raw) = ext.vrm0 {
        let v0: Vrm0Extension = parse_ext(VRM0_EXT, raw).map_err(spent)?;
        match v0.secondary_animation {
            Some(raw) => {
                let sec: Vrm0Secondary = parse_ext("VRM.secondaryAnimation", raw).map_err(spent)?;
                (
                    read_vrm0(&sec, skeleton, &mut notes)?,
                    SpringSource::Vrm0,
                    Vec::new(),
                )
            }
            None => (empty_rig(skeleton), SpringSource::None, Vec::new()),
        }
    } else {
        (empty_rig(skeleton), SpringSource::None, Vec::new())
    };
    let mut approximations = Vec::new();
    for s in pelt_springs {
        match spring_to_chain.get(s).copied().flatten() {
            Some(c) => approximations.push(c),
            None => {
                return Err(VrmError::BadExtension(
                    PELT_EXT,
                    format!("vrmcSprings names spring {s}, which the file does not have"),
                ));
            }
        }
    }
    if source == SpringSource::None && chains.chains.is_empty() {
        notes.push("the file has no spring extension".into());
    }
    Ok(ImportedSprings {
        springs,
        source,
        approximations,
        chains,
        is_vrm: ext.vrmc_vrm.is_some(),
        notes: notes.finish(),
    })
}

fn empty_rig(skeleton: Skeleton) -> VrmSpringRig {
    VrmSpringRig {
        skeleton,
        ..Default::default()
    }
}

fn parse_ext<'a, T: Deserialize<'a>>(name: &'static str, raw: &'a RawValue) -> Result<T, VrmError> {
    serde_json::from_str(raw.get())
        .map_err(|e| VrmError::BadExtension(name, crate::json_numbers::plain_types(&e.to_string())))
}

fn read_pelt(r: &PeltRecord, skeleton: &Skeleton) -> Result<(SpringRig, Vec<usize>), VrmError> {
    if r.version != PELT_VERSION {
        return Err(VrmError::UnsupportedVersion {
            what: "PELT_spring_chains",
            found: r.version.to_string(),
            expected: "1",
        });
    }
    check_count("chain count", r.chains.len(), MAX_ITEMS)?;
    check_count("collider count", r.colliders.len(), MAX_ITEMS)?;
    check_count("collider group count", r.collider_groups.len(), MAX_ITEMS)?;
    let nodes = skeleton.nodes();
    let named = |what: &str, node: usize, name: &str| -> Result<usize, VrmError> {
        let n = nodes.get(node).ok_or_else(|| VrmError::IndexOutOfRange {
            what: what.to_string(),
            index: node,
            len: nodes.len(),
        })?;
        if n.name != name {
            return Err(VrmError::BadExtension(
                PELT_EXT,
                format!(
                    "{what}: node {node} is `{}`, the record says `{name}`",
                    n.name
                ),
            ));
        }
        Ok(node)
    };
    let mut rig = SpringRig::default();
    for c in r.chains.iter() {
        check_count("joint count", c.joints.len(), MAX_JOINTS)?;
        let mut prev: Option<usize> = None;
        for (k, j) in c.joints.iter().enumerate() {
            let i = named("chain joint", j.node, &j.name)?;
            let parent_ok = match prev {
                Some(p) => nodes[i].parent == Some(p),
                None => nodes[i].parent.map(|p| nodes[p].name.as_str()) == Some(&c.anchor),
            };
            if !parent_ok {
                return Err(VrmError::JointOrder(c.name.clone(), k, k.saturating_sub(1)));
            }
            // The record must agree with the nodes it names (the chain's offsets are the
            // nodes' translations, with no rest rotation or scale), as the writer makes it.
            let rest = nodes[i].rest;
            if rest.translation.to_array() != j.offset
                || rest.rotation != Quat::IDENTITY
                || rest.scale != Vec3::ONE
            {
                return Err(VrmError::BadExtension(
                    PELT_EXT,
                    format!(
                        "chain `{}`: joint `{}` disagrees with its node's rest transform",
                        c.name, j.name
                    ),
                ));
            }
            prev = Some(i);
        }
        rig.chains.push(ChainSpec {
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
            collider_groups: c.collider_groups.0.clone(),
        });
    }
    for c in r.colliders.iter() {
        named("collider", c.node, &c.bone)?;
        let offset = Vec3::from_array(c.offset);
        rig.colliders.push(Collider {
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
    for g in r.collider_groups.iter() {
        rig.groups.push(ColliderGroup {
            name: g.name.clone(),
            colliders: g.colliders.0.clone(),
        });
    }
    rig.validate()?;
    let springs = r
        .vrmc_springs
        .as_ref()
        .map(|v| v.0.clone())
        .unwrap_or_default();
    if !springs.is_empty() && springs.len() != rig.chains.len() {
        return Err(VrmError::BadExtension(
            PELT_EXT,
            format!(
                "vrmcSprings lists {} springs for {} chains",
                springs.len(),
                rig.chains.len()
            ),
        ));
    }
    Ok((rig, springs))
}

fn check_node(what: &str, i: usize, skeleton: &Skeleton) -> Result<usize, VrmError> {
    if i < skeleton.len() {
        Ok(i)
    } else {
        Err(VrmError::IndexOutOfRange {
            what: what.to_string(),
            index: i,
            len: skeleton.len(),
        })
    }
}

/// `VRMC_springBone` as it is: per joint, every collider kind, `center`. Returns the rig and,
/// per spring of the file, the chain it became (`None` for a spring that swings nothing).
fn read_vrmc(
    ext: &VrmcSpringBone,
    skeleton: Skeleton,
    notes: &mut Notes,
) -> Result<(VrmSpringRig, Vec<Option<usize>>), VrmError> {
    if ext.spec_version != VRM_SPEC_VERSION {
        return Err(VrmError::UnsupportedVersion {
            what: "VRMC_springBone",
            found: ext.spec_version.clone(),
            expected: VRM_SPEC_VERSION,
        });
    }
    check_count("spring count", ext.springs.len(), MAX_ITEMS)?;
    check_count("collider count", ext.colliders.len(), MAX_ITEMS)?;
    check_count("collider group count", ext.collider_groups.len(), MAX_ITEMS)?;
    let mut rig = VrmSpringRig {
        skeleton,
        ..Default::default()
    };
    let v3 = Vec3::from_array;
    for (k, c) in ext.colliders.iter().enumerate() {
        let node = check_node("collider node", c.node, &rig.skeleton)?;
        let extended = c.extensions.as_ref().and_then(|e| e.extended.as_ref());
        let mut shape = None;
        if let Some(x) = extended {
            if x.spec_version != VRM_SPEC_VERSION {
                notes.push(format!(
                    "collider {k}: {EXTENDED_COLLIDER_EXT} version `{}` is not {VRM_SPEC_VERSION}; its fallback shape is used, as three-vrm does",
                    x.spec_version
                ));
            } else if let Some(s) = &x.shape {
                shape = Some(match (&s.sphere, &s.capsule, &s.plane) {
                    (Some(s), None, None) => VrmColliderShape::Sphere {
                        offset: v3(s.offset),
                        radius: s.radius,
                        inside: s.inside,
                    },
                    (None, Some(c), None) => VrmColliderShape::Capsule {
                        offset: v3(c.offset),
                        tail: v3(c.tail),
                        radius: c.radius,
                        inside: c.inside,
                    },
                    (None, None, Some(p)) => VrmColliderShape::Plane {
                        offset: v3(p.offset),
                        normal: v3(p.normal),
                    },
                    _ => {
                        return Err(VrmError::BadExtension(
                            EXTENDED_COLLIDER_EXT,
                            format!("collider {k}: give exactly one of sphere, capsule and plane"),
                        ));
                    }
                });
            }
        }
        let shape = match shape {
            Some(s) => s,
            None => match (&c.shape.sphere, &c.shape.capsule) {
                (Some(s), None) => VrmColliderShape::sphere(v3(s.offset), s.radius),
                (None, Some(cap)) => {
                    VrmColliderShape::capsule(v3(cap.offset), v3(cap.tail), cap.radius)
                }
                _ => {
                    return Err(VrmError::BadExtension(
                        VRMC_EXT,
                        format!("collider {k}: a shape must be exactly one of sphere and capsule"),
                    ));
                }
            },
        };
        rig.colliders.push(VrmCollider { node, shape });
    }
    for (k, g) in ext.collider_groups.iter().enumerate() {
        rig.groups.push(VrmColliderGroup {
            name: g.name.clone().unwrap_or_else(|| format!("group_{k}")),
            colliders: g.colliders.0.clone(),
        });
    }
    let mut map = Vec::with_capacity(ext.springs.len());
    for (s_i, s) in ext.springs.iter().enumerate() {
        check_count("joint count", s.joints.len(), MAX_JOINTS + 1)?;
        let name = s.name.clone().unwrap_or_else(|| format!("spring_{s_i}"));
        let nodes: Vec<usize> = s
            .joints
            .iter()
            .map(|j| check_node("spring joint node", j.node, &rig.skeleton))
            .collect::<Result<_, _>>()?;
        if nodes.len() < 2 {
            notes.push(format!(
                "spring `{name}` has {} joint(s); a VRM spring needs two to swing anything, so it is skipped",
                nodes.len()
            ));
            map.push(None);
            continue;
        }
        let center = match s.center {
            Some(c) => {
                let c = check_node("spring center", c, &rig.skeleton)?;
                if c != nodes[0] && !rig.skeleton.is_ancestor(c, nodes[0]) {
                    notes.push(format!(
                        "spring `{name}`: `center` is not its first joint or an ancestor of it, as the specification asks; kept, as three-vrm keeps it"
                    ));
                }
                Some(c)
            }
            None => None,
        };
        let joints = s.joints[..s.joints.len() - 1]
            .iter()
            .map(|j| VrmJoint {
                node: j.node,
                stiffness: j.stiffness,
                gravity_power: j.gravity_power,
                gravity_dir: v3(j.gravity_dir),
                drag_force: j.drag_force,
                hit_radius: j.hit_radius,
            })
            .collect();
        map.push(Some(rig.chains.len()));
        rig.chains.push(VrmChain {
            name,
            joints,
            end: ChainEnd::Node(nodes[nodes.len() - 1]),
            collider_groups: s.collider_groups.0.clone(),
            center,
        });
    }
    rig.validate()?;
    Ok((rig, map))
}

/// How many nodes a VRM 0.x chain walk from `start` would still take: first children,
/// down to a leaf or a node already claimed.
fn unclaimed_run(skeleton: &Skeleton, start: usize, claimed: &[bool]) -> usize {
    let mut count = 0;
    let mut cur = Some(start);
    while let Some(node) = cur.filter(|&n| !claimed[n]) {
        count += 1;
        cur = skeleton.children(node).first().copied();
    }
    count
}

/// VRM 0.x `secondaryAnimation` as three-vrm runs it: every node below each listed bone
/// swings, pointing at its first child (a leaf at the 7 cm tail); each branch becomes a
/// chain of its own, hanging from the joint it branches off.
fn read_vrm0(
    sec: &Vrm0Secondary,
    skeleton: Skeleton,
    notes: &mut Notes,
) -> Result<VrmSpringRig, VrmError> {
    check_count("bone group count", sec.bone_groups.len(), MAX_ITEMS)?;
    check_count("collider group count", sec.collider_groups.len(), MAX_ITEMS)?;
    let n = skeleton.len();
    let mut rig = VrmSpringRig {
        skeleton,
        ..Default::default()
    };
    let mut collider_nodes = Vec::new();
    for (k, g) in sec.collider_groups.iter().enumerate() {
        let node = node_index("collider group node", g.node, n)?;
        collider_nodes.push(node);
        check_count(
            "collider count",
            rig.colliders.len() + g.colliders.len(),
            MAX_ITEMS,
        )?;
        let mut ids = Vec::new();
        for c in g.colliders.iter() {
            ids.push(rig.colliders.len());
            // VRM 0.x stores z mirrored (Unity's axes); three-vrm flips it back.
            let z = if c.offset.z != 0.0 { -c.offset.z } else { 0.0 };
            rig.colliders.push(VrmCollider {
                node,
                shape: VrmColliderShape::sphere(Vec3::new(c.offset.x, c.offset.y, z), c.radius),
            });
        }
        rig.groups.push(VrmColliderGroup {
            name: format!("group_{k}"),
            colliders: ids,
        });
    }
    let mut claimed = vec![false; n];
    let mut repeated = 0usize;
    for (g_i, g) in sec.bone_groups.iter().enumerate() {
        let dir = g
            .gravity_dir
            .map(|d| Vec3::new(d.x, d.y, d.z))
            .unwrap_or(Vec3::NEG_Y);
        let groups = g
            .collider_groups
            .iter()
            .map(|&i| node_index("bone group collider group", i, rig.groups.len()))
            .collect::<Result<Vec<_>, _>>()?;
        let center = match g.center {
            Some(c) if c >= 0 => Some(node_index("bone group center", c, n)?),
            _ => None,
        };
        let base = g.comment.clone().unwrap_or_else(|| format!("group_{g_i}"));
        for (b_i, &b) in g.bones.iter().enumerate() {
            let root = node_index("bone group bone", b, n)?;
            // Chains still to walk, as (first node, name); branches depth first, in order.
            let mut starts = vec![(root, format!("{base}_{b_i}"))];
            let mut branch = 0usize;
            while let Some((start, name)) = starts.pop() {
                if claimed[start] {
                    repeated += 1;
                    continue;
                }
                let mut joints = Vec::new();
                let mut branches = Vec::new();
                let mut cur = start;
                let end = loop {
                    if claimed[cur] {
                        // Met a bone another group already swings: stop before it.
                        repeated += 1;
                        break ChainEnd::Node(cur);
                    }
                    if joints.len() == MAX_JOINTS {
                        // The chain's whole length, not where the count stopped.
                        let rest = unclaimed_run(&rig.skeleton, cur, &claimed);
                        check_count(
                            &format!("VRM 0.x chain `{name}`'s joint count"),
                            MAX_JOINTS + rest,
                            MAX_JOINTS,
                        )?;
                    }
                    claimed[cur] = true;
                    joints.push(VrmJoint {
                        node: cur,
                        stiffness: g.stiffness,
                        gravity_power: g.gravity_power,
                        gravity_dir: dir,
                        drag_force: g.drag_force,
                        hit_radius: g.hit_radius,
                    });
                    let kids = rig.skeleton.children(cur);
                    branches.extend(kids.iter().skip(1).copied());
                    match kids.first() {
                        Some(&k) => cur = k,
                        None => break ChainEnd::Virtual,
                    }
                };
                let named: Vec<(usize, String)> = branches
                    .iter()
                    .map(|&k| {
                        branch += 1;
                        (k, format!("{base}_{b_i}.{branch}"))
                    })
                    .collect();
                starts.extend(named.into_iter().rev());
                check_count("chain count", rig.chains.len() + 1, MAX_ITEMS)?;
                rig.chains.push(VrmChain {
                    name,
                    joints,
                    end,
                    collider_groups: groups.clone(),
                    center,
                });
            }
        }
    }
    if repeated > 0 {
        notes.push(format!(
            "VRM 0.x: {repeated} bone(s) are listed under more than one bone group; Pelt swings each with its first group only"
        ));
    }
    for (k, &node) in collider_nodes.iter().enumerate() {
        if claimed[node] {
            notes.push(format!(
                "VRM 0.x: collider group {k} sits on a swinging bone; three-vrm also swings its collider objects there, Pelt does not"
            ));
        }
    }
    for c in &rig.chains {
        if let Some(center) = c.center {
            let first = c.joints[0].node;
            if center != first && !rig.skeleton.is_ancestor(center, first) {
                notes.push(format!(
                    "VRM 0.x: chain `{}` has a center that is not above it; kept, as three-vrm keeps it",
                    c.name
                ));
            }
        }
    }
    rig.validate()?;
    Ok(rig)
}
