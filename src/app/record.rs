//! A recorded clip: the scripted replay drawn offscreen at a fixed size, every frame at
//! the fixed 1/60 s frame time, written as an animated PNG ([`super::clip::ClipWriter`]),
//! each frame streamed to the clip's temporary file as it is encoded, so memory stays flat
//! however long the clip (its frame count, known up front, heads the file).
//!
//! No window is involved: the frames are the scene as the renderer draws it, without the
//! panel and its measured frame times, at the strand count and size asked for, so the same
//! script gives the same bytes on the same adapter. [`record`] is the one entry point; it
//! never consults the window's frame budget or dynamic resolution, whatever they choose.

use super::clip::ClipWriter;
use super::input::PointerInput;
use super::orbit::{Framing, OrbitControls};
use anyhow::Context;
use glam::Vec2;
use pelt::gpu::GpuContext;
use pelt::hand::PointerScript;
use pelt::render::{DebugMode, OFFSCREEN_FORMAT, TargetLayout};
use pelt::sim::StrandTier;
use pelt::{SimulatedFur, SimulatedFurOptions};
use std::path::PathBuf;

/// Frames a second of a recorded clip by default (the replay's fixed frame time; the
/// solver's own rate).
pub const CLIP_FPS: u16 = 60;

/// The slowest clip: one frame may advance the coat by at most 1/30 s (the demo's cap on a
/// frame's time), so a slower clip would slow the motion down.
pub const CLIP_MIN_FPS: u16 = 30;

/// What to record.
#[derive(Clone, Debug)]
pub struct RecordOptions {
    /// Strands (default: the adapter's tier, fixed; no tier search).
    pub strands: Option<usize>,
    /// Seed for the groom, the idle motion and the hand.
    pub seed: u64,
    /// The pointer events to replay, in logical pixels of a `window`-sized window.
    pub script: PointerScript,
    /// Frames to replay and record.
    pub frames: u32,
    /// The window size the script was written for, logical pixels.
    pub window: (u32, u32),
    /// The clip's size in pixels (the script is scaled from `window` to it).
    pub size: (u32, u32),
    /// The view drawn.
    pub mode: DebugMode,
    /// Where to write the clip (checked by the caller).
    pub out: PathBuf,
    /// The environment map, if any.
    pub environment: Option<pelt::render::EnvironmentMap>,
    /// Levels (of 255) a shown pixel may differ from the rendered one before it is stored
    /// again (0: every frame exact).
    pub tolerance: u8,
    /// How the hair is drawn (`--raster`).
    pub raster: pelt::render::Raster,
    /// Which solver steps the coat (`--solver`).
    pub solver: pelt::sim::SolverKind,
    /// Frames a second of the clip (`--record-fps`): each frame advances the replay by
    /// 1/fps s, the solver still stepping at its fixed 60 Hz.
    pub fps: u16,
    /// The volume grid (`--volume`, `--volume-interval`).
    pub volume: crate::common::volume_args::VolumeArgs,
    /// A body to grow the coat on (`--body`), in place of the creature.
    pub body: Option<pelt::sim::FurBody>,
}

/// Replays `options.script` for `options.frames` frames offscreen and writes every frame
/// to `options.out` as an animated PNG.
pub fn record(options: &RecordOptions) -> anyhow::Result<()> {
    let (width, height) = options.size;
    let gpu = GpuContext::new()?;
    // Hair drawn on the host takes one sample a pixel, as the window's does.
    let layout = options
        .raster
        .for_adapter(&gpu.info())
        .real_time_layout(TargetLayout::new(&gpu.adapter, OFFSCREEN_FORMAT, false));
    crate::common::picture_size::check(
        &gpu.device.limits(),
        &layout,
        width,
        height,
        1,
        "--record-size",
    )?;
    crate::common::strand_count::check_strands(options.strands, &gpu)?;
    let strands = options
        .strands
        .unwrap_or(StrandTier::for_device(gpu.info().device_type).strands());
    let mut fur_options = SimulatedFurOptions::new(strands, options.seed, layout);
    fur_options.environment = options.environment.clone();
    fur_options.solver = options.solver;
    fur_options.body = options.body.clone();
    let mut fur = SimulatedFur::new(&gpu, &fur_options)
        .with_context(|| format!("growing a coat of {strands} strands"))?;
    fur.set_debug_mode(options.mode);
    fur.renderer_mut().set_raster(options.raster);
    let params = pelt::sim::FurParams {
        volume: options.volume.on(),
        volume_interval: options.volume.interval(),
        ..*fur.hair().params()
    };
    fur.hair_mut().set_params(params)?;
    // The creature's front view, or a body's framed on its coat, as the window starts.
    let mut orbit = OrbitControls::new(super::orbit::start_camera(&mut fur));
    // No panel; a clip narrower than tall shrinks the view to fit, as the window does.
    let framing = Framing::beside_panel(0, (width, height));
    orbit.frame(framing);
    let mut input = PointerInput::default();
    let size = Vec2::new(width as f32, height as f32);
    let scale = width as f32 / options.window.0 as f32;
    let dt = 1.0 / f64::from(options.fps);

    let file = pelt::files::AtomicFile::create(&options.out, "the clip")?;
    let mut out = std::io::BufWriter::new(crate::common::output_size::Capped::new(file));
    let mut clip = ClipWriter::new(
        &mut out,
        width,
        height,
        options.frames,
        options.fps,
        options.tolerance,
    )
    .context("starting the clip")?;
    let mut bar = crate::common::progress::Progress::new(u64::from(options.frames), "frames");
    let mut time = 0.0;
    for frame in 0..options.frames {
        // As the window's replay: the first frame takes every event up to its end.
        let from = if frame == 0 { f64::NEG_INFINITY } else { time };
        time += dt;
        for event in options.script.events_in(from, time) {
            let placed = event.scaled(scale).mapped(|p| framing.place(p, size));
            input.replay(&placed, &mut fur, &mut orbit, size);
        }
        fur.update(dt)?;
        let image = fur.render_image(&orbit.camera, width, height)?;
        clip.frame(&image.rgba).context("encoding the clip")?;
        bar.inc(1);
    }
    clip.finish().context("encoding the clip")?;
    bar.finish();
    let out = out
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("cannot save the clip to {}", options.out.display()))?;
    let written = out.written();
    out.into_inner().commit()?;
    // Named as `simulate` and `render` name it (interval, and the subset a large coat splats).
    let grid = options.volume.describe(strands);
    // As `simulate` and `render` say it: a clip too short to reach the grid's start.
    let steps = fur.hair().steps();
    let grid = if options.volume.on() && steps <= pelt::sim::SETTLE_STEPS {
        format!(
            "{grid}; it starts after step {}, and this clip ends at step {steps}, before it",
            pelt::sim::SETTLE_STEPS
        )
    } else {
        grid
    };
    eprintln!(
        "{strands} strands, {} frames at {width}×{height} on {}{grid}: wrote {} ({:.2} MB)",
        options.frames,
        gpu.info().name,
        crate::common::printable::printable_path(&options.out),
        written as f64 / 1e6
    );
    Ok(())
}
