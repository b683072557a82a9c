//! The Python with Pixar's `pxr`, for tests that check USD files with Pixar's own library.

use std::path::{Path, PathBuf};

/// `PELT_USD_PYTHON`, or the venv `scripts/setup.sh` makes (`target/usd-venv`). Missing is a
/// failure, not a skip: a USD file is only known good once Pixar's library reads it.
pub fn usd_python() -> PathBuf {
    let python = std::env::var_os("PELT_USD_PYTHON").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/usd-venv/bin/python"),
        PathBuf::from,
    );
    assert!(
        python.exists(),
        "{} is missing: run scripts/setup.sh (it makes target/usd-venv with usd-core from PyPI) or set PELT_USD_PYTHON to a python that has pxr",
        python.display()
    );
    python
}
