//! Every triangle primitive of the meshes the file shows, gathered into one [`BodyMesh`] in
//! bind space (before the fit): a skinned primitive keeps its positions (glTF's bind space)
//! and its `JOINTS_0`/`WEIGHTS_0`; an unskinned one is placed by its node's rest world
//! matrix and rides that node as a joint of its own.

use glam::{Mat3, Mat4, Vec2, Vec3, Vec4};

use super::accessor;
use super::gltf_read::Source;
use super::limits::{MAX_MATERIALS, MAX_TRIANGLES, MAX_VERTICES};
use super::mesh::{BodyMesh, JOINTS_PER_VERTEX};
use super::nodes::NodeTree;
use super::skin::Joints;

/// The meshes read, and what the texture step needs besides.
pub struct Gathered {
    /// The surface in bind space (unfitted); texture and joint fields filled later.
    pub mesh: BodyMesh,
    /// Each vertex's material (an index into `mesh.material_names`).
    pub vertex_materials: Vec<u16>,
    /// For each material: the image of its base colour texture, if any.
    pub material_images: Vec<Option<usize>>,
    /// Primitives skipped: points or lines, or a node scaled to nothing at rest.
    pub skipped: usize,
}

/// Reads the triangles of every mesh on a node of the shown scene.
pub fn gather(source: &Source, tree: &NodeTree, joints: &mut Joints) -> Result<Gathered, String> {
    let doc = &source.document;
    let materials: Vec<gltf::Material> = doc.materials().collect();
    if materials.len() >= MAX_MATERIALS {
        return Err(format!(
            "it has {} materials, more than Pelt reads ({})",
            materials.len(),
            MAX_MATERIALS - 1
        ));
    }
    let mut out = Gathered {
        mesh: BodyMesh::default(),
        vertex_materials: Vec::new(),
        material_images: Vec::new(),
        skipped: 0,
    };
    for m in &materials {
        out.mesh
            .material_names
            .push(m.name().unwrap_or("").to_string());
        let info = m.pbr_metallic_roughness().base_color_texture();
        let image = info.and_then(|t| {
            let texture = doc.as_json().textures.get(t.texture().index())?;
            Some(texture.source.value())
        });
        out.material_images.push(image);
    }
    // Primitives without a material use glTF's default one, named "" after the file's.
    let default_material = materials.len() as u16;
    let mut default_used = false;
    let shown = tree.shown(doc);
    let rest_world = tree.rest_world();
    for node in doc.nodes() {
        let Some(mesh) = node.mesh() else { continue };
        if !shown[node.index()] {
            continue;
        }
        let skin = node.skin().map(|s| s.index());
        let world = rest_world[node.index()];
        for primitive in mesh.primitives() {
            let what = format!("mesh {} primitive {}", mesh.index(), primitive.index());
            let material = match primitive.material().index() {
                Some(i) => i as u16,
                None => {
                    default_used = true;
                    default_material
                }
            };
            let skinned = skin.filter(|_| primitive.get(&gltf::Semantic::Joints(0)).is_some());
            let rigid = if skinned.is_some() {
                None
            } else {
                if world.determinant().abs() < 1e-12 || !world.is_finite() {
                    out.skipped += 1;
                    continue;
                }
                Some(world)
            };
            let added = add_primitive(
                source,
                &primitive,
                skinned,
                rigid,
                node.index(),
                joints,
                material,
                &mut out,
            )
            .map_err(|e| format!("{what}: {e}"))?;
            if !added {
                out.skipped += 1;
            }
        }
    }
    if default_used {
        out.mesh.material_names.push(String::new());
        out.material_images.push(None);
    }
    if out.mesh.triangles.is_empty() {
        return Err(
            "it has no triangles on the nodes of its scene (a body needs a triangle mesh)".into(),
        );
    }
    Ok(out)
}

/// Appends one primitive; false when it has no triangles to add (points, lines).
#[allow(clippy::too_many_arguments)]
fn add_primitive(
    source: &Source,
    primitive: &gltf::Primitive,
    skin: Option<usize>,
    rigid: Option<Mat4>,
    node: usize,
    joints: &mut Joints,
    material: u16,
    out: &mut Gathered,
) -> Result<bool, String> {
    use gltf::mesh::Mode;
    let mode = primitive.mode();
    if !matches!(
        mode,
        Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
    ) {
        return Ok(false);
    }
    let mesh = &mut out.mesh;
    let base = mesh.positions.len();
    let room = MAX_VERTICES - base;
    let get = |s: gltf::Semantic| primitive.get(&s);
    let positions_acc = get(gltf::Semantic::Positions).ok_or("it has no POSITION")?;
    let positions = accessor::floats::<3>(source, &positions_acc, room, "POSITION")
        .map_err(|e| too_many(e, "vertices", MAX_VERTICES))?;
    let n = positions.len();
    let check_len = |len: usize, name: &str| {
        if len == n {
            Ok(())
        } else {
            Err(format!("{name} has {len} elements for {n} positions"))
        }
    };
    let normals = match get(gltf::Semantic::Normals) {
        Some(a) => {
            let v = accessor::floats::<3>(source, &a, n, "NORMAL")?;
            check_len(v.len(), "NORMAL")?;
            Some(v)
        }
        None => None,
    };
    let set = primitive
        .material()
        .pbr_metallic_roughness()
        .base_color_texture()
        .map_or(0, |t| t.tex_coord());
    let uvs = match get(gltf::Semantic::TexCoords(set)) {
        Some(a) => {
            let v = accessor::floats::<2>(source, &a, n, "TEXCOORD")?;
            check_len(v.len(), "TEXCOORD")?;
            v
        }
        None => vec![[0.0; 2]; n],
    };
    let colors = match get(gltf::Semantic::Colors(0)) {
        Some(a) => {
            let v = accessor::colors(source, &a, n)?;
            check_len(v.len(), "COLOR_0")?;
            v
        }
        None => vec![[1.0; 4]; n],
    };
    let factor = Vec4::from(
        primitive
            .material()
            .pbr_metallic_roughness()
            .base_color_factor(),
    );
    let factor = if factor.is_finite() {
        factor
    } else {
        Vec4::ONE
    };

    // Joints and weights: the skin's, or one rigid joint for the node.
    let (vertex_joints, vertex_weights) = match (skin, rigid) {
        (Some(skin), _) => skin_weights(source, primitive, &joints.skins[skin], n)?,
        (None, Some(world)) => {
            let j = joints.add(node, world.inverse(), "a rigid mesh")?;
            (vec![[j, 0, 0, 0]; n], vec![[1.0, 0.0, 0.0, 0.0]; n])
        }
        (None, None) => return Ok(false),
    };

    // Rigid meshes are placed at their node's rest pose; skinned ones are in bind space.
    let place = rigid.unwrap_or(Mat4::IDENTITY);
    let normal_matrix = Mat3::from_mat4(place).inverse().transpose();
    let mirrored = place.determinant() < 0.0;

    let indices: Vec<u32> = match primitive.indices() {
        Some(a) => accessor::unsigned::<1>(source, &a, 3 * MAX_TRIANGLES, "indices")?
            .into_iter()
            .map(|[i]| i)
            .collect(),
        None => (0..n as u32).collect(),
    };
    let mut triangles: Vec<[u32; 3]> = match mode {
        Mode::Triangles => indices
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]])
            .collect(),
        Mode::TriangleStrip => indices
            .windows(3)
            .enumerate()
            .map(|(k, t)| {
                if k % 2 == 0 {
                    [t[0], t[1], t[2]]
                } else {
                    [t[1], t[0], t[2]]
                }
            })
            .collect(),
        _ => indices
            .get(1..)
            .unwrap_or(&[])
            .windows(2)
            .map(|t| [indices[0], t[0], t[1]])
            .collect(),
    };
    if let Some(bad) = triangles.iter().flatten().find(|&&i| i as usize >= n) {
        return Err(format!(
            "indices refer to vertex {bad} but the primitive has {n}"
        ));
    }
    if mesh.triangles.len() + triangles.len() > MAX_TRIANGLES {
        return Err(format!(
            "the body has more than {MAX_TRIANGLES} triangles, more than Pelt reads"
        ));
    }
    if mirrored {
        for t in &mut triangles {
            t.swap(1, 2);
        }
    }
    for (i, p) in positions.iter().enumerate() {
        mesh.positions.push(place.transform_point3(Vec3::from(*p)));
        mesh.uvs.push(Vec2::from(uvs[i]));
        mesh.colors.push(factor * Vec4::from(colors[i]));
        out.vertex_materials.push(material);
    }
    let first_normal = mesh.normals.len();
    match normals {
        Some(v) => mesh.normals.extend(
            v.iter()
                .map(|nm| (normal_matrix * Vec3::from(*nm)).normalize_or(Vec3::Y)),
        ),
        None => mesh
            .normals
            .extend(face_normals(&mesh.positions[base..], &triangles)),
    }
    debug_assert_eq!(mesh.normals.len() - first_normal, n);
    mesh.joints.extend(vertex_joints);
    mesh.weights.extend(vertex_weights);
    for t in triangles {
        mesh.triangles
            .push([t[0] + base as u32, t[1] + base as u32, t[2] + base as u32]);
        mesh.triangle_materials.push(material);
    }
    Ok(true)
}

/// A count error reworded for the whole body ("more than Pelt reads (N)" for all primitives).
fn too_many(e: String, what: &str, max: usize) -> String {
    if e.contains("more than Pelt reads") {
        format!("the body has more than {max} {what}, more than Pelt reads ({e})")
    } else {
        e
    }
}

/// `JOINTS_0`/`WEIGHTS_0` mapped to the body's joints, weights normalised to sum to 1.
/// A joint index past the skin's joints is an error where its weight is not zero.
#[allow(clippy::type_complexity)]
fn skin_weights(
    source: &Source,
    primitive: &gltf::Primitive,
    skin_joints: &[u16],
    n: usize,
) -> Result<(Vec<[u16; JOINTS_PER_VERTEX]>, Vec<[f32; JOINTS_PER_VERTEX]>), String> {
    let joints_acc = primitive
        .get(&gltf::Semantic::Joints(0))
        .ok_or("it has no JOINTS_0")?;
    let weights_acc = primitive
        .get(&gltf::Semantic::Weights(0))
        .ok_or("it has JOINTS_0 but no WEIGHTS_0")?;
    let js = accessor::unsigned::<4>(source, &joints_acc, n, "JOINTS_0")?;
    let ws = accessor::floats::<4>(source, &weights_acc, n, "WEIGHTS_0")?;
    if js.len() != n || ws.len() != n {
        return Err(format!(
            "JOINTS_0 and WEIGHTS_0 have {} and {} elements for {n} positions",
            js.len(),
            ws.len()
        ));
    }
    let mut out_j = Vec::with_capacity(n);
    let mut out_w = Vec::with_capacity(n);
    for (v, (j, w)) in js.iter().zip(&ws).enumerate() {
        let mut jj = [0u16; 4];
        let mut ww = [0.0f32; 4];
        for k in 0..4 {
            if w[k] < 0.0 {
                return Err(format!("WEIGHTS_0 of vertex {v} is negative ({})", w[k]));
            }
            match skin_joints.get(j[k] as usize) {
                Some(&g) => {
                    jj[k] = g;
                    ww[k] = w[k];
                }
                None if w[k] == 0.0 => jj[k] = skin_joints[0],
                None => {
                    return Err(format!(
                        "JOINTS_0 refers to joint {} but the skin has {}",
                        j[k],
                        skin_joints.len()
                    ));
                }
            }
        }
        let sum: f32 = ww.iter().sum();
        if sum > 1e-6 {
            ww.iter_mut().for_each(|x| *x /= sum);
        } else {
            // No weight at all: the vertex rides the skin's first joint.
            ww = [1.0, 0.0, 0.0, 0.0];
        }
        out_j.push(jj);
        out_w.push(ww);
    }
    Ok((out_j, out_w))
}

/// Vertex normals from the triangles (area-weighted), for a primitive without `NORMAL`.
fn face_normals(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
    let mut normals = vec![Vec3::ZERO; positions.len()];
    for t in triangles {
        let [a, b, c] = t.map(|i| positions[i as usize]);
        let n = (b - a).cross(c - a);
        for i in t {
            normals[*i as usize] += n;
        }
    }
    normals.iter().map(|n| n.normalize_or(Vec3::Y)).collect()
}
