//! The renderer's levels of detail: how many strands a frame draws and how wide
//! ([`FurRenderer::strand_lod`]), the skin's tessellation and the hand's, each by the
//! creature's size on screen unless fixed.

use super::camera::{CREATURE_CENTER, Camera};
use super::mesh_lod::skin_level;
use super::renderer::FurRenderer;
use super::shapes::CapsuleDetail;
use super::strand_lod::{LodPolicy, StrandLod, coat_pixels};

impl FurRenderer {
    /// How frames choose their strands: by the coat's size on screen, widened toward a
    /// reference density (see [`LodPolicy`]). Until this is called, every strand is drawn
    /// at its own width ([`LodPolicy::whole_coat`]).
    pub fn set_lod_policy(&mut self, policy: LodPolicy) {
        self.lod_policy = policy;
    }

    /// How frames choose their strands.
    pub fn lod_policy(&self) -> LodPolicy {
        self.lod_policy
    }

    /// The strand level of detail of a frame seen by `camera` in a target of `size` pixels:
    /// `drawn` is how many strands every strand pass draws (the prefix of the drawn order
    /// that `drawn_count()` in `ribbon_geometry.wgsl` bounds).
    pub fn strand_lod(&self, camera: &Camera, size: (u32, u32)) -> StrandLod {
        StrandLod::for_view(
            self.strands.as_ref().map_or(0, |s| s.count),
            camera,
            size.1,
            self.settings.root_width,
            self.settings.min_pixels,
            &self.lod_policy,
        )
    }

    /// The skin's level of detail (`mesh_lod::DETAILS`, 0 the finest) for a frame seen by
    /// `camera` in a target of `size` pixels.
    pub fn skin_level(&self, camera: &Camera, size: (u32, u32)) -> usize {
        self.fixed_skin_level.unwrap_or_else(|| {
            skin_level(
                coat_pixels(camera, CREATURE_CENTER, size.1),
                &self.surfaces.skin_triangles(),
            )
        })
    }

    /// Draws the skin at a fixed level of detail (`Some(0)`: always the full mesh), or
    /// by its size on screen (`None`, the default).
    pub fn set_skin_level(&mut self, level: Option<usize>) {
        self.fixed_skin_level = level;
    }

    /// Triangles of the skin at each level of detail, finest first.
    pub fn skin_triangles(&self) -> Vec<u32> {
        self.surfaces.skin_triangles()
    }

    /// Triangles of the eyes and nose at each of the skin's levels of detail, finest
    /// first: they are drawn at the skin's level, no coarser than half their facets.
    pub fn face_triangles(&self) -> Vec<u32> {
        self.surfaces.face_triangles()
    }

    /// Draws the hand's capsules at a fixed tessellation (`Some(CapsuleDetail::FINE)`:
    /// always the full one), or each by its size on screen (`None`, the default).
    pub fn set_hand_detail(&mut self, detail: Option<CapsuleDetail>) {
        self.fixed_hand_detail = detail;
    }

    /// Triangles of the hand as the last frame drew it (its capsules tessellated by their
    /// size on screen).
    pub fn hand_triangles(&self) -> u32 {
        self.surfaces.hand_triangles()
    }

    /// The strand level of detail of the last frame drawn.
    pub fn last_lod(&self) -> StrandLod {
        self.last_lod
    }

    /// Uploads the `hand`'s capsules, each as finely as its size on screen from `camera` in
    /// a target of `size` needs: its radius over its nearest depth (an end's, less the
    /// radius; a perspective projection's size; off the view's axis things look larger
    /// still, so this errs toward fine).
    pub(super) fn upload_hand(
        &mut self,
        hand: &[super::DrawCapsule],
        camera: &Camera,
        size: (u32, u32),
    ) {
        let pixel_scale = camera.pixel_scale(size.1);
        let eye = camera.eye;
        let forward = (camera.target - eye).normalize_or(glam::Vec3::NEG_Z);
        let fixed = self.fixed_hand_detail;
        self.surfaces
            .upload_hand(&self.device, &self.queue, hand, |c| {
                if let Some(detail) = fixed {
                    return detail;
                }
                let near = (c.a - eye).dot(forward).min((c.b - eye).dot(forward)) - c.radius;
                CapsuleDetail::for_radius_pixels(c.radius / (near.max(1e-3) * pixel_scale))
            });
    }
}
