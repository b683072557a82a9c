#!/usr/bin/env bash
# Installs what Pelt needs beyond a Rust toolchain on Debian or Ubuntu: a Vulkan driver
# (Mesa's lavapipe runs on the CPU where there is no GPU), Node.js for the VRM
# conformance checks, Xvfb for the demo's windowed test, and a C++ compiler for the fuzz
# crate's check. Does nothing for what is already there. Needs root (or sudo).
set -euo pipefail
need=()
[[ -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json || -n "$(ls /usr/share/vulkan/icd.d/ 2>/dev/null)" ]] || need+=(mesa-vulkan-drivers)
ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1' || need+=(libvulkan1)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
# The fuzz crate's check in CI builds libFuzzer, which is C++.
command -v c++ >/dev/null 2>&1 || need+=(g++)
# The demo's test runs a real window on a virtual X server.
command -v xvfb-run >/dev/null 2>&1 || need+=(xvfb xauth)
if ((${#need[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
