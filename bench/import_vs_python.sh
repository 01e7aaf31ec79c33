#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Makes the raw folders bench_import reads (Flight Recorder JSON and pickle dumps, profiler traces of one
# simulated job), runs bench_import, and runs Python's json/pickle over the same files in the same run.
# Usage: bench/import_vs_python.sh [BUILD_DIR] [WORK_DIR]
set -euo pipefail
BUILD="${1:-build}"
WORK="${2:-/tmp/stallscope-bench-import}"
BIN="$BUILD/app/stallscope"
JOB=(--preset small --hosts 32 --duration 5m --fault flap:host-leaf:rank=37:at=100s:for=2s)
if [ ! -d "$WORK/json" ]; then
    "$BIN" simulate "${JOB[@]}" --raw --fr-format json --out "$WORK/json"
    "$BIN" simulate "${JOB[@]}" --raw --out "$WORK/pickle"
    "$BIN" simulate "${JOB[@]}" --raw --kineto --no-flight-recorder --out "$WORK/kineto"
fi
# What a fabric team keeps: the switch scrapes of that job in eight files (a day of scrapes is many files), and
# the topology.
if [ ! -d "$WORK/prom" ]; then
    mkdir -p "$WORK/prom"
    split -n l/8 --additional-suffix=.prom "$WORK/pickle/switch-counters.prom" "$WORK/prom/scrape-"
    cp "$WORK/pickle/ibnetdiscover.txt" "$WORK/prom/"
fi
STALLSCOPE_BENCH_RAW_JSON="$WORK/json" STALLSCOPE_BENCH_RAW_PICKLE="$WORK/pickle" \
    STALLSCOPE_BENCH_RAW_KINETO="$WORK/kineto" STALLSCOPE_BENCH_RAW_PROM="$WORK/prom" "$BUILD/bench/bench_import"
if command -v python3 >/dev/null; then
    python3 "$(dirname "$0")/python_load.py" json "$WORK/json" nccl_trace_rank_
    python3 "$(dirname "$0")/python_load.py" pickle "$WORK/pickle" nccl_trace_rank_
    python3 "$(dirname "$0")/python_load.py" json "$WORK/kineto" .pt.trace.json
fi
