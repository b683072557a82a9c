//! The fur renderer: tapered camera-facing ribbons pulled straight from the solver's
//! position buffer, hair shading, strand shadows with a deep opacity map, the skin and face
//! of the analytic host, the hand, the diagnostic views, and PNG capture.
//!
//! One module per GPU pass, each owning its pipelines, bind groups and buffers and a
//! `record` that encodes it, paired by name with its shader in `shaders/` (composed by
//! [`crate::shaders`]): [`shadow`], [`surfaces`], [`strand_cull`], [`overlay`], [`ids`];
//! the hair's passes sit behind one interface in [`hair`] (each way of drawing it a
//! [`hair::HairPath`]: the [`hair::ribbons`], the compute rasteriser; [`hair::HairPaths`]
//! picks one per frame). [`FurRenderer`] only orders them; [`frame`] holds the uniforms
//! every pass reads (bind group 0), [`timing`] the timestamps around the [`Pass`]es.
//!
//! # A frame
//!
//! 1. **Shadow maps** ([`shadow`]) from the key light (orthographic, [`light_view::light_frame`]): the opaque
//!    depth of skin, face and hand; the depth of the nearest hair; and the deep opacity map,
//!    four cumulative hair densities in slabs behind that first hair
//!    ([`light_view::SLAB_ENDS`]). Both hair passes draw the *deformed* ribbons at their true
//!    width, so shadows follow every stroke of the hand.
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
//!    one side of the view; their ribbons are moved off screen in the vertex shader. No
//!    pixel changes (a test compares both ways). From the front it drops about 30% of the
//!    strands, in the close-up about 70%. Only where the skin is drawn; the shadow passes
//!    draw every strand.
//! 4. **Ribbons** ([`hair::ribbons`]): five quads per strand built in the vertex shader from the solver's
//!    storage buffer (`vertex_index` and `instance_index`; no CPU copy and no per-frame
//!    vertex buffer). One instance is a batch of 64 strands over a 3.8 kB index buffer, so
//!    the 12 vertices of a strand are shared by its 10 triangles. The hair is shaded per
//!    strand point by a compute pass just before, which the vertex shader reads (see
//!    below).
//! 5. **Overlay** ([`overlay`], `contact` only): proxy wireframes and the last ray hit,
//!    in the ribbons' render pass.
//! 6. **IDs** ([`ids`], tests only): sample 0 of the multisampled ID target, readable.
//!
//! [`FurRenderer::draw_into`] ([`embed`]) draws the same creature into a caller's own
//! colour and depth targets instead: steps 1, 3 and 4 (by the ribbons) and 2 without the
//! floor, into what the caller drew, placed by its model transform.
//!
//! # Coverage without sorting
//!
//! 420k overlapping ribbons with soft edges and fading tips need order-independent
//! transparency. Pelt draws them opaque into a 4× MSAA target and turns each fragment's
//! opacity into a *sample mask* it writes itself: `round(α·4)` samples, dithered per pixel,
//! and which samples chosen by a hash of the strand. Unlike hardware alpha-to-coverage,
//! two overlapping half-opaque strands then cover about three quarters of the pixel rather
//! than the same half, and the result is identical on every driver. Ribbons narrower than
//! a pixel are drawn one pixel wide and proportionally fainter (the production renderers'
//! rule), so far fur stays soft instead of shimmering. The cost is the MSAA target itself:
//! one pass, no sorting, no per-pixel lists. Shading is linear HDR inside the shader and
//! tone-mapped per sample before the resolve, which keeps bright highlights from aliasing
//! and saves a 16-bit float target (8 bytes per sample).
//!
//! # Shading per strand point
//!
//! A ribbon is about a pixel wide, so the two vertices of a strand point see the same
//! light, and everything the hair shading reads changes smoothly along a strand: the key
//! light's visibility from the shadow maps, the tangent, the strand's colour, the hand's
//! occlusion. A compute pass therefore evaluates the whole hair model (BSDF lobes, shadow
//! lookups, transmission, fill, ambient) once at each of a drawn strand's six points
//! ([`hair::HairStrands::shade`]), the vertex shader reads the colour back, and the
//! fragment shader only turns the ribbon's opacity into coverage and tone-maps the
//! interpolated colour. (Until 2026-12-03 the vertex shader did the shading itself, twice
//! per point; on lavapipe, which runs vertex shaders on one thread, that was 25–45% of the
//! ribbons' time. The compute rasteriser reads the same colours.) Fragments are many times more numerous than vertices (a strand
//! crosses dozens of pixels, each with four samples, many of them hidden), so this is the
//! cheaper side on any GPU; on a CPU rasteriser (lavapipe), where fragment work is
//! multiplied by the samples and by the partly covered 4×4 blocks a thin ribbon crosses,
//! it cut the ribbon pass by about 2.7× (`cargo bench --bench frame`). The look is the same
//! to the eye; where the old per-fragment lookup of the point-sampled first-hair depth
//! showed blocky texel-sized blotches in close-ups, the strands are now evenly shaded.
//!
//! # Where the time goes on a CPU adapter
//!
//! On lavapipe (Vulkan on 2 CPU cores) a frame of 4,096 strands at 640×360 takes about
//! 150 ms: shadow maps, surfaces and ribbons a third each (`cargo bench --bench frame`,
//! one run on a machine under load 3.8). What is left is mostly fixed by the design: the
//! rasteriser pays per triangle (about half a microsecond), and every ribbon is drawn up to
//! three times (first hair, deep opacity, camera), so the hair's share grows with the
//! strand count (16,384 strands: about 430 ms, the shadow maps and the ribbons 190 ms
//! each); and lavapipe's 4× MSAA roughly triples the cost of
//! every pixel of the camera passes (one sample halves the frame, but the coverage turns to
//! a visible dither). A smaller shadow map (512²) saves about 15% at 640×360 and coarsens
//! the strands' shadows on the skin; it is a setting ([`RenderSettings::shadow_map_size`]).
//!
//! # Memory (beyond the solver's buffers)
//!
//! Per strand 16 bytes ([`hair::RibbonStrand`]), a 4-byte cull flag and 24 bytes of
//! shaded point colours: 18.5 MB at the full tier. Targets at 1920×1080 with 4× MSAA: colour 33 MB + depth 33 MB (+ IDs 10 MB
//! when asked for, tests only). Shadow maps at 1024²: 21 MB. Meshes under 2 MB. About
//! 107 MB in all at the full tier; [`FurRenderer::memory_bytes`] and
//! [`target::FrameTargets::bytes`] report it.

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
pub mod ids;
pub mod light_view;
pub mod mesh;
pub mod mesh_lod;
pub mod overlay;
pub mod palette;
mod pass_view;
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

pub use camera::{Camera, CameraPreset};
pub use capture::Image;
pub use debug::DebugMode;
pub use embed::{EmbedTarget, Placement};
pub use environment::{EnvironmentError, EnvironmentMap};
pub use hair::compute_raster;
pub use hair::{RELEASE_COMPUTE_AFTER_FRAMES, RibbonStrand};
pub use mesh::Material;
pub use palette::BACKGROUND;
pub use palette::{Lighting, Srgb};
pub use renderer::FurRenderer;
pub use scene::Scene;
pub use settings::{Raster, RenderSettings};
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
