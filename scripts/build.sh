#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Shared by scripts/demo and scripts/test: installs missing packages, configures (once) and builds.
# Usage: source scripts/build.sh; stallscope_build BUILD_DIR
set -euo pipefail
STALLSCOPE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$STALLSCOPE_ROOT/scripts/deps.sh"

stallscope_build() {
    local build_dir="$1"
    stallscope_install_deps
    export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/stallscope-ccache}"
    # Paths relative to the clone, so a fresh clone (CI) hits the cache of an earlier one.
    export CCACHE_BASEDIR="$STALLSCOPE_ROOT" CCACHE_NOHASHDIR=1
    if [ ! -f "$build_dir/build.ninja" ]; then
        cmake -S "$STALLSCOPE_ROOT" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
    fi
    # 2-core machines: two jobs, and no more memory than they have.
    cmake --build "$build_dir" --parallel "$(nproc)"
}
