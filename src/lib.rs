//! Pelt: dense fur on the GPU through wgpu, and spring chains that export to VRM.
pub mod creature;
pub mod gpu;
pub mod groom;
pub mod npy;
pub mod sim;
pub mod spring;
pub mod vrm;
