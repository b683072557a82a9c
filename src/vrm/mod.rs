//! VRM files: the GLB writer and reader for springs, one to one.
//!
//! - **`VRMC_springBone` 1.0**: Pelt's [`VrmSpring`](crate::spring::VrmSpring) model is this
//!   extension's own rule, so a [`crate::spring::VrmSpringRig`] is written and read back
//!   per joint, exactly (stiffness, gravity, drag and hit radius of each joint, `center`,
//!   sphere and capsule colliders, and the inside sphere, inside capsule and plane of
//!   `VRMC_springBone_extended_collider`).
//! - **VRM 0.x `secondaryAnimation`** is read the way three-vrm runs it: every node below a
//!   listed bone swings (branches become chains of their own), a leaf points at a 7 cm
//!   virtual tail, each group keeps its `center`; what Pelt cannot keep is noted.
//! - **`PELT_spring_chains`** keeps Pelt's anchored chains ([`crate::spring::SpringRig`]),
//!   which VRM cannot express, exactly; `VRMC_springBone` gets an approximation of them
//!   beside it ([`convert`] says how close).
//! - **`VRMC_vrm` 1.0** (meta with license fields and a humanoid map) makes the file a full
//!   VRM avatar, which full VRM loaders need, not only spring-bone plugins.
//!
//! What full VRM loaders ask for, and whether Pelt's creature file (`pelt export --vrm`)
//! gives it:
//! - **three-vrm** (`VRMLoaderPlugin`): `VRMC_vrm` with `specVersion` 1.0, `meta`, and a
//!   humanoid with the 15 required bones (hips, spine, head, upper and lower legs, feet,
//!   upper and lower arms, hands); it throws otherwise. Met, and checked in
//!   `tests/vrm-conformance/`: the creature loads as a VRM and `vrm.update()` swings its
//!   tail.
//! - **UniVRM** (Unity, VRM 1.0 importer): the same required bones, each below its humanoid
//!   parent (checked by [`write_glb`]), `meta` with name, authors and license URL; it builds
//!   a Unity humanoid avatar from the bone map, whose rest pose should be a T-pose facing
//!   +Z. The creature's front legs are mapped to arms that point down, not sideways, so the
//!   file loads but Unity's avatar setup may warn and retargeted humanoid animation will
//!   bend them oddly. Not run here (no Unity on this machine).
//! - **Godot VRM** (V-Sekai's addon): the same humanoid and meta; it retargets the bones to
//!   Godot's humanoid profile and rotates rests toward a T-pose, with the same caveat for
//!   the legs. Its spring bones follow the same `VRMC_springBone` rule. Not run here.
//!
//! ```
//! use pelt::creature::{Creature, CreatureExport, creature_glb};
//! use pelt::vrm::{SpringSource, read_glb};
//!
//! let bytes = creature_glb(&Creature::default(), &CreatureExport::default())?;
//! let back = read_glb(&bytes)?;
//! assert_eq!(back.source, SpringSource::VrmcSpringBone);
//! assert_eq!(back.springs.chains[0].joints.len(), pelt::creature::TAIL_BONES);
//! # Ok::<(), pelt::vrm::VrmError>(())
//! ```

mod bounded;
pub mod convert;
mod error;
pub mod ext;
pub mod glb;
pub mod model;
pub mod read;
pub mod write;

pub use bounded::{Bounded, ParseBudget};
pub use error::VrmError;
pub use model::{RiggedBody, SkinnedMesh, VrmAvatar, VrmMeta};
pub use read::{ImportedSprings, SpringSource, read_glb, read_glb_from, read_gltf_json};
pub use write::write_glb;
