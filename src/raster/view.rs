//! The view a picture or a light map is drawn from: the camera's (perspective, depth
//! reversed as the renderer's depth buffer holds it: 1 at the near plane, 0 far) or the
//! key light's (orthographic, depth 0 near … 1 far), with the target's size in pixels.

use super::RasterError;
use glam::{Mat4, Vec3, Vec4};

/// A view and its target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RasterView {
    /// World → clip.
    pub view_proj: Mat4,
    /// The eye (perspective), unused for an orthographic view.
    pub eye: Vec3,
    /// Unit viewing direction.
    pub forward: Vec3,
    /// True for a perspective view, false for an orthographic one.
    pub perspective: bool,
    /// World size of one pixel at unit distance (perspective) or of one pixel
    /// (orthographic): `Camera::pixel_scale` or the light map's texel.
    pub pixel_scale: f32,
    /// Target width, pixels.
    pub width: u32,
    /// Target height, pixels.
    pub height: u32,
    /// True when a greater depth is nearer (the camera's reversed depth), false when a
    /// smaller one is (the light's maps).
    pub reversed_depth: bool,
}

impl RasterView {
    /// A camera's view: perspective, reversed depth (the renderer's `Camera::view_proj`,
    /// its eye, forward and `pixel_scale(height)`).
    pub fn camera(
        view_proj: Mat4,
        eye: Vec3,
        forward: Vec3,
        pixel_scale: f32,
        (width, height): (u32, u32),
    ) -> Self {
        RasterView {
            view_proj,
            eye,
            forward,
            perspective: true,
            pixel_scale,
            width,
            height,
            reversed_depth: true,
        }
    }

    /// A directional light's view: orthographic, depth 0 near … 1 far (the renderer's
    /// `light_frame`), `texel` metres a texel, maps `size` texels a side.
    pub fn light(view_proj: Mat4, forward: Vec3, texel: f32, size: u32) -> Self {
        RasterView {
            view_proj,
            eye: Vec3::ZERO,
            forward,
            perspective: false,
            pixel_scale: texel,
            width: size,
            height: size,
            reversed_depth: false,
        }
    }

    /// Checks the size and the numbers.
    pub fn validate(&self) -> Result<(), RasterError> {
        if self.width == 0 || self.height == 0 || self.width > 16384 || self.height > 16384 {
            return Err(RasterError::Size {
                width: self.width,
                height: self.height,
            });
        }
        let finite = self.view_proj.is_finite()
            && self.eye.is_finite()
            && self.forward.is_finite()
            && self.pixel_scale.is_finite();
        if !finite || self.pixel_scale <= 0.0 || self.forward.length_squared() < 1e-12 {
            return Err(RasterError::View(
                "the view has a number that is not finite, a pixel size that is not positive or no viewing direction"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Unit direction from `world` toward the viewer. WGSL twin: `toward_viewer`.
    pub(crate) fn toward_viewer(&self, world: Vec3) -> Vec3 {
        if self.perspective {
            (self.eye - world).normalize()
        } else {
            -self.forward
        }
    }

    /// World size of one pixel at `world`. WGSL twin: `pixel_size`.
    pub(crate) fn pixel_size(&self, world: Vec3) -> f32 {
        if self.perspective {
            (world - self.eye).dot(self.forward).max(1e-4) * self.pixel_scale
        } else {
            self.pixel_scale
        }
    }

    /// Where `world` lands: pixel x, y (origin top left, y down), depth as nearness (greater
    /// is nearer; the depth itself for reversed depth, its negation otherwise), and clip w.
    pub(crate) fn project(&self, world: Vec3) -> Vec4 {
        let clip = self.view_proj * world.extend(1.0);
        let inv_w = 1.0 / clip.w;
        let ndc = clip.truncate() * inv_w;
        Vec4::new(
            (ndc.x * 0.5 + 0.5) * self.width as f32,
            (0.5 - ndc.y * 0.5) * self.height as f32,
            self.nearness(ndc.z),
            clip.w,
        )
    }

    /// A depth of this view as nearness (greater is nearer).
    pub(crate) fn nearness(&self, depth: f32) -> f32 {
        if self.reversed_depth { depth } else { -depth }
    }
}
