#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The path the Python analyzers take (torchfrtrace's loader: pickle.load per file; HTA: json.load per trace):
# loads the same files bench_import parses, warm, and prints MB/s. Usage: python_load.py json|pickle DIR PART
import json, os, pickle, sys, time

kind, folder, part = sys.argv[1], sys.argv[2], sys.argv[3]
files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if part in f)
blobs = [open(f, "rb").read() for f in files]  # warm: bytes in memory, as bench_import has them
load = (lambda b: json.loads(b)) if kind == "json" else (lambda b: pickle.loads(b))
total = sum(len(b) for b in blobs)
best = None
for _ in range(3):
    t0 = time.perf_counter()
    for b in blobs:
        load(b)
    dt = time.perf_counter() - t0
    best = dt if best is None else min(best, dt)
print(f"python {kind}.loads: {len(files)} files, {total / 1e6:.1f} MB, best of 3: {best:.3f} s = {total / 1e6 / best:.1f} MB/s")
