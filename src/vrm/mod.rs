//! VRM export and import of spring chains: the conversion between our model and
//! `VRMC_springBone` (seed 000), the GLB writer (`VRMC_springBone` 1.0 plus our exact
//! `PELT_spring_chains`), and the reader (ours back bit for bit; other people's
//! `VRMC_springBone` and VRM 0.x `secondaryAnimation` through the inverse conversion).
//!
//! ```
//! use pelt::creature::Creature;
//! use pelt::spring::SpringSettings;
//! use pelt::vrm::{SpringSource, creature_body, read_glb, write_glb};
//!
//! let body = creature_body(&Creature::default(), SpringSettings::default(), 1);
//! let bytes = write_glb(&body)?;
//! let back = read_glb(&bytes)?;
//! assert_eq!(back.source, SpringSource::Pelt);
//! assert_eq!(back.springs, body.springs); // exact
//! # Ok::<(), pelt::vrm::VrmError>(())
//! ```

pub mod body;
pub mod convert;
mod error;
pub mod ext;
pub mod glb;
pub mod read;
pub mod write;

pub use body::{Bone, RiggedBody, SkinnedMesh, creature_body};
pub use error::VrmError;
pub use read::{ImportedSprings, SpringSource, read_glb};
pub use write::write_glb;
