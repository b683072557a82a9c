//! `pelt demo`: the interactive petting demo in a window, or a scripted replay of pointer
//! events that ends in a screenshot (for CI under Xvfb and for reproducible pictures).

use crate::app::{DemoOptions, run as run_app};
use anyhow::{Context, bail};
use pelt::hand::PointerScript;
use std::path::PathBuf;

/// Arguments of `pelt demo`.
#[derive(clap::Args, Debug, Default)]
pub struct DemoArgs {
    /// Strands in the coat (default: the largest tier this adapter draws at 20 fps or more,
    /// measured in the first frames).
    #[arg(long)]
    pub strands: Option<usize>,
    /// Seed for the groom, the idle motion and the hand.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Pointer events to replay (JSON; see `pelt::hand::PointerScript`), with a fixed
    /// 1/60 s frame time.
    #[arg(long)]
    pub script: Option<PathBuf>,
    /// Frames to run, then exit (the idle creature when there is no script), printing the
    /// median frame, update, drawing and panel times.
    #[arg(long)]
    pub frames: Option<u32>,
    /// Save the last frame here (needs --frames).
    #[arg(long, requires = "frames")]
    pub screenshot: Option<PathBuf>,
    /// Window width in logical pixels.
    #[arg(long, default_value_t = 1280)]
    pub width: u32,
    /// Window height in logical pixels.
    #[arg(long, default_value_t = 720)]
    pub height: u32,
    /// The view to start in: final, skin, strands or contact.
    #[arg(long, default_value = "final")]
    pub mode: pelt::render::DebugMode,
}

/// Runs `pelt demo`.
pub fn run(args: &DemoArgs) -> anyhow::Result<()> {
    if args.width == 0 || args.height == 0 {
        bail!("--width and --height must be at least 1");
    }
    if args.strands == Some(0) {
        bail!("--strands must be at least 1");
    }
    if args.frames == Some(0) {
        bail!("--frames must be at least 1");
    }
    let script = match &args.script {
        Some(path) => Some(
            PointerScript::from_path(path)
                .with_context(|| format!("reading pointer script {}", path.display()))?,
        ),
        None => None,
    };
    if let Some(path) = &args.screenshot {
        super::output_path::check(path, "the screenshot")?;
    }
    run_app(DemoOptions {
        strands: args.strands,
        seed: args.seed,
        script,
        frames: args.frames,
        screenshot: args.screenshot.clone(),
        size: (args.width, args.height),
        mode: args.mode,
    })
}
