//! Pelt: dense fur simulated on the GPU through wgpu, and spring chains that export to VRM.
//!
//! - [`creature`]: the analytic host (radial head with ears and cheeks, body, paws, tail),
//!   its surfaces, normals, Jacobians, inside tests and ray hits, its idle motion and tail
//!   bones, and where a root sits on a pose ([`shaders::CREATURE_POSE_WGSL`] for shaders,
//!   [`creature::root_transform`] for Rust).
//! - [`groom`]: the seeded root sampler, groom flow, lengths and coat pattern.
//! - [`sim`]: the strand solver, as WGSL compute ([`sim::GpuSolver`]) and its CPU mirror
//!   ([`sim::CpuSolver`], SIMD, beside the scalar reference [`sim::step_strand`]) behind one
//!   step API, on a fixed 60 Hz clock ([`sim::FurSim`]).
//! - [`gpu`]: adapter and device acquisition with a CPU fallback, and buffer read-back.
//! - [`files`]: reading capped by bytes read, and writing through a temporary file beside
//!   the target, renamed over it only on success.
//! - [`shaders`]: every WGSL module, composed in one place after a prelude of the
//!   constants Rust and WGSL share; [`render`]: the fur renderer, one module per pass.
//! - [`spring`] and [`vrm`]: spring chains and cloth, and their `VRMC_springBone` files,
//!   written from a [`rigged::RiggedBody`] (a skeleton with springs, a skinned mesh and an
//!   avatar description, in no file format).
//!
//! The library never owns a window, an event loop or a camera: a caller passes its device
//! and queue (or lets [`gpu::GpuContext`] open them) and binds the solver's buffers, or
//! has [`SimulatedFur::draw_into`] draw the creature into its own colour and depth targets.
//! It builds without the command line's and the demo's dependencies (winit, egui, clap):
//! depend on it with `default-features = false`.
//!
//! ```
//! use pelt::creature::Creature;
//! use pelt::sim::{FurConfig, FurSim};
//!
//! // 256 strands on the CPU mirror, one second at 60 Hz.
//! let mut fur = FurSim::new_cpu(&FurConfig::new(256, 7), Creature::default())?;
//! fur.step(60)?;
//! let stats = fur.stats()?;
//! assert!(stats.max_stretch < 1e-5); // strands never stretch
//! assert_eq!(fur.positions()?.len(), 256 * 6);
//! # Ok::<(), pelt::sim::SimError>(())
//! ```

pub mod body;
pub mod creature;
mod easing;
pub mod files;
pub mod gpu;
pub mod groom;
pub mod hand;
mod json_numbers;
pub mod npy;
pub mod raster;
pub mod render;
pub mod rigged;
mod script_file;
pub mod shaders;
pub mod sim;
pub mod simulated_fur;
pub mod spring;
pub mod usd;
pub mod vrm;

pub use simulated_fur::{Interaction, SimulatedFur, SimulatedFurError, SimulatedFurOptions};
