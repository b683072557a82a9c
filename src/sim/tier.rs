//! Strand-count tiers: the full coat for real GPUs, smaller multiples of 64 for CPU
//! adapters and tests.

use super::POINTS_PER_STRAND;

/// A named strand count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrandTier {
    /// The seed document's full coat: `64 · round(420000 / 64)` = 420,032 strands.
    Full,
    /// A quarter coat: 104,960 strands.
    Quarter,
    /// For software adapters: 32,768 strands.
    Cpu,
    /// For tests: 4,096 strands.
    Test,
}

impl StrandTier {
    /// Strands in this tier (each a multiple of 64).
    pub const fn strands(self) -> usize {
        match self {
            StrandTier::Full => 64 * 6563,
            StrandTier::Quarter => 64 * 1640,
            StrandTier::Cpu => 32_768,
            StrandTier::Test => 4_096,
        }
    }

    /// The tier to use on a device of this type: the full coat on anything with real GPU
    /// hardware, the CPU tier on a software rasteriser.
    pub fn for_device(device_type: wgpu::DeviceType) -> Self {
        match device_type {
            wgpu::DeviceType::Cpu => StrandTier::Cpu,
            _ => StrandTier::Full,
        }
    }
}

/// Bytes the solver keeps per strand: the root with its per-strand constants
/// ([`super::GpuRoot`], 128), two position buffers (2 × 6 × 16) and the comb (16). Rest
/// positions and previous-step roots are derived, not stored.
pub const fn bytes_per_strand() -> usize {
    std::mem::size_of::<super::GpuRoot>() + 2 * POINTS_PER_STRAND * 16 + 16
}

/// Bytes one dispatch reads and writes per strand, whatever its step count: the root
/// (128), points 1..5 of both position buffers read (2 × 5 × 16) and written, point 0 of
/// the latest written (16), the comb read and written (2 × 16). Point 0 is never read.
pub const fn dispatch_traffic_per_strand() -> usize {
    std::mem::size_of::<super::GpuRoot>() + 2 * (2 * 5 * 16) + 16 + 2 * 16
}
