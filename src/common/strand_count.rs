//! The strand count asked for on the command line, against what the adapter holds and the
//! full coat.

/// Refuses a `--strands` the GPU of `ctx` cannot hold, naming its real limit (the largest
/// storage buffer it binds and the workgroups one dispatch may have).
pub fn check_strands(strands: Option<usize>, ctx: &pelt::gpu::GpuContext) -> anyhow::Result<()> {
    let max = pelt::sim::max_strands(&ctx.device.limits());
    match strands {
        Some(n) if n == 0 || n > max => anyhow::bail!(
            "--strands {n}: strand count {n} is out of range; {} holds 1 to {max} strands",
            ctx.info().name
        ),
        _ => Ok(()),
    }
}

/// What a strand count past the full coat means, for a summary line: the same skin, more
/// densely covered (empty for a count within the full coat).
pub fn beyond_full_coat(strands: usize) -> String {
    let full = pelt::sim::StrandTier::Full.strands();
    if strands <= full {
        return String::new();
    }
    format!(
        " ({:.1}× as dense as the full coat of {full}: more strands on the same skin)",
        strands as f64 / full as f64
    )
}
