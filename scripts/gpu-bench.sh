#!/usr/bin/env bash
# Pelt's frame and strand-throughput benches at the full tier on an NVIDIA machine, from
# bench binaries built elsewhere, so a machine with a GPU gives numbers in its first
# minutes.
#
#   scripts/gpu-bench.sh --build [DIR]   here: build the bench binaries (`cargo bench
#                                        --no-run`), copy them into DIR (default
#                                        target/gpu-bench/) with the Vulkan loader's .deb
#                                        (libvulkan1) and a manifest
#   scripts/gpu-bench.sh --run [DIR]     on the GPU machine: unpack the loader beside the
#                                        binaries, point Vulkan at NVIDIA's ICD, run both
#                                        benches at the full tier, keep their output in
#                                        DIR/results/
#
# Environment for --run: PELT_ICD (the NVIDIA ICD JSON, when it is not in a usual place),
# PELT_BENCH_SIZES (default 1920x1080), PELT_BENCH_FRAMES (default 20),
# PELT_BENCH_ALLOW_OTHER=1 to run on an adapter that is not NVIDIA's (a check on lavapipe).
# Every missing piece stops the script with a message saying what is missing and how to
# get it; nothing runs half set up.
set -euo pipefail

FULL_TIER=420032
BENCHES=(frame strand_throughput)

die() {
    echo "gpu-bench: $*" >&2
    exit 1
}

usage() {
    sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-2}"
}

build() {
    local dir=$1
    command -v cargo >/dev/null || die "cargo is not on PATH: --build runs where the crate builds"
    command -v apt-get >/dev/null || die "apt-get is not on PATH: --build fetches the libvulkan1 .deb with it"
    local root
    root=$(cd "$(dirname "$0")/.." && pwd)
    mkdir -p "$dir/bin"
    local args=()
    for b in "${BENCHES[@]}"; do args+=(--bench "$b"); done
    echo "gpu-bench: building ${BENCHES[*]} (cargo bench --no-run)" >&2
    # Cargo names each bench executable in its JSON messages; take them from there rather
    # than guessing the hash in the file name.
    local messages
    messages=$(cd "$root" && cargo bench --no-run --message-format=json "${args[@]}") ||
        die "cargo bench --no-run failed"
    for b in "${BENCHES[@]}"; do
        local exe
        exe=$(printf '%s\n' "$messages" |
            grep '"reason":"compiler-artifact"' |
            grep "\"kind\":\[\"bench\"\]" |
            grep "\"name\":\"$b\"" |
            sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
        [ -n "$exe" ] && [ -x "$exe" ] || die "cargo built no executable for the bench $b"
        cp "$exe" "$dir/bin/$b.tmp" && mv "$dir/bin/$b.tmp" "$dir/bin/$b"
        echo "gpu-bench: $b <- $exe" >&2
    done
    # The assets the benches read (the petting script and friends) travel too.
    if [ -d "$root/assets" ]; then
        rm -rf "$dir/assets"
        cp -r "$root/assets" "$dir/assets"
    fi
    rm -f "$dir"/libvulkan1_*.deb
    (cd "$dir" && apt-get download libvulkan1 >&2) ||
        die "apt-get download libvulkan1 failed (run apt-get update first?)"
    ls "$dir"/libvulkan1_*.deb >/dev/null 2>&1 || die "no libvulkan1 .deb in $dir after apt-get download"
    {
        echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "commit: $(cd "$root" && git rev-parse HEAD 2>/dev/null || echo unknown)"
        echo "host: $(uname -m)"
        echo "root: $root"
        for b in "${BENCHES[@]}"; do echo "bench: $b"; done
    } >"$dir/MANIFEST"
    echo "gpu-bench: ready in $dir; on the GPU machine run: scripts/gpu-bench.sh --run $dir" >&2
}

find_icd() {
    if [ -n "${PELT_ICD:-}" ]; then
        [ -f "$PELT_ICD" ] || die "PELT_ICD=$PELT_ICD is not a file"
        echo "$PELT_ICD"
        return
    fi
    local c
    for c in \
        /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json \
        /usr/share/vulkan/icd.d/nvidia_icd.json \
        /etc/vulkan/icd.d/nvidia_icd.json \
        /usr/share/vulkan/icd.d/nvidia_icd.x86_64.json; do
        if [ -f "$c" ]; then
            echo "$c"
            return
        fi
    done
    if [ "${PELT_BENCH_ALLOW_OTHER:-0}" = 1 ]; then
        # A check away from NVIDIA: whatever ICD the system has (lavapipe).
        for c in /usr/share/vulkan/icd.d/lvp_icd.x86_64.json /usr/share/vulkan/icd.d/lvp_icd.json; do
            if [ -f "$c" ]; then
                echo "$c"
                return
            fi
        done
    fi
    die "no NVIDIA Vulkan ICD found (looked in /usr/local/nvidia/share/vulkan/icd.d, /usr/share/vulkan/icd.d, /etc/vulkan/icd.d): set PELT_ICD to nvidia_icd.json"
}

run() {
    local dir=$1
    [ -d "$dir" ] || die "$dir does not exist: build it with scripts/gpu-bench.sh --build $dir and copy it here"
    [ -f "$dir/MANIFEST" ] || die "$dir has no MANIFEST: it was not made by --build"
    local b
    for b in "${BENCHES[@]}"; do
        [ -x "$dir/bin/$b" ] || die "$dir/bin/$b is missing or not executable: run --build again"
    done
    local deb
    deb=$(ls "$dir"/libvulkan1_*.deb 2>/dev/null | head -n 1) || true
    [ -n "$deb" ] || die "no libvulkan1_*.deb in $dir: --build downloads it (apt-get download libvulkan1)"
    command -v dpkg-deb >/dev/null || die "dpkg-deb is not on PATH: cannot unpack $deb"
    local loader="$dir/loader"
    rm -rf "$loader"
    dpkg-deb -x "$deb" "$loader" || die "could not unpack $deb"
    local libdir
    libdir=$(dirname "$(find "$loader" -name 'libvulkan.so.1' | head -n 1)")
    [ -n "$libdir" ] && [ -e "$libdir/libvulkan.so.1" ] || die "$deb holds no libvulkan.so.1"
    # The frame bench opens the petting script by the crate's path where it was built
    # (CARGO_MANIFEST_DIR); where that path is absent, the copied assets stand in for it.
    local root
    root=$(sed -n 's/^root: //p' "$dir/MANIFEST")
    if [ -n "$root" ] && [ ! -e "$root/assets/pet_scratch.json" ]; then
        [ -f "$dir/assets/pet_scratch.json" ] || die "$dir/assets/pet_scratch.json is missing: run --build again"
        mkdir -p "$root" && ln -sfn "$(cd "$dir/assets" && pwd)" "$root/assets" ||
            die "cannot place the assets at $root/assets, where the frame bench looks for them"
        echo "gpu-bench: assets linked at $root/assets" >&2
    fi
    local icd
    icd=$(find_icd)
    export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export VK_ICD_FILENAMES=$icd VK_DRIVER_FILES=$icd
    export WGPU_BACKEND=${WGPU_BACKEND:-vulkan}
    export PELT_BENCH_TIERS=$FULL_TIER
    export PELT_BENCH_STRANDS=$FULL_TIER PELT_BENCH_LOD_TIER=$FULL_TIER
    export PELT_BENCH_SIZES=${PELT_BENCH_SIZES:-1920x1080}
    export PELT_BENCH_FRAMES=${PELT_BENCH_FRAMES:-20}
    if [ "${PELT_BENCH_ALLOW_OTHER:-0}" != 1 ]; then
        export WGPU_ADAPTER_NAME=${WGPU_ADAPTER_NAME:-NVIDIA}
    fi
    echo "gpu-bench: loader $libdir, ICD $icd, ${PELT_BENCH_TIERS} strands at ${PELT_BENCH_SIZES}" >&2
    mkdir -p "$dir/results"
    local status=0
    for b in "${BENCHES[@]}"; do
        echo "gpu-bench: running $b" >&2
        # The benches read assets relative to the working directory.
        if ! (cd "$dir" && "./bin/$b" --bench) >"$dir/results/$b.txt" 2>"$dir/results/$b.log"; then
            echo "gpu-bench: $b failed; the end of its log:" >&2
            tail -n 20 "$dir/results/$b.log" >&2
            status=1
            continue
        fi
        cat "$dir/results/$b.txt"
    done
    # A run that silently fell back to a CPU adapter measures nothing of the GPU.
    if [ "${PELT_BENCH_ALLOW_OTHER:-0}" != 1 ] &&
        ! grep -qi nvidia "$dir/results/frame.txt" "$dir/results/frame.log" 2>/dev/null; then
        die "the frame bench found no NVIDIA adapter (see $dir/results/frame.log)"
    fi
    [ "$status" = 0 ] || die "a bench failed (logs in $dir/results/)"
    echo "gpu-bench: results in $dir/results/" >&2
}

[ $# -ge 1 ] || usage
mode=$1
dir=${2:-target/gpu-bench}
case "$mode" in
--build) build "$dir" ;;
--run) run "$dir" ;;
-h | --help) usage 0 ;;
*) die "unknown mode $mode: give --build [DIR] or --run [DIR]" ;;
esac
