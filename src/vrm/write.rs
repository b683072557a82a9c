//! `write_glb`: a [`RiggedBody`] as a glTF 2.0 binary, built with the `gltf-json` crate:
//! every skeleton node with its rest transform, an optional skinned mesh,
//! `VRMC_springBone` 1.0 with each joint's own parameters (plus
//! `VRMC_springBone_extended_collider` for inside and plane colliders), Pelt's anchored
//! chains exactly in `PELT_spring_chains` (approximated in `VRMC_springBone` beside them),
//! and with an avatar `VRMC_vrm` (meta and humanoid), which makes the file a full VRM 1.0.

use std::collections::{BTreeMap, HashMap, HashSet};

use glam::{Quat, Vec3};
use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;

use super::VrmError;
use super::bounded::Bounded;
use super::convert::to_vrm;
use super::ext::{
    EXTENDED_COLLIDER_EXT, ExtendedCapsule, ExtendedCollider, ExtendedPlane, ExtendedShape,
    ExtendedSphere, PELT_EXT, PELT_VERSION, PeltChain, PeltCollider, PeltGroup, PeltJoint,
    PeltRecord, VRM_SPEC_VERSION, VRMC_EXT, VRMC_VRM_EXT, VrmcCapsule, VrmcCollider,
    VrmcColliderExtensions, VrmcColliderGroup, VrmcHumanBone, VrmcHumanoid, VrmcJoint, VrmcShape,
    VrmcSphere, VrmcSpring, VrmcSpringBone, VrmcVrm,
};
use crate::rigged::{HUMAN_BONES, MeshPart, REQUIRED_HUMAN_BONES, RiggedBody, SkinnedMesh};
use crate::spring::{
    ChainEnd, ColliderShape, NodeTransform, Skeleton, SkeletonNode, VIRTUAL_TAIL_LENGTH,
    VrmColliderShape, VrmSpringRig,
};

/// Checks the body is consistent: the springs valid, the anchored chains on existing nodes
/// (consecutive children, identity rest rotation and unit scale, offsets equal to the
/// nodes' translations), colliders on existing nodes, the mesh in range, and an avatar's
/// humanoid complete and in hierarchy order.
pub fn validate_body(body: &RiggedBody) -> Result<(), VrmError> {
    let bad = |m: String| Err(VrmError::BadRig(m));
    body.springs.validate()?;
    let sk = &body.springs.skeleton;
    body.chains.validate()?;
    let node_of = |what: &str, name: &str| {
        sk.index_of(name).ok_or_else(|| {
            VrmError::BadRig(format!(
                "{what} names `{name}`, which is not a node of the skeleton"
            ))
        })
    };
    for c in &body.chains.chains {
        let mut parent = node_of(&format!("chain `{}` anchor", c.name), &c.anchor)?;
        for j in &c.joints {
            let i = node_of(&format!("chain `{}` joint", c.name), &j.name)?;
            let node = &sk.nodes()[i];
            if node.parent != Some(parent) {
                return bad(format!(
                    "chain `{}`: node `{}` is not the child of the joint before it",
                    c.name, j.name
                ));
            }
            if node.rest.translation.to_array() != j.offset.to_array()
                || node.rest.rotation != Quat::IDENTITY
                || node.rest.scale != Vec3::ONE
            {
                return bad(format!(
                    "chain `{}`: node `{}` must have the joint's offset as translation, no rotation and unit scale",
                    c.name, j.name
                ));
            }
            parent = i;
        }
    }
    for c in &body.chains.colliders {
        node_of("a collider", &c.bone)?;
    }
    if let Some(m) = &body.mesh {
        validate_mesh(m, sk.len())?;
    }
    if let Some(a) = &body.avatar {
        if a.meta.name.is_empty() || a.meta.authors.is_empty() {
            return bad("VRM meta needs a name and at least one author".into());
        }
        let mut bones: HashMap<&str, usize> = HashMap::new();
        for (name, node) in &a.humanoid {
            if !HUMAN_BONES.iter().any(|(h, _)| h == name) {
                return bad(format!("`{name}` is not a VRM 1.0 human bone"));
            }
            if *node >= sk.len() {
                return bad(format!(
                    "human bone `{name}` is on node {node}, past the last"
                ));
            }
            if bones.insert(name, *node).is_some() {
                return bad(format!("human bone `{name}` is mapped twice"));
            }
        }
        if let Some(missing) = REQUIRED_HUMAN_BONES
            .iter()
            .find(|b| !bones.contains_key(*b))
        {
            return bad(format!("the humanoid lacks the required bone `{missing}`"));
        }
        let mut nodes: Vec<usize> = bones.values().copied().collect();
        nodes.sort_unstable();
        if nodes.windows(2).any(|w| w[0] == w[1]) {
            return bad("two human bones are on the same node".into());
        }
        for (name, node) in &bones {
            // The nearest present bone up the humanoid tree must be an ancestor.
            let mut up = HUMAN_BONES
                .iter()
                .find(|(h, _)| h == name)
                .and_then(|b| b.1);
            while let Some(p) = up {
                if let Some(&pn) = bones.get(p) {
                    if !sk.is_ancestor(pn, *node) {
                        return bad(format!("human bone `{name}` is not below `{p}`"));
                    }
                    break;
                }
                up = HUMAN_BONES.iter().find(|(h, _)| *h == p).and_then(|b| b.1);
            }
        }
    }
    Ok(())
}

/// One primitive's vertices and triangles, borrowed from a [`SkinnedMesh`] or one of its
/// [`MeshPart`]s, with its material.
struct Primitive<'a> {
    positions: &'a [Vec3],
    normals: &'a [Vec3],
    joints: &'a [[u16; 4]],
    weights: &'a [[f32; 4]],
    indices: &'a [u32],
    /// Per-vertex colours, or empty.
    colors: &'a [[f32; 4]],
    material: &'a str,
    color: [f32; 4],
}

/// The mesh's primitives: the coat first, then each part.
fn primitives(m: &SkinnedMesh) -> Vec<Primitive<'_>> {
    let coat = Primitive {
        positions: &m.positions,
        normals: &m.normals,
        joints: &m.joints,
        weights: &m.weights,
        indices: &m.indices,
        colors: &m.colors,
        material: "coat",
        color: m.color,
    };
    std::iter::once(coat)
        .chain(m.parts.iter().map(|p: &MeshPart| Primitive {
            positions: &p.positions,
            normals: &p.normals,
            joints: &p.joints,
            weights: &p.weights,
            indices: &p.indices,
            colors: &[],
            material: &p.material,
            color: p.color,
        }))
        .collect()
}

fn validate_mesh(m: &SkinnedMesh, nodes: usize) -> Result<(), VrmError> {
    for p in primitives(m) {
        validate_primitive(&p, nodes)
            .map_err(|e| VrmError::BadRig(format!("the mesh's \"{}\" part: {e}", p.material)))?;
    }
    Ok(())
}

fn validate_primitive(m: &Primitive, nodes: usize) -> Result<(), &'static str> {
    let n = m.positions.len();
    if n == 0
        || m.normals.len() != n
        || m.joints.len() != n
        || m.weights.len() != n
        || m.indices.is_empty()
        || !m.indices.len().is_multiple_of(3)
    {
        return Err("mesh attributes differ in length, or there are no triangles");
    }
    if m.indices.iter().any(|&i| i as usize >= n) {
        return Err("a mesh index is past the last vertex");
    }
    if m.joints.iter().flatten().any(|&j| j as usize >= nodes) {
        return Err("a vertex refers to a node that does not exist");
    }
    if m.positions.iter().chain(m.normals).any(|p| !p.is_finite())
        || m.weights
            .iter()
            .flatten()
            .any(|w| !w.is_finite() || *w < 0.0)
    {
        return Err("the mesh has non-finite positions, normals or weights");
    }
    Ok(())
}

/// VRM 1.0 has no virtual tail: a VRM 0.x leaf's 7 cm tail becomes a node of its own.
fn with_tail_nodes(rig: &VrmSpringRig) -> Result<VrmSpringRig, VrmError> {
    if rig.chains.iter().all(|c| c.end != ChainEnd::Virtual) {
        return Ok(rig.clone());
    }
    let mut nodes: Vec<SkeletonNode> = rig.skeleton.nodes().to_vec();
    let mut names: HashSet<String> = nodes.iter().map(|n| n.name.clone()).collect();
    let mut chains = rig.chains.clone();
    for c in &mut chains {
        if c.end != ChainEnd::Virtual {
            continue;
        }
        let last = c.joints[c.joints.len() - 1].node;
        let t = nodes[last].rest.translation.normalize_or_zero() * VIRTUAL_TAIL_LENGTH;
        let mut name = format!("{}_tail", nodes[last].name);
        while !names.insert(name.clone()) {
            name.push('_');
        }
        c.end = ChainEnd::Node(nodes.len());
        nodes.push(SkeletonNode {
            name,
            parent: Some(last),
            rest: NodeTransform::from_translation(t),
        });
    }
    Ok(VrmSpringRig {
        skeleton: Skeleton::new(nodes)?,
        chains,
        colliders: rig.colliders.clone(),
        groups: rig.groups.clone(),
    })
}

/// Appends `data` to `bin` (4-byte aligned) and returns its buffer view.
fn push_view(
    root: &mut json::Root,
    bin: &mut Vec<u8>,
    data: &[u8],
    target: Option<json::buffer::Target>,
) -> json::Index<json::buffer::View> {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let offset = bin.len();
    bin.extend_from_slice(data);
    root.push(json::buffer::View {
        buffer: json::Index::new(0),
        byte_length: USize64::from(data.len()),
        byte_offset: Some(USize64::from(offset)),
        byte_stride: None,
        name: None,
        target: target.map(Valid),
        extensions: None,
        extras: Default::default(),
    })
}

fn push_accessor(
    root: &mut json::Root,
    view: json::Index<json::buffer::View>,
    count: usize,
    (component, type_): (json::accessor::ComponentType, json::accessor::Type),
    bounds: Option<(serde_json::Value, serde_json::Value)>,
) -> json::Index<json::accessor::Accessor> {
    let (min, max) = bounds.unzip();
    root.push(json::Accessor {
        buffer_view: Some(view),
        byte_offset: None,
        count: USize64::from(count),
        component_type: Valid(json::accessor::GenericComponentType(component)),
        extensions: None,
        extras: Default::default(),
        type_: Valid(type_),
        min,
        max,
        name: None,
        normalized: false,
        sparse: None,
    })
}

fn to_value<T: serde::Serialize>(v: &T) -> Result<serde_json::Value, VrmError> {
    serde_json::to_value(v).map_err(|e| VrmError::Json(e.to_string()))
}

/// Writes the mesh (one primitive and material for the coat, one for each part), its
/// skin; returns the node that carries them.
fn write_mesh(
    root: &mut json::Root,
    bin: &mut Vec<u8>,
    m: &SkinnedMesh,
    skeleton: &Skeleton,
) -> json::Index<json::Node> {
    use json::accessor::{ComponentType as C, Type as T};
    let primitives: Vec<json::mesh::Primitive> = primitives(m)
        .iter()
        .map(|p| write_primitive(root, bin, p))
        .collect();
    let ibm: Vec<[f32; 16]> = skeleton
        .rest_world(glam::Affine3A::IDENTITY)
        .iter()
        .map(|w| glam::Mat4::from(w.inverse()).to_cols_array())
        .collect();
    let v = push_view(root, bin, bytemuck::cast_slice(&ibm), None);
    let ibm = push_accessor(root, v, ibm.len(), (C::F32, T::Mat4), None);
    let mesh = root.push(json::Mesh {
        name: Some("body".into()),
        primitives,
        weights: None,
        extensions: None,
        extras: Default::default(),
    });
    let skin = root.push(json::Skin {
        inverse_bind_matrices: Some(ibm),
        joints: (0..skeleton.len() as u32).map(json::Index::new).collect(),
        name: Some("skeleton".into()),
        skeleton: None,
        extensions: None,
        extras: Default::default(),
    });
    root.push(json::Node {
        name: Some("mesh".into()),
        mesh: Some(mesh),
        skin: Some(skin),
        ..Default::default()
    })
}

/// Writes one primitive's accessors and its material; returns the primitive.
fn write_primitive(
    root: &mut json::Root,
    bin: &mut Vec<u8>,
    m: &Primitive,
) -> json::mesh::Primitive {
    use json::accessor::{ComponentType as C, Type as T};
    use json::buffer::Target::{ArrayBuffer, ElementArrayBuffer};
    let n = m.positions.len();
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for p in m.positions {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let v = push_view(
        root,
        bin,
        bytemuck::cast_slice(m.positions),
        Some(ArrayBuffer),
    );
    let bounds = (
        serde_json::json!(lo.to_array()),
        serde_json::json!(hi.to_array()),
    );
    let positions = push_accessor(root, v, n, (C::F32, T::Vec3), Some(bounds));
    let normals: Vec<Vec3> = m.normals.iter().map(|v| v.normalize_or(Vec3::Y)).collect();
    let v = push_view(root, bin, bytemuck::cast_slice(&normals), Some(ArrayBuffer));
    let normals = push_accessor(root, v, n, (C::F32, T::Vec3), None);
    let v = push_view(root, bin, bytemuck::cast_slice(m.joints), Some(ArrayBuffer));
    let joints = push_accessor(root, v, n, (C::U16, T::Vec4), None);
    // Weights normalised to sum 1 exactly as the validator asks.
    let weights: Vec<[f32; 4]> = m
        .weights
        .iter()
        .map(|w| {
            let s: f32 = w.iter().sum();
            if s > 0.0 {
                w.map(|x| x / s)
            } else {
                [1.0, 0.0, 0.0, 0.0]
            }
        })
        .collect();
    let v = push_view(root, bin, bytemuck::cast_slice(&weights), Some(ArrayBuffer));
    let weights = push_accessor(root, v, n, (C::F32, T::Vec4), None);
    let v = push_view(
        root,
        bin,
        bytemuck::cast_slice(m.indices),
        Some(ElementArrayBuffer),
    );
    let indices = push_accessor(root, v, m.indices.len(), (C::U32, T::Scalar), None);
    // Per-vertex colours where the primitive has one for each vertex (COLOR_0, linear).
    let colors = (!m.colors.is_empty() && m.colors.len() == n).then(|| {
        let v = push_view(root, bin, bytemuck::cast_slice(m.colors), Some(ArrayBuffer));
        push_accessor(root, v, n, (C::F32, T::Vec4), None)
    });
    let material = root.push(json::Material {
        name: Some(m.material.into()),
        double_sided: true,
        pbr_metallic_roughness: json::material::PbrMetallicRoughness {
            base_color_factor: json::material::PbrBaseColorFactor(m.color),
            metallic_factor: json::material::StrengthFactor(0.0),
            roughness_factor: json::material::StrengthFactor(0.8),
            ..Default::default()
        },
        ..Default::default()
    });
    let mut attributes = BTreeMap::new();
    attributes.insert(Valid(json::mesh::Semantic::Positions), positions);
    attributes.insert(Valid(json::mesh::Semantic::Normals), normals);
    attributes.insert(Valid(json::mesh::Semantic::Joints(0)), joints);
    attributes.insert(Valid(json::mesh::Semantic::Weights(0)), weights);
    if let Some(colors) = colors {
        attributes.insert(Valid(json::mesh::Semantic::Colors(0)), colors);
    }
    json::mesh::Primitive {
        attributes,
        indices: Some(indices),
        material: Some(material),
        mode: Valid(json::mesh::Mode::Triangles),
        targets: None,
        extensions: None,
        extras: Default::default(),
    }
}

/// `VRMC_springBone` for one collider shape, with its extension (and a harmless fallback,
/// as the extended collider specification advises) when only the extension can say it.
fn vrmc_collider(node: usize, shape: &VrmColliderShape) -> VrmcCollider {
    let sphere = |offset: Vec3, radius| VrmcShape {
        sphere: Some(VrmcSphere {
            offset: offset.to_array(),
            radius,
        }),
        capsule: None,
    };
    let (base, extended) = match *shape {
        VrmColliderShape::Sphere {
            offset,
            radius,
            inside: false,
        } => (sphere(offset, radius), None),
        VrmColliderShape::Capsule {
            offset,
            tail,
            radius,
            inside: false,
        } => (
            VrmcShape {
                sphere: None,
                capsule: Some(VrmcCapsule {
                    offset: offset.to_array(),
                    radius,
                    tail: tail.to_array(),
                }),
            },
            None,
        ),
        // Inside shapes: a point-sized sphere far away, ignored where unsupported.
        VrmColliderShape::Sphere { offset, radius, .. } => (
            sphere(Vec3::new(0.0, -10_000.0, 0.0), 0.0),
            Some(ExtendedShape {
                sphere: Some(ExtendedSphere {
                    offset: offset.to_array(),
                    radius,
                    inside: true,
                }),
                ..Default::default()
            }),
        ),
        VrmColliderShape::Capsule {
            offset,
            tail,
            radius,
            ..
        } => (
            sphere(Vec3::new(0.0, -10_000.0, 0.0), 0.0),
            Some(ExtendedShape {
                capsule: Some(ExtendedCapsule {
                    offset: offset.to_array(),
                    radius,
                    tail: tail.to_array(),
                    inside: true,
                }),
                ..Default::default()
            }),
        ),
        // A plane: a 1 km sphere touching it from behind approximates it.
        VrmColliderShape::Plane { offset, normal } => {
            let n = normal.normalize_or(Vec3::Z);
            (
                sphere(offset - n * 1000.0, 1000.0),
                Some(ExtendedShape {
                    plane: Some(ExtendedPlane {
                        offset: offset.to_array(),
                        normal: normal.to_array(),
                    }),
                    ..Default::default()
                }),
            )
        }
    };
    VrmcCollider {
        node,
        shape: base,
        extensions: extended.map(|shape| VrmcColliderExtensions {
            extended: Some(ExtendedCollider {
                spec_version: VRM_SPEC_VERSION.into(),
                shape: Some(shape),
            }),
        }),
    }
}

/// Writes `body` as GLB bytes (see the module docs). Every node a spring, collider or
/// human bone names must exist; an unknown name is an error.
pub fn write_glb(body: &RiggedBody) -> Result<Vec<u8>, VrmError> {
    validate_body(body)?;
    let rig = with_tail_nodes(&body.springs)?;
    let sk = &rig.skeleton;
    let mut root = json::Root {
        asset: json::Asset {
            generator: Some(body.generator.clone()),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut bin: Vec<u8> = Vec::new();

    let mut children: Vec<Vec<json::Index<json::Node>>> = vec![Vec::new(); sk.len()];
    for (i, n) in sk.nodes().iter().enumerate() {
        if let Some(p) = n.parent {
            children[p].push(json::Index::new(i as u32));
        }
    }
    for (n, kids) in sk.nodes().iter().zip(children) {
        let r = n.rest;
        root.push(json::Node {
            name: Some(n.name.clone()),
            translation: (r.translation != Vec3::ZERO).then(|| r.translation.to_array()),
            rotation: (r.rotation != Quat::IDENTITY)
                .then(|| json::scene::UnitQuaternion(r.rotation.to_array())),
            scale: (r.scale != Vec3::ONE).then(|| r.scale.to_array()),
            children: (!kids.is_empty()).then_some(kids),
            ..Default::default()
        });
    }
    let mut scene_nodes: Vec<json::Index<json::Node>> = (0..sk.len())
        .filter(|&i| sk.parent(i).is_none())
        .map(|i| json::Index::new(i as u32))
        .collect();
    if let Some(m) = &body.mesh {
        scene_nodes.push(write_mesh(&mut root, &mut bin, m, sk));
    }
    let scene = root.push(json::Scene {
        name: Some("scene".into()),
        nodes: scene_nodes,
        extensions: None,
        extras: Default::default(),
    });
    root.scene = Some(scene);
    if !bin.is_empty() {
        root.push(json::Buffer {
            byte_length: USize64::from(bin.len()),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
    }

    let mut used = Vec::new();
    let mut ext = json::extensions::Root::default();
    let anchored = &body.chains;
    // Colliders are written without any spring too: a file read with colliders alone
    // writes back with them.
    let springs = !rig.chains.is_empty() || !rig.colliders.is_empty() || !rig.groups.is_empty();
    if springs || !anchored.chains.is_empty() {
        let (vrmc, approximations) = vrmc_springs(&rig, body)?;
        if vrmc.colliders.iter().any(|c| c.extensions.is_some()) {
            used.push(EXTENDED_COLLIDER_EXT.to_string());
        }
        ext.others.insert(VRMC_EXT.into(), to_value(&vrmc)?);
        used.push(VRMC_EXT.into());
        if !anchored.chains.is_empty() {
            ext.others.insert(
                PELT_EXT.into(),
                to_value(&pelt_record(body, approximations)?)?,
            );
            used.push(PELT_EXT.into());
        }
    }
    if let Some(a) = &body.avatar {
        let vrm = VrmcVrm {
            spec_version: VRM_SPEC_VERSION.into(),
            meta: a.meta.clone(),
            humanoid: VrmcHumanoid {
                human_bones: a
                    .humanoid
                    .iter()
                    .map(|(name, node)| (name.clone(), VrmcHumanBone { node: *node }))
                    .collect(),
            },
        };
        ext.others.insert(VRMC_VRM_EXT.into(), to_value(&vrm)?);
        used.push(VRMC_VRM_EXT.into());
    }
    if !ext.others.is_empty() {
        root.extensions = Some(ext);
    }
    used.sort();
    root.extensions_used = used;

    let text = root.to_vec().map_err(|e| VrmError::Json(e.to_string()))?;
    Ok(super::glb::pack(&text, &bin))
}

/// The `VRMC_springBone` object: the VRM springs as they are, then Pelt's anchored chains
/// converted (their colliders and groups after the VRM ones). Returns it and the spring
/// index of each converted chain.
fn vrmc_springs(
    rig: &VrmSpringRig,
    body: &RiggedBody,
) -> Result<(VrmcSpringBone, Vec<usize>), VrmError> {
    let sk = &rig.skeleton;
    let mut vrmc = VrmcSpringBone {
        spec_version: VRM_SPEC_VERSION.into(),
        colliders: Bounded::default(),
        collider_groups: Bounded::default(),
        springs: Bounded::default(),
    };
    for c in &rig.colliders {
        vrmc.colliders.0.push(vrmc_collider(c.node, &c.shape));
    }
    for g in &rig.groups {
        vrmc.collider_groups.0.push(VrmcColliderGroup {
            name: Some(g.name.clone()),
            colliders: g.colliders.clone().into(),
        });
    }
    for c in &rig.chains {
        let mut joints: Vec<VrmcJoint> = c
            .joints
            .iter()
            .map(|j| VrmcJoint {
                node: j.node,
                hit_radius: j.hit_radius,
                stiffness: j.stiffness,
                gravity_power: j.gravity_power,
                gravity_dir: j.gravity_dir.to_array(),
                drag_force: j.drag_force,
            })
            .collect();
        // The end node closes the chain; its parameters are unused, copied from the last.
        let ChainEnd::Node(end) = c.end else {
            return Err(VrmError::BadRig(format!(
                "chain `{}` has no end node",
                c.name
            )));
        };
        let mut last = joints[joints.len() - 1].clone();
        last.node = end;
        joints.push(last);
        vrmc.springs.0.push(VrmcSpring {
            name: Some(c.name.clone()),
            joints: joints.into(),
            collider_groups: c.collider_groups.clone().into(),
            center: c.center,
        });
    }
    // Anchored chains, approximated.
    let anchored = &body.chains;
    let collider_base = vrmc.colliders.len();
    let group_base = vrmc.collider_groups.len();
    let node_of = |name: &str| {
        sk.index_of(name)
            .ok_or_else(|| VrmError::BadRig(format!("`{name}` is not a node of the skeleton")))
    };
    for c in &anchored.colliders {
        let shape = match c.shape {
            ColliderShape::Sphere { offset, radius } => VrmColliderShape::sphere(offset, radius),
            ColliderShape::Capsule {
                offset,
                tail,
                radius,
            } => VrmColliderShape::capsule(offset, tail, radius),
        };
        vrmc.colliders
            .0
            .push(vrmc_collider(node_of(&c.bone)?, &shape));
    }
    for g in &anchored.groups {
        vrmc.collider_groups.0.push(VrmcColliderGroup {
            name: Some(g.name.clone()),
            colliders: g
                .colliders
                .iter()
                .map(|&i| i + collider_base)
                .collect::<Vec<_>>()
                .into(),
        });
    }
    let mut approximations = Vec::new();
    for c in &anchored.chains {
        let lengths = c.segment_lengths();
        let joints = c
            .joints
            .iter()
            .enumerate()
            .map(|(i, j)| {
                // Joint i's bone runs to joint i+1; the end point reuses the last length.
                let len = lengths
                    .get(i + 1)
                    .or(lengths.last())
                    .copied()
                    .unwrap_or(0.1);
                let p = to_vrm(&c.settings, len);
                Ok(VrmcJoint {
                    node: node_of(&j.name)?,
                    hit_radius: p.hit_radius,
                    stiffness: p.stiffness,
                    gravity_power: p.gravity_power,
                    gravity_dir: p.gravity_dir.to_array(),
                    drag_force: p.drag_force,
                })
            })
            .collect::<Result<Vec<_>, VrmError>>()?;
        approximations.push(vrmc.springs.len());
        vrmc.springs.0.push(VrmcSpring {
            name: Some(c.name.clone()),
            joints: joints.into(),
            collider_groups: c
                .collider_groups
                .iter()
                .map(|&g| g + group_base)
                .collect::<Vec<_>>()
                .into(),
            center: None,
        });
    }
    Ok((vrmc, approximations))
}

/// `PELT_spring_chains` for the body's anchored chains.
fn pelt_record(body: &RiggedBody, approximations: Vec<usize>) -> Result<PeltRecord, VrmError> {
    let sk = &body.springs.skeleton;
    let node_of = |name: &str| {
        sk.index_of(name)
            .ok_or_else(|| VrmError::BadRig(format!("`{name}` is not a node of the skeleton")))
    };
    let rig = &body.chains;
    let mut record = PeltRecord {
        version: PELT_VERSION,
        chains: Bounded::default(),
        colliders: Bounded::default(),
        collider_groups: Bounded::default(),
        vrmc_springs: Some(approximations.into()),
    };
    for c in &rig.colliders {
        let (offset, tail, radius) = match c.shape {
            ColliderShape::Sphere { offset, radius } => (offset, None, radius),
            ColliderShape::Capsule {
                offset,
                tail,
                radius,
            } => (offset, Some(tail.to_array()), radius),
        };
        record.colliders.0.push(PeltCollider {
            bone: c.bone.clone(),
            node: node_of(&c.bone)?,
            offset: offset.to_array(),
            tail,
            radius,
        });
    }
    for g in &rig.groups {
        record.collider_groups.0.push(PeltGroup {
            name: g.name.clone(),
            colliders: g.colliders.clone().into(),
        });
    }
    for c in &rig.chains {
        record.chains.0.push(PeltChain {
            name: c.name.clone(),
            anchor: c.anchor.clone(),
            joints: c
                .joints
                .iter()
                .map(|j| {
                    Ok(PeltJoint {
                        name: j.name.clone(),
                        node: node_of(&j.name)?,
                        offset: j.offset.to_array(),
                    })
                })
                .collect::<Result<Vec<_>, VrmError>>()?
                .into(),
            stiffness: c.settings.stiffness,
            damping: c.settings.damping,
            gravity: c.settings.gravity.to_array(),
            radius: c.settings.radius,
            collider_groups: c.collider_groups.clone().into(),
        });
    }
    Ok(record)
}
