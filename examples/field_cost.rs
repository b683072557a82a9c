//! The body field's cost on the CPU's SIMD path, measured as processor time (all threads),
//! which a machine shared with other work disturbs far less than wall time: the Fox
//! (`tests/bodies`) walking, its coat stepped with the field off and on, alternated.
//!
//! `cargo run --release --example field_cost -- [STRANDS] [STEPS] [ROUNDS]` (16,384
//! strands, 240 steps, 2 rounds by default).

use pelt::body::{BodyOptions, LoadedBody};
use pelt::sim::{CpuPath, FurBody, FurConfig, FurSim};
use std::sync::Arc;
use std::time::Instant;

/// Processor seconds this process has used, user and system, all threads (as
/// `examples/raster_time.rs` measures).
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes into the struct it is given and reads nothing else.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arg = |i: usize, default: usize| {
        std::env::args()
            .nth(i)
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (strands, steps, rounds) = (arg(1, 16_384), arg(2, 240), arg(3, 2));
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bodies/Fox.glb");
    let loaded = LoadedBody::read(&path, &BodyOptions { height: 0.6 })?;
    let motion = loaded.motion(Some("Walk"))?;
    let body = FurBody {
        mesh: Arc::new(loaded.mesh),
        motion: Arc::from(motion),
        groom: None,
    };
    let make = |field: bool| -> Result<FurSim, Box<dyn std::error::Error>> {
        let mut config = FurConfig::new(strands, 1);
        if !field {
            config.body_field = None;
        }
        if let Some(y) = body.lowest_point() {
            config.params.floor = y;
        }
        let mut sim = FurSim::new_cpu_on_body(&config, body.clone())?;
        if let Some(cpu) = sim.cpu_mut() {
            cpu.set_path(CpuPath::Simd);
        }
        // Settled first, so both measure a walking coat, not the groomed one.
        sim.step(60)?;
        Ok(sim)
    };
    let mut sims = [make(false)?, make(true)?];
    let names = ["off", "on"];
    println!("{strands} strands, {steps} steps a measure, CPU SIMD path");
    for round in 1..=rounds {
        let mut cpu_ms = [0.0; 2];
        for (k, sim) in sims.iter_mut().enumerate() {
            let (c0, t0) = (cpu_seconds(), Instant::now());
            for _ in 0..steps / 8 {
                sim.step(8)?;
            }
            let (cpu, wall) = (cpu_seconds() - c0, t0.elapsed().as_secs_f64());
            cpu_ms[k] = cpu * 1e3 / steps as f64;
            println!(
                "round {round} field {}: {:.3} processor ms a step ({:.3} ms wall)",
                names[k],
                cpu_ms[k],
                wall * 1e3 / steps as f64
            );
        }
        println!(
            "round {round}: field on / off = {:.2}x",
            cpu_ms[1] / cpu_ms[0]
        );
    }
    Ok(())
}
