//! The start of every frame the renderer draws, whether into its own targets or a caller's:
//! the shadow maps at the size the target needs, and the frame's uniforms written.

use super::RenderError;
use super::frame::{FrameInputs, frame_uniforms};
use super::renderer::FurRenderer;
use super::scene::Scene;
use super::strand_lod::StrandLod;

impl FurRenderer {
    /// Writes the frame's uniforms for `scene` drawn at `size` with `samples`, after making
    /// the shadow maps again at the size the target needs when that changes (a corner of
    /// larger maps would still have all of them cleared every frame). Shared by
    /// [`FurRenderer::render`] and `draw_into`.
    pub(super) fn write_frame(
        &mut self,
        scene: &Scene,
        size: (u32, u32),
        samples: u32,
        cull: bool,
        lod: StrandLod,
    ) -> Result<(), RenderError> {
        let shadow_extent = self.settings.shadow_extent(size);
        if self.shadow.maps.size != shadow_extent {
            self.shadow.resize(&self.device, shadow_extent);
        }
        let (frame, camera_view, light_view) = frame_uniforms(
            scene,
            &FrameInputs {
                settings: &self.settings,
                size,
                samples,
                strands: self.strands.as_ref().map_or(0, |s| s.count),
                shadow_map_size: self.shadow.maps.size,
                cull,
                lod,
            },
        );
        self.culled_last_frame = cull;
        self.frame
            .write(&self.queue, &frame, &camera_view, &light_view)
    }
}
