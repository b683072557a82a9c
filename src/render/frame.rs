//! The uniform blocks every render pass reads (`shaders/frame.wgsl`): the frame's
//! ([`FrameUniforms`]) and the view of the pass being drawn ([`PassView`]), laid out by
//! encase, which applies WGSL's layout rules (a test checks them against the shader as naga
//! parses it); and [`FrameBinding`], their buffers and bind group 0 of every render pass.

use super::RenderError;
use super::descriptors::{bind_group, bind_group_layout, uniform_entry};
use super::light_view::{SLAB_ENDS, light_frame};
use super::mesh::Material;
use super::palette::BACKGROUND;
use super::palette::Srgb;
pub use super::pass_view::PassView;
use super::scene::Scene;
use super::settings::RenderSettings;
use super::strand_lod::StrandLod;
use encase::ShaderType;
use glam::{Mat4, Vec3, Vec4};

/// Most hand capsules the shading's soft occlusion considers.
pub const MAX_HAND_CAPSULES: usize = crate::shaders::MAX_HAND_CAPSULES as usize;

/// Depth bias of the opaque shadow map, metres.
const SHADOW_BIAS: f32 = 0.006;

/// One hand capsule for the occlusion term. WGSL twin: `HandCapsule`.
#[derive(Clone, Copy, Debug, Default, PartialEq, ShaderType)]
pub struct HandCapsuleUniform {
    /// First end.
    pub a: Vec3,
    /// Radius.
    pub radius: f32,
    /// Second end.
    pub b: Vec3,
}

/// Everything that is the same for every pass of a frame. WGSL twin: `FrameUniforms`
/// (`shaders/frame.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, ShaderType)]
pub struct FrameUniforms {
    /// World → clip for the camera.
    pub view_proj: Mat4,
    /// World → clip for the key light (orthographic, depth 0 … 1 forward).
    pub light_view_proj: Mat4,
    /// The camera's position.
    pub eye: Vec3,
    /// Unit direction toward the key light.
    pub light_dir: Vec3,
    /// The key light's irradiance.
    pub light_irradiance: f32,
    /// Linear colour of the key light.
    pub light_color: Vec3,
    /// Unit direction toward the fill light.
    pub fill_dir: Vec3,
    /// The fill light's irradiance.
    pub fill_irradiance: f32,
    /// Ambient light from above (linear).
    pub sky: Vec3,
    /// Ambient light from below (linear).
    pub ground: Vec3,
    /// The key light's depth range, metres.
    pub light_depth_range: f32,
    /// Hair density per unit coverage in the deep opacity map.
    pub hair_density: f32,
    /// Depth bias of the opaque shadow map, metres.
    pub shadow_bias: f32,
    /// Deep opacity map slab ends, metres behind the first hair.
    pub slab_ends: Vec4,
    /// Coat main colour, linear.
    pub coat_main: Vec3,
    /// Coat cream colour, linear.
    pub coat_cream: Vec3,
    /// Coat stripe colour, linear.
    pub coat_stripe: Vec3,
    /// Coat blush colour, linear.
    pub coat_blush: Vec3,
    /// Head-local → world.
    pub head: Mat4,
    /// Body-local → world.
    pub body: Mat4,
    /// Each tail bone's skinning transform (rest body space → world).
    pub tail: [Mat4; crate::creature::TAIL_BONES],
    /// The hand's capsules for the occlusion term; the first `hand_count` are read.
    pub hand: [HandCapsuleUniform; MAX_HAND_CAPSULES],
    /// Hand capsules in use.
    pub hand_count: u32,
    /// Strength of the hand's occlusion, 0 … 1.
    pub hand_occlusion_strength: f32,
    /// Distance over which the hand's occlusion fades, metres.
    pub hand_falloff: f32,
    /// How far the eyes are narrowed, 0 open … 1 nearly shut.
    pub eye_narrowing: f32,
    /// Ribbon width at the root, metres.
    pub root_width: f32,
    /// Ribbon width at the tip, as a share of the root's.
    pub tip_width: f32,
    /// Share of the length, at the tip, over which a strand fades out.
    pub tip_fade: f32,
    /// Narrowest drawn ribbon, pixels.
    pub min_pixels: f32,
    /// Exposure before the tone map.
    pub exposure: f32,
    /// The linear colour behind the creature (the floor fades into it).
    pub background: Vec3,
    /// Strands bound.
    pub strand_count: u32,
    /// MSAA samples of the camera's targets.
    pub msaa_samples: u32,
    /// 1 when the hair casts shadows.
    pub hair_casts_shadows: u32,
    /// 1 when the camera's ribbons skip the strands the cull pass marked.
    pub cull_hidden_strands: u32,
    /// Strands drawn this frame: a prefix of the drawn order ([`StrandLod::drawn`]).
    pub lod_drawn: u32,
    /// Where the drawn strands' fade ends ([`StrandLod::end`]).
    pub lod_end: f32,
    /// Strands over which the weight falls from 1 to 0 ([`StrandLod::fade`]).
    pub lod_fade: f32,
    /// Every drawn ribbon's width is multiplied by this ([`StrandLod::width_scale`]).
    pub lod_width_scale: f32,
    /// Which of the ribbons' dithers the camera draws
    /// ([`super::RenderSettings::ribbon_dither`]; 0 the default).
    pub ribbon_dither: u32,
}

/// The bytes of a uniform block as WGSL lays it out.
pub fn uniform_bytes<T: ShaderType + encase::internal::WriteInto>(
    value: &T,
) -> Result<Vec<u8>, RenderError> {
    encase::UniformBuffer::<Vec<u8>>::content_of::<T, Vec<u8>>(value)
        .map_err(|e| RenderError::Gpu(format!("uniform layout: {e}")))
}

/// What a frame's uniforms are made from besides the scene.
#[derive(Clone, Copy, Debug)]
pub struct FrameInputs<'a> {
    /// The renderer's settings.
    pub settings: &'a RenderSettings,
    /// The target's size in pixels.
    pub size: (u32, u32),
    /// MSAA samples of the camera's targets.
    pub samples: u32,
    /// Strands bound.
    pub strands: u32,
    /// Texels along each side of the shadow maps, made at the size this frame needs
    /// ([`super::RenderSettings::shadow_extent`]).
    pub shadow_map_size: u32,
    /// Whether the camera's ribbons skip the strands the cull pass marks.
    pub cull: bool,
    /// Which strands are drawn, how opaque and how wide.
    pub lod: StrandLod,
}

/// The frame's uniforms for `scene`, and the camera's and the key light's views.
pub fn frame_uniforms(scene: &Scene, inputs: &FrameInputs) -> (FrameUniforms, PassView, PassView) {
    let (w, h) = (inputs.size.0 as f32, inputs.size.1 as f32);
    let camera = &scene.camera;
    let view_proj = camera.view_proj(w / h);
    let l = &scene.lighting;
    let (light_view_proj, light_range, light_view) =
        light_frame(l.key_direction, inputs.shadow_map_size);
    let mut hand = [HandCapsuleUniform::default(); MAX_HAND_CAPSULES];
    let mut hand_count = 0;
    for c in scene
        .hand
        .iter()
        .filter(|c| c.material == Material::Hand && c.is_valid())
        .take(MAX_HAND_CAPSULES)
    {
        hand[hand_count] = HandCapsuleUniform {
            a: c.a,
            radius: c.radius,
            b: c.b,
        };
        hand_count += 1;
    }
    let s = inputs.settings;
    let frame = FrameUniforms {
        view_proj,
        light_view_proj,
        eye: camera.eye,
        light_dir: l.key_direction.normalize(),
        light_irradiance: l.key_irradiance,
        light_color: l.key_color,
        fill_dir: l.fill_direction.normalize(),
        fill_irradiance: l.fill_irradiance,
        sky: l.sky,
        ground: l.ground,
        light_depth_range: light_range,
        hair_density: s.hair_density,
        shadow_bias: SHADOW_BIAS,
        slab_ends: Vec4::from_array(SLAB_ENDS),
        coat_main: Srgb::MAIN.linear(),
        coat_cream: Srgb::CREAM.linear(),
        coat_stripe: Srgb::STRIPE.linear(),
        coat_blush: Srgb::BLUSH.linear(),
        head: Mat4::from(scene.pose.head),
        body: Mat4::from(scene.pose.body),
        tail: scene.pose.tail.map(Mat4::from),
        hand,
        hand_count: hand_count as u32,
        hand_occlusion_strength: scene.hand_occlusion.clamp(0.0, 1.0),
        hand_falloff: s.hand_occlusion_falloff,
        eye_narrowing: scene.eye_narrowing.clamp(0.0, 1.0),
        root_width: s.root_width,
        tip_width: s.tip_width,
        tip_fade: s.tip_fade,
        min_pixels: s.min_pixels,
        exposure: l.exposure,
        background: BACKGROUND,
        strand_count: inputs.strands,
        msaa_samples: inputs.samples,
        hair_casts_shadows: u32::from(s.hair_casts_shadows),
        cull_hidden_strands: u32::from(inputs.cull),
        lod_drawn: inputs.lod.drawn.min(inputs.strands),
        lod_end: inputs.lod.end,
        lod_fade: inputs.lod.fade.max(1.0),
        lod_width_scale: inputs.lod.width_scale,
        ribbon_dither: s.ribbon_dither,
    };
    let camera_view = PassView {
        view_proj,
        eye: camera.eye,
        perspective: 1,
        forward: camera.forward(),
        pixel_scale: camera.pixel_scale(inputs.size.1),
    };
    (frame, camera_view, light_view)
}

/// Which view a pass draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The camera's.
    Camera,
    /// The key light's.
    Light,
}

/// The frame's uniform buffer and the two pass views (one buffer, selected by a dynamic
/// offset), bound as group 0 of every render pipeline.
#[derive(Debug)]
pub struct FrameBinding {
    /// Group 0's layout: frame uniforms, pass view (dynamic offset).
    pub layout: wgpu::BindGroupLayout,
    uniforms: wgpu::Buffer,
    views: wgpu::Buffer,
    view_stride: u64,
    group: wgpu::BindGroup,
    /// What [`FrameBinding::write`] last wrote, for a hair path that draws on the host.
    written: Option<Box<WrittenFrame>>,
}

/// A frame's uniforms and its two views as written, kept on the host.
#[derive(Clone, Copy, Debug)]
pub struct WrittenFrame {
    /// The frame's uniforms.
    pub frame: FrameUniforms,
    /// The camera's view.
    pub camera: PassView,
    /// The key light's view.
    pub light: PassView,
}

impl FrameBinding {
    /// The buffers and the group.
    pub fn new(device: &wgpu::Device) -> Self {
        let view_size = PassView::min_size().get();
        // Compute too: the shading and the WGSL strand rasteriser read the frame as the
        // ribbons do.
        let with_compute = |mut entry: wgpu::BindGroupLayoutEntry| {
            entry.visibility |= wgpu::ShaderStages::COMPUTE;
            entry
        };
        let layout = bind_group_layout(
            device,
            "render: frame",
            &[
                with_compute(uniform_entry(0, FrameUniforms::min_size().get(), false)),
                with_compute(uniform_entry(1, view_size, true)),
            ],
        );
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render: frame uniforms"),
            size: FrameUniforms::min_size().get(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let align = u64::from(device.limits().min_uniform_buffer_offset_alignment).max(16);
        let view_stride = view_size.div_ceil(align) * align;
        let views = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render: pass views"),
            size: view_stride * 2,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let group = bind_group(
            device,
            "render: frame",
            &layout,
            &[
                uniforms.as_entire_binding(),
                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &views,
                    offset: 0,
                    size: wgpu::BufferSize::new(view_size),
                }),
            ],
        );
        FrameBinding {
            layout,
            uniforms,
            views,
            view_stride,
            group,
            written: None,
        }
    }

    /// Writes the frame's uniforms and both views (they land at the next submission).
    pub fn write(
        &mut self,
        queue: &wgpu::Queue,
        frame: &FrameUniforms,
        camera: &PassView,
        light: &PassView,
    ) -> Result<(), RenderError> {
        queue.write_buffer(&self.uniforms, 0, &uniform_bytes(frame)?);
        queue.write_buffer(&self.views, 0, &uniform_bytes(camera)?);
        queue.write_buffer(&self.views, self.view_stride, &uniform_bytes(light)?);
        self.written = Some(Box::new(WrittenFrame {
            frame: *frame,
            camera: *camera,
            light: *light,
        }));
        Ok(())
    }

    /// The uniforms and views last written (`None` before the first frame).
    pub fn written(&self) -> Option<&WrittenFrame> {
        self.written.as_deref()
    }

    /// Binds the frame as group 0 of `pass`, seen from `view`.
    pub fn bind(&self, pass: &mut wgpu::RenderPass, view: View) {
        pass.set_bind_group(0, &self.group, &[self.offset(view)]);
    }

    /// Binds the frame as group 0 of a compute `pass`, seen from `view`.
    pub fn bind_compute(&self, pass: &mut wgpu::ComputePass, view: View) {
        pass.set_bind_group(0, &self.group, &[self.offset(view)]);
    }

    fn offset(&self, view: View) -> u32 {
        match view {
            View::Camera => 0,
            View::Light => self.view_stride as u32,
        }
    }

    /// Bytes of GPU memory the buffers take.
    pub fn bytes(&self) -> u64 {
        self.uniforms.size() + self.views.size()
    }
}
