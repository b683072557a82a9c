//! The compute rasteriser of the camera's hair against the hardware ribbons, its
//! reference, on lavapipe at a reduced tier: one strand alone tapers and fades; the two
//! paths' pictures agree (mean absolute error per channel, and the overlap of their hair
//! masks) in `final`, `strands` and `skin`; the same inputs give the same bytes; a full
//! long-segment queue changes no byte while its overflow counter counts; the one-walk
//! 64-bit path draws the same bytes as the 32-bit two-walk path; the resolve's one draw
//! shading per sample the same bytes as its draw per sample; and the compute buffers are
//! freed after a run of frames drawn by the ribbons, then made again to the same bytes.

mod render_common;

use glam::{Affine3A, Vec3, Vec4};
use pelt::creature::{Creature, CreaturePose};
use pelt::gpu::GpuContext;
use pelt::groom::{Pattern, StrandRoot};
use pelt::render::compute_raster::{
    ComputeRaster, RasterWalks, WIDE_ATOMICS, per_sample_resolve_source, wide_source,
};
use pelt::render::{
    Camera, CameraPreset, DebugMode, FurRenderer, Image, OFFSCREEN_FORMAT,
    RELEASE_COMPUTE_AFTER_FRAMES, Raster, RenderSettings, RibbonStrand, Scene, TargetLayout, ids,
};
use pelt::sim::{FurConfig, FurSim};
use render_common::mean_abs_error;
use wgpu::util::DeviceExt;

const STRANDS: usize = 4096;

fn gpu() -> GpuContext {
    GpuContext::new().expect("a wgpu adapter (CI installs lavapipe: mesa-vulkan-drivers)")
}

/// A settled coat of the test tier and a renderer with an ID target, drawing by `raster`.
fn setup(ctx: &GpuContext, strands: usize, raster: Raster) -> (FurSim, FurRenderer) {
    let creature = Creature::default();
    let mut sim = FurSim::new_gpu(&FurConfig::new(strands, 3), creature.clone(), ctx).unwrap();
    sim.step(30).unwrap();
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, true);
    let settings = RenderSettings {
        raster,
        ..RenderSettings::default()
    };
    let mut renderer =
        FurRenderer::new(&ctx.device, &ctx.queue, layout, &creature, settings).unwrap();
    assert_eq!(renderer.raster(), raster);
    renderer.set_strands_from_sim(&sim).unwrap();
    (sim, renderer)
}

fn scene<'a>(sim: &FurSim, camera: Camera, mode: DebugMode) -> Scene<'a> {
    let mut s = Scene::new(camera, sim.pose_at(sim.time() as f32));
    s.mode = mode;
    s.positions_index = sim.gpu().unwrap().current_index();
    s
}

/// Pixels of `image` whose ID is hair.
fn hair_pixels(image: &Image) -> usize {
    image
        .ids
        .as_ref()
        .map_or(0, |v| v.iter().filter(|&&id| id == ids::HAIR).count())
}

fn id_at(image: &Image, x: u32, y: u32) -> u8 {
    image.id(x, y).expect("an ID inside the image")
}

fn luminance(p: [u8; 4]) -> f32 {
    0.2126 * f32::from(p[0]) + 0.7152 * f32::from(p[1]) + 0.0722 * f32::from(p[2])
}

/// Mean absolute error per channel over the pixels `a` shows as `id`.
fn mean_abs_error_on(a: &Image, b: &Image, id: u8) -> f64 {
    let ids = a.ids.as_ref().unwrap();
    let (sum, n) = a
        .rgba
        .chunks(4)
        .zip(b.rgba.chunks(4))
        .zip(ids)
        .filter(|(_, i)| **i == id)
        .fold((0u64, 0u64), |(sum, n), ((p, q), _)| {
            let d: u64 = (0..3).map(|c| u64::from(p[c].abs_diff(q[c]))).sum();
            (sum + d, n + 3)
        });
    sum as f64 / n.max(1) as f64
}

/// Intersection over union of the two pictures' hair pixels (by the ID target).
fn hair_iou(a: &Image, b: &Image) -> f64 {
    let (ia, ib) = (a.ids.as_ref().unwrap(), b.ids.as_ref().unwrap());
    let both = ia
        .iter()
        .zip(ib)
        .filter(|(x, y)| **x == ids::HAIR && **y == ids::HAIR)
        .count();
    let either = ia
        .iter()
        .zip(ib)
        .filter(|(x, y)| **x == ids::HAIR || **y == ids::HAIR)
        .count();
    if either == 0 {
        1.0
    } else {
        both as f64 / either as f64
    }
}

#[test]
fn both_paths_draw_the_same_picture() {
    let ctx = gpu();
    eprintln!(
        "{}: 64-bit atomic min/max {}",
        ctx.info().name,
        ctx.adapter
            .features()
            .contains(wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX)
    );
    let (sim, mut renderer) = setup(&ctx, STRANDS, Raster::Hardware);
    let mut failed = Vec::new();
    for (preset, mode) in [
        (CameraPreset::Front, DebugMode::Final),
        (CameraPreset::Front, DebugMode::Strands),
        (CameraPreset::Front, DebugMode::Skin),
        (CameraPreset::Closeup, DebugMode::Final),
    ] {
        let s = scene(&sim, Camera::preset(preset), mode);
        renderer.set_raster(Raster::Hardware);
        let hardware = renderer.render_image(&s, 200, 120).unwrap();
        assert_eq!(
            renderer.last_raster(),
            Raster::Hardware,
            "{preset:?} {mode:?}"
        );
        renderer.set_raster(Raster::Compute);
        let compute = renderer.render_image(&s, 200, 120).unwrap();
        // The two pictures are compared only if two paths drew them.
        assert_eq!(
            renderer.last_raster(),
            Raster::Compute,
            "{preset:?} {mode:?}"
        );
        let mae = mean_abs_error(&hardware, &compute);
        let iou = hair_iou(&hardware, &compute);
        let hair = hair_pixels(&hardware);
        // The skin alone: where the hair's shadows (by compute, or not) fall.
        let skin = mean_abs_error_on(&hardware, &compute, ids::SKIN);
        eprintln!(
            "{preset:?} {mode:?}: MAE {mae:.3}/255 (skin {skin:.3}), hair IoU {iou:.4} ({hair} hair pixels)"
        );
        // The issue asked for 3 levels and 95%; the paths agree far closer (on lavapipe
        // 0.000–0.007 levels, IoU 0.997–1.000: the same shaded points, the same samples
        // but for depth ties and rounding), and a change that moves either path's
        // shading, coverage or shadows by a tenth of a level must not hide under the
        // looser bound.
        let close = mae <= 0.05 && skin <= 0.05 && iou >= 0.99;
        if !close || (mode != DebugMode::Skin && hair < 1000) {
            failed.push(format!(
                "{preset:?} {mode:?}: MAE {mae:.3} levels (skin {skin:.3}), IoU {iou:.4}, \
                 {hair} hair pixels"
            ));
        }
    }
    assert!(failed.is_empty(), "the paths differ: {failed:?}");

    // The hair's shadow on the skin: how much it darkens the skin by each path.
    let s = scene(&sim, Camera::preset(CameraPreset::Front), DebugMode::Skin);
    let mut skin_luminance = |raster, shadows| {
        renderer.set_raster(raster);
        renderer.set_hair_casts_shadows(shadows);
        let image = renderer.render_image(&s, 200, 120).unwrap();
        assert_eq!(renderer.last_raster(), raster);
        mean_luminance_on(&image, ids::SKIN)
    };
    let unshadowed = skin_luminance(Raster::Hardware, false);
    let hardware = unshadowed - skin_luminance(Raster::Hardware, true);
    let compute = unshadowed - skin_luminance(Raster::Compute, true);
    eprintln!(
        "the hair's shadow darkens the skin by {hardware:.2} levels (hardware), {compute:.2} (compute)"
    );
    assert!(hardware > 1.0, "no hair shadow to compare ({hardware})");
    assert!(
        (compute - hardware).abs() <= 0.15 * hardware,
        "hair shadow by compute {compute:.2} levels, by hardware {hardware:.2}"
    );
}

/// Mean luminance of the pixels `image` shows as `id`.
fn mean_luminance_on(image: &Image, id: u8) -> f64 {
    let ids = image.ids.as_ref().unwrap();
    let (sum, n) = image
        .rgba
        .chunks(4)
        .zip(ids)
        .filter(|(_, i)| **i == id)
        .fold((0.0, 0.0), |(sum, n), (p, _)| {
            (
                sum + f64::from(luminance([p[0], p[1], p[2], p[3]])),
                n + 1.0,
            )
        });
    sum / f64::max(n, 1.0)
}

#[test]
fn the_same_inputs_give_the_same_bytes() {
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, STRANDS, Raster::Compute);
    let front = scene(&sim, Camera::preset(CameraPreset::Front), DebugMode::Final);
    let first = renderer.render_image(&front, 160, 96).unwrap();
    // A nearer view between: nothing of it may stay in the rasteriser's buffers.
    let closeup = scene(
        &sim,
        Camera::preset(CameraPreset::Closeup),
        DebugMode::Final,
    );
    renderer.render_image(&closeup, 160, 96).unwrap();
    let again = renderer.render_image(&front, 160, 96).unwrap();
    let (sim, mut fresh) = setup(&ctx, STRANDS, Raster::Compute);
    let front = scene(&sim, Camera::preset(CameraPreset::Front), DebugMode::Final);
    let other = fresh.render_image(&front, 160, 96).unwrap();
    assert!(
        first.rgba == again.rgba && first.ids == again.ids,
        "the same renderer drew the same frame differently"
    );
    assert!(
        first.rgba == other.rgba && first.ids == other.ids,
        "two renderers drew the same frame differently"
    );
}

/// The compute rasteriser's buffers stay through the demo budget's switches between the
/// paths, are freed after `RELEASE_COMPUTE_AFTER_FRAMES` frames in a row drawn by the
/// ribbons, and are made again by the next compute frame, which draws the same bytes.
#[test]
fn the_compute_buffers_are_freed_after_a_run_of_hardware_frames() {
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, 256, Raster::Compute);
    let front = scene(&sim, Camera::preset(CameraPreset::Front), DebugMode::Final);
    let (w, h) = (64, 36);
    let before = renderer.render_image(&front, w, h).unwrap();
    let with_compute = renderer.memory_bytes();
    renderer.set_raster(Raster::Hardware);
    renderer.render_image(&front, w, h).unwrap();
    let ribbons = renderer.render_image(&front, w, h).unwrap();
    // A switch back before the run is over keeps the buffers (the count starts again).
    renderer.set_raster(Raster::Compute);
    renderer.render_image(&front, w, h).unwrap();
    renderer.set_raster(Raster::Hardware);
    for _ in 1..RELEASE_COMPUTE_AFTER_FRAMES {
        renderer.render_image(&front, w, h).unwrap();
    }
    assert_eq!(
        renderer.memory_bytes(),
        with_compute,
        "freed before {RELEASE_COMPUTE_AFTER_FRAMES} hardware frames in a row"
    );
    let last = renderer.render_image(&front, w, h).unwrap();
    let freed = with_compute - renderer.memory_bytes();
    // The camera's buffers and, beyond them, the shadow maps'.
    let camera = ComputeRaster::bytes_for(w, h, renderer.layout().samples);
    assert!(
        freed > camera,
        "freed {freed} bytes, the camera's alone {camera}"
    );
    assert_eq!(
        last.rgba, ribbons.rgba,
        "freeing changed the ribbons' picture"
    );
    renderer.set_raster(Raster::Compute);
    let after = renderer.render_image(&front, w, h).unwrap();
    assert_eq!(renderer.memory_bytes(), with_compute);
    assert!(
        after.rgba == before.rgba && after.ids == before.ids,
        "the compute rasteriser made again drew another picture"
    );
}

/// A frame whose compute buffers would pass the device's storage binding limit is drawn by
/// the ribbons instead of failing. The size comes from this device's limits: shadow maps
/// (16 bytes a texel) past the binding where the largest maps allowed pass it (a CPU
/// adapter's small binding), else a picture whose samples (8 bytes each) pass it, at the
/// smallest such square within the largest texture; and a frame of the same settings a
/// little smaller still draws by compute, so the size, not the path's settings, decides.
#[test]
fn a_frame_too_large_for_the_compute_buffers_is_drawn_by_the_ribbons() {
    let ctx = gpu();
    let limit = ctx.device.limits().max_storage_buffer_binding_size;
    let largest = ctx.device.limits().max_texture_dimension_2d;
    let samples = u64::from(TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, true).samples);
    // (shadow map size, picture side) too large, and the same a step smaller.
    let (too_large, fitting) = match [1024u32, 2048, 4096, 8192]
        .into_iter()
        .find(|&s| s <= largest.min(8192) && 16 * u64::from(s).pow(2) > limit)
    {
        Some(size) => ((size, 128), (size / 2, 128)),
        None => {
            // The smallest square picture whose samples pass the binding.
            let side = ((limit / (8 * samples)) as f64).sqrt() as u32 + 1;
            assert!(
                side <= largest,
                "no picture within this device's {largest}-pixel textures passes its \
                 {limit}-byte storage binding"
            );
            ((1024, side), (1024, side - 1))
        }
    };
    let render = |raster, (shadow, side): (u32, u32)| {
        let creature = Creature::default();
        let mut sim = FurSim::new_gpu(&FurConfig::new(STRANDS, 3), creature.clone(), &ctx).unwrap();
        sim.step(5).unwrap();
        let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, true);
        // Maps of that size whatever the picture's (a small picture would otherwise
        // make them at its own size).
        let settings = RenderSettings {
            raster,
            shadow_map_size: shadow,
            shadow_follows_target: false,
            ..RenderSettings::default()
        };
        let mut renderer =
            FurRenderer::new(&ctx.device, &ctx.queue, layout, &creature, settings).unwrap();
        renderer.set_strands_from_sim(&sim).unwrap();
        let front = scene(&sim, Camera::preset(CameraPreset::Front), DebugMode::Final);
        let image = renderer
            .render_image(&front, side, side)
            .expect("a frame too large for the compute buffers still draws");
        (image, renderer.last_raster())
    };
    eprintln!(
        "storage binding {limit} bytes: shadow maps {}², picture {} pixels wide",
        too_large.0, too_large.1
    );
    let (compute, drew) = render(Raster::Compute, too_large);
    assert_eq!(
        drew,
        Raster::Hardware,
        "the frame too large for the compute buffers was not handed to the ribbons"
    );
    let (hardware, _) = render(Raster::Hardware, too_large);
    assert!(
        compute.rgba == hardware.rgba,
        "the frame handed to the ribbons is not the ribbons' picture"
    );
    let (_, drew) = render(Raster::Compute, fitting);
    assert_eq!(
        drew,
        Raster::Compute,
        "a frame that fits the compute buffers was drawn by {drew:?}"
    );
}

#[test]
fn a_full_queue_changes_no_byte_and_counts_its_overflow() {
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, STRANDS, Raster::Compute);
    let s = scene(
        &sim,
        Camera::preset(CameraPreset::Closeup),
        DebugMode::Final,
    );
    let queued = renderer.render_image(&s, 200, 120).unwrap();
    let room = renderer
        .raster_overflow()
        .unwrap()
        .expect("a compute frame");
    renderer.set_raster_queue_capacity(0);
    let overflowing = renderer.render_image(&s, 200, 120).unwrap();
    let overflow = renderer
        .raster_overflow()
        .unwrap()
        .expect("a compute frame");
    eprintln!("overflow: {room} with the default queue, {overflow} with none");
    assert_eq!(room, 0, "the default queue overflowed in a small frame");
    assert!(overflow > 0, "no long segment overflowed an empty queue");
    assert!(
        queued.rgba == overflowing.rgba && queued.ids == overflowing.ids,
        "the overflow path changed the picture"
    );
}

#[test]
fn the_64_bit_and_32_bit_paths_draw_the_same_bytes() {
    let ctx = gpu();
    let offered = ctx.adapter.features().contains(WIDE_ATOMICS);
    assert_eq!(
        ctx.device.features().contains(WIDE_ATOMICS),
        offered,
        "the device did not ask for the 64-bit atomics its adapter offers"
    );
    let (sim, mut renderer) = setup(&ctx, STRANDS, Raster::Compute);
    let s = scene(
        &sim,
        Camera::preset(CameraPreset::Closeup),
        DebugMode::Final,
    );
    // The default: one walk of 64-bit keys where the device has them (lavapipe does), else
    // the 32-bit path's two walks; the 32-bit path when asked.
    let default = renderer.render_image(&s, 200, 120).unwrap();
    let default_walks = renderer.last_raster_walks();
    renderer.set_raster_wide_atomics(false);
    let two_walks = renderer.render_image(&s, 200, 120).unwrap();
    let hair = hair_pixels(&two_walks);
    eprintln!(
        "64-bit atomics offered: {offered}; walks by default {default_walks:?}, asked for \
         the 32-bit path {:?}; hair pixels: {hair}",
        renderer.last_raster_walks()
    );
    let walks = |n| {
        Some(RasterWalks {
            walks: n,
            early_depth: true,
        })
    };
    assert_eq!(
        default_walks,
        walks(if offered { 1 } else { 2 }),
        "the default path on a device {} 64-bit atomics",
        if offered { "with" } else { "without" }
    );
    assert_eq!(
        renderer.last_raster_walks(),
        walks(2),
        "the 32-bit path was asked for"
    );
    // Back to the default: the setter goes both ways.
    renderer.set_raster_wide_atomics(true);
    renderer.render_image(&s, 200, 120).unwrap();
    assert_eq!(renderer.last_raster_walks(), default_walks);
    assert!(hair > 1000, "too little hair to compare: {hair} pixels");
    assert!(
        default.rgba == two_walks.rgba && default.ids == two_walks.ids,
        "the 64-bit path and the 32-bit path drew different pictures"
    );
}

/// A renderer of `layout` drawing the coat of `sim` by `raster`.
fn renderer_for(
    ctx: &GpuContext,
    sim: &FurSim,
    layout: TargetLayout,
    raster: Raster,
) -> FurRenderer {
    let settings = RenderSettings {
        raster,
        ..RenderSettings::default()
    };
    let creature = Creature::default();
    let mut renderer =
        FurRenderer::new(&ctx.device, &ctx.queue, layout, &creature, settings).unwrap();
    renderer.set_strands_from_sim(sim).unwrap();
    renderer
}

#[test]
fn a_compute_frame_after_binding_another_coat_draws_what_a_fresh_renderer_draws() {
    // The resolve reads the points' colours from the strands' binding: binding another
    // coat must make its group again, or it reads the old coat's colours.
    let ctx = gpu();
    let (_, mut used) = setup(&ctx, STRANDS, Raster::Compute);
    let creature = Creature::default();
    let mut other = FurSim::new_gpu(&FurConfig::new(STRANDS, 7), creature, &ctx).unwrap();
    other.step(30).unwrap();
    let s = scene(
        &other,
        Camera::preset(CameraPreset::Front),
        DebugMode::Final,
    );
    used.render_image(&s, 200, 120).unwrap();
    used.set_strands_from_sim(&other).unwrap();
    let rebound = used.render_image(&s, 200, 120).unwrap();
    let mut fresh = renderer_for(&ctx, &other, used.layout(), Raster::Compute);
    let reference = fresh.render_image(&s, 200, 120).unwrap();
    assert!(
        rebound.rgba == reference.rgba && rebound.ids == reference.ids,
        "after binding another coat the picture differs from a fresh renderer's by {:.3} levels",
        mean_abs_error(&rebound, &reference)
    );
}

#[test]
fn both_paths_agree_at_one_sample() {
    // The walk's sample count is fixed when its pipelines are made (`RASTER_SAMPLES`); at
    // one sample a pixel is covered at its centre, and coverage is stochastic.
    let ctx = gpu();
    let (sim, four) = setup(&ctx, STRANDS, Raster::Compute);
    let layout = TargetLayout {
        samples: 1,
        ..four.layout()
    };
    let mut hardware = renderer_for(&ctx, &sim, layout, Raster::Hardware);
    let mut compute = renderer_for(&ctx, &sim, layout, Raster::Compute);
    for preset in [CameraPreset::Front, CameraPreset::Closeup] {
        let s = scene(&sim, Camera::preset(preset), DebugMode::Final);
        let h = hardware.render_image(&s, 200, 120).unwrap();
        let c = compute.render_image(&s, 200, 120).unwrap();
        let (mae, iou, hair) = (mean_abs_error(&h, &c), hair_iou(&h, &c), hair_pixels(&h));
        eprintln!(
            "{preset:?} at one sample: MAE {mae:.3}/255, hair IoU {iou:.4} ({hair} hair pixels)"
        );
        assert!(hair > 1000, "too little hair to compare: {hair} pixels");
        assert!(
            mae <= 3.0 && iou >= 0.95,
            "{preset:?} at one sample: MAE {mae:.2} levels, IoU {iou:.3}"
        );
        // Both paths read the same shaded points and, at one sample, cover the same
        // pixels: what is left is rounding (0.000 measured). Shading each path its own way
        // (the ribbons per vertex, as before) differed by 0.10.
        assert!(
            mae <= 0.05,
            "{preset:?} at one sample: MAE {mae:.3} levels: do both paths read the same shaded points?"
        );
    }
}

#[test]
fn the_one_draw_resolve_draws_the_same_bytes_as_a_draw_per_sample() {
    let ctx = gpu();
    let (sim, mut one_draw) = setup(&ctx, STRANDS, Raster::Compute);
    let layout = one_draw.layout();
    // The one draw shades per sample: it exists where the adapter multisamples and can
    // shade per sample (every Vulkan driver, lavapipe included, does both), and the
    // layout made for this adapter must then use it.
    let per_sample = ctx
        .adapter
        .get_downlevel_capabilities()
        .flags
        .contains(wgpu::DownlevelFlags::MULTISAMPLED_SHADING);
    assert_eq!(
        layout.per_sample_shading, per_sample,
        "the layout does not follow the adapter's per-sample shading"
    );
    assert!(
        layout.samples > 1 && per_sample,
        "this adapter has no multisampled per-sample shading ({layout:?}): it has no \
         one-draw resolve to compare"
    );
    let per_draw_layout = TargetLayout {
        per_sample_shading: false,
        ..layout
    };
    let mut per_draw = renderer_for(&ctx, &sim, per_draw_layout, Raster::Compute);
    // Close up: hair and skin meet along the silhouette (the depth test per sample), and
    // strands cross within pixels (samples of one pixel with different winners).
    for preset in [CameraPreset::Closeup, CameraPreset::Front] {
        let s = scene(&sim, Camera::preset(preset), DebugMode::Final);
        let a = one_draw.render_image(&s, 200, 120).unwrap();
        let b = per_draw.render_image(&s, 200, 120).unwrap();
        let hair = hair_pixels(&a);
        let differing = a.rgba.iter().zip(&b.rgba).filter(|(x, y)| x != y).count();
        eprintln!("{preset:?}: {hair} hair pixels, {differing} channels differ");
        assert!(hair > 1000, "too little hair to compare: {hair} pixels");
        assert!(
            differing == 0 && a.ids == b.ids,
            "{preset:?}: the one-draw resolve differs from the draw per sample in {differing} channels"
        );
    }
}

/// Whether `source` (named `what`) validates with `capabilities`: the validator's error as
/// text (the error itself is large), or `None`. Panics if it does not parse.
fn validation_error(
    what: &str,
    source: &str,
    capabilities: naga::valid::Capabilities,
) -> Option<String> {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{what} does not parse:\n{}", e.emit_to_string(source)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
        .validate(&module)
        .err()
        .map(|e| format!("{e:?}"))
}

#[test]
fn the_per_sample_resolve_validates_only_with_per_sample_shading() {
    use naga::valid::Capabilities;
    let source = per_sample_resolve_source();
    let what = "the per-sample resolve";
    if let Some(e) = validation_error(what, &source, Capabilities::MULTISAMPLED_SHADING) {
        panic!("{what} does not validate: {e}");
    }
    // Without the capability the module must not be made: the draw per sample is used.
    assert!(
        validation_error(what, &source, Capabilities::empty()).is_some(),
        "{what} validates without per-sample shading: it does not shade per sample"
    );
}

#[test]
fn the_64_bit_module_validates_with_the_capabilities_it_asks_for() {
    use naga::valid::Capabilities;
    let source = wide_source().expect("the 32-bit block's markers in hair_raster.wgsl");
    assert!(
        source.contains("atomic<u64>"),
        "no 64-bit block was spliced in"
    );
    let what = "the 64-bit module";
    let wide = Capabilities::SHADER_INT64 | Capabilities::SHADER_INT64_ATOMIC_MIN_MAX;
    if let Some(e) = validation_error(what, &source, wide) {
        panic!("{what} does not validate: {e}");
    }
    assert!(
        validation_error(what, &source, Capabilities::empty()).is_some(),
        "{what} validates without 64-bit atomics: it is not the 64-bit path"
    );
}

/// A renderer drawing one strand from an explicit position buffer, by compute.
fn single_strand(ctx: &GpuContext, points: [Vec3; 6]) -> (FurRenderer, wgpu::Buffer) {
    let positions: Vec<Vec4> = points.iter().map(|p| p.extend(0.0)).collect();
    let buffer = ctx
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("one strand"),
            contents: bytemuck::cast_slice(&positions),
            usage: wgpu::BufferUsages::STORAGE,
        });
    let root = StrandRoot {
        part: pelt::creature::Part::Body,
        position: points[0],
        normal: Vec3::Z,
        flow: Vec3::X,
        length: 0.12,
        lift_root: 1.0,
        lift_tip: 1.0,
        random: 0.5,
        pattern: Pattern::default(),
        tail_t: 0.0,
    };
    let layout = TargetLayout::new(&ctx.adapter, OFFSCREEN_FORMAT, true);
    let settings = RenderSettings {
        raster: Raster::Compute,
        ..RenderSettings::default()
    };
    let mut renderer = FurRenderer::new(
        &ctx.device,
        &ctx.queue,
        layout,
        &Creature::default(),
        settings,
    )
    .unwrap();
    renderer
        .set_strands([&buffer, &buffer], &[RibbonStrand::new(&root, 0.0)])
        .unwrap();
    (renderer, buffer)
}

#[test]
fn a_single_strand_is_wider_at_its_root_and_fades_at_its_tip() {
    let ctx = gpu();
    // A straight 12 cm strand across the view, root at the left (as in `tests/render.rs`).
    let points: [Vec3; 6] = std::array::from_fn(|i| Vec3::new(-0.06 + 0.024 * i as f32, 0.0, 0.0));
    let (mut renderer, _buffer) = single_strand(&ctx, points);
    // 0.4 mm per pixel: the root is 8.5 pixels wide, the tip 1.3.
    let (w, h) = (360, 60);
    let fov = 2.0 * (0.5 * 0.0004 * h as f32 / 0.3f32).atan();
    let camera = Camera {
        fov_y: fov,
        ..Camera::look_at(Vec3::new(0.0, 0.0, 0.3), Vec3::ZERO, 1.0)
    };
    let pose = CreaturePose {
        head: Affine3A::IDENTITY,
        body: Affine3A::IDENTITY,
        tail: [Affine3A::IDENTITY; 5],
    };
    let mut s = Scene::new(camera, pose);
    s.mode = DebugMode::Strands;
    let image = renderer.render_image(&s, w, h).unwrap();
    // Coverage of each column: pixels whose sample 0 is hair (this strand's samples start
    // at sample 0, so it is covered wherever the dithered opacity asks for any sample).
    let column = |x: u32| (0..h).filter(|&y| id_at(&image, x, y) == ids::HAIR).count() as f32;
    let mean = |a: f32, b: f32| {
        let (x0, x1) = ((30.0 + 300.0 * a) as u32, (30.0 + 300.0 * b) as u32);
        (x0..x1).map(column).sum::<f32>() / (x1 - x0) as f32
    };
    let root = mean(0.02, 0.15);
    let middle = mean(0.45, 0.55);
    let before_fade = mean(0.65, 0.78);
    let tip = mean(0.95, 1.0);
    eprintln!(
        "coverage: root {root:.2}, middle {middle:.2}, before fade {before_fade:.2}, tip {tip:.2}"
    );
    assert!(root > 4.5 && root < 8.5, "root coverage {root}");
    let taper = root / before_fade;
    assert!(
        (2.0..3.6).contains(&taper),
        "root/late ratio {taper} (expected ≈ 2.7)"
    );
    assert!(
        root > middle && middle > before_fade,
        "coverage does not shrink toward the tip"
    );
    assert!(
        tip < 0.2 * before_fade,
        "tip coverage {tip} vs {before_fade}"
    );
    // Soft edges: across the root, the middle row is brighter than the rows at the edge.
    let x = 50;
    let rows: Vec<u32> = (0..h)
        .filter(|&y| id_at(&image, x, y) == ids::HAIR)
        .collect();
    let (top, bottom) = (rows[0], rows[rows.len() - 1]);
    let mid = (top + bottom) / 2;
    let lum = |y| luminance(image.pixel(x, y).unwrap());
    assert!(lum(mid) > lum(top), "no soft edge across the ribbon");
}

#[test]
fn skipping_samples_behind_nearer_hair_changes_no_byte() {
    // The walks skip samples that already hold hair nearer than the segment; a dense coat
    // seen close up (many layers over each pixel) drawn with and without the skip, by both
    // the 64-bit and the 32-bit paths.
    let ctx = gpu();
    let (sim, mut renderer) = setup(&ctx, 4 * STRANDS, Raster::Compute);
    let s = scene(
        &sim,
        Camera::preset(CameraPreset::Closeup),
        DebugMode::Final,
    );
    let offered = ctx.device.features().contains(WIDE_ATOMICS);
    for wide in [true, false] {
        renderer.set_raster_wide_atomics(wide);
        // One walk by the 64-bit path (where the device has it), two by the 32-bit one.
        let walks = if wide && offered { 1 } else { 2 };
        renderer.set_raster_early_depth(true);
        let skipping = renderer.render_image(&s, 240, 144).unwrap();
        assert_eq!(
            renderer.last_raster_walks(),
            Some(RasterWalks {
                walks,
                early_depth: true
            }),
            "64-bit path {wide}, skipping"
        );
        renderer.set_raster_early_depth(false);
        let every = renderer.render_image(&s, 240, 144).unwrap();
        assert_eq!(
            renderer.last_raster_walks(),
            Some(RasterWalks {
                walks,
                early_depth: false
            }),
            "64-bit path {wide}, walking every sample"
        );
        let hair = hair_pixels(&every);
        let differing = skipping
            .rgba
            .chunks_exact(4)
            .zip(every.rgba.chunks_exact(4))
            .filter(|(a, b)| a != b)
            .count();
        eprintln!("64-bit {wide}: {hair} hair pixels, {differing} differ");
        assert!(hair > 2000, "too little hair to compare: {hair} pixels");
        assert!(
            differing == 0 && skipping.ids == every.ids,
            "skipping changed {differing} pixels (64-bit path: {wide})"
        );
    }
}
