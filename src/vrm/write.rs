//! `write_glb`: a rigged body as a glTF 2.0 binary with `VRMC_springBone` 1.0 and
//! `PELT_spring_chains`, built with the `gltf-json` crate.

use std::collections::{BTreeMap, HashMap, HashSet};

use glam::{Mat4, Vec3};
use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;

use super::VrmError;
use super::body::RiggedBody;
use super::convert::to_vrm;
use super::ext::{
    PELT_EXT, PELT_VERSION, PeltChain, PeltCollider, PeltGroup, PeltJoint, PeltRecord, VRMC_EXT,
    VrmcCapsule, VrmcCollider, VrmcColliderGroup, VrmcJoint, VrmcShape, VrmcSphere, VrmcSpring,
    VrmcSpringBone,
};
use crate::spring::ColliderShape;

/// Checks the rig is consistent: parents before children, unique names, the mesh in range,
/// every chain's joints consecutive children of its anchor with offsets equal to the bones'
/// translations, every collider on a bone.
pub fn validate_body(body: &RiggedBody) -> Result<(), VrmError> {
    let bad = |m: String| Err(VrmError::BadRig(m));
    let mut names = HashSet::new();
    for (i, b) in body.bones.iter().enumerate() {
        if b.name.is_empty() || !names.insert(b.name.as_str()) {
            return bad(format!(
                "bone {i} has an empty or duplicate name `{}`",
                b.name
            ));
        }
        if b.parent.is_some_and(|p| p >= i) {
            return bad(format!("bone `{}` must come after its parent", b.name));
        }
        if !b.translation.is_finite() {
            return bad(format!("bone `{}` has a non-finite translation", b.name));
        }
    }
    let m = &body.mesh;
    let n = m.positions.len();
    if n == 0
        || m.normals.len() != n
        || m.joints.len() != n
        || m.weights.len() != n
        || m.indices.is_empty()
        || !m.indices.len().is_multiple_of(3)
    {
        return bad("mesh attributes differ in length, or there are no triangles".into());
    }
    if m.indices.iter().any(|&i| i as usize >= n) {
        return bad("a mesh index is past the last vertex".into());
    }
    if m.joints
        .iter()
        .flatten()
        .any(|&j| j as usize >= body.bones.len())
    {
        return bad("a vertex refers to a bone that does not exist".into());
    }
    if m.positions.iter().chain(&m.normals).any(|p| !p.is_finite())
        || m.weights
            .iter()
            .flatten()
            .any(|w| !w.is_finite() || *w < 0.0)
    {
        return bad("the mesh has non-finite positions, normals or weights".into());
    }
    body.springs.validate()?;
    for c in &body.springs.chains {
        let mut parent = body.bone_index(&c.anchor).ok_or_else(|| {
            VrmError::BadRig(format!("chain `{}`: no anchor `{}`", c.name, c.anchor))
        })?;
        for j in &c.joints {
            let i = body.bone_index(&j.name).ok_or_else(|| {
                VrmError::BadRig(format!("chain `{}`: no bone `{}`", c.name, j.name))
            })?;
            if body.bones[i].parent != Some(parent) {
                return bad(format!(
                    "chain `{}`: bone `{}` is not the child of the joint before it",
                    c.name, j.name
                ));
            }
            if body.bones[i].translation.to_array() != j.offset.to_array() {
                return bad(format!(
                    "chain `{}`: joint `{}` offset differs from the bone's translation",
                    c.name, j.name
                ));
            }
            parent = i;
        }
    }
    for c in &body.springs.colliders {
        if body.bone_index(&c.bone).is_none() {
            return bad(format!(
                "a collider is on `{}`, which is not a bone",
                c.bone
            ));
        }
    }
    Ok(())
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

#[allow(clippy::too_many_arguments)]
fn push_accessor(
    root: &mut json::Root,
    view: json::Index<json::buffer::View>,
    count: usize,
    component: json::accessor::ComponentType,
    type_: json::accessor::Type,
    min: Option<serde_json::Value>,
    max: Option<serde_json::Value>,
) -> json::Index<json::accessor::Accessor> {
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

/// Writes `body` as GLB bytes: nodes for every bone (consecutive joints parent and child,
/// the end point included so the last real bone rotates), a skinned mesh, a material, and
/// both spring extensions (`VRMC_springBone` with every joint parameter written, and
/// `PELT_spring_chains` with our exact chains), both listed in `extensionsUsed`.
pub fn write_glb(body: &RiggedBody) -> Result<Vec<u8>, VrmError> {
    use json::accessor::{ComponentType as C, Type as T};
    validate_body(body)?;
    let mut root = json::Root {
        asset: json::Asset {
            generator: Some(body.generator.clone()),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut bin: Vec<u8> = Vec::new();
    let m = &body.mesh;
    let n = m.positions.len();

    // Vertex data.
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for p in &m.positions {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let pos_bytes: Vec<u8> = bytemuck::cast_slice(&m.positions).to_vec();
    let v = push_view(
        &mut root,
        &mut bin,
        &pos_bytes,
        Some(json::buffer::Target::ArrayBuffer),
    );
    let positions = push_accessor(
        &mut root,
        v,
        n,
        C::F32,
        T::Vec3,
        Some(serde_json::json!(lo.to_array())),
        Some(serde_json::json!(hi.to_array())),
    );
    let normals: Vec<Vec3> = m.normals.iter().map(|v| v.normalize_or(Vec3::Y)).collect();
    let v = push_view(
        &mut root,
        &mut bin,
        bytemuck::cast_slice(&normals),
        Some(json::buffer::Target::ArrayBuffer),
    );
    let normals = push_accessor(&mut root, v, n, C::F32, T::Vec3, None, None);
    let v = push_view(
        &mut root,
        &mut bin,
        bytemuck::cast_slice(&m.joints),
        Some(json::buffer::Target::ArrayBuffer),
    );
    let joints = push_accessor(&mut root, v, n, C::U16, T::Vec4, None, None);
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
    let v = push_view(
        &mut root,
        &mut bin,
        bytemuck::cast_slice(&weights),
        Some(json::buffer::Target::ArrayBuffer),
    );
    let weights = push_accessor(&mut root, v, n, C::F32, T::Vec4, None, None);
    let v = push_view(
        &mut root,
        &mut bin,
        bytemuck::cast_slice(&m.indices),
        Some(json::buffer::Target::ElementArrayBuffer),
    );
    let indices = push_accessor(&mut root, v, m.indices.len(), C::U32, T::Scalar, None, None);

    // Bones.
    let rest = body.rest_world();
    let ibm: Vec<[f32; 16]> = rest
        .iter()
        .map(|p| Mat4::from_translation(-*p).to_cols_array())
        .collect();
    let v = push_view(&mut root, &mut bin, bytemuck::cast_slice(&ibm), None);
    let ibm = push_accessor(&mut root, v, ibm.len(), C::F32, T::Mat4, None, None);
    let mut children: Vec<Vec<json::Index<json::Node>>> = vec![Vec::new(); body.bones.len()];
    for (i, b) in body.bones.iter().enumerate() {
        if let Some(p) = b.parent {
            children[p].push(json::Index::new(i as u32));
        }
    }
    for (b, kids) in body.bones.iter().zip(children) {
        root.push(json::Node {
            name: Some(b.name.clone()),
            translation: (b.translation != Vec3::ZERO).then(|| b.translation.to_array()),
            children: (!kids.is_empty()).then_some(kids),
            ..Default::default()
        });
    }
    let material = root.push(json::Material {
        name: Some("coat".into()),
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
    let mesh = root.push(json::Mesh {
        name: Some("creature".into()),
        primitives: vec![json::mesh::Primitive {
            attributes,
            indices: Some(indices),
            material: Some(material),
            mode: Valid(json::mesh::Mode::Triangles),
            targets: None,
            extensions: None,
            extras: Default::default(),
        }],
        weights: None,
        extensions: None,
        extras: Default::default(),
    });
    let skin = root.push(json::Skin {
        inverse_bind_matrices: Some(ibm),
        joints: (0..body.bones.len() as u32).map(json::Index::new).collect(),
        name: Some("skeleton".into()),
        skeleton: None,
        extensions: None,
        extras: Default::default(),
    });
    let mesh_node = root.push(json::Node {
        name: Some("creature_mesh".into()),
        mesh: Some(mesh),
        skin: Some(skin),
        ..Default::default()
    });
    let mut scene_nodes: Vec<json::Index<json::Node>> = body
        .bones
        .iter()
        .enumerate()
        .filter(|(_, b)| b.parent.is_none())
        .map(|(i, _)| json::Index::new(i as u32))
        .collect();
    scene_nodes.push(mesh_node);
    let scene = root.push(json::Scene {
        name: Some("creature".into()),
        nodes: scene_nodes,
        extensions: None,
        extras: Default::default(),
    });
    root.scene = Some(scene);
    root.push(json::Buffer {
        byte_length: USize64::from(bin.len()),
        name: None,
        uri: None,
        extensions: None,
        extras: Default::default(),
    });

    // Springs.
    let index: HashMap<&str, usize> = body
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.as_str(), i))
        .collect();
    let node_of = |name: &str| index.get(name).copied().unwrap_or(0);
    let rig = &body.springs;
    let mut vrmc = VrmcSpringBone {
        spec_version: "1.0".into(),
        ..Default::default()
    };
    let mut pelt = PeltRecord {
        version: PELT_VERSION,
        chains: Vec::new(),
        colliders: Vec::new(),
        collider_groups: Vec::new(),
    };
    for c in &rig.colliders {
        let node = node_of(&c.bone);
        let (shape, pc) = match c.shape {
            ColliderShape::Sphere { offset, radius } => (
                VrmcShape {
                    sphere: Some(VrmcSphere {
                        offset: offset.to_array(),
                        radius,
                    }),
                    capsule: None,
                },
                PeltCollider {
                    bone: c.bone.clone(),
                    node,
                    offset: offset.to_array(),
                    tail: None,
                    radius,
                },
            ),
            ColliderShape::Capsule {
                offset,
                tail,
                radius,
            } => (
                VrmcShape {
                    sphere: None,
                    capsule: Some(VrmcCapsule {
                        offset: offset.to_array(),
                        radius,
                        tail: tail.to_array(),
                    }),
                },
                PeltCollider {
                    bone: c.bone.clone(),
                    node,
                    offset: offset.to_array(),
                    tail: Some(tail.to_array()),
                    radius,
                },
            ),
        };
        vrmc.colliders.push(VrmcCollider { node, shape });
        pelt.colliders.push(pc);
    }
    for g in &rig.groups {
        vrmc.collider_groups.push(VrmcColliderGroup {
            name: Some(g.name.clone()),
            colliders: g.colliders.clone(),
        });
        pelt.collider_groups.push(PeltGroup {
            name: g.name.clone(),
            colliders: g.colliders.clone(),
        });
    }
    for c in &rig.chains {
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
                VrmcJoint {
                    node: node_of(&j.name),
                    hit_radius: p.hit_radius,
                    stiffness: p.stiffness,
                    gravity_power: p.gravity_power,
                    gravity_dir: p.gravity_dir.to_array(),
                    drag_force: p.drag_force,
                }
            })
            .collect();
        vrmc.springs.push(VrmcSpring {
            name: Some(c.name.clone()),
            joints,
            collider_groups: c.collider_groups.clone(),
            center: None,
        });
        pelt.chains.push(PeltChain {
            name: c.name.clone(),
            anchor: c.anchor.clone(),
            joints: c
                .joints
                .iter()
                .map(|j| PeltJoint {
                    name: j.name.clone(),
                    node: node_of(&j.name),
                    offset: j.offset.to_array(),
                })
                .collect(),
            stiffness: c.settings.stiffness,
            damping: c.settings.damping,
            gravity: c.settings.gravity.to_array(),
            radius: c.settings.radius,
            collider_groups: c.collider_groups.clone(),
        });
    }
    let mut ext = json::extensions::Root::default();
    ext.others.insert(VRMC_EXT.into(), to_value(&vrmc)?);
    ext.others.insert(PELT_EXT.into(), to_value(&pelt)?);
    root.extensions = Some(ext);
    root.extensions_used = vec![VRMC_EXT.into(), PELT_EXT.into()];

    let text = root.to_vec().map_err(|e| VrmError::Json(e.to_string()))?;
    Ok(super::glb::pack(&text, &bin))
}
