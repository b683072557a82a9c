//! Reading a body from a file: the entry point the command line and the library call.
//! (Placeholder shape: the glTF/VRM reader fills it in.)

use super::{BodyMesh, BodyMotion, SkinPose};
use std::path::Path;
use thiserror::Error;

/// What to do with a body while reading it.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyOptions {
    /// The height the body is fitted to, metres (its rest pose's vertical extent).
    pub height: f32,
}

/// The height a body is fitted to when none is asked for, metres.
pub const DEFAULT_BODY_HEIGHT: f32 = 1.0;

impl Default for BodyOptions {
    fn default() -> Self {
        BodyOptions {
            height: DEFAULT_BODY_HEIGHT,
        }
    }
}

/// Why a body could not be read.
#[derive(Debug, Error)]
pub enum BodyError {
    /// The file cannot be used; the message names the file and the part.
    #[error("{0}")]
    Invalid(String),
}

/// A body read from a file, fitted to its height.
#[derive(Clone, Debug)]
pub struct LoadedBody {
    /// Its surface, skin and texture in the bind pose.
    pub mesh: BodyMesh,
    /// The names of its animations, in the file's order ("" for unnamed ones).
    pub animation_names: Vec<String>,
    /// One line for a summary: the file, what was read and the fit.
    pub summary: String,
}

impl LoadedBody {
    /// Reads `path` (`.glb`, `.gltf` with its buffers, `.vrm` 0.x or 1.0).
    pub fn read(path: &Path, options: &BodyOptions) -> Result<LoadedBody, BodyError> {
        let _ = options;
        Err(BodyError::Invalid(format!(
            "{}: reading bodies is not built yet",
            path.display()
        )))
    }

    /// The body's motion: animation `name` looped, or its rest pose (`None`).
    pub fn motion(&self, name: Option<&str>) -> Result<Box<dyn BodyMotion>, BodyError> {
        match name {
            None => Ok(Box::new(StillPose(SkinPose::rest(self.mesh.joint_count)))),
            Some(n) => Err(BodyError::Invalid(format!("no animation named {n:?}"))),
        }
    }
}

/// A body that holds one pose.
struct StillPose(SkinPose);

impl BodyMotion for StillPose {
    fn pose_at(&self, _seconds: f64) -> SkinPose {
        self.0.clone()
    }
}
