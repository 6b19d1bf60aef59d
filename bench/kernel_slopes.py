#!/usr/bin/env python3
"""Log–log time slopes, memory per position and the performer/flash ratio from a Google Benchmark JSON of
bench/bench_kernels.cpp. Usage:
    ./build/bench/attnscope_microbench --benchmark_filter='core/backend/cuda/' --benchmark_repetitions=3 \
        --benchmark_report_aggregates_only=true --benchmark_format=json > kernels.json
    python3 bench/kernel_slopes.py kernels.json
Uses the median of the repetitions when present; the run's CostMeter wall time (reported as real_time,
manual timing) unless --cpu is given (CPU time of the main thread: all the work with OMP_NUM_THREADS=1).
"""
import collections
import json
import math
import sys

path = sys.argv[1]
field = "cpu_time" if "--cpu" in sys.argv else "real_time"
rows = collections.defaultdict(dict)
for b in json.load(open(path))["benchmarks"]:
    if b.get("aggregate_name", "median") != "median":
        continue
    parts = b["run_name"].split("/") if "run_name" in b else b["name"].split("/")
    rows[parts[2]][int(parts[3])] = b
for family, by_n in rows.items():
    ns = sorted(by_n)
    times = " ".join(f"{n}:{by_n[n][field]:.1f}ms" for n in ns)
    mem = " ".join(f"{by_n[n]['bytes_per_n']:.0f}" for n in ns)
    line = f"{family:24s} {times}  bytes/n {mem}"
    if 4096 in by_n and 65536 in by_n:
        slope = math.log(by_n[65536][field] / by_n[4096][field]) / math.log(16)
        line += f"  slope(4096→65536) = {slope:.3f}"
    print(line)
if 16384 in rows.get("performer_m256", {}) and 16384 in rows.get("flash", {}):
    ratio = rows["flash"][16384][field] / rows["performer_m256"][16384][field]
    print(f"flash / performer_m256 at n = 16384: {ratio:.1f}×")
