//! `--body FILE`, `--body-height METRES`, `--animation NAME` and `--groom FILE`: a body of
//! the user's to grow the coat on in place of the built-in creature, and how to groom it, as
//! `render`, `simulate`, `export` and `demo` take them.

use crate::common::output_path::NamedFiles;
use anyhow::{anyhow, bail};
use pelt::body::{BodyOptions, DEFAULT_BODY_HEIGHT, LoadedBody};
use pelt::groom::BodyGroomSource;
use pelt::sim::{FurBody, FurConfig};
use std::path::{Path, PathBuf};
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
    /// How the body's coat is groomed (needs `--body`): a groom file (JSON: density,
    /// length, direction, clumping, colour, masks where no fur grows) or strands as USD
    /// text (`.usda` BasisCurves, each bound to the nearest triangle, its shape kept).
    #[arg(long, value_name = "FILE")]
    pub groom: Option<PathBuf>,
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
            // The creature's coat is groomed in code, part by part (head, body, paws and
            // tail, with its pattern channels), on analytic surfaces with no triangles,
            // materials or vertex colours for a groom file's masks or a curve's root to
            // find: a groom is for a body. The creature itself is one, exported.
            if let Some(groom) = &self.groom {
                bail!(
                    "--groom {} needs --body: a groom grows fur on a body's triangles, and the \
                     built-in creature has its own groom. To groom the creature, export it \
                     with `pelt export --out creature.vrm` and give `--body creature.vrm \
                     --groom {}`",
                    crate::common::printable::printable_path(groom),
                    crate::common::printable::printable_path(groom)
                );
            }
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
        let groom = match &self.groom {
            Some(g) => Some(load_groom(g, &loaded)?),
            None => None,
        };
        // The reader's summary already gives the fitted height and scale.
        let summary = format!(
            "{}; {} (--body-height changes the size){}",
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
            },
            match &groom {
                Some((pelt::groom::BodyGroomSource::Strands(_), line)) => format!("; {line}"),
                Some((_, line)) => format!("; {line}{}", covered_line(&loaded.mesh)),
                None => format!("{}{}", bare_line(&loaded.mesh), covered_line(&loaded.mesh)),
            }
        );
        Ok(Some(RunBody {
            body: FurBody {
                mesh: Arc::new(loaded.mesh),
                motion: Arc::from(motion),
                groom: groom.map(|(g, _)| Arc::new(g)),
            },
            summary,
        }))
    }
}

/// The summary's words on the skin another layer of the body covers, where the groom
/// grows no fur (none: empty).
fn covered_line(mesh: &pelt::body::BodyMesh) -> String {
    let cover = pelt::groom::CoveredSkin::new(mesh);
    if !cover.measured() {
        return "; the skin under the body's other layers was not measured (too many faces, \
                or faces piled on one spot), so fur may grow under them"
            .to_string();
    }
    let share = cover.area_share(mesh);
    // All of it covered: the groom grows on all of it after all.
    if !(share > 0.0 && share < 1.0) {
        return String::new();
    }
    let percent = if share < 0.01 {
        "under 1%".to_string()
    } else {
        format!("{:.0}%", (share * 100.0).min(99.0))
    };
    format!(
        "; no fur on the {percent} of the skin inside other parts of the mesh (a body under \
         its clothes, pieces that overlap)"
    )
}

/// The summary's words on the materials the default groom leaves bare (none: empty).
fn bare_line(mesh: &pelt::body::BodyMesh) -> String {
    /// The most names listed; a body may have hundreds of materials.
    const LISTED: usize = 8;
    let bare = pelt::groom::default_bare_materials(mesh);
    if bare.is_empty() {
        return String::new();
    }
    let mut names: Vec<String> = bare
        .iter()
        .take(LISTED)
        .map(|n| {
            format!(
                "\"{}\"",
                crate::common::printable::shortened(n, crate::common::printable::MAX_SHOWN_CHARS)
            )
        })
        .collect();
    if bare.len() > LISTED {
        names.push(format!("and {} more", bare.len() - LISTED));
    }
    format!(
        "; no fur on the materials {} (named like eyes, teeth or claws; a groom file's \
         `no_fur` changes that)",
        names.join(", ")
    )
}

/// The groom file or curves at `path`, for `body` (curves placed through the body's fit),
/// checked against the body so that a mask naming a material it lacks or a strand far from
/// its skin is refused here, naming the file, before any work; and a line for the summary.
fn load_groom(path: &Path, body: &LoadedBody) -> anyhow::Result<(BodyGroomSource, String)> {
    let name = crate::common::printable::printable_path(path);
    let (source, placement) = pelt::usd::read_groom(path)?.for_body(&body.mesh, body.fit.matrix());
    let line = match &source {
        BodyGroomSource::File(file) => {
            file.check_against(&body.mesh)
                .map_err(|m| anyhow!("groom file {name}: {m}"))?;
            format!("groom file {name}")
        }
        BodyGroomSource::Strands(strands) => {
            let roots = pelt::groom::roots_from_strands(&body.mesh, strands, 0)
                .map_err(|e| anyhow!("groom curves {name}: {e}"))?;
            let gap = roots
                .iter()
                .zip(strands)
                .map(|(r, s)| r.position.distance(s.points[0]))
                .fold(0.0f32, f32::max);
            format!(
                "{} strands from {name} ({}), each root within {:.1} mm of the skin",
                strands.len(),
                match placement {
                    pelt::usd::Placement::ThroughFit => "placed through the body's fit",
                    pelt::usd::Placement::AsWritten => "already in the fitted body's frame",
                },
                gap * 1000.0
            )
        }
    };
    Ok((source, line))
}
