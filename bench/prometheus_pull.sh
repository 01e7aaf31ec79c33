#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Pulling an incident's counters from a real Prometheus (issue #14), against reading the same counters from a
# bundle, in one run. The bench-hour job (1,024 ranks on 128 hosts: 1,024 HCA ports and 1,152 switch ports, ten
# counters each, every second for an hour) is simulated with its counters as OpenMetrics, backfilled into a fresh
# TSDB with promtool, and served by `prometheus` on 127.0.0.1 (stopped by PID). Figures: wall seconds, peak RSS,
# requests, samples, the JSON the server sent, and the ratio of the pull to the bundle read.
# Usage: bench/prometheus_pull.sh [BUILD_DIR] [WORK_DIR]   (WORK_DIR kept: a second run skips simulate/backfill)
set -euo pipefail
BUILD="$(cd "${1:-build}" && pwd)"
WORK="${2:-/tmp/stallscope-bench-prometheus}"
BIN="$BUILD/app/stallscope"
FROM=1793491200 # 2026-11-01T00:00:00Z, the preset's start
TO=$((FROM + 3600))
mkdir -p "$WORK"
if [ ! -d "$WORK/tsdb" ]; then
    "$BIN" simulate --preset bench-hour --raw --no-counters --out "$WORK/job" --openmetrics "$WORK/counters.om"
    promtool tsdb create-blocks-from openmetrics "$WORK/counters.om" "$WORK/tsdb.new" >/dev/null
    mv "$WORK/tsdb.new" "$WORK/tsdb"
    rm -f "$WORK/counters.om" # 7 GB of text; the TSDB holds it in ~120 MB
fi
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 1s\n' >"$WORK/prometheus.yml"
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
    --storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$PORT" >"$WORK/prometheus.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null || true' EXIT
URL="http://127.0.0.1:$PORT"
for _ in $(seq 100); do
    curl -sf "$URL/api/v1/query?query=count(node_infiniband_link_downed_total)&time=$((FROM + 60))" |
        grep -q '"value"' && break
    sleep 0.5
done

measure() { # label, command...: wall seconds and peak RSS of one run
    local label="$1"
    shift
    /usr/bin/time -f "$label %e s %M KB" "$@" >"$WORK/out.txt" 2>"$WORK/time.txt" || {
        cat "$WORK/out.txt" "$WORK/time.txt"
        exit 1
    }
    tail -1 "$WORK/time.txt"
}
rm -rf "$WORK/bundle" "$WORK"/answers
echo "== pull from $URL, $FROM .. $TO"
measure "pull (info --prometheus)" env STALLSCOPE_KEEP_PROMETHEUS_ANSWERS=1 TMPDIR="$WORK" \
    "$BIN" info --prometheus "$URL" --from "$FROM" --to "$TO"
grep -E "^Counters|answers of" "$WORK/out.txt"
ANSWERS=$(ls -d "$WORK"/stallscope-prometheus-* | head -1)
echo "JSON answers: $(du -sb "$ANSWERS" | cut -f1) bytes in $(ls "$ANSWERS" | wc -l) files"
measure "read the saved answers (info DIR)" "$BIN" info "$ANSWERS"
measure "pull and write a bundle (convert --prometheus)" \
    "$BIN" convert --prometheus "$URL" --from "$FROM" --to "$TO" --out "$WORK/bundle"
echo "bundle: $(du -sb "$WORK/bundle" | cut -f1) bytes"
measure "read the bundle (info BUNDLE)" "$BIN" info "$WORK/bundle"
measure "job folder + server (analyze JOB --prometheus)" "$BIN" analyze "$WORK/job" --prometheus "$URL"
grep -E "incident|culprit" "$WORK/out.txt" | head -3
rm -rf "$ANSWERS"
