#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the NCCL Inspector golden files of tests/data/nccl (our own job and values, in the exact line shape of
# NCCL's plugins/profiler/inspector/inspector_json.cc: compact JSON, one object per line, "%lf" doubles).
# A 4-rank job on two hosts: a world communicator and two 2-rank shard communicators; 20 steps of an all-gather
# in the shard group then an all-reduce in the world; the all-reduce of step 12 stalls 4.3 s on every rank
# (one transport retry). Rank 3 is written verbose (event_trace_*), rank 1 holds a send, rank 2's last line
# is cut mid-write. Rerun to regenerate: python3 make_inspector.py
import os, random

HERE = os.path.dirname(os.path.abspath(__file__))
T0_US = 1796000000_000000
STEP_US = 200_000
STALL_STEP, STALL_US = 12, 4_300_000
WORLD = ("0x5eed0001f00d", "default_pg")
SHARDS = [("0x5eed0002aaaa", "dp_shard_0"), ("0x5eed0003bbbb", "dp_shard_1")]
PROCS = [("node-a01", 5101), ("node-a01", 5102), ("node-a02", 6201), ("node-a02", 6202)]


def header(comm, rank, n, nnodes):
    return '{"id":"%s","comm_name":"%s","rank":%d,"n_ranks":%d,"nnodes":%d}' % (comm[0], comm[1], rank, n, nnodes)


def metadata(host, pid, dump_us):
    return ('{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"nccl_profiler_interface",'
            '"dump_timestamp_us":%d,"hostname":"%s","pid":%d}' % (dump_us, host, pid))


def perf(op, sn, size, start, end, n, verbose):
    execu = end - start
    algbw = size / execu / 1e3
    busbw = algbw * (2 * (n - 1) / n if op == "AllReduce" else (n - 1) / n)
    s = ('{"coll":"%s","coll_sn":%d,"coll_msg_size_bytes":%d,"coll_exec_time_us":%d,"coll_timing_source":"kernel_gpu",'
         '"coll_algobw_gbs":%lf,"coll_busbw_gbs":%lf' % (op, sn, size, execu, algbw, busbw))
    if verbose:
        s += (',"event_trace_sn":{"coll_start_sn":1,"coll_stop_sn":2,"kernel_events":['
              '{"channel_id":0,"kernel_start_sn":3,"kernel_stop_sn":6,"kernel_record_sn":5},'
              '{"channel_id":1,"kernel_start_sn":4,"kernel_stop_sn":8,"kernel_record_sn":7}]}')
        s += (',"event_trace_ts":{"coll_start_ts":%d,"coll_stop_ts":%d,"kernel_events":['
              '{"channel_id":0,"kernel_start_ts":%d,"kernel_stop_ts":%d,"kernel_record_ts":%d},'
              '{"channel_id":1,"kernel_start_ts":%d,"kernel_stop_ts":%d,"kernel_record_ts":%d}]}'
              % (start - 31, start - 25, start, end - 2, end - 2, start + 3, end, end))
    return s + "}"


def main():
    rnd = random.Random(1207)
    for rank, (host, pid) in enumerate(PROCS):
        shard = SHARDS[rank % 2]
        shard_rank = rank // 2
        verbose = rank == 3
        lines = []
        for k in range(20):
            base = T0_US + k * STEP_US + (STALL_US if k > STALL_STEP else 0)
            ag_start = base + rnd.randint(0, 40)
            ag_end = ag_start + 1500 + rnd.randint(0, 30)
            ar_start = ag_end + 200 + rnd.randint(0, 20)
            ar_end = ar_start + (STALL_US if k == STALL_STEP else 3000) + rnd.randint(0, 30)
            for comm, crank, n, op, size, start, end in (
                (shard, shard_rank, 2, "AllGather", 64 << 20, ag_start, ag_end),
                (WORLD, rank, 4, "AllReduce", 256 << 20, ar_start, ar_end),
            ):
                dump = end + rnd.randint(1, 499)  # the dump thread runs every 500 µs
                lines.append('{"header":%s,"metadata":%s,"coll_perf":%s}'
                             % (header(comm, crank, n, 2), metadata(host, pid, dump),
                                perf(op, k, size, start, end, n, verbose)))
            if rank == 1 and k == 5:
                dump = ar_end + 300
                lines.append('{"header":%s,"metadata":%s,"p2p_perf":{"p2p":"Send","p2p_sn":1,"p2p_peer":3,'
                             '"p2p_msg_size_bytes":1048576,"p2p_exec_time_us":210,"p2p_timing_source":"kernel_gpu",'
                             '"p2p_algobw_gbs":4.993219,"p2p_busbw_gbs":4.993219}}'
                             % (header(WORLD, rank, 4, 2), metadata(host, pid, dump)))
        text = "\n".join(lines) + "\n"
        if rank == 2:
            text = text[: len(text) - len(lines[-1]) // 2 - 1]  # the process died while writing its last line
        with open(os.path.join(HERE, "inspector", "%s-pid%d.log" % (host, pid)), "w") as f:
            f.write(text)

    # Written only at teardown (no dump interval set): every line carries the same dump time. Lines as the
    # plugin's README shows them: no comm_name, no coll_timing_source.
    lines = []
    for k in range(5):
        lines.append('{"header":{"id":"0x77aa01","rank":1,"n_ranks":8,"nnodes":1},"metadata":'
                     '{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"profiler_plugin",'
                     '"dump_timestamp_us":%d,"hostname":"node-b07","pid":777},"coll_perf":{"coll":"ReduceScatter",'
                     '"coll_sn":%d,"coll_msg_size_bytes":134217728,"coll_exec_time_us":%d,"coll_algobw_gbs":%lf,'
                     '"coll_busbw_gbs":%lf}}' % (T0_US + 60_000_000, k, 900 + k, 149.1, 130.5))
    with open(os.path.join(HERE, "inspector-teardown", "node-b07-pid777.log"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    os.makedirs(os.path.join(HERE, "inspector"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "inspector-teardown"), exist_ok=True)
    main()
