#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages Stallscope needs, only those that are missing.
# Sourced by scripts/demo and scripts/test; safe to run repeatedly (no-op when all present).
set -euo pipefail

STALLSCOPE_PACKAGES=(
    cmake ninja-build ccache g++ pkg-config
    qt6-base-dev qt6-svg-dev libqcustomplot-dev libgl-dev
    nlohmann-json3-dev catch2 libbenchmark-dev zlib1g-dev libsimdjson-dev
    xvfb xauth imagemagick
    ibsim-utils libumad2sim0 opensm infiniband-diags
    prometheus openssl
    clang libclang-rt-14-dev
)

stallscope_install_deps() {
    local missing=()
    for p in "${STALLSCOPE_PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$p")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return 0
    fi
    echo "stallscope: installing missing Debian packages: ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    stallscope_install_deps
fi
