#!/usr/bin/env bash
# Builds and runs one fuzz target for SECONDS (default 180): read_glb (the default),
# read_capsule_script, read_pointer_script or read_motion. Usage: run.sh [SECONDS] [TARGET].
# Uses `cargo fuzz` when installed (nightly); otherwise builds the same libFuzzer binary on
# stable with SanitizerCoverage flags (no AddressSanitizer: Rust is memory-safe here, the
# target looks for panics). Corpus: fuzz/corpus/TARGET, seeded from the shipped examples.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
secs="${1:-180}"
target="${2:-read_glb}"
cd "$here"
corpus="corpus/$target"
mkdir -p "$corpus" "artifacts/$target"
case "$target" in
  read_glb)
    cargo run --quiet --manifest-path ../Cargo.toml --bin pelt -- export --out "$corpus/creature.glb" >/dev/null
    python3 make_seeds.py "$corpus/creature.glb" "$corpus"
    ;;
  read_capsule_script) cp ../assets/back_stroke.json "$corpus/" ;;
  read_pointer_script) cp ../assets/pet_scratch.json "$corpus/" ;;
  read_motion)
    printf '%s' '[{"t": 0, "position": [0, 0, 0], "rotation": [0, 0, 0, 1]}, {"t": 0.5, "position": [0.3, 0, 0], "rotation": [0, 0.3826834, 0, 0.9238795]}]' >"$corpus/hop.json"
    ;;
  *) echo "unknown fuzz target $target" >&2; exit 2 ;;
esac
if cargo fuzz --help >/dev/null 2>&1; then
  exec cargo fuzz run "$target" -- -max_total_time="$secs"
fi
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
  -Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# --target keeps the flags off build scripts and proc macros, as cargo fuzz does.
triple="$(rustc -vV | sed -n 's/^host: //p')"
cargo build --release --bin "$target" --target "$triple"
exec "target/$triple/release/$target" -max_total_time="$secs" -max_len=65536 \
  -artifact_prefix="artifacts/$target/" "$corpus"
