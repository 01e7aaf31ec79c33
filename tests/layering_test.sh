#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The layering check fails the build when a file includes a header its module does not link: on a copy of the
# tree, an importer that includes the analysis, and the simulator that includes an importer, must be refused
# with the file named; the tree as it is must pass.
# Usage: layering_test.sh PROJECT_ROOT LAYERS_FILE WORK_DIR
set -euo pipefail
root="$1" layers="$2" work="$3"
rm -rf "$work"; mkdir -p "$work"
cp -r "$root/models" "$root/widgets" "$work/"
check() { cmake -DROOT="$work" -DLAYERS="$layers" -P "$root/cmake/check_layers.cmake" 2>&1; }

out=$(check) || { echo "the tree as it is fails the layering check:"; echo "$out"; exit 1; }
echo "$out"

echo '#include "analysis/analysis.h"' >> "$work/models/import/kineto/kineto_trace.cpp"
echo '#include "import/logs/rank_log.h"' >> "$work/models/sim/config.h"
echo '#include "bundle/reader.h"' >> "$work/widgets/theme.cpp"
echo '#include "sim/simulator.h"' >> "$work/widgets/topology/topology_paint.cpp"
if out=$(check); then
    echo "FAIL: the layering check accepted an importer that includes the analysis"; exit 1
fi
for expect in "models/import/kineto/kineto_trace.cpp includes \"analysis/analysis.h\"" \
              "models/sim/config.h includes \"import/logs/rank_log.h\"" \
              "widgets/theme.cpp includes \"bundle/reader.h\"" \
              "widgets/topology/topology_paint.cpp includes \"sim/simulator.h\""; do
    grep -qF "$expect" <<<"$out" || { echo "FAIL: expected \"$expect\" in:"; echo "$out"; exit 1; }
done
echo "refused as expected:"; echo "$out" | grep includes
