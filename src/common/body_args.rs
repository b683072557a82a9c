//! `--body FILE`, `--body-height METRES` and `--animation NAME`: a body of the user's to grow
//! the coat on in place of the built-in creature, as `render`, `simulate`, `export` and
//! `demo` take it.

use crate::common::output_path::NamedFiles;
use anyhow::bail;
use pelt::body::{BodyOptions, DEFAULT_BODY_HEIGHT, LoadedBody};
use pelt::sim::{FurBody, FurConfig};
use std::path::PathBuf;
use std::sync::Arc;

/// The smallest and largest height a body may be fitted to, metres.
pub const BODY_HEIGHTS: std::ops::RangeInclusive<f32> = 0.01..=100.0;

/// `--body`, `--body-height`, `--animation`, shared by the commands that grow a coat.
#[derive(clap::Args, Clone, Debug, Default, PartialEq)]
pub struct BodyArgs {
    /// A skinned body to grow the coat on, in place of the built-in creature: `.glb`,
    /// `.gltf` (with its buffers) or `.vrm` (0.x or 1.0). The groom comes from the body
    /// itself: combed along its skeleton, coloured by its base colour texture.
    #[arg(long, value_name = "FILE")]
    pub body: Option<PathBuf>,
    /// The height the body is fitted to, metres (its rest pose's vertical extent; the
    /// coat's lengths are metres), 0.01 to 100 [default: 1] (needs `--body`).
    #[arg(long, value_name = "METRES", requires = "body", value_parser = parse_height, allow_hyphen_values = true)]
    pub body_height: Option<f32>,
    /// The body's animation to play, looped at the solver's 60 Hz (needs `--body`);
    /// without it the body holds its rest pose.
    #[arg(long, value_name = "NAME", requires = "body")]
    pub animation: Option<String>,
}

fn parse_height(s: &str) -> Result<f32, String> {
    let h: f32 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a number of metres"))?;
    if !(h.is_finite() && BODY_HEIGHTS.contains(&h)) {
        return Err(format!(
            "{s}: the body's height must be a number of metres from {} to {}",
            BODY_HEIGHTS.start(),
            BODY_HEIGHTS.end()
        ));
    }
    Ok(h)
}

/// A body read for a run: what the sim needs and a line for the summary.
pub struct RunBody {
    /// The body and its motion.
    pub body: FurBody,
    /// What was read and the fit.
    pub summary: String,
}

impl RunBody {
    /// [`on_floor`] for this body.
    pub fn on_its_floor(&self, config: FurConfig) -> FurConfig {
        on_floor(config, &self.body)
    }
}

/// `config` with the solver's floor where `body` stands (its lowest point at rest), so the
/// fur neither sinks through the drawn floor nor floats above it.
pub fn on_floor(mut config: FurConfig, body: &FurBody) -> FurConfig {
    if let Some(y) = body.lowest_point() {
        config.params.floor = y;
    }
    config
}

impl BodyArgs {
    /// The body asked for, read and fitted, with its motion; `None` for the creature.
    /// `command`'s outputs are checked against the files the body read beside its own (a
    /// `.gltf`'s buffers and images), which no check before the read can know.
    pub fn load(&self, command: &impl NamedFiles) -> anyhow::Result<Option<RunBody>> {
        let Some(path) = &self.body else {
            return Ok(None);
        };
        let height = self.body_height.unwrap_or(DEFAULT_BODY_HEIGHT);
        let loaded = LoadedBody::read(path, &BodyOptions { height })?;
        let beside: Vec<&std::path::Path> = loaded.files.iter().map(|p| p.as_path()).collect();
        crate::common::output_path::check_with(command, &beside)?;
        if loaded.mesh.triangles.is_empty() {
            bail!(
                "{}: the body has no triangles to grow fur on",
                crate::common::printable::printable_path(path)
            );
        }
        let motion = loaded.motion(self.animation.as_deref())?;
        // The reader's summary already gives the fitted height and scale.
        let summary = format!(
            "{}; {} (--body-height changes the size)",
            loaded.summary,
            match &self.animation {
                Some(name) => format!(
                    "animation \"{}\" looped",
                    crate::common::printable::shortened(
                        name,
                        crate::common::printable::MAX_SHOWN_CHARS
                    )
                ),
                None => "rest pose".to_string(),
            }
        );
        Ok(Some(RunBody {
            body: FurBody {
                mesh: Arc::new(loaded.mesh),
                motion: Arc::from(motion),
            },
            summary,
        }))
    }
}
