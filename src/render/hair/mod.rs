//! The hair, behind one interface: each way of drawing it is a [`HairPath`] (its share of
//! the key light's maps, its camera picture over the surfaces' colour and depth, its
//! memory), and [`HairPaths`] picks the one that draws each frame. What every path reads
//! lives here too: the strands bound over the solver's position buffers and the shading
//! pass that lights their points once a frame ([`strands`]).
//!
//! - [`ribbons`]: the hardware ribbons, 4× MSAA with a sample mask of their own; the
//!   reference picture.
//! - [`native`]: the strand rasteriser on the host's cores ([`crate::raster`]), its
//!   picture composited over the surfaces ([`native_gpu`]).
//! - [`strands_gpu`]: the strand rasteriser in WGSL (`render::strand_raster`): one sample
//!   a pixel, analytic coverage, the nearest layers in depth order; the light's maps by
//!   the ribbons for now.
//! - [`composite`]: how a strand rasteriser's picture is laid over the surfaces.
//! - [`choice`]: which path draws a frame.
//!
//! A path that draws on the host plugs in as the native one does: its
//! [`HairPath::prepare_camera`] may submit the frame so far to read back the surfaces'
//! depth and the shaded points, draw, and upload its picture, which
//! [`HairPath::record_camera`] composites in the camera's last pass.

pub mod choice;
pub mod composite;
pub mod native;
pub mod native_gpu;
pub mod path;
pub mod ribbons;
pub mod strands;
pub mod strands_gpu;

pub use self::choice::{HairPaths, RELEASE_IDLE_BUFFERS_AFTER_FRAMES};
pub use self::native::NativePath;
pub use self::path::{CameraHair, HairDraw, HairFrame, HairLook, HairPath};
pub use self::ribbons::RibbonsPass;
pub use self::strands::{HairStrands, RibbonStrand, StrandBinding};
pub use self::strands_gpu::StrandsGpuPath;
