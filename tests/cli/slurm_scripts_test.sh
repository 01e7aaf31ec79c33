#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/slurm/ under a stand-in `sbatch` that runs an array's tasks at once as Slurm would (SLURM_ARRAY_TASK_ID,
# _MIN, _COUNT set) and a dependent job after them: the bundle must be byte for byte a single convert's.
# Usage: slurm_scripts_test.sh STALLSCOPE_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
BIN="$1" SRC="$2" WORK="$3"
rm -rf "$WORK" && mkdir -p "$WORK/bin"
cat > "$WORK/bin/sbatch" <<'FAKE'
#!/usr/bin/env bash
set -euo pipefail
array="" opts=()
while [[ "$1" == --* ]]; do
    case "$1" in
        --array=*) array="${1#--array=}" ;;
        --parsable | --dependency=* | --partition=*) ;;
        *) echo "sbatch stand-in: unexpected option $1" >&2; exit 2 ;;
    esac
    shift
done
id=$((RANDOM + 1000))
if [ -n "$array" ]; then
    lo="${array%-*}" hi="${array#*-}" pids=()
    for ((i = lo; i <= hi; i++)); do
        SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_MIN=$lo SLURM_ARRAY_TASK_COUNT=$((hi - lo + 1)) \
            bash "$@" > "$SBATCH_LOG/task-$i.out" 2>&1 & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
else
    bash "$@" > "$SBATCH_LOG/job-$id.out" 2>&1
fi
echo "$id"
FAKE
chmod +x "$WORK/bin/sbatch"
export PATH="$WORK/bin:$PATH" STALLSCOPE="$BIN" SBATCH_LOG="$WORK"
"$BIN" simulate --preset small --duration 2m --raw --out "$WORK/raw" > /dev/null
"$BIN" convert "$WORK/raw" --out "$WORK/single" --quiet 2> "$WORK/single.err"
"$SRC/scripts/slurm/sharded-convert" "$WORK/raw" "$WORK/merged" 6 -- --partition=cpu
ls "$WORK/merged.shards" | grep -c '\.shard$' | grep -qx 6 || { echo "expected 6 shards" >&2; exit 1; }
diff -r "$WORK/single" "$WORK/merged" || { echo "the merged bundle differs from a single convert" >&2; exit 1; }
grep -q "Merged 6 shards" "$WORK"/job-*.out || { echo "merge did not run" >&2; cat "$WORK"/*.out >&2; exit 1; }
# Run outside an array, the task script says what it needs.
if SLURM_ARRAY_TASK_ID="" bash "$SRC/scripts/slurm/convert-shard.sbatch" "$WORK/raw" "$WORK/x" 2> "$WORK/no-array.err"; then
    echo "convert-shard.sbatch ran outside an array" >&2; exit 1
fi
grep -q "job array" "$WORK/no-array.err"
echo "ok: 6 array tasks + merge = one convert"
