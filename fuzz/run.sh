#!/usr/bin/env bash
# The fuzz targets: read_glb, read_capsule_script, read_pointer_script, read_motion, groom_json,
# usda_curves and read_body. Each has a seed corpus in corpus/TARGET, kept in the repository.
# Two ways to run them:
#
#   run.sh --ci [SECONDS]      What CI runs, on stable Rust without libFuzzer: every target's
#                              corpus replayed, then inputs mutated from it for SECONDS each
#                              (default 10), seed $FUZZ_SEED (default 0; the same seed makes
#                              the same inputs). Built in the main crate's target folder with
#                              its debug settings, so it reuses what `cargo test` built.
#   run.sh [SECONDS] [TARGET]  One target under libFuzzer for SECONDS (default 180, read_glb by
#                              default): `cargo fuzz` where installed (nightly), otherwise the
#                              same libFuzzer binary built on stable with SanitizerCoverage
#                              flags (no AddressSanitizer: Rust is memory-safe here, the target
#                              looks for panics). New inputs go to corpus-work/TARGET (not kept);
#                              copy the few worth keeping into corpus/TARGET.
#
# A failing input is saved under artifacts/TARGET; `replay --input FILE TARGET` runs it again.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
if [[ "${1:-}" == "--ci" ]]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/../target}"
  cargo build --quiet --no-default-features --bin replay
  "$CARGO_TARGET_DIR/debug/replay" --seconds "${2:-10}" --seed "${FUZZ_SEED:-0}"
  # The libFuzzer entry points must keep building too (libFuzzer's C++ is compiled by
  # libfuzzer-sys's build script, which works on stable).
  cargo check --quiet --bins
  exit 0
fi
secs="${1:-180}"
target="${2:-read_glb}"
case "$target" in
  read_glb | read_capsule_script | read_pointer_script | read_motion | groom_json | usda_curves | read_body) ;;
  *) echo "unknown fuzz target $target" >&2; exit 2 ;;
esac
mkdir -p "corpus-work/$target" "artifacts/$target"
if cargo fuzz --help >/dev/null 2>&1; then
  exec cargo fuzz run "$target" "corpus-work/$target" "corpus/$target" -- -max_total_time="$secs"
fi
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
  -Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# --target keeps the flags off build scripts and proc macros, as cargo fuzz does.
triple="$(rustc -vV | sed -n 's/^host: //p')"
cargo build --release --bin "$target" --target "$triple"
exec "target/$triple/release/$target" -max_total_time="$secs" -max_len=65536 \
  -artifact_prefix="artifacts/$target/" "corpus-work/$target" "corpus/$target"
