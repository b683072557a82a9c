//! `--volume on|off` and `--volume-interval N`: the coat's density and velocity grid as
//! `simulate`, `render` and `demo` (its window and its recordings) take it.

use pelt::sim::FurConfig;
use pelt::sim::volume::{DEFAULT_INTERVAL, MAX_INTERVAL};

/// `--volume on|off` and `--volume-interval N`, shared by `simulate`, `render` and `demo`.
#[derive(clap::Args, Clone, Copy, Debug, PartialEq, Eq)]
pub struct VolumeArgs {
    /// Whether strands interact through the coat's density and velocity grid (in `demo`
    /// the panel switches it too). It starts once the coat has settled, after step 60.
    #[arg(long, value_enum, default_value_t = Volume::Off)]
    pub volume: Volume,
    /// Steps from one splat of the grid to the next, 1 to 8 [default: 8] (needs `--volume
    /// on`, but for `demo`'s window, whose panel can switch the grid on): the step after a
    /// splat reads the grid, the others move each strand alone. The grid's cost falls with N:
    /// at 8 it adds a small share to a step, at 1 (a splat every step) more than the step
    /// itself costs (measured in docs/architecture.md (Measured)).
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..=MAX_INTERVAL as i64)
    )]
    pub volume_interval: Option<u32>,
}

impl Default for VolumeArgs {
    fn default() -> Self {
        VolumeArgs {
            volume: Volume::Off,
            volume_interval: None,
        }
    }
}

impl VolumeArgs {
    /// An error when an interval is given for a run with the grid off (it would do
    /// nothing); `demo`'s window does not ask, as its panel can switch the grid on, but
    /// `demo --record` (no panel) does.
    pub fn check_for_run(self) -> anyhow::Result<()> {
        match self.volume_interval {
            Some(n) if !self.on() => anyhow::bail!(
                "--volume-interval {n} needs --volume on: with the grid off there is nothing \
                 to splat"
            ),
            _ => Ok(()),
        }
    }

    /// Steps from one splat to the next: as given, else the library's default
    /// (`sim::volume::DEFAULT_INTERVAL`).
    pub fn interval(self) -> u32 {
        self.volume_interval.unwrap_or(DEFAULT_INTERVAL)
    }

    /// Whether the grid is on.
    pub fn on(self) -> bool {
        self.volume == Volume::On
    }

    /// How a summary names the grid for a coat of `strands`: empty with it off, else its
    /// interval and, where the coat splats a subset (`FurParams::volume_splat_strands`),
    /// which strands.
    pub fn describe(self, strands: usize) -> String {
        if !self.on() {
            return String::new();
        }
        let stride = pelt::sim::volume::splat_stride(
            strands,
            pelt::sim::FurParams::default().volume_splat_strands,
        );
        let mut how = vec![match self.interval() {
            1 => "every step".to_string(),
            n => format!("every {n} steps"),
        }];
        if stride > 1 {
            how.push(format!("from one strand in {stride}"));
        }
        format!(", volume grid on (splatted {})", how.join(", "))
    }

    /// A configuration with the grid switched and spaced as these say.
    pub fn apply(self, config: FurConfig) -> FurConfig {
        let mut config = self.volume.apply(config);
        config.params.volume_interval = self.interval();
        config
    }
}

/// `--volume on|off`: the coat as a volume (strands push and drag their neighbours through
/// a density and velocity grid), or every strand alone as before.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Volume {
    /// The grid on.
    On,
    /// Each strand alone.
    #[default]
    Off,
}

impl Volume {
    /// A configuration with the grid switched as this says.
    pub fn apply(self, mut config: FurConfig) -> FurConfig {
        config.params.volume = self == Volume::On;
        config
    }
}
