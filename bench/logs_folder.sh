#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A job's folder of rank logs alone (no Flight Recorder dump): RANKS files of NCCL_DEBUG=INFO output, ~1 MB each
# (default 1,024 → ~1 GB), opened with `stallscope info`, against `cat` of the same folder in the same run (the
# floor: read every byte from the page cache). Prints MB/s for both and their ratio. The folder is written once.
# Each log is one process's, as a launcher with per-rank output files leaves them: NCCL's init (interfaces,
# ring and tree lines, channel connections) then NCCL_DEBUG_SUBSYS=COLL's line per collective, and PyTorch's
# watchdog timeout on every rank at the end, so the folder opens as a job with one hang.
# Usage: bench/logs_folder.sh BUILD [OLD_BUILD]   (STALLSCOPE_BENCH_DIR, default /tmp; RANKS=N; RUNS=N)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$(cd "${1:?BUILD}" && pwd)"
OLD="${2:-}"
RANKS="${RANKS:-1024}"
RUNS="${RUNS:-3}"
DIR="${STALLSCOPE_BENCH_DIR:-/tmp}/stallscope-logs-folder-$RANKS"
if [ ! -d "$DIR" ]; then
    rm -rf "$DIR.part"
    mkdir -p "$DIR.part"
    python3 - "$DIR.part" "$RANKS" <<'PY'
import sys
out, ranks = sys.argv[1], int(sys.argv[2])
for r in range(ranks):
    host, dev, pid = f'gpu-a{r // 8:03d}', r % 8, 40000 + r
    p = f'{host}:{pid}:{pid} [{dev}] NCCL INFO '
    lines = [f'{p}Bootstrap : Using eth0:10.1.{r // 256}.{r % 256}<0>',
             f'{p}NET/Plugin: No plugin found (libnccl-net.so), using internal implementation',
             f'{p}NET/IB : Using [0]mlx5_{dev}:1/IB ; OOB eth0:10.1.{r // 256}.{r % 256}<0>',
             f'{p}Using network IB',
             f'{p}comm 0x55d5c0a{r:05x} rank {r} nranks {ranks} cudaDev {dev} nvmlDev {dev} busId {dev + 1}8000 '
             f'commId 0x9f2c1b7e5a3d4c10 - Init START',
             f'{p}Setting affinity for GPU {dev} to ffff,ffffffff']
    for c in range(16):
        lines.append(f'{p}Channel {c:02d}/16 :' + ''.join(f' {(i + c) % ranks:4d}' for i in range(0, ranks, 4)))
    for c in range(16):
        lines.append(f'{p}Trees [{c}] {(r + 1) % ranks}/-1/-1->{r}->{(r - 1) % ranks} '
                     f'[{c + 16}] -1/-1/-1->{r}->{(r + 1) % ranks}')
    for c in range(32):
        lines.append(f'{p}Channel {c:02d}/0 : {(r - 1) % ranks}[{(dev - 1) % 8}] -> {r}[{dev}] '
                     f'[receive] via NET/IB/{dev}/GDRDMA')
        lines.append(f'{p}Channel {c:02d}/0 : {r}[{dev}] -> {(r + 1) % ranks}[{(dev + 1) % 8}] via P2P/IPC/read')
    lines += [f'{p}Connected all rings', f'{p}Connected all trees',
              f'{p}threadThresholds 8/8/64 | 8192/8/64 | 512 | 512',
              f'{p}comm 0x55d5c0a{r:05x} rank {r} nranks {ranks} cudaDev {dev} nvmlDev {dev} busId {dev + 1}8000 '
              f'commId 0x9f2c1b7e5a3d4c10 - Init COMPLETE']
    size = sum(len(l) + 1 for l in lines)
    op = 0
    while size < 1_000_000:
        l = (f'{p}AllReduce: opCount {op:x} sendbuff 0x7f3a{op % 4096:08x} recvbuff 0x7f3a{op % 4096:08x} '
             f'count 262144 datatype 7 op 0 root 0 comm 0x55d5c0a{r:05x} [nranks={ranks}] stream 0x55d5c1f00000')
        lines.append(l)
        size += len(l) + 1
        op += 1
    lines.append(f'[rank{r}]:[E1204 03:12:44.118201553 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught '
                 f'collective operation timeout: WorkNCCL(SeqNum={op}, OpType=ALLREDUCE, NumelIn=262144, '
                 f'NumelOut=262144, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.')
    with open(f'{out}/rank{r:05d}.log', 'w') as f:
        f.write('\n'.join(lines) + '\n')
PY
    mv "$DIR.part" "$DIR"
fi
BYTES=$(du -sb "$DIR" | cut -f1)
echo "folder: $DIR ($RANKS logs, $((BYTES / 1000000)) MB)"
cat "$DIR"/* > /dev/null # into the page cache
mbps() { python3 -c "print(f'{$BYTES / 1e6 / $1:.0f}')"; }
ratio() { python3 -c "print(f'{$1 / $2:.1f}')"; }
TIMEFORMAT=%R
CAT=$(for i in $(seq "$RUNS"); do { time cat "$DIR"/* > /dev/null; } 2>&1; done | sort -n | head -1)
echo "cat: $CAT s, $(mbps "$CAT") MB/s (best of $RUNS)"
for b in "$BUILD" ${OLD:+"$OLD"}; do
    read -r WALL KB < <(for i in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$DIR.time" "$b/app/stallscope" info "$DIR" > /dev/null 2>&1 || true
        cat "$DIR.time"
    done | grep -E '^[0-9.]+ [0-9]+$' | sort -n | head -1)
    echo "$b: $WALL s, $(mbps "$WALL") MB/s, $((KB / 1024)) MB peak resident, $(ratio "$WALL" "$CAT")x cat's time (best of $RUNS)"
done
