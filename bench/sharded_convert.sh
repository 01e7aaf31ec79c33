#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The sharded convert (docs/sharded-convert.md) against one convert, in one run: a raw folder of the three-tier
# preset at HOSTS hosts (8 ranks each; default 512 = 4,096 ranks), 10 min, a 2 s core-link flap, Flight Recorder
# dumps of their last 2,000 entries per rank (TORCH_FR_BUFFER_SIZE's default), rank logs, counters. Times:
#   single  `convert RAW` (wall, peak RSS)
#   shards  `convert RAW --shard K/SHARDS` one after the other (each: wall, MB of raw files read, MB/s)
#   merge   `merge` of the shards (wall, peak RSS)
# and checks that the merged bundle is byte for byte the single one. Page cache warm (the folder was just written or
# read): the figures are CPU, not disk. The folder is written once and kept.
# SIM_ARGS adds simulate options (e.g. SIM_ARGS=--no-counters: no 3 GB switch scrape, dumps and logs the bulk).
# Usage: bench/sharded_convert.sh BUILD   (HOSTS=N, SHARDS=N, SIM_ARGS="...", STALLSCOPE_BENCH_DIR, default /tmp)
set -euo pipefail
BIN="$(cd "${1:?BUILD}" && pwd)/app/stallscope"
HOSTS="${HOSTS:-512}"
SHARDS="${SHARDS:-8}"
SIM_ARGS="${SIM_ARGS:-}"
WORK="${STALLSCOPE_BENCH_DIR:-/tmp}/stallscope-sharded-$HOSTS${SIM_ARGS//[^a-z0-9]/}"
RAW="$WORK/raw"
if [ ! -d "$RAW" ]; then
    rm -rf "$RAW.part" && mkdir -p "$WORK"
    /usr/bin/time -f "simulate --raw: %e s, peak RSS %M KiB" "$BIN" simulate --preset three-tier --hosts "$HOSTS" \
        --pods 8 --raw --fr-entries 2000 $SIM_ARGS --out "$RAW.part" > /dev/null
    mv "$RAW.part" "$RAW"
fi
echo "raw folder: $(du -sh "$RAW" | cut -f1), $(find "$RAW" -type f | wc -l) files, $((HOSTS * 8)) ranks"
rm -rf "$WORK/single" "$WORK/merged" "$WORK/shards"
find "$RAW" -type f -exec cat -- {} + > /dev/null # warm the page cache for the first run as for the others

# timed NAME CMD... → prints "NAME: wall s, peak RSS MiB" and the command's own stdout
timed() {
    local name="$1"
    shift
    /usr/bin/time -f "$name: %e s wall, peak RSS %M KiB" "$@" 2> >(grep -v '^warning' >&2)
}
timed single "$BIN" convert "$RAW" --out "$WORK/single" --quiet
total=0
for ((k = 0; k < SHARDS; k++)); do
    timed "shard $k/$SHARDS" "$BIN" convert "$RAW" --shard "$k/$SHARDS" --out "$WORK/shards/$k.shard"
done
timed merge "$BIN" merge "$WORK/shards" --out "$WORK/merged" --quiet
echo "shard files: $(du -sh "$WORK/shards" | cut -f1)"
if diff -rq "$WORK/single" "$WORK/merged" > /dev/null; then
    echo "merged bundle: byte for byte the single convert's"
else
    echo "merged bundle DIFFERS from the single convert's" && exit 1
fi
