//! The JSON schemas Pelt reads and writes: the glTF nodes, `VRMC_springBone` 1.0 with
//! `VRMC_springBone_extended_collider`, VRM 0.x's `secondaryAnimation`, `VRMC_vrm` (written
//! only) and `PELT_spring_chains`, our exact record of anchored chains. Every array kept on
//! reading is [`Bounded`].

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::bounded::Bounded;

/// Name of our extension.
pub const PELT_EXT: &str = "PELT_spring_chains";
/// Name of VRM 1.0's spring extension.
pub const VRMC_EXT: &str = "VRMC_springBone";
/// Name of the extended collider extension (inside sphere, inside capsule, plane).
pub const EXTENDED_COLLIDER_EXT: &str = "VRMC_springBone_extended_collider";
/// Name of VRM 1.0's avatar extension (meta, humanoid).
pub const VRMC_VRM_EXT: &str = "VRMC_vrm";
/// Name of VRM 0.x's root extension (which holds `secondaryAnimation`).
pub const VRM0_EXT: &str = "VRM";
/// Version of our record.
pub const PELT_VERSION: u32 = 1;
/// The `specVersion` of `VRMC_springBone`, `VRMC_vrm` and the extended colliders Pelt reads
/// and writes.
pub const VRM_SPEC_VERSION: &str = "1.0";

/// The part of a glTF document the reader uses; everything else is skipped unread.
#[derive(Debug, Deserialize)]
#[serde(expecting = "a glTF document: a JSON object")]
pub struct GltfDoc<'a> {
    /// `asset` (its `version` is checked).
    pub asset: GltfAsset,
    /// The nodes.
    #[serde(default)]
    pub nodes: Bounded<GltfNode>,
    /// `scene`: the index of the scene shown by default.
    #[serde(default)]
    pub scene: Option<usize>,
    /// `scenes`: each with its root nodes (checked to name existing root nodes).
    #[serde(default)]
    pub scenes: Bounded<GltfScene>,
    /// `extensionsUsed`.
    #[serde(default, rename = "extensionsUsed")]
    pub extensions_used: Bounded<String>,
    /// The root extensions Pelt knows, unparsed until needed.
    #[serde(default, borrow)]
    pub extensions: Option<DocExtensions<'a>>,
}

/// One of `scenes`: only its root nodes are read.
#[derive(Debug, Default, Deserialize)]
#[serde(expecting = "a scene: an object {\"nodes\": [node indices]}")]
pub struct GltfScene {
    /// The scene's root node indices.
    #[serde(default)]
    pub nodes: Bounded<usize>,
}

/// `asset`.
#[derive(Debug, Deserialize)]
#[serde(expecting = "an asset: an object {\"version\": \"2.0\"}")]
pub struct GltfAsset {
    /// glTF version, `"2.0"`.
    pub version: String,
}

/// The root extensions Pelt reads, as raw JSON borrowed from the file.
#[derive(Debug, Default, Deserialize)]
#[serde(expecting = "the document's extensions: an object")]
pub struct DocExtensions<'a> {
    /// `VRMC_springBone`.
    #[serde(default, borrow, rename = "VRMC_springBone")]
    pub vrmc_spring_bone: Option<&'a RawValue>,
    /// `PELT_spring_chains`.
    #[serde(default, borrow, rename = "PELT_spring_chains")]
    pub pelt: Option<&'a RawValue>,
    /// VRM 0.x's `VRM`.
    #[serde(default, borrow, rename = "VRM")]
    pub vrm0: Option<&'a RawValue>,
    /// `VRMC_vrm`.
    #[serde(default, borrow, rename = "VRMC_vrm")]
    pub vrmc_vrm: Option<&'a RawValue>,
}

/// A glTF node (the fields springs need).
#[derive(Debug, Deserialize)]
#[serde(
    expecting = "a node: an object {\"name\": ..., \"children\": [...], \"translation\": [x, y, z], ...}"
)]
pub struct GltfNode {
    /// Name.
    #[serde(default)]
    pub name: Option<String>,
    /// Child node indices.
    #[serde(default)]
    pub children: Bounded<usize>,
    /// Translation.
    #[serde(default)]
    pub translation: Option<[f32; 3]>,
    /// Rotation `[x, y, z, w]`.
    #[serde(default)]
    pub rotation: Option<[f32; 4]>,
    /// Scale.
    #[serde(default)]
    pub scale: Option<[f32; 3]>,
    /// Column-major matrix (instead of TRS).
    #[serde(default)]
    pub matrix: Option<[f32; 16]>,
}

/// `PELT_spring_chains`: our anchored chains exactly (f32 values round-trip through JSON
/// bit for bit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeltRecord {
    /// Record version (1).
    pub version: u32,
    /// The chains.
    pub chains: Bounded<PeltChain>,
    /// The colliders.
    pub colliders: Bounded<PeltCollider>,
    /// The collider groups.
    #[serde(rename = "colliderGroups")]
    pub collider_groups: Bounded<PeltGroup>,
    /// Indices of the `VRMC_springBone` springs that approximate these chains (one per
    /// chain, in order), so a reader can tell them from exact VRM springs.
    #[serde(
        rename = "vrmcSprings",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub vrmc_springs: Option<Bounded<usize>>,
}

/// One chain of the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeltChain {
    /// Chain name.
    pub name: String,
    /// Anchor bone (node) name.
    pub anchor: String,
    /// Joints root to tip.
    pub joints: Bounded<PeltJoint>,
    /// Pull toward rest, per second.
    pub stiffness: f32,
    /// Velocity lost per second.
    pub damping: f32,
    /// Gravity, m/s².
    pub gravity: [f32; 3],
    /// Point radius.
    pub radius: f32,
    /// Indices of the collider groups it meets.
    #[serde(rename = "colliderGroups")]
    pub collider_groups: Bounded<usize>,
}

/// One joint of a chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeltJoint {
    /// Node name.
    pub name: String,
    /// Node index in the file.
    pub node: usize,
    /// Rest offset from the previous joint in the anchor frame.
    pub offset: [f32; 3],
}

/// One collider of the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeltCollider {
    /// Bone (node) name.
    pub bone: String,
    /// Node index.
    pub node: usize,
    /// Offset (sphere centre or capsule start) in the bone's frame.
    pub offset: [f32; 3],
    /// Capsule end in the bone's frame; absent for a sphere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<[f32; 3]>,
    /// Radius.
    pub radius: f32,
}

/// One collider group of the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeltGroup {
    /// Group name.
    pub name: String,
    /// Collider indices.
    pub colliders: Bounded<usize>,
}

/// `VRMC_springBone` 1.0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    expecting = "an object {\"specVersion\": \"1.0\", \"springs\": [...], \"colliders\": [...], \"colliderGroups\": [...]}"
)]
pub struct VrmcSpringBone {
    /// `"1.0"`.
    #[serde(rename = "specVersion")]
    pub spec_version: String,
    /// Colliders.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub colliders: Bounded<VrmcCollider>,
    /// Collider groups.
    #[serde(
        rename = "colliderGroups",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub collider_groups: Bounded<VrmcColliderGroup>,
    /// Springs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub springs: Bounded<VrmcSpring>,
}

/// A VRM collider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(expecting = "a collider: {\"node\": index, \"shape\": {\"sphere\": {...}}}")]
pub struct VrmcCollider {
    /// Node index.
    pub node: usize,
    /// Shape (for readers without the extended colliders: a fallback when the extension
    /// gives the real shape).
    pub shape: VrmcShape,
    /// `VRMC_springBone_extended_collider`, if present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<VrmcColliderExtensions>,
}

/// The extensions of a collider Pelt knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(expecting = "a collider's extensions: an object")]
pub struct VrmcColliderExtensions {
    /// The extended collider.
    #[serde(
        rename = "VRMC_springBone_extended_collider",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub extended: Option<ExtendedCollider>,
}

/// `VRMC_springBone_extended_collider`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(expecting = "an extended collider: {\"specVersion\": \"1.0\", \"shape\": {...}}")]
pub struct ExtendedCollider {
    /// `"1.0"`.
    #[serde(rename = "specVersion")]
    pub spec_version: String,
    /// The shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<ExtendedShape>,
}

/// An extended collider shape: exactly one of the three.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(
    expecting = "an extended shape: {\"sphere\": {...}}, {\"capsule\": {...}} or {\"plane\": {...}}"
)]
pub struct ExtendedShape {
    /// Sphere (maybe inside).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sphere: Option<ExtendedSphere>,
    /// Capsule (maybe inside).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capsule: Option<ExtendedCapsule>,
    /// Plane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plane: Option<ExtendedPlane>,
}

/// Extended sphere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(expecting = "a sphere: {\"offset\": [x, y, z], \"radius\": metres, \"inside\": bool}")]
pub struct ExtendedSphere {
    /// Centre in the node's frame.
    #[serde(default = "zero3")]
    pub offset: [f32; 3],
    /// Radius.
    #[serde(default)]
    pub radius: f32,
    /// Keep joints inside.
    #[serde(default)]
    pub inside: bool,
}

/// Extended capsule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    expecting = "a capsule: {\"offset\": [x, y, z], \"radius\": metres, \"tail\": [x, y, z], \"inside\": bool}"
)]
pub struct ExtendedCapsule {
    /// Start in the node's frame.
    #[serde(default = "zero3")]
    pub offset: [f32; 3],
    /// Radius.
    #[serde(default)]
    pub radius: f32,
    /// End in the node's frame.
    #[serde(default = "zero3")]
    pub tail: [f32; 3],
    /// Keep joints inside.
    #[serde(default)]
    pub inside: bool,
}

/// Extended plane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(expecting = "a plane: {\"offset\": [x, y, z], \"normal\": [x, y, z]}")]
pub struct ExtendedPlane {
    /// A point of the plane in the node's frame.
    #[serde(default = "zero3")]
    pub offset: [f32; 3],
    /// Its normal (the side joints stay on).
    #[serde(default = "plus_z")]
    pub normal: [f32; 3],
}

/// A VRM collider shape: exactly one of `sphere` and `capsule`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(expecting = "a shape: {\"sphere\": {...}} or {\"capsule\": {...}}")]
pub struct VrmcShape {
    /// Sphere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sphere: Option<VrmcSphere>,
    /// Capsule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capsule: Option<VrmcCapsule>,
}

fn zero3() -> [f32; 3] {
    [0.0; 3]
}

fn plus_z() -> [f32; 3] {
    [0.0, 0.0, 1.0]
}

/// VRM sphere shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(expecting = "a sphere: {\"offset\": [x, y, z], \"radius\": metres}")]
pub struct VrmcSphere {
    /// Centre in the node's frame.
    #[serde(default = "zero3")]
    pub offset: [f32; 3],
    /// Radius.
    #[serde(default)]
    pub radius: f32,
}

/// VRM capsule shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(expecting = "a capsule: {\"offset\": [x, y, z], \"radius\": metres, \"tail\": [x, y, z]}")]
pub struct VrmcCapsule {
    /// Start in the node's frame.
    #[serde(default = "zero3")]
    pub offset: [f32; 3],
    /// Radius.
    #[serde(default)]
    pub radius: f32,
    /// End in the node's frame.
    #[serde(default = "zero3")]
    pub tail: [f32; 3],
}

/// A VRM collider group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(expecting = "a collider group: {\"colliders\": [collider indices]}")]
pub struct VrmcColliderGroup {
    /// Name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Collider indices.
    pub colliders: Bounded<usize>,
}

/// A VRM spring.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    expecting = "a spring: {\"joints\": [{\"node\": index, ...}, ...], \"colliderGroups\": [indices]}"
)]
pub struct VrmcSpring {
    /// Name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Joints root to tip; the last one only marks where the last bone points.
    pub joints: Bounded<VrmcJoint>,
    /// Collider group indices.
    #[serde(
        rename = "colliderGroups",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub collider_groups: Bounded<usize>,
    /// The node whose space inertia is computed in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub center: Option<usize>,
}

fn default_stiffness() -> f32 {
    1.0
}
fn default_gravity_dir() -> [f32; 3] {
    [0.0, -1.0, 0.0]
}
fn default_drag() -> f32 {
    0.5
}

/// A VRM joint. Missing fields take the specification's schema defaults (three-vrm uses a
/// drag of 0.4 instead of 0.5 when it is missing; Pelt always writes every field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    expecting = "a joint: {\"node\": index, \"stiffness\": number, \"gravityPower\": number, ...}"
)]
pub struct VrmcJoint {
    /// Node index.
    pub node: usize,
    /// `hitRadius`.
    #[serde(rename = "hitRadius", default)]
    pub hit_radius: f32,
    /// `stiffness`.
    #[serde(default = "default_stiffness")]
    pub stiffness: f32,
    /// `gravityPower`.
    #[serde(rename = "gravityPower", default)]
    pub gravity_power: f32,
    /// `gravityDir`.
    #[serde(rename = "gravityDir", default = "default_gravity_dir")]
    pub gravity_dir: [f32; 3],
    /// `dragForce`.
    #[serde(rename = "dragForce", default = "default_drag")]
    pub drag_force: f32,
}

/// `VRMC_vrm` as Pelt writes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VrmcVrm {
    /// `"1.0"`.
    #[serde(rename = "specVersion")]
    pub spec_version: String,
    /// License and authorship.
    pub meta: crate::rigged::AvatarMeta,
    /// The humanoid map.
    pub humanoid: VrmcHumanoid,
}

/// `VRMC_vrm.humanoid`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VrmcHumanoid {
    /// Human bone name → `{"node": index}`.
    #[serde(rename = "humanBones")]
    pub human_bones: std::collections::BTreeMap<String, VrmcHumanBone>,
}

/// One human bone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VrmcHumanBone {
    /// Node index.
    pub node: usize,
}

/// VRM 0.x's `VRM` extension: only `secondaryAnimation` is read.
#[derive(Debug, Deserialize)]
#[serde(expecting = "the VRM extension: an object {\"secondaryAnimation\": {...}, ...}")]
pub struct Vrm0Extension<'a> {
    /// The springs.
    #[serde(default, borrow, rename = "secondaryAnimation")]
    pub secondary_animation: Option<&'a RawValue>,
}

/// VRM 0.x `secondaryAnimation`.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(expecting = "an object {\"boneGroups\": [...], \"colliderGroups\": [...]}")]
pub struct Vrm0Secondary {
    /// Bone groups: each bone listed is the root of springs over all its descendants.
    #[serde(rename = "boneGroups", default)]
    pub bone_groups: Bounded<Vrm0BoneGroup>,
    /// Collider groups (spheres on a node).
    #[serde(rename = "colliderGroups", default)]
    pub collider_groups: Bounded<Vrm0ColliderGroup>,
}

/// A VRM 0.x xyz object.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Default)]
#[serde(expecting = "an object {\"x\": number, \"y\": number, \"z\": number}")]
pub struct Vrm0Vec3 {
    /// x.
    #[serde(default)]
    pub x: f32,
    /// y.
    #[serde(default)]
    pub y: f32,
    /// z.
    #[serde(default)]
    pub z: f32,
}

fn v0_drag() -> f32 {
    0.4
}

/// A VRM 0.x bone group. Missing numbers take three-vrm's defaults (stiffness 1, gravity
/// 0, drag 0.4, hit radius 0).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    expecting = "a bone group: {\"bones\": [node indices], \"stiffiness\": number, \"gravityDir\": {\"x\", \"y\", \"z\"}, ...}"
)]
pub struct Vrm0BoneGroup {
    /// Comment (name).
    #[serde(default)]
    pub comment: Option<String>,
    /// Stiffness (spelled `stiffiness` in the 0.x schema).
    #[serde(rename = "stiffiness", default = "default_stiffness")]
    pub stiffness: f32,
    /// Gravity power.
    #[serde(rename = "gravityPower", default)]
    pub gravity_power: f32,
    /// Gravity direction.
    #[serde(rename = "gravityDir", default)]
    pub gravity_dir: Option<Vrm0Vec3>,
    /// Drag force.
    #[serde(rename = "dragForce", default = "v0_drag")]
    pub drag_force: f32,
    /// Hit radius.
    #[serde(rename = "hitRadius", default)]
    pub hit_radius: f32,
    /// The `center` node, −1 for none.
    #[serde(default)]
    pub center: Option<i64>,
    /// Root bones.
    #[serde(default)]
    pub bones: Bounded<i64>,
    /// Collider group indices.
    #[serde(rename = "colliderGroups", default)]
    pub collider_groups: Bounded<i64>,
}

/// A VRM 0.x collider group: spheres on one node.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    expecting = "a collider group: {\"node\": index, \"colliders\": [{\"offset\": {...}, \"radius\": metres}]}"
)]
pub struct Vrm0ColliderGroup {
    /// Node index.
    pub node: i64,
    /// Spheres.
    #[serde(default)]
    pub colliders: Bounded<Vrm0Sphere>,
}

/// A VRM 0.x sphere collider.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    expecting = "a sphere: {\"offset\": {\"x\": number, \"y\": number, \"z\": number}, \"radius\": metres}"
)]
pub struct Vrm0Sphere {
    /// Offset in the node's frame (Unity's axes: z is mirrored).
    #[serde(default)]
    pub offset: Vrm0Vec3,
    /// Radius.
    #[serde(default)]
    pub radius: f32,
}
