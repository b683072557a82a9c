//! The coat as USD (`.usda` text), the interchange format Blender, Houdini, Maya and
//! Omniverse read: the strands as one linear `BasisCurves` prim (six points a strand,
//! tapering widths, the groom's colours, the root normal and the strand's random value as
//! primvars) and the skin as a `Mesh` with its colours, in metres with Y up. The points may
//! be time samples over a simulated stroke; a skinned body's mesh ([`body_skin()`]) is
//! posed at every sample too ([`StageMesh`]). File layout: `docs/usd.md`.
//!
//! Pelt writes the text form with a small writer of its own ([`text`], [`stage`]); the
//! binary `.usdc` is left to Pixar's tools (`usdcat coat.usda -o coat.usdc`).
//!
//! Pelt also reads strands back: `BasisCurves` in text form ([`read_curves()`]), as Pelt,
//! Blender and Houdini write them, for `--groom coat.usda` ([`read_groom()`]).

pub mod body_skin;
pub mod coat;
pub mod groom_input;
pub mod mesh_prim;
pub mod read_curves;
pub mod resample;
pub mod stage;
pub mod text;
mod tokens;
mod usda_tree;
mod xform;

pub use body_skin::body_skin;
pub use coat::{coat_color, coat_curves, skin_mesh};
pub use groom_input::{GroomInput, GroomInputError, Placement, read_groom};
pub use mesh_prim::{MeshMotion, PoseAt, StageMesh, mesh_usda_bytes};
pub use read_curves::{
    CurvesError, ImportedCurve, ImportedCurves, MAX_CURVE_REACH, MAX_CURVES, MAX_USDA_BYTES,
    parse_curves, read_curves,
};
pub use stage::{CoatStageWriter, StageTiming};
pub use usda_tree::{MAX_KEPT_VALUES, MAX_NESTING};

use glam::Vec3;
use std::io;

/// The creature's skin in world space, posed, as triangles with vertex colours.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkinMesh {
    /// Vertex positions, metres.
    pub points: Vec<Vec3>,
    /// Unit vertex normals.
    pub normals: Vec<Vec3>,
    /// Linear vertex colours.
    pub colors: Vec<Vec3>,
    /// Three vertex indices per triangle, wound counter-clockwise seen from outside (USD's
    /// default right-handed orientation).
    pub indices: Vec<u32>,
}

impl SkinMesh {
    /// Whether the arrays agree: one normal and colour a point, whole triangles, indices in
    /// range.
    pub fn check(&self) -> io::Result<()> {
        let n = self.points.len();
        let ok = self.normals.len() == n
            && self.colors.len() == n
            && self.indices.len().is_multiple_of(3)
            && self.indices.iter().all(|&i| (i as usize) < n);
        if ok {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the skin mesh's arrays disagree (normals, colours or indices)",
            ))
        }
    }
}

/// What the curves carry besides their points: per strand a colour, a root normal and a
/// random value, and the width at each of the six points (the same for every strand).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoatCurves {
    /// Linear colour per strand (USD's `displayColor`, uniform).
    pub colors: Vec<Vec3>,
    /// The skin's unit normal at each strand's root, world.
    pub root_normals: Vec<Vec3>,
    /// Each strand's random value in [0, 1), as the groom drew it.
    pub random: Vec<f32>,
    /// Width at each point, root to tip, metres.
    pub widths: [f32; crate::sim::POINTS_PER_STRAND],
}

impl CoatCurves {
    /// Whether there is one colour, normal and random value per strand, and at least one
    /// strand.
    pub fn check(&self) -> io::Result<()> {
        let n = self.root_normals.len();
        if n == 0 || self.colors.len() != n || self.random.len() != n {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} colours, {} normals and {} random values: one of each per strand, at least one strand",
                    self.colors.len(),
                    n,
                    self.random.len()
                ),
            ));
        }
        Ok(())
    }
}
