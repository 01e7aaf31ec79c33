#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `stallscope render` of a 16,384-rank job (issue #15: ≤ 3 s and ≤ 1.5 × the bundle's memory). The job is the
# issue's own: `simulate --preset hourly-flap --hosts 2048 --spines 32 --duration 10m` (2.1 GB bundle), simulated
# once into WORK_DIR. Each build renders incident 1 three times, light; figures are wall seconds and peak RSS
# (GNU time) and RSS over the bundle's size on disk. With OLD_BUILD the previous build runs in the same session,
# alternating, and the ratios are printed. The images of both builds are compared pixel for pixel when
# ImageMagick's `compare` is present. Timings and images go to a scratch folder, never into the bundle.
# Usage: bench/render_scale.sh [BUILD_DIR] [WORK_DIR] [OLD_BUILD_DIR]
set -euo pipefail
BUILD="$(cd "${1:-build}" && pwd)"
WORK="${2:-/tmp/stallscope-bench-16k}"
OLD="${3:-}"
BIN="$BUILD/app/stallscope"
if [ ! -f "$WORK/manifest.json" ]; then
    "$BIN" simulate --preset hourly-flap --hosts 2048 --spines 32 --duration 10m --out "$WORK" >/dev/null
fi
BYTES=$(du -sb "$WORK" | cut -f1)
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
# one BIN PNG → "seconds maxrss_kb"
one() {
    /usr/bin/time -f "%e %M" -o "$OUT/time" "$1" render "$WORK" --incident 1 --out "$2" >/dev/null 2>&1
    cat "$OUT/time"
}
report() { # label < "seconds maxrss_kb" lines
    local runs secs rss
    runs=$(cat)
    secs=$(echo "$runs" | cut -d' ' -f1 | sort -n | tr '\n' ' ')
    rss=$(echo "$runs" | cut -d' ' -f2 | sort -n | tail -1)
    echo "$secs" | awk -v label="$1" -v rss="$rss" -v bytes="$BYTES" '{
        printf "%-10s median %.2f s (runs: %s), peak RSS %.2f GB = %.2f x the bundle\n",
        label, $(int((NF + 1) / 2)), $0, rss * 1024 / 1e9, rss * 1024 / bytes }'
}
awk -v w="$WORK" -v b="$BYTES" 'BEGIN { printf "bundle %s: %.2f GB\n", w, b / 1e9 }'
: >"$OUT/new"
: >"$OUT/old"
for _ in 1 2 3; do
    one "$BIN" "$OUT/new.png" >>"$OUT/new"
    if [ -n "$OLD" ]; then one "$OLD/app/stallscope" "$OUT/old.png" >>"$OUT/old"; fi
done
report "this build" <"$OUT/new"
if [ -n "$OLD" ]; then
    report "old build" <"$OUT/old"
    paste "$OUT/old" "$OUT/new" | awk '{ o += $1; n += $3; if ($2 > mo) mo = $2; if ($4 > mn) mn = $4 }
        END { printf "old / new: time %.2f x, peak RSS %.2f x\n", o / n, mo / mn }'
    if command -v compare >/dev/null; then
        printf 'pixels differing between the two images: %s\n' \
            "$(compare -metric AE "$OUT/old.png" "$OUT/new.png" /dev/null 2>&1 || true)"
    fi
fi
