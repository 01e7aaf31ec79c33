#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The packages as a user gets them: builds both with scripts/package, installs them with apt (which pulls the
# runtime libraries their Depends name), runs the installed binaries, validates the desktop entry, metainfo and
# man pages, checks the collector has no Qt and its unit is installed disabled, then purges both and checks
# that none of their files is left. Run as root on a Debian 12 machine with no Stallscope package installed
# (CI runs it from .ci/run after the suite).
# Usage: tests/package_test.sh [BUILD_DIR]   (default build-pkg)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build-pkg}"
fail() { echo "FAIL: $*" >&2; exit 1; }
for p in stallscope stallscope-collect; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "installed"; then
        fail "$p is installed already; this test installs and purges it"
    fi
done

bash "$ROOT/scripts/package" "$BUILD"
main=$(ls "$BUILD"/stallscope_*.deb) collect=$(ls "$BUILD"/stallscope-collect_*.deb)
version=$(dpkg-deb -f "$main" Version)
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q "$main" "$collect"
files=$(dpkg -L stallscope stallscope-collect)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== the installed stallscope"
[ "$(command -v stallscope)" = /usr/bin/stallscope ] || fail "stallscope is not /usr/bin/stallscope"
/usr/bin/stallscope --version | grep -q "^stallscope $version " || fail "--version does not say $version"
/usr/bin/stallscope simulate --preset small --duration 90s --fault flap:host-leaf:rank=3:at=30s:for=2s \
    --out "$work/x"
/usr/bin/stallscope info "$work/x" --json | grep -q "\"version\": \"$version\"" || fail "info --json has no version"
/usr/bin/stallscope render "$work/x" --incident 1 --out "$work/x.png"
file "$work/x.png" | grep -q "PNG image data" || fail "render wrote no PNG"

echo "== desktop integration"
desktop=/usr/share/applications/io.github.stallscope.Stallscope.desktop
desktop-file-validate "$desktop"
appstreamcli validate --no-net /usr/share/metainfo/io.github.stallscope.Stallscope.metainfo.xml
grep -q "^MimeType=application/x-stallscope-session;" "$desktop" || fail "the desktop entry claims no session type"
for size in 16 32 48 256; do
    [ -f /usr/share/icons/hicolor/${size}x${size}/apps/io.github.stallscope.Stallscope.png ] || fail "no ${size}px icon"
done
[ -f /usr/share/icons/hicolor/scalable/apps/io.github.stallscope.Stallscope.svg ] || fail "no scalable icon"
grep -q 'glob pattern="\*.stallscope"' /usr/share/mime/packages/stallscope.xml || fail "no MIME type for sessions"
if command -v update-mime-database > /dev/null; then # shared-mime-info's trigger has run
    grep -q "application/x-stallscope-session:\*.stallscope" /usr/share/mime/globs2 || fail "MIME database lacks it"
fi

echo "== man pages and completions"
for page in stallscope stallscope-collect; do
    path=/usr/share/man/man1/$page.1.gz
    warnings=$(MANWIDTH=80 man --warnings -l "$path" 2>&1 > "$work/$page.txt")
    [ -z "$warnings" ] || fail "man warns on $page.1: $warnings"
    grep -q "^NAME" "$work/$page.txt" || fail "man -l $page.1 rendered no NAME section"
    [ -f /usr/share/bash-completion/completions/$page ] || fail "no bash completion for $page"
    [ -f /usr/share/zsh/vendor-completions/_$page ] || fail "no zsh completion for $page"
done
grep -q "export-trace" "$work/stallscope.txt" || fail "the man page misses export-trace"

echo "== the sharded convert's Slurm scripts"
for f in sharded-convert convert-shard.sbatch merge-shards.sbatch; do
    [ -x /usr/share/stallscope/slurm/$f ] || fail "no executable /usr/share/stallscope/slurm/$f"
done
said=$(/usr/share/stallscope/slurm/sharded-convert 2>&1 || true)
grep -q "usage: sharded-convert" <<< "$said" || fail "sharded-convert gives no usage: $said"

echo "== the collector package"
/usr/bin/stallscope-collect --version | grep -q "^stallscope-collect $version " || fail "collector --version"
if ldd /usr/bin/stallscope-collect | grep -q "libQt6"; then fail "stallscope-collect links Qt"; fi
dpkg-deb -f "$collect" Depends | grep -qi qt && fail "stallscope-collect depends on Qt"
dev="$work/sys/mlx5_0/ports/1"
mkdir -p "$dev/counters"
echo 4: ACTIVE > "$dev/state"
echo 1234 > "$dev/counters/port_xmit_data"
/usr/bin/stallscope-collect --sysfs-root "$work/sys" --out "$work/csv" --interval 10ms --samples 2
grep -q "1234" "$work"/csv/*.csv || fail "the collector wrote no sample"
dpkg-query -W -f='${Conffiles}' stallscope-collect | grep -q "/etc/default/stallscope-collect" ||
    fail "/etc/default/stallscope-collect is not a conffile"
[ -f /lib/systemd/system/stallscope-collect.service ] || fail "no unit"
if ls /etc/systemd/system/*.wants/stallscope-collect.service 2> /dev/null; then fail "the unit was enabled"; fi
if command -v systemd-analyze > /dev/null; then
    systemd-analyze verify /lib/systemd/system/stallscope-collect.service
fi

echo "== purge"
apt-get purge -y -q stallscope stallscope-collect
left=""
while read -r f; do
    if [ -n "$f" ] && [ ! -d "$f" ] && { [ -e "$f" ] || [ -L "$f" ]; }; then left+=" $f"; fi
done <<< "$files"
[ -z "$left" ] || fail "left after purge:$left"
[ ! -e /etc/default/stallscope-collect ] || fail "the defaults file is left after purge"
command -v stallscope > /dev/null && fail "stallscope is still on PATH"
echo "package test: ok ($(basename "$main"), $(basename "$collect"))"
