//! A rigged, skinned body with springs, in no file format: a skeleton with springs under
//! VRM's spring rule and their colliders, Pelt's anchored chains, an optional skinned mesh
//! and an optional avatar description (meta and humanoid map). The creature builds one
//! ([`crate::creature::creature_body`]); [`crate::vrm::write_glb`] writes one.

use glam::Vec3;
use serde::Serialize;

use crate::spring::{SpringRig, VrmSpringRig};

/// A triangle mesh skinned to the skeleton's nodes (up to four a vertex).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkinnedMesh {
    /// Vertex positions at rest, in the scene's space.
    pub positions: Vec<Vec3>,
    /// Unit normals.
    pub normals: Vec<Vec3>,
    /// Node indices per vertex.
    pub joints: Vec<[u16; 4]>,
    /// Weights per vertex (normalised to sum 1 on writing).
    pub weights: Vec<[f32; 4]>,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// Base colour, linear RGBA: the material's factor.
    pub color: [f32; 4],
    /// Per-vertex linear RGBA (glTF's `COLOR_0`, which multiplies `color`), or empty for
    /// none.
    pub colors: Vec<[f32; 4]>,
    /// Further pieces of the same mesh, each with its own material (a file writes each as
    /// a primitive of its own after this one, the "coat"), skinned to the same skeleton.
    pub parts: Vec<MeshPart>,
}

/// A piece of a [`SkinnedMesh`] with its own vertices and material: the creature's eyes
/// and nose, so a reader can tell them from the coat by the material's name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshPart {
    /// The material's name, as a user reads it in a viewer (`eyes`, `nose`).
    pub material: String,
    /// Base colour, linear RGBA: the material's factor.
    pub color: [f32; 4],
    /// Vertex positions at rest, in the scene's space.
    pub positions: Vec<Vec3>,
    /// Unit normals.
    pub normals: Vec<Vec3>,
    /// Node indices per vertex.
    pub joints: Vec<[u16; 4]>,
    /// Weights per vertex (normalised to sum 1 on writing).
    pub weights: Vec<[f32; 4]>,
    /// Triangle list, indices into this part's vertices.
    pub indices: Vec<u32>,
}

/// The human bones an [`Avatar`]'s humanoid may map, VRM 1.0's (the most widely read
/// humanoid definition), each with the bone it hangs below (the nearest one present in a
/// model counts, optional ones may be skipped).
pub const HUMAN_BONES: &[(&str, Option<&str>)] = &[
    ("hips", None),
    ("spine", Some("hips")),
    ("chest", Some("spine")),
    ("upperChest", Some("chest")),
    ("neck", Some("upperChest")),
    ("head", Some("neck")),
    ("leftEye", Some("head")),
    ("rightEye", Some("head")),
    ("jaw", Some("head")),
    ("leftUpperLeg", Some("hips")),
    ("leftLowerLeg", Some("leftUpperLeg")),
    ("leftFoot", Some("leftLowerLeg")),
    ("leftToes", Some("leftFoot")),
    ("rightUpperLeg", Some("hips")),
    ("rightLowerLeg", Some("rightUpperLeg")),
    ("rightFoot", Some("rightLowerLeg")),
    ("rightToes", Some("rightFoot")),
    ("leftShoulder", Some("upperChest")),
    ("leftUpperArm", Some("leftShoulder")),
    ("leftLowerArm", Some("leftUpperArm")),
    ("leftHand", Some("leftLowerArm")),
    ("rightShoulder", Some("upperChest")),
    ("rightUpperArm", Some("rightShoulder")),
    ("rightLowerArm", Some("rightUpperArm")),
    ("rightHand", Some("rightLowerArm")),
];

/// The human bones every humanoid must map (a VRM 1.0 loader refuses one without them).
pub const REQUIRED_HUMAN_BONES: &[&str] = &[
    "hips",
    "spine",
    "head",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
];

/// Who made the model and what others may do with it: VRM 1.0's license fields (the most
/// detailed avatar license there is), spelled as that specification spells their values.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AvatarMeta {
    /// Model name.
    pub name: String,
    /// Model version.
    pub version: String,
    /// Authors (at least one).
    pub authors: Vec<String>,
    /// Copyright line.
    pub copyright_information: String,
    /// URL of the license the model is offered under (VRM Public License 1.0 by default).
    pub license_url: String,
    /// `onlyAuthor`, `onlySeparatelyLicensedPerson` or `everyone`.
    pub avatar_permission: String,
    /// Whether excessively violent use is allowed.
    pub allow_excessively_violent_usage: bool,
    /// Whether excessively sexual use is allowed.
    pub allow_excessively_sexual_usage: bool,
    /// `personalNonProfit`, `personalProfit` or `corporation`.
    pub commercial_usage: String,
    /// Whether political or religious use is allowed.
    pub allow_political_or_religious_usage: bool,
    /// Whether antisocial or hateful use is allowed.
    pub allow_antisocial_or_hate_usage: bool,
    /// `required` or `unnecessary`.
    pub credit_notation: String,
    /// Whether redistribution is allowed.
    pub allow_redistribution: bool,
    /// `prohibited`, `allowModification` or `allowModificationRedistribution`.
    pub modification: String,
}

impl AvatarMeta {
    /// Pelt's own models: VRM Public License 1.0, anyone may use them, credit not needed,
    /// redistribution and modification allowed, the sensitive uses not allowed.
    pub fn pelt(name: &str) -> Self {
        Self {
            name: name.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            authors: vec!["Pelt".into()],
            copyright_information: "Generated by Pelt".into(),
            license_url: "https://vrm.dev/licenses/1.0/".into(),
            avatar_permission: "everyone".into(),
            allow_excessively_violent_usage: false,
            allow_excessively_sexual_usage: false,
            commercial_usage: "corporation".into(),
            allow_political_or_religious_usage: false,
            allow_antisocial_or_hate_usage: false,
            credit_notation: "unnecessary".into(),
            allow_redistribution: true,
            modification: "allowModificationRedistribution".into(),
        }
    }
}

/// An avatar description: meta plus the map from human bones to nodes (a VRM writer makes
/// the file a full VRM 1.0 avatar with it).
#[derive(Debug, Clone, PartialEq)]
pub struct Avatar {
    /// License and authorship.
    pub meta: AvatarMeta,
    /// `(human bone name, node index)`, each human bone at most once; the names are VRM
    /// 1.0's (Unity's humanoid names, lower camel case: `hips`, `leftUpperArm`, …).
    pub humanoid: Vec<(String, usize)>,
}

/// A rigged, skinned body with springs: everything one written file holds.
#[derive(Debug, Clone, PartialEq)]
pub struct RiggedBody {
    /// The skeleton (every node of the file), its springs under VRM's spring rule and
    /// their colliders (a VRM file keeps them per joint, exactly).
    pub springs: VrmSpringRig,
    /// Pelt's anchored chains on the skeleton's nodes (by name; their joints must be
    /// consecutive children with identity rest rotation and unit scale, each joint's offset
    /// its node's translation). A VRM file keeps them exactly in `PELT_spring_chains` and
    /// approximately in `VRMC_springBone` (see [`crate::vrm::convert`]).
    pub chains: SpringRig,
    /// A skinned mesh, if any.
    pub mesh: Option<SkinnedMesh>,
    /// With it, a VRM file is a full VRM 1.0 avatar (`VRMC_vrm`).
    pub avatar: Option<Avatar>,
    /// What made the body (a glTF file's `asset.generator`).
    pub generator: String,
}
