//! The fur renderer: the creature's skin and face, the hand and the floor, and its hair
//! drawn from the solver's position buffers, lit with the key light's shadow maps (the
//! hair's deep opacity among them); the diagnostic views; PNG capture.
//!
//! One module per GPU pass, each owning its pipelines, bind groups and buffers and a
//! `record` that encodes it, paired by name with its shader in `shaders/` (composed by
//! [`crate::shaders`]): [`shadow`], [`surfaces`], [`strand_cull`], [`overlay`], [`ids`];
//! the hair's passes sit behind one interface in [`hair`] (each way of drawing it a
//! [`hair::HairPath`]: the hardware [`hair::ribbons`], the reference; the strand
//! rasteriser on the host's cores, [`hair::native`]; its WGSL twin, [`hair::strands_gpu`];
//! [`hair::HairPaths`] picks one per frame). [`FurRenderer`] only orders them; [`frame`]
//! holds the uniforms every pass reads (bind group 0), [`timing`] the timestamps around
//! the [`Pass`]es. What each costs, measured, is in `docs/architecture.md` ("Measured").
//!
//! # A frame
//!
//! 1. **Shadow maps** ([`shadow`]) from the key light (orthographic, [`light_view::light_frame`]): the opaque
//!    depth of skin, face and hand; the depth of the nearest hair; and the deep opacity map,
//!    four cumulative hair densities in slabs behind that first hair
//!    ([`light_view::SLAB_ENDS`]). The hair is drawn *deformed* at its true width, so
//!    shadows follow every stroke of the hand.
//! 2. **Surfaces** ([`surfaces`]): the creature's skin tessellated from its analytic parts
//!    ([`mesh::creature_skin`]) in their own spaces, so the GPU places them by the same
//!    head, body and tail transforms as the roots; eyes and nose; the hand's capsules; the
//!    floor. Shaded with the coat's palette and pattern channels, like the hair. Every
//!    surface is wound outward ([`mesh::Mesh::orient_outward`]) and drawn with its back
//!    faces culled. What is smooth over the mesh (albedo, fill and ambient light, the
//!    hand's occlusion, the light-space coordinate) is computed per vertex; the key light's
//!    visibility, which carries the strands' fine shadows, stays per pixel. The glossy
//!    eyes, nose and nails have a pipeline of their own, so the rest of the surfaces pay
//!    nothing for their highlight (a SIMD rasteriser runs every branch for every pixel).
//! 3. **Culling** ([`strand_cull`]): a compute pass marks the strands the camera cannot see,
//!    all six points behind the body ellipsoid or a sphere inside the head (both shrunk
//!    to lie inside the drawn skin, by the ribbon's half width and 3 mm), or all outside
//!    one side of the view; the camera's hair skips them. No pixel changes (a test compares
//!    both ways). Only where the skin is drawn; the shadow maps draw every strand.
//! 4. **Hair** ([`hair`]): the strands' points shaded once each by a compute pass, which
//!    every path reads; then the frame's path. The ribbons ([`hair::ribbons`]) build five
//!    quads per strand in the vertex shader from the solver's storage buffer
//!    (`vertex_index` and `instance_index`; no CPU copy and no per-frame vertex buffer),
//!    one instance a batch of strands over one shared index buffer, so a strand's vertices
//!    are shared by its triangles. The strand rasterisers draw segments binned into screen
//!    tiles, one sample a pixel, and composite their picture over the surfaces.
//! 5. **Overlay** ([`overlay`], `contact` only): proxy wireframes and the last ray hit,
//!    in the hair's render pass.
//! 6. **IDs** ([`ids`], tests only): sample 0 of the multisampled ID target, readable.
//!
//! [`FurRenderer::draw_into`] ([`embed`]) draws the same creature into a caller's own
//! colour and depth targets instead: steps 1, 3 and 4 (by the ribbons) and 2 without the
//! floor, into what the caller drew, placed by its model transform.
//!
//! # Coverage without sorting (the ribbons)
//!
//! Hundreds of thousands of overlapping ribbons with soft edges and fading tips need
//! order-independent transparency. The ribbons are drawn opaque into a 4× MSAA target and
//! each fragment turns its opacity into a *sample mask* it writes itself: `round(α·4)`
//! samples, dithered per pixel, and which samples chosen by a hash of the strand. Unlike
//! hardware alpha-to-coverage, two overlapping half-opaque strands then cover about three
//! quarters of the pixel rather than the same half, and the result is identical on every
//! driver. Ribbons narrower than a pixel are drawn one pixel wide and proportionally
//! fainter (the production renderers' rule), so far fur stays soft instead of shimmering.
//! The cost is the MSAA target itself: one pass, no sorting, no per-pixel lists. Shading
//! is linear HDR inside the shader and tone-mapped per sample before the resolve, which
//! keeps bright highlights from aliasing and saves a 16-bit float target. The strand
//! rasterisers keep the same widths and fading with one sample a pixel and analytic
//! coverage instead, the nearest few layers blended in depth order.
//!
//! # Shading per strand point
//!
//! A ribbon is about a pixel wide, so the two vertices of a strand point see the same
//! light, and everything the hair shading reads changes smoothly along a strand: the key
//! light's visibility from the shadow maps, the tangent, the strand's colour, the hand's
//! occlusion. A compute pass therefore evaluates the whole hair model (BSDF lobes, shadow
//! lookups, transmission, fill, ambient) once at each of a drawn strand's six points
//! ([`hair::HairStrands::shade`]); the paths read the colours back and only turn the
//! strand's opacity into coverage and tone-map the interpolated colour. Fragments are
//! many times more numerous than points (a strand crosses dozens of pixels, many of them
//! hidden), so this is the cheaper side on any GPU, and on a CPU rasteriser above all.
//!
//! # On a CPU adapter
//!
//! A CPU rasteriser (lavapipe) pays per triangle and per sample, and the ribbons are drawn
//! up to three times (first hair, deep opacity, camera), 4× MSAA the camera's: the hair's
//! share grows with the strand count. There `auto` draws the hair by the strand rasteriser
//! on the host's cores instead ([`hair::native`]). A smaller shadow map saves time and
//! coarsens the strands' shadows on the skin ([`RenderSettings::shadow_map_size`]).
//!
//! # Memory (beyond the solver's buffers)
//!
//! Per strand 16 bytes ([`hair::RibbonStrand`]), a 4-byte cull flag and 24 bytes of
//! shaded point colours; the camera's targets (colour and depth per MSAA sample, IDs when
//! asked for); the shadow maps; meshes; what the hair path holds.
//! [`FurRenderer::memory_bytes`] and [`target::FrameTargets::bytes`] report it.

pub mod camera;
mod camera_targets;
pub mod capture;
pub mod debug;
mod descriptors;
mod detail;
pub mod embed;
mod embed_pipelines;
pub mod environment;
pub mod frame;
mod frame_setup;
pub mod hair;
pub mod hair_bsdf;
mod hair_controls;
mod half_float;
pub mod ids;
pub mod light_view;
pub mod mesh;
pub mod mesh_lod;
pub mod overlay;
pub mod palette;
mod pass_view;
pub mod refresh;
mod renderer;
mod scene;
mod settings;
pub mod shadow;
pub mod shapes;
mod strand_binding;
pub mod strand_cull;
pub mod strand_lod;
pub mod strand_raster;
pub mod surfaces;
pub mod target;
pub mod timing;

pub use camera::{CLOSEUP_REACH, Camera, CameraPreset, ZOOM_DISTANCES, near_head};
pub use capture::Image;
pub use debug::DebugMode;
pub use embed::{EmbedTarget, Placement};
pub use environment::{EnvironmentError, EnvironmentMap};
pub use hair::{RELEASE_IDLE_BUFFERS_AFTER_FRAMES, RibbonStrand};
pub use mesh::Material;
pub use palette::BACKGROUND;
pub use palette::{Lighting, Srgb};
pub use renderer::FurRenderer;
pub use scene::Scene;
pub use settings::{REAL_TIME_LIGHT_STRANDS_PER_TEXEL, Raster, RenderSettings};
pub use shapes::{CapsuleDetail, DrawCapsule, MAX_DRAWN_REACH};
pub use strand_raster::StrandRaster;
pub use target::{FrameTargets, OFFSCREEN_FORMAT, OffscreenTarget, TargetLayout};
pub use timing::{Pass, PassTimings};

use thiserror::Error;

/// What went wrong drawing.
#[derive(Debug, Error)]
pub enum RenderError {
    /// A target of zero size or larger than the device allows.
    #[error(
        "a {width}×{height} target is not possible: width and height must be between 1 and {max} (this device's largest texture)"
    )]
    TargetSize {
        /// Width asked for.
        width: u32,
        /// Height asked for.
        height: u32,
        /// The device's largest texture side.
        max: u32,
    },
    /// A camera that cannot be drawn from.
    #[error("bad camera: {0}")]
    Camera(String),
    /// A scene with a non-finite number or another impossibility.
    #[error("bad scene: {0}")]
    Scene(String),
    /// Settings out of their range.
    #[error("render settings out of range: {0}")]
    Settings(String),
    /// Strands that do not match their buffers.
    #[error("cannot draw these strands: {0}")]
    Strands(String),
    /// The GPU reported an error.
    #[error("GPU error while rendering: {0}")]
    Gpu(String),
    /// The PNG encoder failed.
    #[error("could not encode the PNG: {0}")]
    Png(String),
    /// A file could not be written.
    #[error("could not write {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
