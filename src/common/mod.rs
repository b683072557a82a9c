//! What the commands and the demo share, below both: picture sizes and output sizes checked
//! before any work, progress on long runs, values and paths made printable for messages,
//! the strand count, the solver and the volume grid's flags. Nothing here imports `commands` or `app`.

pub mod body_args;
pub mod output_path;
pub mod output_size;
pub mod picture_size;
pub mod printable;
pub mod progress;
pub mod solver_args;
pub mod stdout;
pub mod strand_count;
pub mod volume_args;
