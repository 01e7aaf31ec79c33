#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Memory of `convert` on fabric folders of 1 s counters (issue #13: a folder larger than memory converts once):
# peak anonymous memory (what the process allocated; RssAnon) and peak resident memory (with the mapped files' pages,
# VmRSS), sampled every 0.1 s from /proc, and the wall time. Each folder is converted by BUILD (default budget and
# --memory-mb 256) and, when given, by OLD_BUILD (a build of an earlier commit), one after the other.
# The folders are written by the simulator when missing: 2,048 ports, 1 s samples, for each DURATION.
# With STALLSCOPE_BENCH_CGROUP_MB=N (root, cgroup v1 memory controller) each build also converts inside a memory
# cgroup limited to N MiB — a folder several times larger than the memory the process may use; "killed" when the
# kernel's OOM killer ended it. The default budget follows the cgroup's limit (an eighth of it).
# Usage: bench/convert_memory.sh BUILD [OLD_BUILD] [DURATION...]   (e.g. build /tmp/oldbuild 1h 2h)
set -euo pipefail
BUILD="$(cd "${1:?BUILD}" && pwd)"
OLD="${2:-}"
shift $(( $# >= 2 ? 2 : 1 ))
DURATIONS=("${@:-1h}")
WORK="${STALLSCOPE_BENCH_DIR:-/tmp}"

# peak CMD... → "wall_s peak_anon_MiB peak_rss_MiB"; fails as CMD did
peak() {
    "$@" > /dev/null 2>&1 &
    local pid=$! anon=0 rss=0 a r t0 t1 rc=0
    t0=$(date +%s.%N)
    while kill -0 "$pid" 2> /dev/null; do
        a=$(awk '/^RssAnon/{print $2}' "/proc/$pid/status" 2> /dev/null || true)
        r=$(awk '/^VmRSS/{print $2}' "/proc/$pid/status" 2> /dev/null || true)
        [ -n "$a" ] && [ "$a" -gt "$anon" ] && anon=$a
        [ -n "$r" ] && [ "$r" -gt "$rss" ] && rss=$r
        sleep 0.1
    done
    wait "$pid" || rc=$?
    t1=$(date +%s.%N)
    printf "%.1f %d %d" "$(echo "$t1 - $t0" | bc)" $((anon / 1024)) $((rss / 1024))
    return $rc
}

printf "%-8s %-9s %-22s %8s %10s %10s %10s\n" folder size build "wall_s" "anon_MiB" "rss_MiB" "bundle"
for d in "${DURATIONS[@]}"; do
    dir="$WORK/stallscope-fabric-1s-$d"
    if [ ! -d "$dir" ]; then
        "$BUILD/app/stallscope" simulate --preset fabric-week --fabric-only --raw --ports 2048 --counter-interval 1s \
            --duration "$d" --out "$dir" > /dev/null
    fi
    size=$(du -shL "$dir" | cut -f1)
    run() { # label build args...
        local label="$1" b="$2"
        shift 2
        rm -rf "$dir.bundle"
        local m
        m=$(peak "$b/app/stallscope" convert "$dir" --out "$dir.bundle" "$@")
        read -r wall anon rss <<< "$m"
        printf "%-8s %-9s %-22s %8s %10s %10s %10s\n" "$d" "$size" "$label" "$wall" "$anon" "$rss" \
            "$(du -sh "$dir.bundle" | cut -f1)"
    }
    [ -n "$OLD" ] && run "old" "$OLD"
    run "new" "$BUILD"
    run "new --memory-mb 256" "$BUILD" --memory-mb 256
    if [ -n "${STALLSCOPE_BENCH_CGROUP_MB:-}" ] && [ -w /sys/fs/cgroup/memory ]; then
        cg=/sys/fs/cgroup/memory/stallscope-bench-$$
        mkdir -p "$cg"
        echo $((STALLSCOPE_BENCH_CGROUP_MB << 20)) > "$cg/memory.limit_in_bytes"
        for pair in "old:$OLD" "new:$BUILD"; do
            label=${pair%%:*} b=${pair#*:}
            [ -z "$b" ] && continue
            rm -rf "$dir.bundle"
            ok=1
            m=$(peak sh -c "echo \$\$ > $cg/cgroup.procs; exec $b/app/stallscope convert $dir --out $dir.bundle") || ok=0
            read -r wall anon rss <<< "$m"
            printf "%-8s %-9s %-22s %8s %10s %10s %10s\n" "$d" "$size" "$label in ${STALLSCOPE_BENCH_CGROUP_MB} MiB" \
                "$wall" "$anon" "$rss" "$([ $ok = 1 ] && du -sh "$dir.bundle" | cut -f1 || echo "OOM-killed")"
        done
        rmdir "$cg" 2> /dev/null || true
    fi
    rm -rf "$dir.bundle"
done
