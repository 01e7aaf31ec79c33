#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Smoke test: the real stallscope binary in a real X server (xvfb-run) opens a simulated bundle, zooms to
# the first incident, saves a screenshot of its window and quits with 0. The screenshot must show the
# stall: a large share of the heatmap in the stall colour (Okabe–Ito vermillion, #d55e00): over 8 % of the
# window, whose time views start after the shared ruler's 200 px gutter (widgets/time_ruler.h).
set -euo pipefail
BIN="$1"
WORK="$2"
rm -rf "$WORK" && mkdir -p "$WORK"
# The demo scenario (hourly-flap, 1,024 ranks, 70 min), generated once per build folder by this binary.
BUNDLE="$(dirname "$WORK")/gui-smoke-hourly-flap"
if [ ! -f "$BUNDLE/truth.json" ] || [ "$BIN" -nt "$BUNDLE/truth.json" ]; then
    "$BIN" simulate --preset hourly-flap --seed 1 --out "$BUNDLE" >/dev/null
fi
CONVERT=/usr/bin/convert # the real ImageMagick, not a stand-in earlier on PATH
[ -x "$CONVERT" ] || CONVERT=convert
export XDG_CONFIG_HOME="$WORK/config" # no settings from earlier runs
# A first start sizes the window to 90 % of the screen: 1400 × 900 here, the size the thresholds below assume.
for theme in light dark; do
    xvfb-run -a -s "-screen 0 1556x1000x24" "$BIN" "$BUNDLE" --incident 1 --theme "$theme" \
        --quit-after 60000 --screenshot "$WORK/window-$theme.png"
    test -s "$WORK/window-$theme.png"
    share=$("$CONVERT" "$WORK/window-$theme.png" -fuzz 0 -fill black -opaque white \
        -fuzz 8% -fill white -opaque "#d55e00" -fuzz 0 -fill black +opaque white \
        -colorspace gray -format "%[fx:mean]" info:)
    echo "window-$theme.png: stall colour covers ${share} of the window"
    awk -v s="$share" 'BEGIN { exit !(s > 0.08) }' || { echo "the stall band is not visible" >&2; exit 1; }
done

# A review session opens its bundle, restores the window and shows its notes.
cat > "$WORK/review.stallscope" <<JSON
{"format": "stallscope-session", "version": 1, "bundle": "$BUNDLE",
 "window": {"start_ns": 1793491495000000000, "end_ns": 1793491510000000000}, "row_order": "rail",
 "selected_incident": 1, "plotted_links": [], "layout": "",
 "annotations": [{"start_ns": 1793491500030000000, "end_ns": 1793491502030000000, "rank": null, "link": null,
                  "text": "leaf-r3 port 18 down (opensm)"}]}
JSON
xvfb-run -a -s "-screen 0 1556x1000x24" "$BIN" "$WORK/review.stallscope" --quit-after 60000 --screenshot "$WORK/session.png"
test -s "$WORK/session.png"
echo "session.png written"


# Training: an exercise opens with its analysis hidden; with an answer given, Check scores it and the
# walk-through's second step moves the views (tests/window checks what each view shows; these are for eyes).
cat > "$WORK/answer.json" <<JSON
{"verdict": "stretched", "links": ["gpu-a002 mlx5_5"], "cost_gpu_seconds": 280}
JSON
for theme in light dark; do
    xvfb-run -a -s "-screen 0 1556x1000x24" "$BIN" --exercise first-flap --theme "$theme" \
        --quit-after 60000 --screenshot "$WORK/exercise-start-$theme.png"
    xvfb-run -a -s "-screen 0 1556x1000x24" "$BIN" --exercise first-flap --answer "$WORK/answer.json" --check \
        --step 2 --theme "$theme" --quit-after 60000 --screenshot "$WORK/exercise-step2-$theme.png"
    test -s "$WORK/exercise-start-$theme.png" && test -s "$WORK/exercise-step2-$theme.png"
done
echo "exercise screenshots written"
