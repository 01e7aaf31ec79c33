#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the pickle golden files with CPython's own pickle module, protocol 2 (the protocol and opcode subset
# torch::jit::Pickler writes for Flight Recorder dumps: BINUNICODE, BININT*, LONG1, BINFLOAT, memo BINPUT/BINGET,
# MARK + SETITEMS/APPENDS, TUPLE2). Shared frame dicts and repeated strings exercise the memo.
# Run from this folder: python3 make_pickles.py  (the outputs are committed; tests do not need Python).
import pickle

T0 = 1727752044123456789
frames = [{"name": "all_reduce", "filename": "torch/distributed/distributed_c10d.py", "line": 2501},
          {"name": "train_step", "filename": "train.py", "line": 88}]


def entry(rid, seq, name, state, created, started, completed, retired, sizes=[[262144000]], dtype="BFloat16",
          p2p=False, pg=("0", "default_pg"), version="2.10"):
    e = {"record_id": rid, "pg_id": int(pg[0]), "process_group": pg,
         "collective_seq_id": 0 if p2p else seq, "p2p_seq_id": seq if p2p else 0, "op_id": rid,
         "profiling_name": name, "time_created_ns": created, "input_sizes": sizes, "input_dtypes": [dtype],
         "output_sizes": sizes, "output_dtypes": [dtype], "state": state,
         "time_discovered_started_ns": started, "time_discovered_completed_ns": completed,
         "retired": retired, "timeout_ms": 600000, "is_p2p": p2p, "frames": frames}
    if version == "2.10":
        e["thread_id"] = "140213377414976"
        e["thread_name"] = "pt_main_thread"
    if state == "completed" and started is not None:
        e["duration_ms"] = (completed - started) / 1e6
    return e


def dump(version, entries, ranks="[0, 1, 2, 3]", extra=None):
    d = {"version": version,
         "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": ranks},
                       "1": {"name": "1", "desc": "tp", "ranks": "[2,3]"}},
         "pg_status": {"0": {"last_enqueued_collective": 1843, "last_started_collective": 1842,
                             "last_completed_collective": 1841}},
         "entries": entries}
    if extra:
        d.update(extra)
    return d


# 2.10 with timing on: completed, p2p, started-and-retired (timed out), scheduled on a second group.
v210 = dump("2.10", [
    entry(1996, 1841, "nccl:all_reduce", "completed", T0, T0 + 6544211, T0 + 47543211, True),
    entry(1997, 7, "nccl:send 3->0", "completed", T0 + 76543211, None, T0 + 77043211, True, [[1024]], "Float", True),
    entry(1998, 1842, "nccl:_all_gather_base", "started", T0 + 10**9, T0 + 10**9 + 6544211, None, True,
          [[1024, 1024]], "Float"),
    entry(1999, 12, "nccl:reduce_scatter_tensor_coalesced", "scheduled", T0 + 1076543211, None, None, False,
          [[8]], "Half", pg=("1", "tp")),
], extra={"comm_lib_version": "2.21.5"})
# 2.4 with timing off: no start times ever, a hung collective stays "scheduled".
v24 = dump("2.4", [
    entry(10, 100, "nccl:all_reduce", "completed", T0, None, T0 + 30000000, True, version="2.4"),
    entry(11, 101, "nccl:all_reduce", "scheduled", T0 + 50000000, None, None, False, version="2.4"),
])
# 2.7 era: nccl_version instead of comm_lib_version.
v27 = dump("2.7", [entry(5, 9, "nccl:broadcast", "completed", T0, T0 + 1000, T0 + 2000000, True, [[8]], "Long",
                         version="2.7")], extra={"nccl_version": "2.20.5"})

# 2.3 and 2.5: the 2.4 shape (thread fields came with 2.10), a completed and a timed-out entry.
v23 = dump("2.3", [entry(1, 7, "nccl:all_reduce", "completed", T0, None, T0 + 10**6, True, version="2.3"),
                   entry(2, 8, "nccl:all_reduce", "scheduled", T0 + 10**9, None, None, True, version="2.3")])
v25 = dump("2.5", [entry(3, 40, "nccl:reduce_scatter_tensor_coalesced", "started", T0, T0 + 2000, None, True,
                         [[64, 64]], "BFloat16", version="2.5")])

for name, obj in [("nccl_trace_rank_3", v210), ("nccl_trace_rank_5", v24), ("comm_lib_trace_rank_6", v27),
                  ("nccl_trace_rank_1", v23), ("nccl_trace_rank_2", v25)]:
    with open("pickle/" + name, "wb") as f:
        pickle.dump(obj, f, protocol=2)
