//! The subcommands of the `pelt` binary, one file each.

pub mod demo;
pub mod environment;
pub mod export;
pub mod import;
pub mod info;
pub mod output_path;
pub mod render;
pub mod run;
pub mod simulate;
pub mod tail_trace;
