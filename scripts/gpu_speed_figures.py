#!/usr/bin/env python3
"""The GPU speed figures of docs/PERFORMANCE.md: attnscope's bench points beside torch SDPA timed in the same run.

Usage: gpu_speed_figures.py BENCH_JSON [BENCH_JSON ...]
Each BENCH_JSON is an `attnscope bench --backend cuda --json` report. For every flash point (any kernel and
precision) the script times torch.nn.functional.scaled_dot_product_attention on the same GPU at the same H, n, d and
causality in the point's precision (fp32 for tf32; CUDA events around each call, median of 7 after 3 warm-ups; TF32
off for fp32), and prints Markdown tables: flash against SDPA, and every variant against flash fp32 as it runs by
default (kernel best: CUTLASS's fused attention where it takes the run; `flash:kernel=own` is attnscope's kernel),
by device time and by kernel time (device time less the host↔device copies).
Exits 1 when a report is missing or holds no measured point; torch being absent only leaves its columns empty.
"""
import json
import statistics
import sys
from pathlib import Path


def sdpa_ms(torch, heads, n, dim, causal, dtype):
    """Median device milliseconds of one SDPA call, or a short reason it could not run."""
    import torch.nn.functional as F
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        gen = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(1, heads, n, dim, device="cuda", dtype=dtype, generator=gen) for _ in range(3))
        for _ in range(3):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        times = []
        for _ in range(7):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            stop.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(stop))
        return statistics.median(times)
    except RuntimeError as error:  # out of memory or no kernel for this shape: say so in the table
        torch.cuda.empty_cache()
        return str(error).splitlines()[0][:60]


def fmt(value):
    return f"{value:.3f}" if isinstance(value, float) else (value or "—")


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 1
    points = []
    for path in sys.argv[1:]:
        report = json.loads(Path(path).read_text())
        points += [p for p in report["points"] if p["status"] == "measured"]
    if not points:
        print("no measured point in " + ", ".join(sys.argv[1:]), file=sys.stderr)
        return 1
    try:
        import torch
        torch_ok = torch.cuda.is_available()
        torch_name = f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}" if torch_ok else "no CUDA torch"
    except ImportError:
        torch, torch_ok, torch_name = None, False, "torch not installed"

    def ms(p):  # device time where the backend has a device clock, else the wall median (a CPU report)
        return p["device_median_ms"] or p["time_ms"]["median"]

    def kernels_ms(p):  # the device time less the copies: the kernels and the gaps inside the calls
        return ms(p) - p["device_copy_median_ms"]

    def precision(p):  # flash's precision parameter: fp32, tf32, bf16, fp16
        return ("fp32", "tf32", "bf16", "fp16")[int(p["params"].get("precision", 0))] if p["variant"] == "flash" else "fp32"

    sdpa_cache = {}

    def sdpa(shape, name):  # SDPA in the precision `name` (tf32 rows compare with SDPA fp32), timed once per shape
        key = (shape, name)
        if key not in sdpa_cache:
            dtype = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}[name]
            sdpa_cache[key] = sdpa_ms(torch, *shape, getattr(torch, dtype)) if torch_ok else None
        return sdpa_cache[key]

    print(f"### flash against torch SDPA ({torch_name}; device ms by CUDA events, median; SDPA in the row's "
          "precision, fp32 for tf32)")
    print()
    print("| H | n | d | causal | flash | precision | device ms | of it copies ms | kernels ms | wall ms | SDPA ms "
          "| SDPA / attnscope, kernels | SDPA / attnscope, device | TFLOP/s (kernels) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    flash_points = [p for p in points if p["variant"] == "flash"]
    for p in sorted(flash_points, key=lambda p: (p["causal"], p["n"], p["label"], precision(p))):
        shape = (p["heads"], p["n"], p["dim"], bool(p["causal"]))
        theirs = sdpa(shape, "fp32" if precision(p) == "tf32" else precision(p))
        mine = kernels_ms(p)
        ratio_kernels = theirs / mine if isinstance(theirs, float) and mine > 0 else None
        ratio_device = theirs / ms(p) if isinstance(theirs, float) else None
        tflops = p["flops"] / (mine * 1e9) if mine > 0 else 0.0
        print(f"| {p['heads']} | {p['n']} | {p['dim']} | {'yes' if p['causal'] else 'no'} | {p['label']} "
              f"| {precision(p)} | {ms(p):.3f} | {p['device_copy_median_ms']:.3f} | {mine:.3f} "
              f"| {p['wall_median_ms']:.3f} | {fmt(theirs)} | {fmt(ratio_kernels)} | {fmt(ratio_device)} "
              f"| {tflops:.1f} |")
        sys.stdout.flush()

    groups = {}
    for p in points:
        groups.setdefault((p["heads"], p["n"], p["dim"], bool(p["causal"])), []).append(p)
    for (heads, n, dim, causal), group in sorted(groups.items()):
        flash = [p for p in group if p["label"] == "flash"]  # flash fp32 as it runs by default (kernel best)
        if len(group) < 2 or not flash:
            continue
        base, base_kernels = ms(flash[0]), kernels_ms(flash[0])
        print()
        print(f"### Every variant against flash fp32 (H = {heads}, n = {n}, d = {dim}, "
              f"{'causal' if causal else 'bidirectional'}; device ms by CUDA events, median)")
        print()
        print("| variant | device ms | of it copies ms | kernels ms | wall ms | flash / variant, device "
              "| flash / variant, kernels |")
        print("|---|---|---|---|---|---|---|")
        for p in sorted(group, key=ms):
            label = p["label"] + (" (tf32)" if precision(p) == "tf32" and "tf32" not in p["label"] else "")
            k = kernels_ms(p)
            print(f"| {label} | {ms(p):.3f} | {p['device_copy_median_ms']:.3f} | {k:.3f} | {p['wall_median_ms']:.3f} "
                  f"| {base / ms(p):.2f} | {fmt(base_kernels / k if k > 0 else None)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
