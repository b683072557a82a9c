//! The solver's constants (the seed document's, per dispatch at 60 dispatches a second) and
//! their validation.

use super::SimError;
use glam::Vec3;

/// The most steps `VolumeSettings::interval` may put between splats: one dispatch.
pub const MAX_INTERVAL: u32 = crate::shaders::MAX_STEPS;
/// Steps from one splat to the next by default (`FurParams::volume_interval`,
/// `--volume-interval`): a splat once a dispatch keeps the GPU solver's steps batched, where
/// a splat every step forces one-step dispatches, and a stroke or a press still moves its
/// untouched neighbours about as much (docs/architecture.md, "Measured").
pub const DEFAULT_INTERVAL: u32 = MAX_INTERVAL;
/// The most strands a coat splats by default (`FurParams::volume_splat_strands`): more
/// than the tests' densest coat (16,384), so every tested coat splats whole, and about
/// 1/7 of the full coat, which still puts more points in a typical node (21 splatted,
/// each weighing 7, of 149) than the densest tested coat splats whole (6.4). A splat
/// costs 32 atomic adds a point, so this bounds its cost at any coat size.
pub const DEFAULT_SPLAT_STRANDS: u32 = 65_536;
/// The fewest strands `FurParams::volume_splat_strands` may ask for: below this a node
/// holds too few points for its density to mean anything.
pub const MIN_SPLAT_STRANDS: u32 = 256;

/// The strand solver's parameters. The defaults are the seed document's `fur` constants,
/// which are per dispatch and calibrated at 60 dispatches a second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FurParams {
    /// Share of the last step's velocity kept each step.
    pub damping: f32,
    /// Gravity as a displacement added each step, metres (−1.6/3600 down).
    pub gravity: Vec3,
    /// Strength of the slow gust, metres per step.
    pub wind: f32,
    /// Amplitude of the per-strand kink, radians, at most 0.5 (the solver evaluates the
    /// kink's small rotation by a series exact to f32 rounding in that range).
    pub kink: f32,
    /// Blend toward the rest direction at the root segment.
    pub root_stiffness: f32,
    /// Blend toward the rest direction at the tip segment.
    pub tip_stiffness: f32,
    /// How strongly hand motion combs the fur.
    pub comb_gain: f32,
    /// Share of the comb kept each step.
    pub comb_decay: f32,
    /// Largest comb magnitude.
    pub comb_max: f32,
    /// Height of the floor, metres.
    pub floor: f32,
    /// Clearance above the root's tangent plane required of point `i`, times `i`, metres.
    pub skin_offset: f32,
    /// Largest capsule displacement passed to the fur in one step, metres.
    pub capsule_step_max: f32,
    /// Whether strands interact through the volume grid (`sim::volume`): off, each strand
    /// moves as if alone, exactly as before the grid existed.
    pub volume: bool,
    /// Share of the difference to the grid's velocity a point takes each step, so
    /// neighbours move together (volume on).
    pub volume_friction: f32,
    /// How hard density above the coat's rest density pushes points down its gradient
    /// (volume on).
    pub volume_strength: f32,
    /// Grid nodes along each axis, 4 to 128 (the grid is a cube over the coat).
    pub volume_resolution: u32,
    /// Steps from one splat of the grid to the next, 1 to 8 (`sim::volume::MAX_INTERVAL`;
    /// by default [`DEFAULT_INTERVAL`](DEFAULT_INTERVAL), 8): the step after
    /// a splat reads the grid, the others move each strand alone (see
    /// `VolumeSettings::interval`).
    pub volume_interval: u32,
    /// The most strands splatted into the grid, at least
    /// [`MIN_SPLAT_STRANDS`](MIN_SPLAT_STRANDS). A coat with more splats an
    /// even subset, every k-th strand along the skin, each weighing k
    /// ([`VolumeSettings::stride`](super::volume::VolumeSettings::stride)); every strand
    /// still reads the grid. The default,
    /// [`DEFAULT_SPLAT_STRANDS`](DEFAULT_SPLAT_STRANDS) (65,536), splats
    /// coats up to that size whole and every 7th strand of the full coat. A new value
    /// through `FurSim::set_params` that changes k measures the rest densities anew, from
    /// the coat as it stands then.
    pub volume_splat_strands: u32,
}

impl Default for FurParams {
    fn default() -> Self {
        FurParams {
            damping: 0.9,
            gravity: Vec3::new(0.0, -1.6 / 3600.0, 0.0),
            wind: 0.00022,
            kink: 0.16,
            root_stiffness: 0.42,
            tip_stiffness: 0.14,
            comb_gain: 1.4,
            comb_decay: 0.994,
            comb_max: 1.3,
            floor: -0.87,
            skin_offset: 0.0015,
            capsule_step_max: 0.08,
            volume: false,
            volume_friction: 0.9,
            volume_strength: 1.5,
            volume_resolution: 96,
            volume_interval: DEFAULT_INTERVAL,
            volume_splat_strands: DEFAULT_SPLAT_STRANDS,
        }
    }
}

impl FurParams {
    /// Checks that every parameter is finite and in its range; the error names the first
    /// that is not.
    pub fn validate(&self) -> Result<(), SimError> {
        let unit = |name: &'static str, v: f32| {
            if v.is_finite() && (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(SimError::Parameter {
                    name,
                    value: v,
                    expected: "a finite number in [0, 1]",
                })
            }
        };
        let finite = |name: &'static str, v: f32| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(SimError::Parameter {
                    name,
                    value: v,
                    expected: "a finite number",
                })
            }
        };
        let non_negative = |name: &'static str, v: f32| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(SimError::Parameter {
                    name,
                    value: v,
                    expected: "a finite number ≥ 0",
                })
            }
        };
        unit("damping", self.damping)?;
        finite("gravity.x", self.gravity.x)?;
        finite("gravity.y", self.gravity.y)?;
        finite("gravity.z", self.gravity.z)?;
        non_negative("wind", self.wind)?;
        if !(self.kink.is_finite() && self.kink.abs() <= 0.5) {
            return Err(SimError::Parameter {
                name: "kink",
                value: self.kink,
                expected: "a finite number in [−0.5, 0.5] radians",
            });
        }
        unit("root_stiffness", self.root_stiffness)?;
        unit("tip_stiffness", self.tip_stiffness)?;
        non_negative("comb_gain", self.comb_gain)?;
        unit("comb_decay", self.comb_decay)?;
        non_negative("comb_max", self.comb_max)?;
        finite("floor", self.floor)?;
        non_negative("skin_offset", self.skin_offset)?;
        non_negative("capsule_step_max", self.capsule_step_max)?;
        unit("volume_friction", self.volume_friction)?;
        non_negative("volume_strength", self.volume_strength)?;
        if !(4..=128).contains(&self.volume_resolution) {
            return Err(SimError::WholeParameter {
                name: "volume_resolution",
                value: u64::from(self.volume_resolution),
                expected: "a whole number from 4 to 128",
            });
        }
        if !(1..=MAX_INTERVAL).contains(&self.volume_interval) {
            return Err(SimError::WholeParameter {
                name: "volume_interval",
                value: u64::from(self.volume_interval),
                expected: "a whole number of steps from 1 to 8",
            });
        }
        if self.volume_splat_strands < MIN_SPLAT_STRANDS {
            return Err(SimError::WholeParameter {
                name: "volume_splat_strands",
                value: u64::from(self.volume_splat_strands),
                expected: "at least 256 strands",
            });
        }
        Ok(())
    }
}
