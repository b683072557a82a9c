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
//! What full VRM loaders ask for, and whether Pelt's creature (`pelt export --vrm`) gives it:
//! - **The specification** (`VRMC_vrm` 1.0): `meta` with a name, at least one author and a
//!   license URL; a humanoid mapping the 15 required bones (hips, spine, head, both upper
//!   and lower legs and feet, both upper and lower arms and hands), each below its humanoid
//!   parent (the nearest mapped one counts), on positive scales; and a rest pose that is
//!   the "VRM T-pose": standing on y = 0, facing +Z, arms along ±X. The creature meets the
//!   first three ([`write_glb`] checks the map) but not the pose: it is on four legs, its
//!   front legs (mapped to arms) point down and its paws stand at y ≈ −0.84 in its body
//!   space.
//! - **three-vrm** (`VRMLoaderPlugin`, 3.5): `VRMC_vrm` with `specVersion` 1.0 and the 15
//!   required bones, or it throws; it does not check the pose. Met, and checked in
//!   `tests/vrm-conformance/`: the creature loads as a VRM and `vrm.update()` swings its
//!   tail exactly as Pelt does.
//! - **UniVRM** (Unity) and **Godot VRM** (V-Sekai's addon, VRM 1.0 import): the same meta
//!   and humanoid; both build an engine humanoid skeleton from the map and assume the VRM
//!   T-pose for retargeting. The creature should load (its structure is what they read),
//!   but humanoid animation retargeted onto it will bend its legs oddly, and an avatar
//!   setup that insists on a T-pose may warn. Neither was run here (no Unity or Godot on
//!   this machine); their spring bones follow the same `VRMC_springBone` rule.
//!
//! Every file is written from a [`crate::rigged::RiggedBody`] ([`write_glb`]); the creature's
//! own file from the body the creature builds ([`creature_glb`], [`write_creature_file`]).
//!
//! ```
//! use pelt::creature::{Creature, CreatureExport};
//! use pelt::vrm::{SpringSource, creature_glb, read_glb};
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
mod export;
pub mod ext;
pub mod glb;
mod node_tree;
pub mod read;
pub mod write;

pub use bounded::{Bounded, ParseBudget};
pub use error::VrmError;
pub use export::{creature_glb, write_creature_file};
pub use read::{ImportedSprings, SpringSource, read_glb, read_glb_from, read_gltf_json};
pub use write::write_glb;
