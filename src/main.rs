//! The `pelt` command line: adapter info, headless simulation, VRM export, import and
//! spring traces.
//! With no subcommand it runs the default program (see [`commands::run`]).

mod app;
mod commands;
mod common;

use clap::{Parser, Subcommand};

/// Dense fur on the GPU, and spring chains for VRM.
#[derive(Parser)]
#[command(
    name = "pelt",
    version,
    about,
    after_help = "Example: pelt render --strands 131072 --out pelt.png"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

/// Every command with numeric options allows negative numbers as values, so `--steps -1`
/// is read as the value -1 and refused with the option's range, not as an unknown `-1` flag.
#[derive(Subcommand)]
enum Command {
    /// Simulate the creature's coat on the best adapter and report what it did (the
    /// default when no subcommand is given).
    #[command(
        allow_negative_numbers = true,
        after_help = "Example: pelt run --strands 65536"
    )]
    Run(commands::run::RunArgs),
    /// List the graphics adapters, the one Pelt would choose, its limits and strand tier.
    #[command(after_help = "Example: pelt info")]
    Info,
    /// Run the strand solver headless and write the state as NumPy arrays (.npy: positions;
    /// .npz: positions, touched flags, comb and roots).
    #[command(
        allow_negative_numbers = true,
        after_help = "Example: pelt simulate --strands 65536 --steps 120 --capsule-script assets/back_stroke.json --out state.npz"
    )]
    Simulate(commands::simulate::SimulateArgs),
    /// Write the creature's rig and tail spring as a GLB with VRMC_springBone (--vrm: a
    /// full VRM 1.0 avatar), or the simulated coat as USD curves (.usda).
    #[command(
        allow_negative_numbers = true,
        after_help = "Example: pelt export --strands 65536 --capsule-script assets/back_stroke.json --frames 30 --every 2 --out coat.usda"
    )]
    Export(commands::export::ExportArgs),
    /// Read the springs of a GLB or VRM file and print them, per joint.
    #[command(
        allow_negative_numbers = true,
        after_help = "Example: pelt import creature.vrm"
    )]
    Import(commands::import::ImportArgs),
    /// Drive springs with a motion of the scene root at 60 fps and write every joint's world
    /// position per frame as CSV (to compare Pelt with other VRM tools).
    #[command(
        allow_negative_numbers = true,
        long_about = commands::tail_trace::LONG_ABOUT,
        after_help = "Example: pelt tail-trace --motion motion.json --out trace.csv"
    )]
    TailTrace(commands::tail_trace::TailTraceArgs),
    /// Grow and settle the coat, then save one rendered frame as a PNG.
    #[command(
        allow_negative_numbers = true,
        after_help = "Example: pelt render --camera closeup --strands 420032 --width 640 --height 360 --env assets/studio.hdr --out closeup.png"
    )]
    Render(commands::render::RenderArgs),
    /// Pet the creature in a window (the default when a display is available), or record
    /// a scripted replay as an animated PNG.
    #[command(
        allow_negative_numbers = true,
        after_help = "Example: pelt demo --strands 32768 --script assets/pet_scratch.json --frames 180 --record clip.png"
    )]
    Demo(commands::demo::DemoArgs),
}

fn main() -> std::process::ExitCode {
    // Rust ignores SIGPIPE, which turns `pelt info | head` into a panic on the next print.
    // Restore the default so a closed pipe ends the program quietly, like any Unix tool.
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Mesa complains on stderr without a runtime directory; give it a private one.
    commands::environment::ensure_runtime_dir();
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,wgpu_hal::gles::egl=off,winit=error"),
    )
    .init();
    // A run ended by Ctrl-C, SIGTERM or a closed terminal removes its half-written files.
    if let Err(e) = pelt::files::remove_temporaries_on_signal() {
        log::warn!("cannot watch for SIGINT/SIGTERM/SIGHUP: {e}");
    }
    match run(Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pelt: {}", commands::report::describe(&e));
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    // With no command: `pelt demo`, or `pelt run` without a display, each parsed from its
    // bare name so it gets clap's defaults (a derived `Default` would give a 0×0 window).
    match cli.command {
        None if app::display_available() => run(Cli::try_parse_from(["pelt", "demo"])?),
        None => {
            eprintln!(
                "pelt: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so no window: running the headless printout instead. `pelt --help` lists the commands."
            );
            run(Cli::try_parse_from(["pelt", "run"])?)
        }
        Some(Command::Run(a)) => commands::run::run(&a),
        Some(Command::Info) => commands::info::run(),
        Some(Command::Simulate(a)) => commands::simulate::run(&a),
        Some(Command::Export(a)) => commands::export::run(&a),
        Some(Command::Import(a)) => commands::import::run(&a),
        Some(Command::TailTrace(a)) => commands::tail_trace::run(&a),
        Some(Command::Render(a)) => commands::render::run(&a),
        Some(Command::Demo(a)) => commands::demo::run(&a),
    }
}
