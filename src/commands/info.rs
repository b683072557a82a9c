//! `pelt info`: the adapters, the chosen one, its limits and the strand tier it would use.

use crate::common::stdout::say;
use pelt::gpu::{GpuContext, list_adapters};
use pelt::sim::{StrandTier, bytes_per_strand, max_strands};

/// Prints what Pelt sees.
pub fn run() -> anyhow::Result<()> {
    let adapters = list_adapters();
    say!("adapters (best first):");
    if adapters.is_empty() {
        say!("  none");
    }
    for a in &adapters {
        say!(
            "  {} [{:?}, {:?}] driver: {} {}",
            a.info.name,
            a.info.backend,
            a.info.device_type,
            a.info.driver,
            a.info.driver_info
        );
    }
    let ctx = GpuContext::new()?;
    let info = ctx.info();
    let limits = ctx.device.limits();
    let tier = StrandTier::for_device(info.device_type);
    say!(
        "chosen: {} [{:?}, {:?}]",
        info.name,
        info.backend,
        info.device_type
    );
    say!(
        "limits: storage binding {} MiB, buffer {} MiB, {} storage buffers per stage, {} workgroups per dimension",
        limits.max_storage_buffer_binding_size >> 20,
        limits.max_buffer_size >> 20,
        limits.max_storage_buffers_per_shader_stage,
        limits.max_compute_workgroups_per_dimension
    );
    say!(
        "strand tier: {:?} = {} strands, the coat `render`, `simulate`, `export` and `run` grow by default ({} bytes per strand, {:.1} MiB; the demo starts from its own measured coat); this device holds up to {} strands",
        tier,
        tier.strands(),
        bytes_per_strand(),
        (tier.strands() * bytes_per_strand()) as f64 / (1 << 20) as f64,
        max_strands(&limits)
    );
    Ok(())
}
