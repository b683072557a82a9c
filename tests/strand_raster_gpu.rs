//! The strand rasteriser (`render::strand_raster`) on lavapipe, driven directly with
//! buffers built here (a ball of synthetic strands, their points' colours, a surface depth
//! that hides part of them) and compared with a brute-force CPU reference of the same
//! rule written below: the hair's coverage and colour agree; a tiny tile capacity sends
//! tiles to the slow path, which is counted and draws the same picture; the same input
//! gives the same bits; the composite puts `hair + T · surface` into the target; and the
//! same strands drawn by the ribbons' own passes (their shading pass fills the points'
//! colours both read) give nearly the same picture.

use glam::{Vec2, Vec3, Vec4};
use pelt::creature::{Creature, CreaturePose};
use pelt::gpu::{GpuContext, read_buffer};
use pelt::render::frame::{FrameBinding, FrameInputs, FrameUniforms, PassView, frame_uniforms};
use pelt::render::hair::{HairStrands, RibbonsPass};
use pelt::render::shadow::ShadowPass;
use pelt::render::strand_cull::StrandCullPass;
use pelt::render::strand_lod::StrandLod;
use pelt::render::strand_raster::{LAYERS, StrandRaster, StrandRasterInputs};
use pelt::render::{Camera, OFFSCREEN_FORMAT, RenderSettings, RibbonStrand, Scene, TargetLayout};
use wgpu::util::DeviceExt;

const WIDTH: u32 = 320;
const HEIGHT: u32 = 180;
const STRANDS: u32 = 2048;
const POINTS: usize = 6;
/// The surface's depth (reversed: near is greater): a plane 1 cm in front of the ball's centre (near 0.02 m, 0.44 m away).
const SURFACE_DEPTH: f32 = 0.02 / 0.44;
/// The surface's colour behind the hair, linear.
const SURFACE: [f32; 3] = [0.20, 0.35, 0.50];

fn gpu() -> GpuContext {
    GpuContext::new().expect("a wgpu adapter (CI installs lavapipe: mesa-vulkan-drivers)")
}

/// A small deterministic generator for the strands.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 40) as f32) / (1u64 << 24) as f32
    }
}

/// Six points a strand: roots on a ball of 8 cm, 3 cm strands leaning out and drooping.
fn strand_points(strands: u32) -> Vec<Vec4> {
    let mut rng = Lcg(7);
    let mut out = Vec::new();
    for _ in 0..strands {
        let z = 2.0 * rng.unit() - 1.0;
        let phi = std::f32::consts::TAU * rng.unit();
        let r = (1.0 - z * z).max(0.0).sqrt();
        let n = Vec3::new(r * phi.cos(), r * phi.sin(), z);
        let tilt = Vec3::new(rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5) * 0.8;
        let dir = (n + tilt).normalize();
        let root = n * 0.08;
        for i in 0..POINTS {
            let s = i as f32 / (POINTS - 1) as f32;
            let p = root + dir * 0.03 * s + Vec3::new(0.0, -0.01, 0.0) * s * s;
            out.push(p.extend(0.0));
        }
    }
    out
}

/// A colour as the shading pass packs it (`pack_point_color`).
fn pack_point_color(c: Vec3) -> u32 {
    let root = (c / 8.0)
        .clamp(Vec3::ZERO, Vec3::ONE)
        .to_array()
        .map(f32::sqrt);
    let q = [
        (root[0] * 2047.0).round() as u32,
        (root[1] * 2047.0).round() as u32,
        (root[2] * 1023.0).round() as u32,
    ];
    q[0] | (q[1] << 11) | (q[2] << 22)
}

fn unpack_point_color(word: u32) -> Vec3 {
    let q = Vec3::new(
        (word & 0x7ff) as f32 / 2047.0,
        ((word >> 11) & 0x7ff) as f32 / 2047.0,
        (word >> 22) as f32 / 1023.0,
    );
    8.0 * q * q
}

/// Warm browns, lighter toward the tips, varied per strand.
fn point_colors(strands: u32) -> Vec<u32> {
    let mut rng = Lcg(11);
    let mut out = Vec::new();
    for _ in 0..strands {
        let base = Vec3::new(0.45, 0.28, 0.15) * (0.6 + 0.8 * rng.unit());
        for i in 0..POINTS {
            let s = i as f32 / (POINTS - 1) as f32;
            out.push(pack_point_color(base * (0.5 + s)));
        }
    }
    out
}

/// Everything one frame of the rasteriser reads, on the GPU and for the CPU reference.
struct Rig {
    ctx: GpuContext,
    layout: TargetLayout,
    frame_binding: FrameBinding,
    /// The key light's maps (the shading pass and the ribbons read them).
    shadow: ShadowPass,
    /// The strands' layouts and shading pass, as the renderer builds them.
    hair_strands: HairStrands,
    strands_group: wgpu::BindGroup,
    shaded: wgpu::Buffer,
    depth: wgpu::TextureView,
    frame: FrameUniforms,
    view: PassView,
    points: Vec<Vec4>,
    colors: Vec<u32>,
    /// Strands on the ball.
    strands: u32,
}

/// The rig of the tests: [`STRANDS`] strands.
fn rig() -> Rig {
    rig_of(STRANDS)
}

/// `strands` strands on the ball, their colours, the frame and the surface.
fn rig_of(strands: u32) -> Rig {
    let ctx = gpu();
    let device = &ctx.device;
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, false);
    let camera = Camera::look_at(Vec3::new(0.0, 0.0, 0.45), Vec3::ZERO, 30.0);
    let scene = Scene::new(camera, CreaturePose::rest(&Creature::default()));
    let settings = RenderSettings::default();
    let (frame, view, light) = frame_uniforms(
        &scene,
        &FrameInputs {
            settings: &settings,
            size: (WIDTH, HEIGHT),
            samples: layout.samples,
            strands,
            shadow_map_size: 1024,
            cull: false,
            lod: StrandLod::all(strands),
        },
    );
    let mut frame_binding = FrameBinding::new(device);
    frame_binding
        .write(&ctx.queue, &frame, &view, &light)
        .unwrap();
    let points = strand_points(strands);
    let colors = point_colors(strands);
    let storage = |label, contents: &[u8]| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage: wgpu::BufferUsages::STORAGE,
        })
    };
    let positions = storage("positions", bytemuck::cast_slice(&points));
    let records = storage("records", &vec![0u8; strands as usize * 16]);
    let culled = storage("culled", &vec![0u8; strands as usize * 4]);
    let order: Vec<u32> = (0..strands).collect();
    let order = storage("order", bytemuck::cast_slice(&order));
    let shaded = storage("shaded", bytemuck::cast_slice(&colors));
    let shadow = ShadowPass::new(device, 256);
    let hair_strands = HairStrands::new(device, &frame_binding.layout, &shadow.inputs_layout);
    let strands_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("strands"),
        layout: &hair_strands.layout,
        entries: &[
            positions.as_entire_binding(),
            records.as_entire_binding(),
            culled.as_entire_binding(),
            order.as_entire_binding(),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, resource)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource,
        })
        .collect::<Vec<_>>(),
    });
    // The surface: a plane of constant depth, written by clearing the depth target.
    let depth_texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("surface depth"),
        size: wgpu::Extent3d {
            width: WIDTH,
            height: HEIGHT,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: layout.samples,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Depth32Float,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    let depth = depth_texture.create_view(&Default::default());
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("surface depth"),
        color_attachments: &[],
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: &depth,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(SURFACE_DEPTH),
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: None,
        }),
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    });
    ctx.queue.submit(Some(encoder.finish()));
    Rig {
        ctx,
        layout,
        frame_binding,
        shadow,
        hair_strands,
        strands_group,
        shaded,
        depth,
        frame,
        view,
        points,
        colors,
        strands,
    }
}

impl Rig {
    fn raster(&self) -> StrandRaster {
        StrandRaster::new(
            &self.ctx.device,
            &self.frame_binding.layout,
            &self.hair_strands.layout,
            &self.layout,
        )
    }

    /// One frame drawn by `raster`: per pixel premultiplied RGB and transmittance.
    fn draw(&self, raster: &mut StrandRaster) -> Vec<[f32; 4]> {
        let device = &self.ctx.device;
        let mut encoder = device.create_command_encoder(&Default::default());
        raster
            .record(
                device,
                &self.ctx.queue,
                &mut encoder,
                &StrandRasterInputs {
                    frame: &self.frame_binding,
                    strands_group: &self.strands_group,
                    drawn: self.strands,
                    shaded_points: &self.shaded,
                    surface_depth: &self.depth,
                    size: (WIDTH, HEIGHT),
                },
            )
            .unwrap();
        self.ctx.queue.submit(Some(encoder.finish()));
        let bytes = read_buffer(device, &self.ctx.queue, raster.output().unwrap()).unwrap();
        let halves: Vec<u16> = bytemuck::pod_collect_to_vec(&bytes);
        halves
            .chunks(4)
            .map(|h| h.iter().map(|&x| f32::from(x) / 65535.0))
            .map(|mut h| std::array::from_fn(|_| h.next().unwrap()))
            .collect()
    }
}

/// `tone_map` of `frame.wgsl`.
fn tone_map(hdr: Vec3, exposure: f32) -> Vec3 {
    let c = (hdr * exposure).max(Vec3::ZERO);
    let peak = c.max_element();
    if peak <= 0.6 {
        return c;
    }
    let x = peak - 0.6;
    c * ((0.6 + 0.4 * x / (x + 0.4)) / peak)
}

/// A segment on screen as the reference sets it up.
struct RefSegment {
    a: Vec2,
    b: Vec2,
    z: [f32; 2],
    hw: [f32; 2],
    cov: [f32; 2],
    j: usize,
    colors: [Vec3; 2],
}

/// Every segment of every strand, set up by the ribbons' rule (`strand_point`).
fn reference_segments(rig: &Rig) -> Vec<RefSegment> {
    let f = &rig.frame;
    let v = &rig.view;
    let size = Vec2::new(WIDTH as f32, HEIGHT as f32);
    let mut out = Vec::new();
    for s in 0..rig.strands as usize {
        let p = |i: usize| rig.points[s * POINTS + i].truncate();
        let end = |i: usize| {
            let q = p(i);
            let along = i as f32 / (POINTS - 1) as f32;
            let width = f.root_width * f.lod_width_scale * (1.0 + (f.tip_width - 1.0) * along);
            let pixel = (q - v.eye).dot(v.forward).max(1e-4) * v.pixel_scale;
            let drawn = width.max(f.min_pixels * pixel);
            let weight = ((f.lod_end - s as f32) / f.lod_fade).clamp(0.0, 1.0);
            let clip = v.view_proj * q.extend(1.0);
            let ndc = clip.truncate() / clip.w;
            let xy = Vec2::new((ndc.x * 0.5 + 0.5) * size.x, (0.5 - ndc.y * 0.5) * size.y);
            (
                xy,
                ndc.z,
                0.5 * drawn / pixel,
                width / drawn * weight,
                clip.w,
            )
        };
        for j in 0..POINTS - 1 {
            let (a, za, ha, ca, wa) = end(j);
            let (b, zb, hb, cb, wb) = end(j + 1);
            if wa.min(wb) <= 0.0 {
                continue;
            }
            let color = |i: usize| unpack_point_color(rig.colors[s * POINTS + i]);
            out.push(RefSegment {
                a,
                b,
                z: [za, zb],
                hw: [ha, hb],
                cov: [ca, cb],
                j,
                colors: [color(j), color(j + 1)],
            });
        }
    }
    out
}

/// One fragment of the reference: its segment's nearer end and number (the order a tile
/// takes it in), its depth, opacity and colour.
type Fragment = (f32, usize, f32, f32, Vec3);

/// The CPU reference: for every pixel, every fragment of every segment by the same rule
/// (`segment_fragment`), taken in the tile's order (segments by their nearer end, nearest
/// first, ties by number): the nearest LAYERS kept sorted and blended in order, each one
/// that falls out of them blended behind those that fell out before; the surface hides
/// what is behind it.
fn reference(rig: &Rig) -> Vec<[f32; 4]> {
    let f = &rig.frame;
    let mut fragments: Vec<Vec<Fragment>> = vec![Vec::new(); (WIDTH * HEIGHT) as usize];
    for (number, r) in reference_segments(rig).into_iter().enumerate() {
        let reach = r.hw[0].max(r.hw[1]) + 1.0;
        let lo = (r.a.min(r.b) - Vec2::splat(reach)).max(Vec2::ZERO);
        let hi = (r.a.max(r.b) + Vec2::splat(reach)).min(Vec2::new(WIDTH as f32, HEIGHT as f32));
        for y in lo.y as u32..hi.y.ceil() as u32 {
            for x in lo.x as u32..hi.x.ceil() as u32 {
                if x >= WIDTH || y >= HEIGHT {
                    continue;
                }
                let pixel = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                let ab = r.b - r.a;
                let len2 = ab.dot(ab);
                let t = if len2 > 1e-12 {
                    (pixel - r.a).dot(ab) / len2
                } else {
                    0.0
                };
                if !(0.0..1.0).contains(&t) {
                    continue;
                }
                let d = pixel.distance(r.a + ab * t);
                let hw = r.hw[0] + (r.hw[1] - r.hw[0]) * t;
                if d >= hw {
                    continue;
                }
                let side = d / hw;
                let edge = 1.0 - side.powi(4);
                let along = (r.j as f32 + t) / (POINTS - 1) as f32;
                let fade = ((1.0 - along) / f.tip_fade.max(1e-4)).clamp(0.0, 1.0);
                let cov = r.cov[0] + (r.cov[1] - r.cov[0]) * t;
                let alpha = (0.5 + hw - d).clamp(0.0, 1.0) * (edge * fade * cov).clamp(0.0, 1.0);
                let depth = r.z[0] + (r.z[1] - r.z[0]) * t;
                if alpha <= 0.0 || depth < SURFACE_DEPTH {
                    continue;
                }
                let color = tone_map(r.colors[0].lerp(r.colors[1], t), f.exposure);
                let nearer = r.z[0].max(r.z[1]);
                fragments[(y * WIDTH + x) as usize].push((nearer, number, depth, alpha, color));
            }
        }
    }
    fragments
        .into_iter()
        .map(|mut list| {
            list.sort_by(|p, q| q.0.total_cmp(&p.0).then(p.1.cmp(&q.1)));
            // The kept fragments, nearest (largest depth) first; a newcomer goes behind an
            // equal one.
            let mut kept: Vec<(f32, f32, Vec3)> = Vec::new();
            let (mut rest_rgb, mut rest_t) = (Vec3::ZERO, 1.0f32);
            for &(_, _, d, a, c) in &list {
                let at = kept.iter().position(|k| d > k.0).unwrap_or(kept.len());
                kept.insert(at, (d, a, c));
                if kept.len() > LAYERS as usize {
                    let (_, a, c) = kept.pop().unwrap();
                    rest_rgb += rest_t * a * c;
                    rest_t *= 1.0 - a;
                }
            }
            let (mut rgb, mut t) = (Vec3::ZERO, 1.0);
            for &(_, a, c) in &kept {
                rgb += t * a * c;
                t *= 1.0 - a;
            }
            rgb += t * rest_rgb;
            t *= rest_t;
            [rgb.x, rgb.y, rgb.z, t]
        })
        .collect()
}

fn srgb8(linear: f32) -> f32 {
    let c = linear.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round()
}

/// The picture over the surface as 8-bit sRGB: hair + T · surface.
fn over_surface(hair: &[[f32; 4]]) -> Vec<[f32; 3]> {
    hair.iter()
        .map(|p| std::array::from_fn(|c| srgb8(p[c] + p[3] * SURFACE[c])))
        .collect()
}

/// Mean absolute difference per channel of two 8-bit pictures, in levels.
fn mean_abs_levels(a: &[[f32; 3]], b: &[[f32; 3]]) -> f64 {
    let sum: f64 = a
        .iter()
        .zip(b)
        .flat_map(|(p, q)| (0..3).map(move |c| f64::from((p[c] - q[c]).abs())))
        .sum();
    sum / (3 * a.len()) as f64
}

/// Pixels the hair covers at least by a quarter.
fn coverage(hair: &[[f32; 4]]) -> Vec<bool> {
    hair.iter().map(|p| p[3] < 0.75).collect()
}

fn iou(a: &[bool], b: &[bool]) -> f64 {
    let both = a.iter().zip(b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(b).filter(|(x, y)| **x || **y).count();
    both as f64 / either.max(1) as f64
}

#[test]
fn the_picture_matches_the_cpu_reference() {
    let rig = rig();
    let mut raster = rig.raster();
    let gpu = rig.draw(&mut raster);
    let cpu = reference(&rig);
    let (g, c) = (coverage(&gpu), coverage(&cpu));
    let hair = c.iter().filter(|x| **x).count();
    let hidden = cpu.iter().filter(|p| p[3] == 1.0).count();
    let overlap = iou(&g, &c);
    let error = mean_abs_levels(&over_surface(&gpu), &over_surface(&cpu));
    let on_hair: Vec<usize> = (0..c.len()).filter(|&i| c[i]).collect();
    let pick = |v: &[[f32; 3]]| on_hair.iter().map(|&i| v[i]).collect::<Vec<_>>();
    let error_on_hair = mean_abs_levels(&pick(&over_surface(&gpu)), &pick(&over_surface(&cpu)));
    eprintln!(
        "{hair} hair pixels of {}; IoU {overlap:.4}; mean abs error {error:.3} levels, \
         {error_on_hair:.3} on the hair; overflow {:?}",
        c.len(),
        raster.overflow(&rig.ctx.device, &rig.ctx.queue).unwrap()
    );
    // The picture is not trivial: hair over a good part of it, and the surface hides some.
    assert!(hair > 5_000, "{hair} hair pixels");
    assert!(hidden > 20_000, "{hidden} pixels without hair");
    assert!(overlap >= 0.95, "hair coverage IoU {overlap}");
    assert!(error <= 0.05, "mean abs error {error} levels per channel");
    assert!(
        error_on_hair <= 0.1,
        "mean abs error {error_on_hair} levels on the hair"
    );
    assert_eq!(
        raster.memory_bytes(),
        StrandRaster::bytes_for(WIDTH, HEIGHT, raster.capacity())
    );
}

#[test]
fn a_full_tile_list_is_counted_and_drawn_by_the_slow_path_to_the_same_picture() {
    let rig = rig();
    let mut roomy = rig.raster();
    let wide = rig.draw(&mut roomy);
    let none = roomy
        .overflow(&rig.ctx.device, &rig.ctx.queue)
        .unwrap()
        .unwrap();
    assert_eq!((none.entries, none.tiles), (0, 0));
    let mut tight = rig.raster();
    tight.set_capacity(4);
    let narrow = rig.draw(&mut tight);
    let over = tight
        .overflow(&rig.ctx.device, &rig.ctx.queue)
        .unwrap()
        .unwrap();
    let error = mean_abs_levels(&over_surface(&wide), &over_surface(&narrow));
    let worst = over_surface(&wide)
        .iter()
        .zip(over_surface(&narrow))
        .flat_map(|(p, q)| (0..3).map(move |c| (p[c] - q[c]).abs()))
        .fold(0.0f32, f32::max);
    // The slow path finds a tile's segments in their numbers' order, not nearest first, so
    // what falls out of the kept layers blends in another order: a few pixels deep in the
    // coat differ by some levels, the rest by rounding.
    let off: usize = over_surface(&wide)
        .iter()
        .zip(over_surface(&narrow))
        .map(|(p, q)| (0..3).filter(|&c| (p[c] - q[c]).abs() > 1.0).count())
        .sum();
    let share = off as f64 / (3 * over_surface(&wide).len()) as f64;
    eprintln!(
        "overflow {over:?}; mean abs difference {error:.4} levels, worst {worst}, \
         {:.3}% of channels off by more than a level",
        share * 100.0
    );
    assert!(over.entries > 1_000 && over.tiles > 50, "{over:?}");
    assert!(error <= 0.05, "mean {error} levels");
    assert!(share <= 0.001, "{off} channels off by more than a level");
    assert!(worst <= 32.0, "worst {worst} levels");
    assert!(tight.memory_bytes() < roomy.memory_bytes());
}

#[test]
fn a_coat_past_a_cpu_drivers_loop_cap_is_drawn_whole_by_the_slow_path() {
    // More than 65,535 segments: the slow path's threads each used to loop over all 64
    // segments set up per round, every segment in all, and llvmpipe stops an invocation
    // after 65,535 loop iterations: the tiles it drew lost the segments past that (or were
    // left unwritten on a denser coat). The light let through a pixel is the product of its
    // fragments' (1 − α) in any order, so it must match the reference's wherever the
    // path drew every fragment.
    let strands = 14_000;
    assert!(strands * 5 > 65_535);
    let rig = rig_of(strands);
    let mut raster = rig.raster();
    let picture = rig.draw(&mut raster);
    let over = raster
        .overflow(&rig.ctx.device, &rig.ctx.queue)
        .unwrap()
        .unwrap();
    let expected = reference(&rig);
    let off = picture
        .iter()
        .zip(&expected)
        .filter(|(p, q)| (p[3] - q[3]).abs() > 0.02)
        .count();
    let covered = expected.iter().filter(|p| p[3] < 0.5).count();
    eprintln!(
        "overflow {over:?}; {off} pixels' transmittance off by more than 0.02; {covered} pixels mostly hair"
    );
    assert!(
        over.tiles > 20,
        "too few tiles took the slow path: {over:?}"
    );
    assert!(covered > 10_000, "{covered} pixels mostly hair");
    assert!(
        off <= covered / 1000,
        "{off} pixels' transmittance off by more than 0.02"
    );
}

#[test]
fn the_same_input_gives_the_same_bits() {
    let rig = rig();
    for capacity in [256, 6] {
        let mut a = rig.raster();
        a.set_capacity(capacity);
        let first = rig.draw(&mut a);
        let second = rig.draw(&mut a);
        let mut b = rig.raster();
        b.set_capacity(capacity);
        let third = rig.draw(&mut b);
        let bits =
            |v: &[[f32; 4]]| -> Vec<u32> { v.iter().flatten().map(|x| x.to_bits()).collect() };
        assert!(first.iter().any(|p| p[3] < 0.5), "no hair drawn");
        let differing = |a: &[[f32; 4]], b: &[[f32; 4]]| {
            bits(a)
                .iter()
                .zip(bits(b))
                .filter(|(x, y)| **x != *y)
                .count()
        };
        assert_eq!(differing(&first, &second), 0, "capacity {capacity}: again");
        assert_eq!(
            differing(&first, &third),
            0,
            "capacity {capacity}: a new rasteriser"
        );
    }
}

/// An 8-bit sRGB picture of `draw` into a colour target of the layout's samples cleared
/// to the surface's colour, with the surface's depth attached, resolved and read back.
fn picture(rig: &Rig, draw: impl FnOnce(&mut wgpu::RenderPass)) -> Vec<[f32; 3]> {
    let device = &rig.ctx.device;
    let target = |samples, usage| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some("colour"),
            size: wgpu::Extent3d {
                width: WIDTH,
                height: HEIGHT,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: samples,
            dimension: wgpu::TextureDimension::D2,
            format: OFFSCREEN_FORMAT,
            usage,
            view_formats: &[],
        })
    };
    let resolved = target(
        1,
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    );
    let msaa = (rig.layout.samples > 1)
        .then(|| target(rig.layout.samples, wgpu::TextureUsages::RENDER_ATTACHMENT));
    let resolved_view = resolved.create_view(&Default::default());
    let msaa_view = msaa.as_ref().map(|t| t.create_view(&Default::default()));
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let clear = wgpu::Color {
            r: f64::from(SURFACE[0]),
            g: f64::from(SURFACE[1]),
            b: f64::from(SURFACE[2]),
            a: 1.0,
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("picture"),
            color_attachments: &[
                Some(wgpu::RenderPassColorAttachment {
                    view: msaa_view.as_ref().unwrap_or(&resolved_view),
                    depth_slice: None,
                    resolve_target: msaa_view.as_ref().map(|_| &resolved_view),
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(clear),
                        store: wgpu::StoreOp::Store,
                    },
                }),
                None,
            ],
            // The surface's depth, kept: the ribbons write theirs into a copy of it.
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &rig.depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(SURFACE_DEPTH),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        draw(&mut pass);
    }
    let row = (WIDTH * 4).div_ceil(256) * 256;
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("read back"),
        size: u64::from(row * HEIGHT),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        resolved.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: None,
            },
        },
        wgpu::Extent3d {
            width: WIDTH,
            height: HEIGHT,
            depth_or_array_layers: 1,
        },
    );
    rig.ctx.queue.submit(Some(encoder.finish()));
    let bytes = read_buffer(device, &rig.ctx.queue, &readback).unwrap();
    (0..HEIGHT)
        .flat_map(|y| (0..WIDTH).map(move |x| (y, x)))
        .map(|(y, x)| {
            let at = (y * row + x * 4) as usize;
            std::array::from_fn(|c| f32::from(bytes[at + c]))
        })
        .collect()
}

fn worst_levels(a: &[[f32; 3]], b: &[[f32; 3]]) -> f32 {
    a.iter()
        .zip(b)
        .flat_map(|(p, q)| (0..3).map(move |c| (p[c] - q[c]).abs()))
        .fold(0.0f32, f32::max)
}

#[test]
fn the_composite_puts_hair_over_the_surface() {
    let rig = rig();
    let mut raster = rig.raster();
    let hair = rig.draw(&mut raster);
    let drawn = picture(&rig, |pass| raster.composite(pass));
    let worst = worst_levels(&drawn, &over_surface(&hair));
    let hair_pixels = hair.iter().filter(|p| p[3] < 0.5).count();
    eprintln!("composite: worst difference {worst} levels over {hair_pixels} hair pixels");
    assert!(hair_pixels > 1_000);
    assert!(worst <= 1.0, "worst {worst} levels");
}

/// Pixels of an 8-bit picture that differ from the bare surface by more than `levels` in
/// some channel: where hair shows.
fn hair_mask(picture: &[[f32; 3]], levels: f32) -> Vec<bool> {
    let bare: [f32; 3] = std::array::from_fn(|c| srgb8(SURFACE[c]));
    picture
        .iter()
        .map(|p| (0..3).any(|c| (p[c] - bare[c]).abs() > levels))
        .collect()
}

#[test]
fn the_picture_matches_the_ribbons() {
    let rig = rig();
    let device = &rig.ctx.device;
    let n = STRANDS;
    // The ribbons' own passes over the same strands: their binding, the shading pass that
    // fills the points' colours both paths read, and the camera's ribbons.
    let shadow = &rig.shadow;
    let ribbons = RibbonsPass::new(
        device,
        &rig.hair_strands,
        &rig.frame_binding.layout,
        shadow,
        &rig.layout,
    );
    let cull = StrandCullPass::new(device);
    let positions = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("positions"),
        contents: bytemuck::cast_slice(&rig.points),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let records = vec![
        RibbonStrand {
            pattern: 0,
            random: 0.5,
            normal: 0,
            space_t: 0,
        };
        n as usize
    ];
    let binding = rig
        .hair_strands
        .bind(device, &cull, [&positions, &positions], &records)
        .unwrap();
    let mut encoder = device.create_command_encoder(&Default::default());
    rig.hair_strands.shade(
        &mut encoder,
        &rig.frame_binding,
        &shadow.inputs,
        &binding,
        &binding.groups[0],
        n,
        None,
    );
    rig.ctx.queue.submit(Some(encoder.finish()));
    let reference = picture(&rig, |pass| {
        ribbons.record(
            pass,
            &rig.frame_binding,
            &shadow.inputs,
            &binding.camera_groups[0],
            n,
            false,
        )
    });
    assert_eq!(rig.ctx.take_error(), None);
    // The ribbons wrote their depth: the surface's plane again for the rasteriser.
    let _ = picture(&rig, |_| {});
    let mut raster = rig.raster();
    let mut encoder = device.create_command_encoder(&Default::default());
    raster
        .record(
            device,
            &rig.ctx.queue,
            &mut encoder,
            &StrandRasterInputs {
                frame: &rig.frame_binding,
                strands_group: &binding.groups[0],
                drawn: n,
                shaded_points: binding.shaded_points(),
                surface_depth: &rig.depth,
                size: (WIDTH, HEIGHT),
            },
        )
        .unwrap();
    rig.ctx.queue.submit(Some(encoder.finish()));
    let drawn = picture(&rig, |pass| raster.composite(pass));
    let (a, b) = (hair_mask(&reference, 8.0), hair_mask(&drawn, 8.0));
    let overlap = iou(&a, &b);
    let only = |x: &[bool], y: &[bool]| x.iter().zip(y).filter(|(p, q)| **p && !**q).count();
    let error = mean_abs_levels(&reference, &drawn);
    let on_hair: Vec<usize> = (0..a.len()).filter(|&i| a[i] || b[i]).collect();
    let pick = |v: &[[f32; 3]]| on_hair.iter().map(|&i| v[i]).collect::<Vec<_>>();
    let error_on_hair = mean_abs_levels(&pick(&reference), &pick(&drawn));
    let mean = |v: &[[f32; 3]]| {
        let p = pick(v);
        p.iter()
            .map(|x| f64::from(x[0] + x[1] + x[2]) / 3.0)
            .sum::<f64>()
            / p.len().max(1) as f64
    };
    eprintln!(
        "ribbons {} hair pixels, rasteriser {}; IoU {overlap:.4} (ribbons only {}, rasteriser \
         only {}); mean abs error {error:.3} \
         levels, {error_on_hair:.3} on the hair (mean level there: ribbons {:.1}, rasteriser {:.1})",
        a.iter().filter(|x| **x).count(),
        b.iter().filter(|x| **x).count(),
        only(&a, &b),
        only(&b, &a),
        mean(&reference),
        mean(&drawn),
    );
    assert!(a.iter().filter(|x| **x).count() > 5_000);
    // The issue asks 0.95 of the coat at the README cameras. On this sparse ball most hair
    // pixels are a lone strand's edge, where the ribbons' coverage is 0 … 4 dithered samples
    // and the rasteriser's is analytic: the two disagree about as often each way.
    assert!(overlap >= 0.94, "hair coverage IoU {overlap}");
    assert!(error <= 3.0, "mean abs error {error} levels per channel");
}
