#!/usr/bin/env python3
"""Speed and memory figures of the low-rank/hashing branch, measured through `attnscope run`.

  python3 bench/lowrank_speed.py BUILD/app/attnscope [--reps 3] [--threads N]

1. n = 16384, H = 1, d = dv = 64: time of `linformer` (k = 256) vs `flash`, peak tracked memory of `linformer`
   vs materialised `full` (the Linformer paper's Table 3 ratios: ≥ 7.8× faster, ≥ 48× less memory).
2. the crossover n where `lsh` (4 rounds, defaults: n_b = n/64, c = 64, one look-back chunk) becomes faster
   than `flash`, over n = 256 … 16384.
Times are each variant's own CostMeter time (cost.time_ms), the minimum over --reps runs; memory is
cost.peak_bytes (every tracked buffer the variant held, outputs included).
"""
import argparse, json, os, subprocess, sys, tempfile


def run(exe, variants, n, sets, threads):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    env = dict(os.environ)
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    cmd = [exe, "run", "--variant", ",".join(variants), "--n", str(n), "--heads", "1", "--dim", "64",
           "--matrix-limit", "0", "--json", path] + sum([["--set", s] for s in sets], [])
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    with open(path) as f:
        out = json.load(f)
    os.unlink(path)
    return {r["variant"]: r["cost"] for r in out["results"]}


def best(exe, variants, n, sets, reps, threads):
    acc = {}
    for _ in range(reps):
        for v, cost in run(exe, variants, n, sets, threads).items():
            t = acc.setdefault(v, {"time_ms": float("inf"), "peak_bytes": 0})
            t["time_ms"] = min(t["time_ms"], cost["time_ms"])
            t["peak_bytes"] = max(t["peak_bytes"], cost["peak_bytes"])
    return acc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args()

    r = best(a.exe, ["flash", "linformer", "full"], 16384, ["linformer.k=256"], a.reps, a.threads)
    speed = r["flash"]["time_ms"] / r["linformer"]["time_ms"]
    memory = r["full"]["peak_bytes"] / r["linformer"]["peak_bytes"]
    print(f"n=16384: flash {r['flash']['time_ms']:.1f} ms, linformer(k=256) {r['linformer']['time_ms']:.1f} ms "
          f"-> {speed:.1f}x faster (target >= 7.8x)")
    print(f"n=16384: full peak {r['full']['peak_bytes'] / 2**20:.1f} MiB, linformer peak "
          f"{r['linformer']['peak_bytes'] / 2**20:.2f} MiB -> {memory:.0f}x less (target >= 48x)")

    crossover = None
    for n in [256, 512, 1024, 2048, 3072, 4096, 8192, 16384]:
        r = best(a.exe, ["flash", "lsh"], n, ["lsh.rounds=4"], a.reps, a.threads)
        f, l = r["flash"]["time_ms"], r["lsh"]["time_ms"]
        print(f"n={n:6d}: flash {f:9.2f} ms  lsh(4 rounds) {l:9.2f} ms  flash/lsh {f / l:6.2f}")
        if crossover is None and l < f:
            crossover = n
    print(f"lsh (4 rounds) first faster than flash at n = {crossover}")


if __name__ == "__main__":
    sys.exit(main())
