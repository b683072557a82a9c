#!/usr/bin/env bash
# Installs what Pelt needs beyond a Rust toolchain on Debian or Ubuntu: a Vulkan driver
# (Mesa's lavapipe runs on the CPU where there is no GPU), Mesa's EGL and OpenGL driver
# (the demo's test runs a window on OpenGL too), Node.js for the VRM conformance checks,
# Xvfb for the demo's windowed test, and a C++ compiler for the fuzz crate's check. Does
# nothing for what is already there. Needs root (or sudo).
set -euo pipefail
need=()
[[ -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json || -n "$(ls /usr/share/vulkan/icd.d/ 2>/dev/null)" ]] || need+=(mesa-vulkan-drivers)
ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1' || need+=(libvulkan1)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
# The fuzz crate's check in CI builds libFuzzer, which is C++.
command -v c++ >/dev/null 2>&1 || need+=(g++)
# The demo's test runs a real window on a virtual X server, on Vulkan and on OpenGL
# (Mesa's EGL and its software GL driver).
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb xauth)
ldconfig -p 2>/dev/null | grep -q 'libEGL_mesa.so.0' || need+=(libegl1 libegl-mesa0 libgl1-mesa-dri)
# The write-protected output's test runs pelt as another user (root may write any file).
command -v setpriv >/dev/null 2>&1 || need+=(util-linux)
if ((${#need[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
# The USD export's test opens Pelt's files with Pixar's own library (usd-core from PyPI) in
# a virtual environment of its own at target/usd-venv (tests/usd_export.rs runs its python;
# PELT_USD_PYTHON names another interpreter that has `pxr`). The test checks the file with
# UsdUtils.ComplianceChecker where the wheel has it (24.11 does) and with pxr.UsdValidation,
# which replaced it, where not (26.x).
USD_CORE_VERSION=24.11
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/target/usd-venv"
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends python3-venv
fi
if ! "$venv/bin/python" -c "import pxr.Usd, sys; from importlib.metadata import version; sys.exit(version('usd-core') != '$USD_CORE_VERSION')" >/dev/null 2>&1; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "usd-core==$USD_CORE_VERSION"
fi
