#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Shared by scripts/sanitize and scripts/fuzz: one clang build with AddressSanitizer and UBSan over everything
# (and libFuzzer's coverage hooks, so the fuzz targets link against the same libraries).
# Usage: source scripts/sanitize.sh; stallscope_asan_build BUILD_DIR [TARGET...]
set -euo pipefail
STALLSCOPE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$STALLSCOPE_ROOT/scripts/deps.sh"

# UBSan stops at the first report; ASan too. The one leak outside our code (libdbus, reached through Qt's
# platform plugin in the GUI smoke test) is suppressed by name in scripts/lsan.supp.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$STALLSCOPE_ROOT/scripts/lsan.supp:print_suppressions=0"

stallscope_asan_build() {
    local build_dir="$1"; shift
    stallscope_install_deps
    export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/stallscope-ccache}"
    # Paths relative to the clone, so a fresh clone (CI) hits the cache of an earlier one.
    export CCACHE_BASEDIR="$STALLSCOPE_ROOT" CCACHE_NOHASHDIR=1
    if [ ! -f "$build_dir/build.ninja" ]; then
        CC=clang CXX=clang++ cmake -S "$STALLSCOPE_ROOT" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
            -DSTALLSCOPE_FUZZ=ON -DSTALLSCOPE_BUILD_BENCH=OFF \
            -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link -fno-omit-frame-pointer" \
            -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
    fi
    cmake --build "$build_dir" --parallel "$(nproc)" ${1:+--target "$@"}
}
