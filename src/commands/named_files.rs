//! What each command reads and writes, side by side: the [`NamedFiles`] lists that
//! `common::output_path::check` compares before any work.

use crate::common::output_path::{NamedFiles, Output};
use std::path::Path;

impl NamedFiles for super::render::RenderArgs {
    fn inputs(&self) -> Vec<&Path> {
        self.capsule_script
            .iter()
            .chain(&self.env)
            .chain(&self.body.body)
            .chain(&self.body.groom)
            .map(|p| p.as_path())
            .collect()
    }
    fn outputs(&self) -> Vec<Output<'_>> {
        vec![Output {
            path: &self.out,
            what: "the picture",
            extensions: &["png"],
        }]
    }
}

impl NamedFiles for super::demo::DemoArgs {
    fn inputs(&self) -> Vec<&Path> {
        self.script
            .iter()
            .chain(&self.env)
            .chain(&self.body.body)
            .chain(&self.body.groom)
            .map(|p| p.as_path())
            .collect()
    }
    fn outputs(&self) -> Vec<Output<'_>> {
        let screenshot = self.screenshot.iter().map(|path| Output {
            path,
            what: "the screenshot",
            extensions: &["png"],
        });
        let clip = self.record.iter().map(|path| Output {
            path,
            what: "the clip",
            extensions: &["png"],
        });
        screenshot.chain(clip).collect()
    }
}

impl NamedFiles for super::simulate::SimulateArgs {
    fn inputs(&self) -> Vec<&Path> {
        self.capsule_script
            .iter()
            .chain(&self.body.body)
            .chain(&self.body.groom)
            .map(|p| p.as_path())
            .collect()
    }
    fn outputs(&self) -> Vec<Output<'_>> {
        vec![Output {
            path: &self.out,
            what: "the state",
            extensions: &["npy", "npz"],
        }]
    }
}

impl NamedFiles for super::export::ExportArgs {
    fn inputs(&self) -> Vec<&Path> {
        self.capsule_script
            .iter()
            .chain(&self.body.body)
            .chain(&self.body.groom)
            .map(|p| p.as_path())
            .collect()
    }
    fn outputs(&self) -> Vec<Output<'_>> {
        let usda = self
            .out
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("usda"));
        vec![if usda {
            Output {
                path: &self.out,
                what: "the coat",
                extensions: &["usda"],
            }
        } else {
            // A bare `.usda` (a hidden file with no extension) is a bad name, not a rig.
            Output {
                path: &self.out,
                what: "the creature",
                extensions: &["glb", "vrm", "usda"],
            }
        }]
    }
}

impl NamedFiles for super::tail_trace::TailTraceArgs {
    fn inputs(&self) -> Vec<&Path> {
        std::iter::once(self.motion.as_path())
            .chain(self.file.as_deref())
            .collect()
    }
    fn outputs(&self) -> Vec<Output<'_>> {
        vec![Output {
            path: &self.out,
            what: "the trace",
            extensions: &["csv"],
        }]
    }
}
