#!/usr/bin/env bash
# Every check Pelt has: formatting, clippy, the Rust tests, and the VRM conformance checks
# (gltf-validator and three-vrm in Node). Run scripts/setup.sh once first on a new machine.
set -euo pipefail
cd "$(dirname "$0")/.."
# Mesa wants a private runtime directory; without one it prints warnings on every start.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
cargo fmt --check
cargo clippy --all-targets --quiet -- -D warnings
cargo test
bash tests/vrm-conformance/run.sh target/debug/pelt
