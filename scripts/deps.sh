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

# What scripts/package needs besides the build: the .deb tools, the validators, and rsvg-convert for the icons.
STALLSCOPE_PACKAGING_PACKAGES=(
    dpkg-dev fakeroot file lintian desktop-file-utils appstream librsvg2-bin groff-base man-db
)

# Installs those of the given Debian packages that are missing.
stallscope_install_packages() {
    local missing=()
    for p in "$@"; do
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

stallscope_install_deps() {
    stallscope_install_packages "${STALLSCOPE_PACKAGES[@]}"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    stallscope_install_deps
fi
