//! Every file a command names, checked in one place before any work: each output against
//! every input of the same command (and against the other outputs), so no command can
//! forget an input when it gains one. The lists of what each command reads and writes
//! live here, side by side, in the [`NamedFiles`] implementations.

use std::path::Path;

/// One output a command writes.
pub struct Output<'a> {
    /// The file.
    pub path: &'a Path,
    /// How messages name it ("the picture").
    pub what: &'static str,
    /// The extensions its name may end in, without the dot (compared without case).
    pub extensions: &'static [&'static str],
}

/// The files a command's arguments name.
pub trait NamedFiles {
    /// Every file the command reads.
    fn inputs(&self) -> Vec<&Path>;
    /// Every file the command writes.
    fn outputs(&self) -> Vec<Output<'_>>;
}

/// Checks every output of `args` with [`pelt::files::check_output`] against every input
/// and every other output, before any work: an output that is an input (by any name, hard
/// links included) would destroy it, and two outputs that are one file would overwrite
/// each other.
pub fn check(args: &impl NamedFiles) -> anyhow::Result<()> {
    let inputs = args.inputs();
    let outputs = args.outputs();
    for (i, output) in outputs.iter().enumerate() {
        let others: Vec<&Path> = inputs
            .iter()
            .copied()
            .chain(
                outputs
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, o)| o.path),
            )
            .collect();
        pelt::files::check_output(output.path, output.what, output.extensions, &others)?;
    }
    Ok(())
}

impl NamedFiles for super::render::RenderArgs {
    fn inputs(&self) -> Vec<&Path> {
        self.capsule_script
            .iter()
            .chain(&self.env)
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
        self.capsule_script.iter().map(|p| p.as_path()).collect()
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
        self.capsule_script.iter().map(|p| p.as_path()).collect()
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
