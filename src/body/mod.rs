//! Any skinned body the coat can grow on, in place of the built-in creature: its triangles,
//! skin and rest pose ([`BodyMesh`]), and the joint matrices that pose it ([`SkinPose`]).
//!
//! File formats (glTF 2.0, VRM) are read elsewhere in this module into these types; the
//! groom, the solvers and the renderer see only the types, so a body built in code (a test's
//! skinned cylinder) and a body read from a file take the same path.

mod accessor;
mod animation;
mod cylinder;
mod distance_grid;
mod file;
mod fit;
mod gltf_read;
mod inside;
pub mod limits;
mod mesh;
mod nodes;
mod primitives;
mod ray;
mod rig;
mod skin;
mod springs;
mod texture;
mod triangle_tree;

pub use cylinder::{CYLINDER_COLORS, CylinderBend, CylinderSpec, skinned_cylinder};
pub use distance_grid::{
    BodyField, DistanceError, FieldOptions, GpuBoneGrid, MAX_FIELD_NODES, MAX_FIELD_WORK,
    MAX_NODES_PER_AXIS, MAX_TESTS_PER_NODE, PosedField, dominant_joint,
};
pub use file::{BODY_HEIGHT_RANGE, BodyError, BodyOptions, DEFAULT_BODY_HEIGHT, LoadedBody};
pub use fit::BodyFit;
pub use inside::{count_inside, fraction_inside, posed_triangles};
pub use mesh::{BodyMesh, BodyMotion, BodyTexture, JOINTS_PER_VERTEX, SkinPose};
pub use ray::{BodyHit, BodyRays};
pub use springs::{
    MAX_CATCH_UP_STEPS, MAX_CATCH_UP_WORK, MAX_COLLIDER_TESTS_PER_STEP, SETTLE_STEPS,
};
pub use triangle_tree::{Nearest, TriangleTree, closest_on_triangle, triangle_solid_angle};
