#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Smoke test: the real stallscope binary in a real X server (xvfb-run) opens a simulated bundle, takes a
# screenshot of its window and quits with 0.
set -euo pipefail
BIN="$1"
WORK="$2"
rm -rf "$WORK" && mkdir -p "$WORK"
"$BIN" simulate --preset small --duration 60s --fault flap:host-leaf:rank=3:at=20s:for=2s --out "$WORK/bundle" >/dev/null
xvfb-run -a -s "-screen 0 1280x800x24" "$BIN" "$WORK/bundle" --quit-after 60000 --screenshot "$WORK/window.png"
test -s "$WORK/window.png"
echo "window screenshot: $WORK/window.png"
