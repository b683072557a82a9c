//! The demo's panel kept between frames: egui's output is drawn into a texture of the
//! window's size only where it changed since the last frame (the damage: the pixels of the
//! primitives that differ), and that texture is laid over every frame by one plain load per
//! pixel of the panel. egui's own fragment shader (four texture loads, dithering and a
//! gamma conversion a pixel) would draw the whole panel every frame, while most frames
//! change one line of text (its cost is in docs/architecture.md (Measured)).

use egui::epaint::Primitive;
use egui::{ClippedPrimitive, epaint::ClippedShape};
use pelt::shaders::ShaderModule;

/// A rectangle of whole pixels: `x0..x1` × `y0..y1` (the maxima excluded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelRect {
    /// First column.
    pub x0: u32,
    /// First row.
    pub y0: u32,
    /// Column after the last.
    pub x1: u32,
    /// Row after the last.
    pub y1: u32,
}

impl PixelRect {
    /// The whole of a target of `size`, or `None` when it has no pixels.
    pub fn whole(size: (u32, u32)) -> Option<Self> {
        (size.0 > 0 && size.1 > 0).then_some(PixelRect {
            x0: 0,
            y0: 0,
            x1: size.0,
            y1: size.1,
        })
    }

    /// The smallest rectangle holding both.
    pub fn union(self, other: Self) -> Self {
        PixelRect {
            x0: self.x0.min(other.x0),
            y0: self.y0.min(other.y0),
            x1: self.x1.max(other.x1),
            y1: self.y1.max(other.y1),
        }
    }

    /// The pixels in both, or `None`.
    fn intersect(self, other: Self) -> Option<Self> {
        let r = PixelRect {
            x0: self.x0.max(other.x0),
            y0: self.y0.max(other.y0),
            x1: self.x1.min(other.x1),
            y1: self.y1.min(other.y1),
        };
        (r.x0 < r.x1 && r.y0 < r.y1).then_some(r)
    }

    /// Limits `pass`'s drawing to these pixels (never empty: every `PixelRect` made here
    /// has pixels).
    fn scissor(self, pass: &mut wgpu::RenderPass) {
        pass.set_scissor_rect(self.x0, self.y0, self.x1 - self.x0, self.y1 - self.y0);
    }

    /// The rectangle in egui's points at `pixels_per_point` (on whole pixels, so egui's
    /// scissor, which rounds, gives these pixels back).
    fn in_points(self, pixels_per_point: f32) -> egui::Rect {
        let p = |x: u32, y: u32| egui::pos2(x as f32, y as f32) / pixels_per_point;
        egui::Rect::from_min_max(p(self.x0, self.y0), p(self.x1, self.y1))
    }
}

/// Pixels of a target of `size` from `rect` in points, each bound rounded by `round`
/// (egui's scissor rounds to nearest; a mesh's bounds are rounded outward).
fn pixels_of(
    rect: egui::Rect,
    pixels_per_point: f32,
    size: (u32, u32),
    round: [fn(f32) -> f32; 2],
) -> Option<PixelRect> {
    if rect.any_nan() {
        return None;
    }
    let to = |v: f32, limit: u32, f: fn(f32) -> f32| {
        f(v * pixels_per_point).clamp(0.0, limit as f32) as u32
    };
    let r = PixelRect {
        x0: to(rect.min.x, size.0, round[0]),
        y0: to(rect.min.y, size.1, round[0]),
        x1: to(rect.max.x, size.0, round[1]),
        y1: to(rect.max.y, size.1, round[1]),
    };
    (r.x0 < r.x1 && r.y0 < r.y1).then_some(r)
}

/// The pixels egui's scissor keeps for `clip_rect` (it rounds each edge to the nearest
/// pixel).
fn scissor_pixels(
    clip_rect: egui::Rect,
    pixels_per_point: f32,
    size: (u32, u32),
) -> Option<PixelRect> {
    pixels_of(clip_rect, pixels_per_point, size, [f32::round, f32::round])
}

/// Every pixel `bounds` reaches into (its edges rounded outward).
fn outward_pixels(
    bounds: egui::Rect,
    pixels_per_point: f32,
    size: (u32, u32),
) -> Option<PixelRect> {
    pixels_of(bounds, pixels_per_point, size, [f32::floor, f32::ceil])
}

/// The pixels `primitive` can touch: its clip rectangle as egui's scissor rounds it, and
/// of that, for a mesh, its vertices' bounds rounded outward (a triangle covers only
/// pixels whose centres it holds); a callback may touch its whole clip rectangle.
pub fn primitive_pixels(
    primitive: &ClippedPrimitive,
    pixels_per_point: f32,
    size: (u32, u32),
) -> Option<PixelRect> {
    let scissor = scissor_pixels(primitive.clip_rect, pixels_per_point, size)?;
    match &primitive.primitive {
        Primitive::Mesh(mesh) if mesh.indices.is_empty() => None,
        Primitive::Mesh(mesh) => {
            outward_pixels(mesh.calc_bounds(), pixels_per_point, size)?.intersect(scissor)
        }
        Primitive::Callback(_) => Some(scissor),
    }
}

/// Pixels past a shape's bounds its tessellation may reach: its snapping to the pixel
/// grid (half a pixel) and the anti-aliasing feather (one pixel), rounded up.
const SHAPE_MARGIN: f32 = 2.0;

/// The pixels `shape` can touch: within its clip rectangle (as egui's scissor rounds it),
/// its visual bounds rounded outward and widened by [`SHAPE_MARGIN`]; a transformed shape
/// or a callback may touch its whole clip rectangle.
pub fn shape_pixels(
    shape: &ClippedShape,
    pixels_per_point: f32,
    size: (u32, u32),
) -> Option<PixelRect> {
    let scissor = scissor_pixels(shape.clip_rect, pixels_per_point, size)?;
    if shape.transform_after_tessellation != egui::emath::TSTransform::IDENTITY
        || matches!(shape.shape, egui::Shape::Callback(_))
    {
        return Some(scissor);
    }
    // Widened in points, before rounding and clamping, so a shape just off the target
    // still counts where its feather reaches in. An empty shape's bounds
    // (`Rect::NOTHING`, min above max) stay empty and give no pixels.
    let margin = SHAPE_MARGIN / pixels_per_point;
    let bounds = shape.shape.visual_bounding_rect().expand(margin);
    outward_pixels(bounds, pixels_per_point, size)?.intersect(scissor)
}

/// Where drawing `current` gives other pixels than drawing `previous` did: the pixels of
/// every shape that differs from the one at its place in the other list, in both its
/// forms, and of every shape only one list has. A pixel outside it is touched by the same
/// shapes in the same order in both, so it is unchanged (while egui's textures are: the
/// caller redraws everything when they change). `None`: nothing changed.
pub fn damage(
    previous: &[ClippedShape],
    current: &[ClippedShape],
    pixels_per_point: f32,
    size: (u32, u32),
) -> Option<PixelRect> {
    let pixels = |p: &ClippedShape| shape_pixels(p, pixels_per_point, size);
    let mut changed: Option<PixelRect> = None;
    let mut add = |r: Option<PixelRect>| {
        if let Some(r) = r {
            changed = Some(changed.map_or(r, |c| c.union(r)));
        }
    };
    for i in 0..previous.len().max(current.len()) {
        match (previous.get(i), current.get(i)) {
            (Some(a), Some(b)) if a == b => {}
            (a, b) => {
                add(a.and_then(pixels));
                add(b.and_then(pixels));
            }
        }
    }
    changed
}

/// `jobs` cut to `area`: each primitive's clip rectangle shrunk to it, those left with no
/// pixels dropped (egui then draws only inside `area`).
pub fn clip_to(
    jobs: &[ClippedPrimitive],
    area: PixelRect,
    pixels_per_point: f32,
    size: (u32, u32),
) -> Vec<ClippedPrimitive> {
    let points = area.in_points(pixels_per_point);
    jobs.iter()
        .filter(|p| {
            primitive_pixels(p, pixels_per_point, size).is_some_and(|r| r.intersect(area).is_some())
        })
        .map(|p| ClippedPrimitive {
            clip_rect: p.clip_rect.intersect(points),
            primitive: p.primitive.clone(),
        })
        .collect()
}

/// Whether `delta` may change texels that shapes already drawn read: a texture set whole
/// (egui's font atlas made again or grown), freed, or any texture but the font atlas
/// written in part (an image updated in place). A delta at a position of the font atlas
/// writes new glyphs into atlas space nothing used before (egui allocates glyphs, with a
/// border, and never rewrites one); the shapes that use them are new, so they are in the
/// damage.
pub fn replaces_texels(delta: &egui::TexturesDelta) -> bool {
    let font_atlas = egui::TextureId::default();
    !delta.free.is_empty()
        || delta
            .set
            .iter()
            .any(|(id, d)| *id != font_atlas || d.iter().any(|d| d.pos.is_none()))
}

/// A render pass that draws over what `view` holds.
fn drawing_over(
    encoder: &mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    label: &str,
) -> wgpu::RenderPass<'static> {
    pass_on(encoder, view, label, wgpu::LoadOp::Load)
}

/// A render pass on `view`, which starts as `load` says.
fn pass_on(
    encoder: &mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    label: &str,
    load: wgpu::LoadOp<wgpu::Color>,
) -> wgpu::RenderPass<'static> {
    encoder
        .begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(label),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        })
        .forget_lifetime()
}

/// The cache's texture for one window size.
struct CacheTarget {
    size: (u32, u32),
    view: wgpu::TextureView,
    group: wgpu::BindGroup,
}

/// The kept panel: its texture, what it holds, and the two small pipelines that empty a
/// part of it and lay it over a frame.
pub struct PanelCache {
    format: wgpu::TextureFormat,
    layout: wgpu::BindGroupLayout,
    clear: wgpu::RenderPipeline,
    composite: wgpu::RenderPipeline,
    target: Option<CacheTarget>,
    /// What the texture holds: the shapes last drawn, at this scale.
    held: Vec<ClippedShape>,
    held_scale: f32,
    /// The pixels the held shapes may cover (the composite's scissor).
    shown: Option<PixelRect>,
}

/// What a frame redraws of the cache: the damaged pixels and the primitives cut to them.
pub struct Redraw {
    /// Pixels emptied and drawn again.
    pub area: PixelRect,
    /// The frame's primitives clipped to `area`, for egui's `update_buffers` and `render`.
    pub jobs: Vec<ClippedPrimitive>,
}

impl PanelCache {
    /// Pipelines for a panel drawn in `format` (the format egui's renderer was made for).
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let module = ShaderModule::PanelCache.create(device);
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("demo: panel cache"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        let reads_cache = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("demo: panel cache"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let reads_nothing = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("demo: panel cache clear"),
            bind_group_layouts: &[],
            immediate_size: 0,
        });
        // egui's blending (premultiplied "over"; alpha as egui accumulates it), so laying the
        // kept panel over a frame composes as drawing it there would.
        let over = wgpu::BlendState {
            color: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::One,
                dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
                operation: wgpu::BlendOperation::Add,
            },
            alpha: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::OneMinusDstAlpha,
                dst_factor: wgpu::BlendFactor::One,
                operation: wgpu::BlendOperation::Add,
            },
        };
        let pipeline = |entry: &str, layout: &wgpu::PipelineLayout, blend| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(entry),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_cover"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: Default::default(),
                depth_stencil: None,
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        PanelCache {
            format,
            clear: pipeline("fs_clear", &reads_nothing, None),
            composite: pipeline("fs_composite", &reads_cache, Some(over)),
            layout,
            target: None,
            held: Vec::new(),
            held_scale: 0.0,
            shown: None,
        }
    }

    /// Takes the frame's shapes and says what of the cache must be drawn again: nothing
    /// when they are the shapes it holds; everything when the window's size or scale
    /// changed or texels that unchanged shapes may read did (`textures_changed`, from
    /// [`replaces_texels`]); otherwise the damage. Only a frame with something to draw
    /// again has its shapes tessellated (`tessellate`).
    pub fn update(
        &mut self,
        device: &wgpu::Device,
        shapes: Vec<ClippedShape>,
        pixels_per_point: f32,
        size: (u32, u32),
        textures_changed: bool,
        tessellate: impl FnOnce(Vec<ClippedShape>) -> Vec<ClippedPrimitive>,
    ) -> Option<Redraw> {
        let fresh = self.target.as_ref().is_none_or(|t| t.size != size)
            || self.held_scale != pixels_per_point;
        if fresh {
            self.make_target(device, size);
        }
        let area = if fresh || textures_changed {
            PixelRect::whole(size)
        } else {
            damage(&self.held, &shapes, pixels_per_point, size)
        };
        self.shown = shapes
            .iter()
            .filter_map(|s| shape_pixels(s, pixels_per_point, size))
            .reduce(PixelRect::union);
        let redraw = area.map(|area| Redraw {
            area,
            jobs: clip_to(&tessellate(shapes.clone()), area, pixels_per_point, size),
        });
        self.held = shapes;
        self.held_scale = pixels_per_point;
        redraw
    }

    fn make_target(&mut self, device: &wgpu::Device, size: (u32, u32)) {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("demo: panel cache"),
            size: wgpu::Extent3d {
                width: size.0.max(1),
                height: size.1.max(1),
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: self.format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("demo: panel cache"),
            layout: &self.layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            }],
        });
        self.target = Some(CacheTarget { size, view, group });
    }

    /// Begins a pass on the cache with `area` emptied, for egui to draw the redraw's
    /// primitives into; `None` before the first [`PanelCache::update`].
    pub fn redraw_pass(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        area: PixelRect,
    ) -> Option<wgpu::RenderPass<'static>> {
        let target = self.target.as_ref()?;
        let mut pass = drawing_over(encoder, &target.view, "demo: panel cache");
        area.scissor(&mut pass);
        pass.set_pipeline(&self.clear);
        pass.draw(0..3, 0..1);
        Some(pass)
    }

    /// Lays the kept panel over `view` (a frame of the cache's size, in its format), over
    /// only the pixels the panel covers.
    pub fn composite(&self, encoder: &mut wgpu::CommandEncoder, view: &wgpu::TextureView) {
        let (Some(target), Some(shown)) = (&self.target, self.shown) else {
            return;
        };
        let mut pass = drawing_over(encoder, view, "demo: panel over the frame");
        shown.scissor(&mut pass);
        pass.set_pipeline(&self.composite);
        pass.set_bind_group(0, &target.group, &[]);
        pass.draw(0..3, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pelt::gpu::GpuContext;

    const SIZE: (u32, u32) = (320, 200);
    const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

    fn rect(x0: f32, y0: f32, x1: f32, y1: f32) -> egui::Rect {
        egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y1))
    }

    fn filled(r: egui::Rect, color: egui::Color32) -> ClippedShape {
        ClippedShape::new(
            rect(0.0, 0.0, 320.0, 200.0),
            egui::Shape::rect_filled(r, 0.0, color),
        )
    }

    #[test]
    fn damage_covers_only_the_shapes_that_changed() {
        let a = filled(rect(0.0, 0.0, 100.0, 200.0), egui::Color32::DARK_GRAY);
        let b = filled(rect(10.0, 10.0, 20.0, 20.0), egui::Color32::RED);
        let moved = filled(rect(30.5, 10.0, 40.0, 20.0), egui::Color32::RED);
        let same = [a.clone(), b.clone()];
        assert_eq!(damage(&same, &same, 1.0, SIZE), None);
        // The moved square's old and new places, each widened by the margin; not the
        // large rectangle under them.
        let d = damage(&same, &[a.clone(), moved], 1.0, SIZE).unwrap();
        assert_eq!((d.x0, d.y0, d.x1, d.y1), (8, 8, 42, 22));
        // A shape only one list has counts; so does everything after an insertion.
        let d = damage(std::slice::from_ref(&a), &[a.clone(), b.clone()], 1.0, SIZE).unwrap();
        assert_eq!((d.x0, d.y0, d.x1, d.y1), (8, 8, 22, 22));
        let d = damage(std::slice::from_ref(&b), &[a.clone(), b.clone()], 1.0, SIZE).unwrap();
        assert_eq!((d.x0, d.y0, d.x1, d.y1), (0, 0, 102, 200));
        // Two pixels per point double the pixels; the clip rectangle bounds them.
        let d = damage(
            &same,
            &[
                a,
                filled(rect(150.0, 90.0, 400.0, 260.0), egui::Color32::RED),
            ],
            2.0,
            SIZE,
        )
        .unwrap();
        assert_eq!((d.x0, d.y0, d.x1, d.y1), (18, 18, 320, 200));
    }

    #[test]
    fn only_glyphs_added_to_the_font_atlas_leave_drawn_texels_alone() {
        let image = || egui::ColorImage::new([2, 2], vec![egui::Color32::WHITE; 4]);
        let options = egui::TextureOptions::LINEAR;
        let with = |id: egui::TextureId, delta: egui::epaint::ImageDelta| {
            let mut d = egui::TexturesDelta::default();
            d.set.insert(id, [delta].into_iter().collect());
            d
        };
        let atlas = egui::TextureId::default();
        let image_id = egui::TextureId::Managed(7);
        let partial = || egui::epaint::ImageDelta::partial([4, 0], image(), options);
        let full = || egui::epaint::ImageDelta::full(image(), options);
        // egui insists every delta is applied or cleared before it is dropped.
        let replaces = |mut d: egui::TexturesDelta| {
            let r = replaces_texels(&d);
            d.clear();
            r
        };
        assert!(!replaces(with(atlas, partial())));
        assert!(replaces(with(atlas, full())));
        assert!(replaces(with(image_id, partial())));
        let mut freed = with(atlas, partial());
        freed.free.insert(image_id);
        assert!(replaces(freed));
    }

    #[test]
    fn clipping_keeps_egui_scissors_on_whole_pixels_inside_the_area() {
        let jobs = vec![ClippedPrimitive {
            clip_rect: rect(0.0, 0.0, 320.0, 200.0),
            primitive: Primitive::Mesh({
                let mut m = egui::Mesh::default();
                m.add_colored_rect(rect(5.0, 5.0, 50.0, 50.0), egui::Color32::RED);
                m
            }),
        }];
        let area = PixelRect {
            x0: 7,
            y0: 9,
            x1: 31,
            y1: 33,
        };
        // At 1.25 pixels a point the area's edges are not whole points; egui rounds them
        // back to the same pixels.
        let clipped = clip_to(&jobs, area, 1.25, SIZE);
        assert_eq!(clipped.len(), 1);
        let r = clipped[0].clip_rect;
        let px = |v: f32| (v * 1.25).round() as u32;
        assert_eq!(
            (px(r.min.x), px(r.min.y), px(r.max.x), px(r.max.y)),
            (7, 9, 31, 33)
        );
        let away = PixelRect {
            x0: 200,
            y0: 150,
            x1: 210,
            y1: 160,
        };
        assert!(clip_to(&jobs, away, 1.25, SIZE).is_empty());
    }

    /// One frame of a small panel: a line of text, a bar, and a line that never changes;
    /// a dot in the far corner (so the composite covers the width between); with the text
    /// "first", a translucent disc beside the panel too, which then disappears: only
    /// emptying the cache's damaged part takes it away.
    fn frame(ctx: &egui::Context, text: &str, fraction: f32) -> egui::FullOutput {
        let input = egui::RawInput {
            screen_rect: Some(rect(0.0, 0.0, SIZE.0 as f32, SIZE.1 as f32)),
            ..Default::default()
        };
        ctx.run_ui(input, |ui| {
            egui::Panel::left("test").show(ui, |ui| {
                ui.label(text);
                ui.add(egui::ProgressBar::new(fraction).text(format!("{fraction:.2}")));
                ui.label("a line that stays");
            });
            ui.painter()
                .circle_filled(egui::pos2(310.0, 190.0), 3.0, egui::Color32::WHITE);
            if text == "first" {
                let red = egui::Color32::from_rgba_unmultiplied(255, 0, 0, 128);
                ui.painter()
                    .circle_filled(egui::pos2(260.0, 150.0), 20.0, red);
            }
        })
    }

    fn target(gpu: &GpuContext) -> wgpu::Texture {
        gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("panel cache test"),
            size: wgpu::Extent3d {
                width: SIZE.0,
                height: SIZE.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        })
    }

    /// A pass over `view` cleared to a colour egui never draws (what the frame holds).
    fn cleared_pass(
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
    ) -> wgpu::RenderPass<'static> {
        let green = wgpu::Color {
            r: 0.2,
            g: 0.6,
            b: 0.3,
            a: 1.0,
        };
        pass_on(
            encoder,
            view,
            "panel cache test: frame",
            wgpu::LoadOp::Clear(green),
        )
    }

    #[test]
    fn the_kept_panel_looks_as_the_panel_drawn_every_frame() {
        let gpu = GpuContext::new().expect("a wgpu adapter (CI installs lavapipe)");
        let (device, queue) = (&gpu.device, &gpu.queue);
        let ctx = egui::Context::default();
        let options = egui_wgpu::RendererOptions::default;
        let mut direct = egui_wgpu::Renderer::new(device, FORMAT, options());
        let mut kept = egui_wgpu::Renderer::new(device, FORMAT, options());
        let mut cache = PanelCache::new(device, FORMAT);
        let (direct_target, kept_target) = (target(&gpu), target(&gpu));
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [SIZE.0, SIZE.1],
            pixels_per_point: 1.0,
        };
        // Every glyph first (a new glyph changes the font texture: everything is redrawn);
        // then the text changes, then nothing does, then the bar does, then the text again.
        let frames = [
            ("first second third line of text 0.20 0.70", 0.2),
            ("first", 0.2),
            ("second", 0.2),
            ("second", 0.2),
            ("second", 0.7),
            ("third line of text", 0.7),
        ];
        let mut areas = Vec::new();
        for (n, (text, fraction)) in frames.into_iter().enumerate() {
            let mut output = frame(&ctx, text, fraction);
            let jobs = ctx.tessellate(output.shapes.clone(), 1.0);
            let changed = replaces_texels(&output.textures_delta);
            for (id, deltas) in &output.textures_delta.set {
                for delta in deltas {
                    direct.update_texture(device, queue, *id, delta);
                    kept.update_texture(device, queue, *id, delta);
                }
            }
            output.textures_delta.clear();
            let mut encoder = device.create_command_encoder(&Default::default());
            let direct_view = direct_target.create_view(&Default::default());
            let kept_view = kept_target.create_view(&Default::default());
            direct.update_buffers(device, queue, &mut encoder, &jobs, &screen);
            direct.render(
                &mut cleared_pass(&mut encoder, &direct_view),
                &jobs,
                &screen,
            );
            drop(cleared_pass(&mut encoder, &kept_view));
            let redraw = cache.update(device, output.shapes, 1.0, SIZE, changed, |s| {
                ctx.tessellate(s, 1.0)
            });
            areas.push(
                redraw
                    .as_ref()
                    .map(|r| (r.area.x1 - r.area.x0) * (r.area.y1 - r.area.y0)),
            );
            if let Some(redraw) = redraw {
                kept.update_buffers(device, queue, &mut encoder, &redraw.jobs, &screen);
                let mut pass = cache.redraw_pass(&mut encoder, redraw.area).unwrap();
                kept.render(&mut pass, &redraw.jobs, &screen);
            }
            cache.composite(&mut encoder, &kept_view);
            queue.submit(Some(encoder.finish()));
            let a = pelt::render::capture::read_texture(device, queue, &direct_target, 4).unwrap();
            let b = pelt::render::capture::read_texture(device, queue, &kept_target, 4).unwrap();
            let worst = a.iter().zip(&b).map(|(x, y)| x.abs_diff(*y)).max().unwrap();
            let differing = a.iter().zip(&b).filter(|(x, y)| x != y).count();
            // Stored in 8 bits between the two blends, an edge pixel may round one level
            // apart; a stale or doubled glyph differs by tens of levels.
            assert!(
                worst <= 1 && differing < 40,
                "frame {n}: the kept panel differs from the panel drawn directly by up to {worst} levels in {differing} channels"
            );
        }
        // The first frame draws everything; an unchanged frame nothing; the bar or a line
        // a small part of the panel; a change to both the text and the disc the rectangle
        // around both, still not the whole.
        let whole = SIZE.0 * SIZE.1;
        let redrawn = |n: usize| areas[n].expect("a change is redrawn");
        assert_eq!(areas[0], Some(whole), "{areas:?}");
        assert_eq!(areas[3], None, "{areas:?}");
        assert!(
            redrawn(4) < whole / 16 && redrawn(5) < whole / 16,
            "{areas:?}"
        );
        assert!(redrawn(1) < whole && redrawn(2) < whole, "{areas:?}");
    }
}
