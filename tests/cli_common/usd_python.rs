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

/// Python that checks the stage at `sys.argv[1]` with Pixar's own rules and leaves
/// `stage` (the opened stage), `checked_by` (what checked it) and `errors` (every error and
/// failed check, as text) for the lines after it: `UsdUtils.ComplianceChecker` where `pxr`
/// has it, else every registered validator of `pxr.UsdValidation` (usd-core 26 removed the
/// checker).
pub const CHECK_COMPLIANCE: &str = r#"
import sys
from pxr import Usd, UsdUtils
path = sys.argv[1]
stage = Usd.Stage.Open(path)
if hasattr(UsdUtils, "ComplianceChecker"):
    checker = UsdUtils.ComplianceChecker()
    checker.CheckCompliance(path)
    checked_by = "UsdUtils.ComplianceChecker"
    errors = list(checker.GetErrors()) + list(checker.GetFailedChecks())
else:
    from pxr import UsdValidation
    validators = UsdValidation.ValidationRegistry().GetOrLoadAllValidators()
    found = UsdValidation.ValidationContext(validators).Validate(stage)
    checked_by = "UsdValidation (%d validators)" % len(validators)
    errors = [e.GetErrorAsString() for e in found
              if e.GetType() == UsdValidation.ValidationErrorType.Error]
"#;
