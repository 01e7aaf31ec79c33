#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Opening a folder of large rank logs (`stallscope info`): wall time and peak memory (GNU time's maximum resident
# set), by BUILD and, when given, by OLD_BUILD (a build of an earlier commit), one after the other, so the two
# compare as a ratio on one machine in one run. The folder is written when missing: one Flight Recorder dump and
# FILES logs (default 8) of tests/data/logs/nccl-variants.log followed by ~175 MB of NCCL INFO channel lines each
# (several processes per file, as a launcher's combined output: every file is split by process, then parsed).
# Usage: bench/rank_logs.sh BUILD [OLD_BUILD]   (STALLSCOPE_BENCH_DIR, default /tmp; FILES=N)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$(cd "${1:?BUILD}" && pwd)"
OLD="${2:-}"
FILES="${FILES:-8}"
DIR="${STALLSCOPE_BENCH_DIR:-/tmp}/stallscope-rank-logs-$FILES"
if [ ! -d "$DIR" ]; then
    mkdir -p "$DIR.part"
    cp "$ROOT/tests/data/flight_recorder/pickle/nccl_trace_rank_1" "$DIR.part/"
    python3 - "$ROOT/tests/data/logs/nccl-variants.log" "$DIR.part" "$FILES" <<'PY'
import sys
src, out, files = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
for r in range(files):
    block = ''.join(f'[default{r}]:gpu-a017:48211:48211 [{r % 8}] NCCL INFO Channel {i % 32:02d}/0 : 0 -> 1 via NET/IB/0/GDRDMA\n'
                    for i in range(2000))
    with open(f'{out}/rank{r}.log', 'w') as f:
        f.write(src)
        for _ in range(1000):
            f.write(block)
PY
    mv "$DIR.part" "$DIR"
fi
echo "folder: $DIR ($(du -sh "$DIR" | cut -f1))"
for b in "$BUILD" ${OLD:+"$OLD"}; do
    /usr/bin/time -f "$b: %e s, %M KB peak resident" "$b/app/stallscope" info "$DIR" > /dev/null
done
