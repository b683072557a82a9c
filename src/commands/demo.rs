//! `pelt demo`: the interactive petting demo in a window, or a scripted replay of pointer
//! events that ends in a screenshot (for CI under Xvfb and for reproducible pictures).

use crate::app::{DemoOptions, run as run_app};
use anyhow::{Context, bail};
use pelt::hand::{PointerScript, PointerScriptError};
use std::path::PathBuf;

/// Most frames a `--frames` run draws: over four hours at 60 fps.
const MAX_FRAMES: u32 = 1_000_000;

/// Arguments of `pelt demo`.
#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// Strands in the coat (default: the largest tier this adapter draws at 20 fps or more,
    /// measured in the first frames).
    #[arg(long)]
    pub strands: Option<usize>,
    /// Seed for the groom, the idle motion and the hand.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Pointer events to replay (JSON, at most 16 MiB; see `pelt::hand::PointerScript`),
    /// with a fixed 1/60 s frame time.
    #[arg(long)]
    pub script: Option<PathBuf>,
    /// Frames to run (1 to 1,000,000), then exit (the idle creature when there is no script),
    /// printing the median frame, update, drawing and panel times.
    #[arg(long)]
    pub frames: Option<u32>,
    /// Save the last frame, as the window presented it, here (needs --frames; the name
    /// must end in .png; written whole or not at all).
    #[arg(long, requires = "frames")]
    pub screenshot: Option<PathBuf>,
    /// Window width in logical pixels (at most the adapter's largest texture side, and the
    /// window's render targets within 4 GiB of GPU memory).
    #[arg(long, default_value_t = 1280)]
    pub width: u32,
    /// Window height in logical pixels (the same limits).
    #[arg(long, default_value_t = 720)]
    pub height: u32,
    /// The view to start in.
    #[arg(long, default_value = "final", value_parser = super::render::mode_parser())]
    pub mode: pelt::render::DebugMode,
    /// How the hair is drawn: ribbons (the hardware ribbons, the reference), native (the
    /// strand rasteriser on the CPU's cores), strands (the same rasteriser in WGSL) or
    /// auto: the adapter's kind decides (native on CPU adapters such as lavapipe, whose
    /// window then has one sample a pixel; the ribbons elsewhere), and with the budget on
    /// a window with MSAA times the ribbons and native at each budget level and keeps the
    /// faster. The panel switches it too.
    #[arg(long, default_value = "auto")]
    pub raster: pelt::render::Raster,
    /// Which solver steps the coat: gpu (WGSL compute), cpu (the SIMD solver, its positions
    /// uploaded once a frame) or auto (cpu beside a CPU adapter such as lavapipe, where it
    /// is about 20× faster at 16,384 strands; gpu elsewhere).
    #[arg(long, default_value = "auto")]
    pub solver: pelt::sim::SolverKind,
    /// The frame budget: a frame rate to hold (1 to 240) by choosing the render scale and
    /// how densely strands are drawn from measured frame times, or `off` for the same work
    /// every frame (the same pictures every run: use it when recording).
    #[arg(long, default_value = "20")]
    pub budget: String,
    /// The render scale with `--budget off`: the scene is drawn at this share of the
    /// window's size (0.1 to 1) and upscaled (Catmull-Rom).
    #[arg(long)]
    pub scale: Option<f32>,
    /// The coat's density and velocity grid (the panel sets both too).
    #[command(flatten)]
    pub volume: super::simulate::VolumeArgs,
    /// An equirectangular environment map (Radiance .hdr, OpenEXR or PNG; at most 128 MiB
    /// and 16,777,216 pixels) for the eyes, nose and ambient light (never the strands).
    #[arg(long)]
    pub env: Option<PathBuf>,
    /// A body of the user's to grow the coat on (the hand pets it as it pets the creature).
    #[command(flatten)]
    pub body: crate::common::body_args::BodyArgs,
    /// Start with the panel folded away to a small button at the top left, the creature
    /// framed in the whole window (the H key, or the panel's own buttons, fold and open it).
    #[arg(long)]
    pub hide_panel: bool,
    /// Record every frame of the --script replay (needs --frames) as an animated PNG here
    /// (the name must end in .png; written whole or not at all). Drawn offscreen, without
    /// a window, a display or the panel, at --record-size and a fixed strand count, so the
    /// same script gives the same bytes. Each frame is written as it is encoded (memory
    /// stays flat); a clip stops with an error past 64 GiB.
    #[arg(long, requires_all = ["script", "frames"], conflicts_with = "screenshot")]
    pub record: Option<PathBuf>,
    /// The clip's size in pixels, WIDTHxHEIGHT, the same shape as --width × --height (the
    /// script's pointer positions are scaled from the window to the clip).
    #[arg(long, default_value = "640x360", value_parser = parse_size, requires = "record")]
    pub record_size: (u32, u32),
    /// Levels (of 255) a clip's shown pixel may stay off the rendered one before it is
    /// stored again: the coat's shimmer is then not stored every frame and the clip is
    /// several times smaller (0: every frame exact).
    #[arg(long, default_value_t = 0, requires = "record")]
    pub record_tolerance: u8,
    /// Frames a second of the clip, 30 to 60: each frame advances the replay by 1/fps s
    /// (the solver still steps at 60 Hz), so 30 halves the clip's size for the same motion.
    #[arg(long, requires = "record", default_value_t = crate::app::CLIP_FPS, value_parser = clap::value_parser!(u16).range(i64::from(crate::app::CLIP_MIN_FPS)..=i64::from(crate::app::CLIP_FPS)))]
    pub record_fps: u16,
}

/// The widest clip side `--record-size` takes, pixels (no adapter draws a texture wider;
/// the adapter's own limit, `pelt info`, is checked once it is known).
const MAX_RECORD_SIDE: u32 = u16::MAX as u32;

/// Parses `WIDTHxHEIGHT`.
fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X', '×'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT, like 640x360, got {s:?}"))?;
    let side = |t: &str| {
        let t = t.trim();
        let whole = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        match t.parse::<u64>() {
            Ok(v) if v > u64::from(MAX_RECORD_SIDE) => Err(format!(
                "{t} pixels is too large: a side is at most {MAX_RECORD_SIDE}"
            )),
            Ok(v) if v > 0 => Ok(v as u32),
            // Digits too many even for u64 are too large as well.
            Err(_) if whole && t.trim_start_matches('0').len() > 19 => Err(format!(
                "{t} pixels is too large: a side is at most {MAX_RECORD_SIDE}"
            )),
            _ => Err(format!("{t:?} is not a whole number of pixels from 1 up")),
        }
    };
    Ok((side(w)?, side(h)?))
}

/// The frame rate `--budget` asks for, or `None` for `off`.
fn budget_fps(text: &str) -> anyhow::Result<Option<f64>> {
    if text.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(fps) if (1.0..=240.0).contains(&fps) => Ok(Some(fps)),
        _ => bail!("--budget is {text:?}; give a frame rate from 1 to 240, or off"),
    }
}

/// Runs `pelt demo`.
pub fn run(args: &DemoArgs) -> anyhow::Result<()> {
    if args.width == 0 || args.height == 0 {
        bail!("--width and --height must be at least 1");
    }
    if args.strands == Some(0) {
        bail!("--strands must be at least 1");
    }
    if let Some(frames) = args.frames
        && !(1..=MAX_FRAMES).contains(&frames)
    {
        bail!("--frames is {frames}; give 1 to {MAX_FRAMES}");
    }
    let budget = budget_fps(&args.budget)?;
    if let Some(scale) = args.scale {
        if budget.is_some() {
            bail!("--scale fixes the render scale: give it with --budget off");
        }
        if !(0.1..=1.0).contains(&scale) {
            bail!(
                "--scale is {}; give 0.1 to 1",
                crate::common::printable::shortest(scale)
            );
        }
    }
    crate::common::output_path::check(args)?;
    if args.record.is_some() {
        // A clip is drawn without the panel, so nothing could switch the grid on: an
        // interval given with it off is refused, as `simulate` and `render` refuse it.
        args.volume.check_for_run()?;
        let (w, h) = args.record_size;
        // Same shape within a pixel and 2%, so the script's pointer lands where it was
        // aimed (a pixel alone would let a 1×1 clip stand for a 16:9 window).
        let scaled_height = f64::from(args.height) * f64::from(w) / f64::from(args.width);
        let off = (scaled_height - f64::from(h)).abs();
        if off > 1.0 || off > 0.02 * scaled_height {
            bail!(
                "--record-size {w}x{h} is not the shape of the {}×{} window the script is written for; give a size of the same shape",
                args.width,
                args.height
            );
        }
    }
    let script = match &args.script {
        // A read error names the file already; a content error gets it added (the error
        // itself says it is a pointer script).
        Some(path) => Some(PointerScript::from_path(path).or_else(|e| match e {
            PointerScriptError::Io { .. } => Err(anyhow::Error::from(e)),
            other => Err(other).with_context(|| path.display().to_string()),
        })?),
        None => None,
    };
    // Before any window: a window side no adapter here can draw is refused with the limit
    // (a side past 65,535 pixels would otherwise end inside the window system).
    let largest = pelt::gpu::list_adapters()
        .iter()
        .map(|a| a.limits.max_texture_dimension_2d)
        .max()
        .unwrap_or(u32::MAX)
        .min(u32::from(u16::MAX));
    if args.width > largest || args.height > largest {
        bail!(
            "--width/--height: a {}×{} window is larger than any adapter here draws ({largest} pixels a side at most)",
            args.width,
            args.height
        );
    }
    let environment = args
        .env
        .as_deref()
        .map(pelt::render::EnvironmentMap::from_path)
        .transpose()?;
    let body = args.body.load(args)?.map(|b| {
        eprintln!("body: {}", b.summary);
        b.body
    });
    if let (Some(out), Some(script), Some(frames)) = (&args.record, &script, args.frames) {
        return crate::app::record(&crate::app::RecordOptions {
            strands: args.strands,
            seed: args.seed,
            script: script.clone(),
            frames,
            window: (args.width, args.height),
            size: args.record_size,
            mode: args.mode,
            out: out.clone(),
            environment,
            tolerance: args.record_tolerance,
            fps: args.record_fps,
            raster: args.raster,
            solver: args.solver,
            volume: args.volume,
            body,
        });
    }
    // Without a display the window cannot open: say what works instead, before winit
    // answers with its own source path.
    if !crate::app::display_available() {
        bail!(
            "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset): {WITHOUT_A_WINDOW}"
        );
    }
    run_app(DemoOptions {
        strands: args.strands,
        seed: args.seed,
        script,
        frames: args.frames,
        screenshot: args.screenshot.clone(),
        size: (args.width, args.height),
        mode: args.mode,
        raster: args.raster,
        solver: args.solver,
        budget_fps: budget,
        scale: args.scale.unwrap_or(1.0),
        volume: args.volume.on(),
        volume_interval: args.volume.interval(),
        environment,
        hide_panel: args.hide_panel,
        body,
    })
    .map_err(without_source_paths)
}

/// What to do when no window can open.
const WITHOUT_A_WINDOW: &str = "`pelt demo --script FILE --frames N --record clip.png` records a replay without a display, and `xvfb-run -a pelt demo …` gives the window a virtual one";

/// `error` with the window system's causes rewritten where they name a source file of
/// theirs ("os error at …/x11/mod.rs:123: …"): the user gets the reason and what to do,
/// not where in winit it was found.
fn without_source_paths(error: anyhow::Error) -> anyhow::Error {
    let names_source = |text: &str| text.contains(".rs:");
    if !error.chain().any(|c| names_source(&c.to_string())) {
        return error;
    }
    let mut parts = Vec::new();
    for cause in error.chain() {
        let text = cause.to_string();
        match text.find(".rs:") {
            // "os error at PATH.rs:LINE:COL: reason": keep the reason.
            Some(at) => {
                let rest = &text[at..];
                let reason = rest
                    .match_indices(": ")
                    .next()
                    .map_or("", |(i, _)| rest[i + 2..].trim());
                if !reason.is_empty() {
                    parts.push(reason.to_string());
                }
            }
            None => parts.push(text),
        }
    }
    anyhow::anyhow!("{}; {WITHOUT_A_WINDOW}", parts.join(": "))
}
