//! `RiggedBody`: bones, a skinned mesh and springs, what [`super::write_glb`] writes; and
//! the creature's rigged body (body ellipsoid plus a tube around the tail).

use glam::Vec3;

use crate::creature::Creature;
use crate::spring::SpringRig;
use crate::spring::SpringSettings;
use crate::spring::creature_tail::{BODY_BONE, TAIL_BONES, creature_spring_rig, tail_joint_names};

/// A bone (glTF node) at rest: rest rotations are the identity.
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// Unique name.
    pub name: String,
    /// Index of the parent bone; parents come before their children.
    pub parent: Option<usize>,
    /// Translation relative to the parent, metres.
    pub translation: Vec3,
}

/// A triangle mesh skinned to the bones (up to four bones a vertex).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkinnedMesh {
    /// Vertex positions at rest, world space.
    pub positions: Vec<Vec3>,
    /// Unit normals.
    pub normals: Vec<Vec3>,
    /// Bone indices per vertex.
    pub joints: Vec<[u16; 4]>,
    /// Bone weights per vertex (sum 1).
    pub weights: Vec<[f32; 4]>,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// Base colour, linear RGBA.
    pub color: [f32; 4],
}

/// Everything one exported file holds.
#[derive(Debug, Clone, PartialEq)]
pub struct RiggedBody {
    /// Bones, parents first.
    pub bones: Vec<Bone>,
    /// The skinned mesh.
    pub mesh: SkinnedMesh,
    /// The springs, referring to bones by name.
    pub springs: SpringRig,
    /// Text for `asset.generator`.
    pub generator: String,
}

impl RiggedBody {
    /// Rest world positions of the bones (rest rotations are the identity).
    pub fn rest_world(&self) -> Vec<Vec3> {
        let mut out: Vec<Vec3> = Vec::with_capacity(self.bones.len());
        for b in &self.bones {
            let base = b
                .parent
                .and_then(|p| out.get(p).copied())
                .unwrap_or(Vec3::ZERO);
            out.push(base + b.translation);
        }
        out
    }

    /// Index of the bone called `name`.
    pub fn bone_index(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }
}

/// The main coat colour `#f2903b` in linear RGB.
const COAT: [f32; 4] = [0.888, 0.279, 0.044, 1.0];

/// The creature's rigged body: a root, the body bone, the tail bones and end point, a mesh
/// of the body ellipsoid and a tube around the tail's centerline, and the tail's spring.
pub fn creature_body(creature: &Creature, settings: SpringSettings, seed: u64) -> RiggedBody {
    let springs = creature_spring_rig(creature, settings);
    let mut bones = vec![
        Bone {
            name: "creature".into(),
            parent: None,
            translation: Vec3::ZERO,
        },
        Bone {
            name: BODY_BONE.into(),
            parent: Some(0),
            translation: creature.body.center,
        },
    ];
    if let Some(chain) = springs.chains.first() {
        for (i, j) in chain.joints.iter().enumerate() {
            bones.push(Bone {
                name: j.name.clone(),
                parent: Some(1 + i),
                translation: j.offset,
            });
        }
    }
    let mut mesh = SkinnedMesh {
        color: COAT,
        ..Default::default()
    };
    add_ellipsoid(&mut mesh, creature, 1);
    add_tail_tube(&mut mesh, creature, 2);
    debug_assert_eq!(tail_joint_names().len(), TAIL_BONES + 1);
    RiggedBody {
        bones,
        mesh,
        springs,
        generator: format!("pelt {} (seed {seed})", env!("CARGO_PKG_VERSION")),
    }
}

fn add_ellipsoid(mesh: &mut SkinnedMesh, creature: &Creature, bone: u16) {
    const RINGS: u32 = 12;
    const SEGS: u32 = 16;
    let c = creature.body.center;
    let r = creature.body.radii;
    let base = mesh.positions.len() as u32;
    for i in 0..=RINGS {
        let theta = std::f32::consts::PI * i as f32 / RINGS as f32;
        for j in 0..=SEGS {
            let phi = std::f32::consts::TAU * j as f32 / SEGS as f32;
            let u = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            mesh.positions.push(c + u * r);
            mesh.normals.push((u / r).normalize_or(Vec3::Y));
            mesh.joints.push([bone, 0, 0, 0]);
            mesh.weights.push([1.0, 0.0, 0.0, 0.0]);
        }
    }
    grid_indices(mesh, base, RINGS, SEGS);
}

fn add_tail_tube(mesh: &mut SkinnedMesh, creature: &Creature, first_tail_bone: u16) {
    const RINGS: u32 = 30;
    const SEGS: u32 = 12;
    let tail = &creature.tail;
    let base = mesh.positions.len() as u32;
    let mut normal_ref = Vec3::Y;
    for i in 0..=RINGS {
        let t = i as f32 / RINGS as f32;
        let p = tail.centerline(t);
        let e = 1.0e-3;
        let tangent = (tail.centerline((t + e).min(1.0)) - tail.centerline((t - e).max(0.0)))
            .normalize_or(Vec3::NEG_Z);
        // Parallel transport of a reference normal keeps the rings from twisting.
        let n = (normal_ref - tangent * normal_ref.dot(tangent))
            .normalize_or(tangent.any_orthonormal_vector());
        normal_ref = n;
        let b = tangent.cross(n);
        let radius = tail.radius(t).max(1.0e-3);
        // Blend between neighbouring bones around each joint.
        let u = t * TAIL_BONES as f32 - 0.5;
        let (j, w) = if u <= 0.0 {
            ([0u16, 0], [1.0, 0.0])
        } else if u >= (TAIL_BONES - 1) as f32 {
            ([(TAIL_BONES - 1) as u16, 0], [1.0, 0.0])
        } else {
            let b0 = u.floor();
            let f = u - b0;
            ([b0 as u16, b0 as u16 + 1], [1.0 - f, f])
        };
        for s in 0..=SEGS {
            let a = std::f32::consts::TAU * s as f32 / SEGS as f32;
            let dir = n * a.cos() + b * a.sin();
            mesh.positions.push(p + dir * radius);
            mesh.normals.push(dir);
            if w[1] > 0.0 {
                mesh.joints
                    .push([first_tail_bone + j[0], first_tail_bone + j[1], 0, 0]);
                mesh.weights.push([w[0], w[1], 0.0, 0.0]);
            } else {
                mesh.joints.push([first_tail_bone + j[0], 0, 0, 0]);
                mesh.weights.push([1.0, 0.0, 0.0, 0.0]);
            }
        }
    }
    grid_indices(mesh, base, RINGS, SEGS);
}

/// Two triangles per quad of a (rings+1)×(segs+1) vertex grid.
fn grid_indices(mesh: &mut SkinnedMesh, base: u32, rings: u32, segs: u32) {
    let row = segs + 1;
    for i in 0..rings {
        for j in 0..segs {
            let a = base + i * row + j;
            let b = a + row;
            mesh.indices
                .extend_from_slice(&[a, a + 1, b, a + 1, b + 1, b]);
        }
    }
}
