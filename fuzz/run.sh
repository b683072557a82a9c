#!/usr/bin/env bash
# Builds and runs the read_glb fuzz target for SECONDS (default 180).
# Uses `cargo fuzz` when installed (nightly); otherwise builds the same libFuzzer binary on
# stable with SanitizerCoverage flags (no AddressSanitizer: Rust is memory-safe here, the
# target looks for panics). Corpus: fuzz/corpus/read_glb, seeded with an exported GLB.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
secs="${1:-180}"
cd "$here"
mkdir -p corpus/read_glb artifacts/read_glb
cargo run --quiet --manifest-path ../Cargo.toml --bin pelt -- export --out corpus/read_glb/creature.glb >/dev/null
python3 make_seeds.py corpus/read_glb/creature.glb corpus/read_glb
if cargo fuzz --help >/dev/null 2>&1; then
  exec cargo fuzz run read_glb -- -max_total_time="$secs"
fi
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
  -Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# --target keeps the flags off build scripts and proc macros, as cargo fuzz does.
triple="$(rustc -vV | sed -n 's/^host: //p')"
cargo build --release --bin read_glb --target "$triple"
exec "target/$triple/release/read_glb" -max_total_time="$secs" -max_len=65536 \
  -artifact_prefix=artifacts/read_glb/ corpus/read_glb
