//! Frames drawn into a caller's own targets ([`FurRenderer::draw_into`]): the creature, its
//! coat and the hand, depth-tested against what the caller already drew there, placed in
//! the caller's world by a model transform and lit by its lights. No background, no floor
//! unless asked for, no ID target; the hair is drawn by the hardware ribbons (the compute
//! rasteriser keeps its own buffers at Pelt's sample layout, so it cannot draw into a
//! caller's depth; the strand rasteriser would sample the caller's depth as a texture,
//! which an [`EmbedTarget`] does not promise).

use super::RenderError;
use super::camera::Camera;
use super::embed_pipelines::EmbedPipelines;
use super::hair::{HairDraw, HairFrame, HairPath};
use super::palette::Lighting;
use super::renderer::FurRenderer;
use super::scene::Scene;
use super::settings::Raster;
use super::target::TargetLayout;
use crate::creature::Ray;
use glam::{Mat4, Vec3, Vec4};

/// A caller's colour and depth targets to draw a frame into. Both are views of mip level 0
/// of 2D textures of one size and one sample count (1, or 4 for MSAA: the caller resolves
/// its own colour afterwards), made with `RENDER_ATTACHMENT`. What they hold is kept
/// (loaded, never cleared): the creature is drawn over it where it is nearer.
///
/// Depth is Pelt's reversed depth: 0 is infinitely far, greater is nearer (cleared to 0,
/// compared with `GreaterEqual`), as [`Camera::view_proj`] makes it. Draw your own scene with
/// that matrix (or the same reversed, infinite projection) so the two agree.
#[derive(Clone, Copy, Debug)]
pub struct EmbedTarget<'a> {
    /// The colour view drawn into.
    pub color: &'a wgpu::TextureView,
    /// Its view format: an sRGB format (Pelt writes tone-mapped linear light and lets the
    /// hardware encode it; for a non-sRGB texture, make an sRGB view of it), or
    /// `Rgba16Float`, which receives the same tone-mapped linear values.
    pub color_format: wgpu::TextureFormat,
    /// The depth view tested against and written.
    pub depth: &'a wgpu::TextureView,
    /// Its format: any depth format (a stencil aspect is kept as it is).
    pub depth_format: wgpu::TextureFormat,
}

/// Where a frame drawn into a caller's targets puts the creature, and how it is lit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// The creature's space → the caller's world: a rotation, one scale for all three
    /// axes and a translation (a mirror, shear or uneven scale would turn the ribbons'
    /// widths and the skin's winding wrong, and is refused). The identity puts the
    /// creature where [`FurRenderer::render`] draws it: standing on y ≈ −0.87, facing +Z.
    pub model: Mat4,
    /// The lights, their directions in the caller's world.
    pub lighting: Lighting,
    /// Whether Pelt's floor (a disc under the creature) is drawn too; off by default.
    pub floor: bool,
}

impl Placement {
    /// The creature placed by `model`, the default lights, no floor.
    pub fn new(model: Mat4) -> Self {
        Placement {
            model,
            lighting: Lighting::default(),
            floor: false,
        }
    }

    /// The model transform's uniform scale, or why it is not a rotation, a uniform scale
    /// and a translation.
    pub fn scale(&self) -> Result<f32, RenderError> {
        let m = self.model;
        let bad = |why: &str| Err(RenderError::Scene(format!("the model transform {why}")));
        if !m.is_finite() {
            return bad("has a number that is not finite");
        }
        if m.row(3) != Vec4::W {
            return bad("has a projective part: its last row must be 0, 0, 0, 1");
        }
        let [x, y, z] = [
            m.x_axis.truncate(),
            m.y_axis.truncate(),
            m.z_axis.truncate(),
        ];
        let scale = x.length();
        let tolerance = 1e-3 * scale * scale;
        if scale <= 1e-6 {
            return bad("scales the creature to nothing");
        }
        let even = [y, z]
            .iter()
            .all(|a| (a.length() - scale).abs() <= 1e-3 * scale);
        let square = x.dot(y).abs() <= tolerance
            && y.dot(z).abs() <= tolerance
            && z.dot(x).abs() <= tolerance;
        if !(even && square) {
            return bad(
                "is not a rotation, one scale and a translation: its axes must be at right \
                 angles and of one length",
            );
        }
        if x.cross(y).dot(z) < 0.0 {
            return bad("mirrors the creature: give a rotation with a positive determinant");
        }
        Ok(scale)
    }

    /// `ray` (in the caller's world) in the creature's own space, where the pointer methods
    /// of [`crate::SimulatedFur`] and the proxies test it: pet a placed creature with
    /// the rays your camera casts, passed through this.
    pub fn ray_to_creature(&self, ray: Ray) -> Ray {
        let inverse = self.model.inverse();
        Ray::new(
            inverse.transform_point3(ray.origin),
            inverse.transform_vector3(ray.direction),
        )
    }

    /// `scene` as seen in the creature's own space: the camera and the lights carried
    /// back through the model transform, the near plane scaled with it, so the frame's
    /// picture and depths are those of the caller's camera looking at the placed creature.
    fn in_creature_space<'a>(&self, scene: &Scene<'a>) -> Result<Scene<'a>, RenderError> {
        let scale = self.scale()?;
        let inverse = self.model.inverse();
        let c = &scene.camera;
        let camera = Camera {
            eye: inverse.transform_point3(c.eye),
            target: inverse.transform_point3(c.target),
            up: inverse.transform_vector3(c.up),
            near: c.near / scale,
            ..*c
        };
        let direction = |d: Vec3| inverse.transform_vector3(d).normalize_or_zero();
        let lighting = Lighting {
            key_direction: direction(self.lighting.key_direction),
            fill_direction: direction(self.lighting.fill_direction),
            ..self.lighting
        };
        Ok(Scene {
            camera,
            lighting,
            ..scene.clone()
        })
    }
}

impl EmbedTarget<'_> {
    /// The targets' size and sample count, or what is wrong with them.
    fn check(&self, backend: wgpu::Backend) -> Result<((u32, u32), u32), RenderError> {
        let bad = |why: String| Err(RenderError::Scene(format!("embed target: {why}")));
        let (color, depth) = (self.color.texture(), self.depth.texture());
        let size = (color.width(), color.height());
        if (depth.width(), depth.height()) != size {
            return bad(format!(
                "the colour is {}×{} but the depth {}×{}: give both one size",
                size.0,
                size.1,
                depth.width(),
                depth.height()
            ));
        }
        let samples = color.sample_count();
        if depth.sample_count() != samples {
            return bad(format!(
                "the colour and the depth have different sample counts ({samples} and {}): \
                 give both one count",
                depth.sample_count()
            ));
        }
        if samples != 1 && samples != 4 {
            return bad(format!(
                "{samples} MSAA samples: Pelt draws into 1 or 4 (its coverage mask is 4 \
                 samples' standard pattern)"
            ));
        }
        if samples > 1 && backend == wgpu::Backend::Gl {
            return bad(format!(
                "{samples} MSAA samples on OpenGL, where wgpu cannot write the sample mask the \
                 ribbons use: give single-sampled targets"
            ));
        }
        let format = self.color_format;
        if format.remove_srgb_suffix() != color.format().remove_srgb_suffix() {
            return bad(format!(
                "the colour format is given as {format:?} but the texture is {:?}",
                color.format()
            ));
        }
        if !(format.is_srgb() || format == wgpu::TextureFormat::Rgba16Float) {
            return bad(format!(
                "colour format {format:?}: Pelt writes tone-mapped linear light, which needs \
                 an sRGB format (draw into an sRGB view: TextureFormat::add_srgb_suffix) or \
                 Rgba16Float"
            ));
        }
        if !self.depth_format.has_depth_aspect() || depth.format() != self.depth_format {
            return bad(format!(
                "the depth view must be a depth format and the one given ({:?}); the texture \
                 is {:?}",
                self.depth_format,
                depth.format()
            ));
        }
        let attachment = wgpu::TextureUsages::RENDER_ATTACHMENT;
        if !(color.usage().contains(attachment) && depth.usage().contains(attachment)) {
            return bad("both textures need the RENDER_ATTACHMENT usage".into());
        }
        Ok((size, samples))
    }
}

impl FurRenderer {
    /// The pipelines for `target`'s formats and `samples`, built the first time they are
    /// asked for (and again when they change).
    fn build_embed_pipelines(
        &mut self,
        target: &EmbedTarget,
        samples: u32,
    ) -> Result<(), RenderError> {
        let same = self.embed.as_ref().is_some_and(|p| {
            (p.color_format, p.depth_format, p.samples)
                == (target.color_format, target.depth_format, samples)
        });
        if !same {
            let layout = TargetLayout {
                color_format: target.color_format,
                samples,
                ..self.layout()
            };
            let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            let pipelines = EmbedPipelines {
                color_format: target.color_format,
                depth_format: target.depth_format,
                samples,
                surfaces: self
                    .surfaces
                    .pipelines_for(&self.device, &layout, target.depth_format),
                ribbons: self.hair.ribbons.final_pipeline_for(
                    &self.device,
                    &layout,
                    target.depth_format,
                ),
            };
            if let Some(e) = pollster::block_on(scope.pop()) {
                return Err(RenderError::Gpu(e.to_string()));
            }
            self.embed = Some(pipelines);
        }
        Ok(())
    }

    /// Records into `encoder` the creature of `scene` (its skin and face, the coat and the
    /// hand; the floor only if [`Placement::floor`]) drawn into the caller's `target`,
    /// placed and lit as `placement` says. What the targets hold is kept: the creature is
    /// depth-tested against it and writes its own depth. `scene.camera` is the caller's
    /// camera in its world; `scene.lighting` and `scene.mode` are not read (the lights are
    /// the placement's; the final look is drawn). The hair is drawn by the hardware
    /// ribbons whatever [`FurRenderer::raster`] says.
    ///
    /// Errors before any GPU work on targets Pelt cannot draw into ([`EmbedTarget`] says
    /// which), a model transform that is not a rotation, one scale and a translation, or a
    /// bad camera. As with [`FurRenderer::render`], submit the encoder before recording the
    /// next frame.
    pub fn draw_into(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &EmbedTarget,
        scene: &Scene,
        placement: &Placement,
    ) -> Result<(), RenderError> {
        let (size, samples) = target.check(self.device.adapter_info().backend)?;
        let scene = placement.in_creature_space(scene)?;
        scene.validate()?;
        self.build_embed_pipelines(target, samples)?;
        // This draws the light's maps, the cull and the shading for another view: a frame
        // in turns after it must make both again.
        self.turns.forget();
        let cull = self.hair_culling && self.strands.is_some();
        let lod = self.strand_lod(&scene.camera, size);
        self.last_lod = lod;
        self.hair.note_frame(Raster::Hardware);
        self.write_frame(&scene, size, samples, cull, lod)?;
        self.upload_hand(scene.hand, &scene.camera, size);
        let hair = HairDraw::of(self.strands.as_ref(), scene.positions_index, lod.drawn);
        let gpu = HairFrame {
            device: &self.device,
            queue: &self.queue,
            frame: &self.frame,
            shadow: &self.shadow,
            timestamps: None,
        };
        self.shadow
            .record_opaque(encoder, &self.frame, &self.surfaces, None);
        let shadow_hair = hair.filter(|_| self.settings.hair_casts_shadows);
        self.hair.ribbons.record_light(&gpu, encoder, shadow_hair);
        if let Some(draw) = hair {
            if cull {
                self.cull_strands(encoder, &scene, size, lod, None)?;
            }
            self.hair_strands.shade(
                encoder,
                &self.frame,
                &self.shadow.inputs,
                draw.strands,
                draw.group(),
                draw.count,
                None,
            );
        }
        // What the caller drew is loaded, never cleared, and everything drawn is kept.
        fn keep<V>() -> wgpu::Operations<V> {
            wgpu::Operations {
                load: wgpu::LoadOp::Load,
                store: wgpu::StoreOp::Store,
            }
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("embedded creature"),
            // The second slot is the ID target's in Pelt's own frames; none is drawn here.
            color_attachments: &[
                Some(wgpu::RenderPassColorAttachment {
                    view: target.color,
                    depth_slice: None,
                    resolve_target: None,
                    ops: keep(),
                }),
                None,
            ],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: target.depth,
                depth_ops: Some(keep()),
                stencil_ops: target.depth_format.has_stencil_aspect().then(keep),
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        let Some(pipelines) = self.embed.as_ref() else {
            return Err(RenderError::Gpu(
                "the pipelines for these targets are missing".into(),
            ));
        };
        let skin_level = self.skin_level(&scene.camera, size);
        self.surfaces.record_with(
            &mut pass,
            &pipelines.surfaces,
            &self.frame,
            &self.shadow.inputs,
            skin_level,
            placement.floor,
        );
        if let Some(draw) = hair {
            self.hair.ribbons.record_with(
                &mut pass,
                &pipelines.ribbons,
                &self.frame,
                &self.shadow.inputs,
                draw.camera_group(),
                draw.count,
            );
        }
        Ok(())
    }
}
