//! The strand count asked for on the command line, against what the adapter holds, what
//! the CPU solver can hold in this machine's memory, and the full coat.

use pelt::sim::{FurBody, SolverKind};

/// Host memory the CPU solver is allowed per strand, bytes: the groom's roots, the solver's
/// state and its SIMD lanes, and the positions read back and written. Measured at about
/// 840 B a strand (peak resident size over 65,536 to 524,288 strands with `.npz` output);
/// five times that leaves room for the allocator and a busy machine.
const CPU_BYTES_PER_STRAND: u64 = 4096;

/// The coat a run will grow: `strands` on the creature, or as many as the body's groom
/// plans (a groom file's count or density, or the curves read), and how a message names
/// that count.
pub fn planned(strands: usize, body: Option<&FurBody>) -> (usize, String) {
    match body {
        Some(b) if b.groom.is_some() => {
            let n = pelt::groom::BodyGroom::planned_count(&b.mesh, b.groom.as_deref(), strands);
            (n, format!("the groom's {n} strands"))
        }
        _ => (strands, format!("--strands {strands}")),
    }
}

/// Memory the machine can still give, bytes, where the system says (Linux).
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Refuses a coat of `strands` (named in messages as `what`) that the CPU solver cannot
/// hold, from an estimate of its memory, before anything is allocated (an allocation that
/// fails aborts the process). `gpu` names a GPU adapter whose solver could step it
/// instead, for the message's advice.
pub fn check_cpu_strands(strands: usize, what: &str, gpu: Option<&str>) -> anyhow::Result<()> {
    let max = pelt::groom::MAX_STRANDS;
    if strands == 0 || strands > max {
        anyhow::bail!(
            "{what}: strand count {strands} is out of range; the CPU solver holds 1 to {max} strands"
        );
    }
    let needed = strands as u64 * CPU_BYTES_PER_STRAND;
    let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
    let advice = match gpu {
        Some(name) => format!("try fewer strands, or --solver gpu ({name})"),
        None => "try fewer strands".to_string(),
    };
    if let Some(free) = available_memory()
        && needed > free
    {
        anyhow::bail!(
            "{what}: the CPU solver needs about {:.1} GiB for so many strands, and this machine has {:.1} GiB available; {advice}",
            gib(needed),
            gib(free)
        );
    }
    // Elsewhere, ask the allocator (untouched pages cost nothing).
    let mut probe: Vec<u8> = Vec::new();
    if probe.try_reserve_exact(needed as usize).is_err() {
        anyhow::bail!(
            "{what}: the CPU solver needs about {:.1} GiB for so many strands, more than this machine can give; {advice}",
            gib(needed)
        );
    }
    Ok(())
}

/// Refuses a coat the solver `solver` (resolved for `ctx`'s adapter, or the CPU solver
/// where there is none) cannot step, and, when `bound` (the coat is drawn, so its positions
/// are bound in one buffer of `ctx`'s device), one the device cannot bind, before anything
/// is grown. The GPU solver's own limit is checked where it is made.
pub fn check_planned(
    (strands, what): (usize, &str),
    solver: SolverKind,
    ctx: Option<&pelt::gpu::GpuContext>,
    bound: bool,
) -> anyhow::Result<()> {
    let info = ctx.map(pelt::gpu::GpuContext::info);
    if solver == SolverKind::Cpu {
        let gpu = info
            .as_ref()
            .filter(|i| i.device_type != wgpu::DeviceType::Cpu)
            .map(|i| i.name.as_str());
        check_cpu_strands(strands, what, gpu)?;
    }
    if let (true, Some(ctx), Some(info)) = (bound, ctx, &info) {
        let max = pelt::sim::max_strands(&ctx.device.limits());
        if strands > max {
            anyhow::bail!(
                "{what}: strand count {strands} is out of range; {} holds 1 to {max} strands",
                info.name
            );
        }
    }
    Ok(())
}

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
