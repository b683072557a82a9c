#!/usr/bin/env bash
# Conformance of Pelt's springs and files with gltf-validator and three-vrm (see check.mjs).
# Usage: tests/vrm-conformance/run.sh [PATH/TO/pelt]   (builds target/debug/pelt if omitted)
# Needs Node 20+ and npm (the npm registry on first run; packages pinned by
# package-lock.json, then offline).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pelt="${1:-}"
if [[ -z "$pelt" ]]; then
  cargo build --quiet --manifest-path "$root/Cargo.toml" --bin pelt
  pelt="$root/target/debug/pelt"
fi
pelt="$(cd "$(dirname "$pelt")" && pwd)/$(basename "$pelt")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$here"
if [[ ! -d node_modules ]] || ! npm ls --silent >/dev/null 2>&1; then
  npm ci --no-audit --no-fund --loglevel=error
fi
node check.mjs "$pelt" "$work"
