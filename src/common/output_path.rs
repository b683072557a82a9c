//! Every file a command names, checked in one place before any work: each output against
//! every input of the same command (and against the other outputs), so no command can
//! forget an input when it gains one. The lists of what each command reads and writes
//! live side by side in `commands/named_files.rs`, the [`NamedFiles`] implementations.

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
    check_with(args, &[])
}

/// [`check`] with `more` inputs besides those the arguments name: files known only once an
/// input is read (a `.gltf` body's buffers and images beside it).
pub fn check_with(args: &impl NamedFiles, more: &[&Path]) -> anyhow::Result<()> {
    let mut inputs = args.inputs();
    inputs.extend_from_slice(more);
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
