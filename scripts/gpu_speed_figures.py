#!/usr/bin/env python3
"""The GPU speed figures of docs/PERFORMANCE.md: attnscope's bench points beside torch SDPA timed in the same run.

Usage: gpu_speed_figures.py BENCH_JSON [BENCH_JSON ...]
Each BENCH_JSON is an `attnscope bench --backend cuda --json` report. For every flash point (fp32 or tf32) the
script times torch.nn.functional.scaled_dot_product_attention on the same GPU at the same H, n, d and causality in
fp32, bf16 and fp16 (CUDA events around each call, median of 7 after 3 warm-ups; TF32 off for fp32), and prints
Markdown tables: flash against SDPA, and every other variant against flash by device time.
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

    def precision(p):
        return "tf32" if p["variant"] == "flash" and p["params"].get("precision", 0) >= 1 else "fp32"

    print(f"### flash against torch SDPA ({torch_name}; device ms by CUDA events, median)")
    print()
    print("| H | n | d | causal | flash precision | attnscope device ms | of it copies ms | attnscope wall ms "
          "| SDPA fp32 ms | SDPA fp32 / attnscope | SDPA bf16 ms | SDPA fp16 ms | attnscope TFLOP/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for p in sorted((p for p in points if p["variant"] == "flash"), key=lambda p: (p["causal"], p["n"], precision(p))):
        shape = (p["heads"], p["n"], p["dim"], bool(p["causal"]))
        row = {}
        for name, dtype in (("fp32", "float32"), ("bf16", "bfloat16"), ("fp16", "float16")):
            row[name] = sdpa_ms(torch, *shape, getattr(torch, dtype)) if torch_ok else None
        ratio = row["fp32"] / ms(p) if isinstance(row["fp32"], float) else None
        tflops = p["flops"] / (ms(p) * 1e9)
        print(f"| {p['heads']} | {p['n']} | {p['dim']} | {'yes' if p['causal'] else 'no'} | {precision(p)} "
              f"| {ms(p):.3f} | {p['device_copy_median_ms']:.3f} | {p['wall_median_ms']:.3f} "
              f"| {fmt(row['fp32'])} | {fmt(ratio)} | {fmt(row['bf16'])} | {fmt(row['fp16'])} | {tflops:.1f} |")
        sys.stdout.flush()

    groups = {}
    for p in points:
        groups.setdefault((p["heads"], p["n"], p["dim"], bool(p["causal"])), []).append(p)
    for (heads, n, dim, causal), group in sorted(groups.items()):
        flash = [p for p in group if p["variant"] == "flash" and precision(p) == "fp32"]
        if len(group) < 2 or not flash:
            continue
        base = ms(flash[0])
        print()
        print(f"### Every variant against flash fp32 (H = {heads}, n = {n}, d = {dim}, "
              f"{'causal' if causal else 'bidirectional'}; device ms by CUDA events, median)")
        print()
        print("| variant | device ms | of it copies ms | wall ms | flash ms / variant ms |")
        print("|---|---|---|---|---|")
        for p in sorted(group, key=ms):
            label = p["label"] + (" (tf32)" if precision(p) == "tf32" else "")
            print(f"| {label} | {ms(p):.3f} | {p['device_copy_median_ms']:.3f} "
                  f"| {p['wall_median_ms']:.3f} | {base / ms(p):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
