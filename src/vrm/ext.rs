//! The JSON schemas of the two extensions: `VRMC_springBone` 1.0 (and VRM 0.x's
//! `secondaryAnimation`) as read and written, and `PELT_spring_chains`, our exact record.

use serde::{Deserialize, Serialize};

/// Name of our extension.
pub const PELT_EXT: &str = "PELT_spring_chains";
/// Name of VRM 1.0's spring extension.
pub const VRMC_EXT: &str = "VRMC_springBone";
/// Name of VRM 0.x's root extension (which holds `secondaryAnimation`).
pub const VRM0_EXT: &str = "VRM";
/// Version of our record.
pub const PELT_VERSION: u32 = 1;

/// `PELT_spring_chains`: our chains exactly (f32 values round-trip through JSON bit for bit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeltRecord {
    /// Record version (1).
    pub version: u32,
    /// The chains.
    pub chains: Vec<PeltChain>,
    /// The colliders.
    pub colliders: Vec<PeltCollider>,
    /// The collider groups.
    #[serde(rename = "colliderGroups")]
    pub collider_groups: Vec<PeltGroup>,
}

/// One chain of the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeltChain {
    /// Chain name.
    pub name: String,
    /// Anchor bone (node) name and index.
    pub anchor: String,
    /// Joints root to tip.
    pub joints: Vec<PeltJoint>,
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
    pub collider_groups: Vec<usize>,
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
    pub colliders: Vec<usize>,
}

/// `VRMC_springBone` 1.0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct VrmcSpringBone {
    /// `"1.0"`.
    #[serde(rename = "specVersion")]
    pub spec_version: String,
    /// Colliders.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub colliders: Vec<VrmcCollider>,
    /// Collider groups.
    #[serde(
        rename = "colliderGroups",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub collider_groups: Vec<VrmcColliderGroup>,
    /// Springs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub springs: Vec<VrmcSpring>,
}

/// A VRM collider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VrmcCollider {
    /// Node index.
    pub node: usize,
    /// Shape.
    pub shape: VrmcShape,
}

/// A VRM collider shape: exactly one of `sphere` and `capsule`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
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

/// VRM sphere shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
pub struct VrmcColliderGroup {
    /// Name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Collider indices.
    pub colliders: Vec<usize>,
}

/// A VRM spring.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VrmcSpring {
    /// Name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Joints root to tip.
    pub joints: Vec<VrmcJoint>,
    /// Collider group indices.
    #[serde(
        rename = "colliderGroups",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub collider_groups: Vec<usize>,
    /// Node whose motion is subtracted (not used by Pelt; kept on import only).
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

/// A VRM joint; the defaults are the specification's, though we always write every field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// VRM 0.x `secondaryAnimation` (the part Pelt reads).
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
pub struct Vrm0Secondary {
    /// Bone groups: each bone listed is the root of springs over its descendants.
    #[serde(rename = "boneGroups", default)]
    pub bone_groups: Vec<Vrm0BoneGroup>,
    /// Collider groups (spheres on a node).
    #[serde(rename = "colliderGroups", default)]
    pub collider_groups: Vec<Vrm0ColliderGroup>,
}

/// A VRM 0.x xyz object.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Default)]
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

/// A VRM 0.x bone group.
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    #[serde(rename = "dragForce", default = "default_drag")]
    pub drag_force: f32,
    /// Hit radius.
    #[serde(rename = "hitRadius", default)]
    pub hit_radius: f32,
    /// Root bones.
    #[serde(default)]
    pub bones: Vec<usize>,
    /// Collider group indices.
    #[serde(rename = "colliderGroups", default)]
    pub collider_groups: Vec<usize>,
}

/// A VRM 0.x collider group: spheres on one node.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Vrm0ColliderGroup {
    /// Node index.
    pub node: usize,
    /// Spheres.
    #[serde(default)]
    pub colliders: Vec<Vrm0Sphere>,
}

/// A VRM 0.x sphere collider.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Vrm0Sphere {
    /// Offset in the node's frame (Unity's left-handed axes: x is mirrored).
    #[serde(default)]
    pub offset: Vrm0Vec3,
    /// Radius.
    #[serde(default)]
    pub radius: f32,
}
