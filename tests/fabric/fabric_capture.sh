#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Integration test with a real simulated InfiniBand fabric (Debian ibsim + opensm + infiniband-diags;
# ../shared/docs/field-guide.md §7). The job side of the incident comes from `stallscope simulate --raw`
# (Flight Recorder dumps, rank logs, host counters); the fabric side is replaced by what the real tools print
# for the same fabric: ibnetdiscover (plain and -p, before and during the flap), iblinkinfo, and perfquery of
# every switch port, with a leaf-spine link flapped through the ibsim console (Unlink / ReLink) and its
# LinkDownedCounter set with PerformanceSet. perfquery prints no time, so the capture writes a stamp line
# before each round, on the simulated job's clock. Then `stallscope analyze` must name that link.
# Every process this script starts is stopped by its own PID.
# Usage: fabric_capture.sh STALLSCOPE_BINARY WORK_DIR [KEEP_DIR]
set -euo pipefail
BIN="$1"
WORK="$2"
KEEP="${3:-}"
for tool in ibsim ibsim-run opensm ibnetdiscover iblinkinfo perfquery; do
    command -v "$tool" >/dev/null || { echo "missing $tool (scripts/deps.sh installs it)"; exit 1; }
done
rm -rf "$WORK" && mkdir -p "$WORK"
RAW="$WORK/incident"
export IBSIM_SOCKNAME="stallscope-$$"
export OSM_CACHE_DIR="$WORK/osm-cache"
mkdir -p "$OSM_CACHE_DIR"
IBSIM_PID=""
OSM_PID=""
cleanup() {
    [ -n "$OSM_PID" ] && kill "$OSM_PID" 2>/dev/null && wait "$OSM_PID" 2>/dev/null || true
    [ -n "$IBSIM_PID" ] && kill "$IBSIM_PID" 2>/dev/null && wait "$IBSIM_PID" 2>/dev/null || true
    exec 3>&- 2>/dev/null || true
}
trap cleanup EXIT

# 4 hosts x 2 rails, 2 spines: leaf-r1 port 5 <-> spine-01 port 2 flaps for 5 s at +100 s.
"$BIN" simulate --preset small --hosts 4 --gpus-per-host 2 --spines 2 --duration 4m \
    --fault flap:leaf-spine:leaf=1:spine=0:at=100s:for=5s:ar=off --raw --out "$RAW" >/dev/null
mv "$RAW/fabric.net" "$RAW/truth.json" "$WORK/"
rm "$RAW/ibnetdiscover.txt" "$RAW/switch-counters.prom" "$RAW/opensm.log" # the real tools provide these
num() { grep -o "\"$1\": *[0-9]*" "$WORK/truth.json" | head -1 | grep -o '[0-9]*$'; }
DOWN_S=$(( $(num down_ns) / 1000000000 ))
UP_S=$(( $(num up_ns) / 1000000000 ))

mkfifo "$WORK/console"
ibsim -s "$WORK/fabric.net" <"$WORK/console" >"$WORK/ibsim.log" 2>&1 &
IBSIM_PID=$!
exec 3>"$WORK/console"
sim() { echo "$*" >&3; }
wait_for() { # wait_for SECONDS COMMAND...: until the command succeeds
    local deadline=$(( $(date +%s) + $1 )); shift
    until "$@" >/dev/null 2>&1; do
        [ "$(date +%s)" -lt "$deadline" ] || { echo "timed out waiting for: $*"; return 1; }
        sleep 0.2
    done
}
wait_for 20 grep -q "sim>" "$WORK/ibsim.log"
# -d2: flush the log after each message (it is read while opensm runs)
ibsim-run opensm -d2 -f "$WORK/opensm.log" >"$WORK/opensm.out" 2>&1 &
OSM_PID=$!
wait_for 30 grep -q "SUBNET UP" "$WORK/opensm.log"

q() { ibsim-run "$@" 2>/dev/null; }
q ibnetdiscover >"$RAW/ibnetdiscover.txt"
q ibnetdiscover -p >"$RAW/ibnetdiscover-ports.txt"
grep -q '"leaf-r1"' "$RAW/ibnetdiscover.txt"
# Every switch port with a peer: "SW <lid> <port> 0x<guid> ... - ..."
PORTS=$(awk '$1 == "SW" && $7 == "-" { print $2 ":" $3 }' "$RAW/ibnetdiscover-ports.txt" | sort -u)
[ -n "$PORTS" ]
perf_round() { # perf_round EPOCH_SECONDS
    echo "$1"
    for lp in $PORTS; do q perfquery -x "${lp%:*}" "${lp#*:}"; q perfquery "${lp%:*}" "${lp#*:}"; done
}
{ echo "$((DOWN_S - 30))"; q iblinkinfo; } >"$RAW/iblinkinfo-before.txt"
{ echo "$((DOWN_S - 30))"; q iblinkinfo -l; } >"$RAW/iblinkinfo-l-before.txt"
perf_round $((DOWN_S - 20)) >"$RAW/perfquery.txt"
perf_round $((DOWN_S - 10)) >>"$RAW/perfquery.txt"

# The flap: both ends count it, the link goes away until ReLink.
sim 'PerformanceSet "leaf-r1"[5] PortCounters.LinkDownedCounter=1'
sim 'PerformanceSet "spine-01"[2] PortCounters.LinkDownedCounter=1'
sim 'PerformanceSet "leaf-r1"[5] PortCounters.SymbolErrorCounter=37'
sim 'Unlink "leaf-r1"[5]'
wait_for 30 bash -c "ibsim-run iblinkinfo 2>/dev/null | grep -A8 'leaf-r1:' | grep -E '^ +[0-9]+ +5\[.*Down'"
{ echo "$((DOWN_S + 1))"; q iblinkinfo; } >"$RAW/iblinkinfo-during.txt"
q ibnetdiscover >"$RAW/ibnetdiscover-during.txt"
perf_round $((DOWN_S + 2)) >>"$RAW/perfquery.txt"
sim 'ReLink "leaf-r1"[5]'
wait_for 30 bash -c "ibsim-run iblinkinfo 2>/dev/null | grep -A8 'leaf-r1:' | grep -E '^ +[0-9]+ +5\[.*LinkUp'"
{ echo "$((UP_S + 3))"; q iblinkinfo; } >"$RAW/iblinkinfo-after.txt"
perf_round $((UP_S + 5)) >>"$RAW/perfquery.txt"
perf_round $((UP_S + 15)) >>"$RAW/perfquery.txt"
cp "$WORK/opensm.log" "$RAW/opensm.log"
cleanup
OSM_PID=""
IBSIM_PID=""

# The captures are real: the link is missing from the snapshot taken while it was down.
! grep -q '^\[5\].*"spine-01"' <(awk '/"leaf-r1"/,/^$/' "$RAW/ibnetdiscover-during.txt")
grep -q 'Link state change' "$RAW/opensm.log"
grep -q 'LinkDownedCounter:\.*1$' "$RAW/perfquery.txt"

"$BIN" info "$RAW" >"$WORK/info.txt" 2>&1
cat "$WORK/info.txt"
grep -q 'Fabric       4 switches, 8 HCAs, 12 links' "$WORK/info.txt"
grep -q 'perfquery counters' "$WORK/info.txt"
grep -q 'iblinkinfo' "$WORK/info.txt"
"$BIN" analyze "$RAW" >"$WORK/analysis.txt" 2>&1
cat "$WORK/analysis.txt"
grep -E '^  culprit' "$WORK/analysis.txt" | grep -Eq 'leaf-r1 \(0x[0-9a-f]+\) port 5 <-> spine-01 \(0x[0-9a-f]+\) port 2|spine-01 \(0x[0-9a-f]+\) port 2 <-> leaf-r1 \(0x[0-9a-f]+\) port 5'
if [ -n "$KEEP" ]; then rm -rf "$KEEP" && cp -r "$RAW" "$KEEP"; fi
echo "fabric capture: ok"
