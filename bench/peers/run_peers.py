#!/usr/bin/env python3
"""attnscope against peer implementations, on the same shapes and thread count (run by hand).

Installs the peers from PyPI into a venv (~/.cache/attnscope/peers-venv), times each one in its own
subprocess (warm-up, then the median of the timed runs, like `attnscope bench`), reads our own
`attnscope bench --json` for the same shapes, and regenerates docs/PERFORMANCE.md with the date and
the machine. A peer that fails to install or to run is listed with its error: no number is invented.

    python3 bench/peers/run_peers.py --attnscope build/app/attnscope --n 4096 --heads 8 --dim 64

Peers (PyPI name -> what is timed):
    torch                      F.scaled_dot_product_attention (CPU)           vs flash (and full)
    pytorch-fast-transformers  LinearAttention / CausalLinearAttention /     vs linear / linear causal /
                               ReformerAttention                              lsh
    performer-pytorch          FastAttention (FAVOR+)                         vs performer
    reformer-pytorch           LSHAttention                                   vs lsh
    linformer                  LinformerSelfAttention (a whole layer: it      vs linformer
                               includes the Q/K/V and output projections)
    local-attention            LocalAttention (block windows)                 vs longformer (window)
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
VENV = Path(os.environ.get("ATTNSCOPE_PEERS_VENV", Path.home() / ".cache/attnscope/peers-venv"))

# PyPI packages, installed one by one so one failure does not hide the others. fast-transformers
# compiles C++ extensions against the installed torch, hence no build isolation.
PACKAGES = [
    ("torch", ["torch", "numpy"], []),
    ("pytorch-fast-transformers", ["pytorch-fast-transformers"], ["--no-build-isolation"]),
    ("performer-pytorch", ["performer-pytorch"], []),
    ("reformer-pytorch", ["reformer-pytorch"], []),
    ("linformer", ["linformer"], []),
    ("local-attention", ["local-attention"], []),
]

# (peer id, package, description, our variant, our --set assignments, causal)
PEERS = [
    ("torch.sdpa", "torch", "torch.nn.functional.scaled_dot_product_attention", "flash", [], False),
    ("fast_transformers.linear", "pytorch-fast-transformers", "LinearAttention (elu+1)", "linear", [], False),
    ("fast_transformers.causal_linear", "pytorch-fast-transformers", "CausalLinearAttention (elu+1)", "linear",
     ["causal=1"], True),
    ("fast_transformers.reformer", "pytorch-fast-transformers", "ReformerAttention (4 rounds, chunk 64)", "lsh", [],
     False),
    ("performer_pytorch", "performer-pytorch", "FastAttention (FAVOR+, m = int(d ln d))", "performer", [], False),
    ("reformer_pytorch", "reformer-pytorch", "LSHAttention (4 hashes, bucket size 64)", "lsh", [], False),
    ("linformer", "linformer", "LinformerSelfAttention (k = 64, with projections)", "linformer", [], False),
    # The peer has no global tokens and lets each query see its 32-block and both neighbours (96 keys); ours
    # matches that: no global token and a sliding window of 96 (|i − j| ≤ 48: 97 keys per query).
    ("local_attention", "local-attention", "LocalAttention (window 32, look back/forward 1: 96 keys per query)",
     "longformer", ["global=none", "window=96"], False),
]

# ----------------------------------------------------------------------------------------------------
# [SECTION] install
# ----------------------------------------------------------------------------------------------------
def venv_python() -> Path:
    return VENV / "bin" / "python"

def install(log_dir: Path) -> dict:
    """Creates the venv and installs each package; returns {package: "ok" | error tail}."""
    status = {}
    if not venv_python().exists():
        VENV.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(venv_python()), "-m", "pip", "install", "-q", "--upgrade", "pip", "setuptools", "wheel"],
                       check=False)
    already = installed_status()
    for name, specs, extra in PACKAGES:
        if already.get(name) == "ok":
            status[name] = "ok"
            continue
        log = log_dir / f"install-{name}.log"
        cmd = [str(venv_python()), "-m", "pip", "install", *extra, *specs]
        env = dict(os.environ)
        if name == "pytorch-fast-transformers":
            # Its setup.py builds CUDA extensions whenever `nvcc` is on PATH (and fails for architectures the
            # local toolkit dropped); the CPU extensions are what we time, so hide nvcc from it.
            env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep)
                                          if d and not (Path(d) / "nvcc").exists())
            env.pop("CUDA_HOME", None)
            env["MAX_JOBS"] = env.get("MAX_JOBS", "2")
        print(f"[peers] pip install {' '.join(specs)} (log {log})", flush=True)
        with open(log, "w") as out:
            rc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env).returncode
        if rc == 0:
            status[name] = "ok"
        else:
            tail = [l for l in log.read_text(errors="replace").splitlines() if l.strip()][-3:]
            status[name] = "pip install failed: " + " / ".join(t.strip()[:160] for t in tail)
    return status

def installed_status() -> dict:
    """Which packages import in the venv (used with --skip-install)."""
    modules = {"torch": "torch, numpy", "pytorch-fast-transformers": "fast_transformers",
               "performer-pytorch": "performer_pytorch", "reformer-pytorch": "reformer_pytorch",
               "linformer": "linformer", "local-attention": "local_attention"}
    status = {}
    for name, module in modules.items():
        if not venv_python().exists():
            status[name] = "not installed (no venv; run without --skip-install)"
            continue
        r = subprocess.run([str(venv_python()), "-c", f"import {module}"], capture_output=True, text=True)
        status[name] = "ok" if r.returncode == 0 else "import failed: " + (r.stderr.strip().splitlines() or ["?"])[-1]
    return status

# ----------------------------------------------------------------------------------------------------
# [SECTION] worker (runs inside the venv, one peer per process)
# ----------------------------------------------------------------------------------------------------
def rss_reset() -> int:
    """Resets the kernel's resident high-water mark; returns the resident set now (bytes)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    return proc_status_kb("VmRSS") * 1024

def proc_status_kb(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return -1

def worker(peer: str, n: int, heads: int, dim: int, threads: int, warmup: int, runs: int) -> dict:
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    q = torch.randn(1, heads, n, dim)
    k = torch.randn(1, heads, n, dim)
    v = torch.randn(1, heads, n, dim)
    fn = None
    if peer == "torch.sdpa":
        import torch.nn.functional as F

        fn = lambda: F.scaled_dot_product_attention(q, k, v)
    elif peer.startswith("fast_transformers."):
        from fast_transformers.masking import FullMask, LengthMask, TriangularCausalMask

        # fast-transformers wants (N, L, H, E).
        ql, kl, vl = (t.transpose(1, 2).contiguous() for t in (q, k, v))
        lengths = LengthMask(torch.full((1,), n, dtype=torch.int64), max_len=n)
        if peer == "fast_transformers.linear":
            from fast_transformers.attention import LinearAttention

            att = LinearAttention(dim)
            mask = FullMask(n, n)
        elif peer == "fast_transformers.causal_linear":
            from fast_transformers.attention import CausalLinearAttention

            att = CausalLinearAttention(dim)
            mask = TriangularCausalMask(n)
        else:
            from fast_transformers.attention import ReformerAttention

            att = ReformerAttention(chunk_size=64, bits=max(1, int(math.log2(max(2, n // 64)))), rounds=4)
            mask = FullMask(n, n)
        fn = lambda: att(ql, kl, vl, mask, lengths, lengths)
    elif peer == "performer_pytorch":
        from performer_pytorch import FastAttention

        att = FastAttention(dim_heads=dim, nb_features=int(dim * math.log(dim)), causal=False)
        fn = lambda: att(q, k, v)
    elif peer == "reformer_pytorch":
        from reformer_pytorch import LSHAttention

        att = LSHAttention(bucket_size=64, n_hashes=4, causal=False)
        qk2, v2 = q.reshape(heads, n, dim), v.reshape(heads, n, dim)
        fn = lambda: att(qk2, v2)
    elif peer == "linformer":
        from linformer import LinformerSelfAttention

        att = LinformerSelfAttention(dim=heads * dim, seq_len=n, heads=heads, dim_head=dim, k=64)
        x = torch.randn(1, n, heads * dim)
        fn = lambda: att(x)
    elif peer == "local_attention":
        from local_attention import LocalAttention

        att = LocalAttention(window_size=32, causal=False, look_backward=1, look_forward=1)
        fn = lambda: att(q, k, v)
    else:
        raise SystemExit(f"unknown peer {peer}")
    with torch.no_grad():
        start_rss = rss_reset()
        samples, cpu_samples = [], []
        for i in range(warmup + runs):
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            ms, cpu_ms = (time.perf_counter() - t0) * 1e3, (time.process_time() - c0) * 1e3
            if i == 0:
                rss_delta = proc_status_kb("VmHWM") * 1024 - start_rss
            if i >= warmup:
                samples.append(ms)
                cpu_samples.append(cpu_ms)
    return {"peer": peer, "n": n, "median_ms": median(samples), "min_ms": min(samples), "max_ms": max(samples),
            "cpu_ms": median(cpu_samples), "rss_peak_delta_bytes": rss_delta, "torch": torch.__version__,
            "threads": torch.get_num_threads()}

def median(values: list) -> float:
    v = sorted(values)
    k = len(v)
    return v[k // 2] if k % 2 else 0.5 * (v[k // 2 - 1] + v[k // 2])

# ----------------------------------------------------------------------------------------------------
# [SECTION] ours
# ----------------------------------------------------------------------------------------------------
def registered_variants(attnscope: str) -> set:
    out = subprocess.run([attnscope, "variants", "--json"], capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    items = data if isinstance(data, list) else data.get("variants", [])
    return {item["id"] for item in items}

def run_ours(attnscope: str, variant: str, sets: list, ns: list, heads: int, dim: int, runs: int, budget: float,
             tmp: Path) -> dict:
    """One `attnscope bench` run for one variant; returns {n: point} (point None when our bench failed)."""
    out = tmp / f"ours-{variant}-{'-'.join(sets) or 'default'}.json"
    cmd = [attnscope, "bench", "--variants", variant, "--n", ",".join(map(str, ns)), "--heads", str(heads), "--dim",
           str(dim), "--runs", str(runs), "--budget-s", str(budget), "--json", str(out), "--no-progress"]
    for s in sets:
        cmd += ["--set", s]
    if variant != "flash":
        cmd.append("--no-machine")  # the roofs are measured once, with flash
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out.read_text())

def median_process(results: list, key) -> tuple:
    """(the result whose timing key(result) is the median of the processes', every process's timing): on a VM a
    process's speed can be bimodal for its whole life, so one process is one sample."""
    ordered = sorted(results, key=key)
    return ordered[(len(ordered) - 1) // 2], [key(r) for r in results]

def run_ours_processes(attnscope: str, variant: str, sets: list, ns: list, heads: int, dim: int, runs: int,
                       budget: float, tmp: Path, processes: int) -> dict:
    """run_ours() in `processes` separate processes; per n the point of the median process, and the machine roofs
    of the process chosen for the first n (its % of GEMM is against its own roof)."""
    reports = [run_ours(attnscope, variant, sets, ns, heads, dim, runs, budget, tmp) for _ in range(processes)]
    good = [r for r in reports if "error" not in r]
    if not good:
        return reports[0]
    combined = {"points": []}
    for n in ns:
        candidates = [(r, pt) for r in good for pt in r.get("points", []) if pt["n"] == n and pt["status"] == "measured"]
        if not candidates:
            combined["points"] += [pt for pt in good[0].get("points", []) if pt["n"] == n]
            continue
        (report, point), medians = median_process(candidates, lambda c: c[1]["time_ms"]["median"])
        combined["points"].append(dict(point, process_medians=medians))
        if "machine" not in combined and "machine" in report:
            combined["machine"] = report["machine"]
    if "machine" not in combined and "machine" in good[0]:
        combined["machine"] = good[0]["machine"]
    return combined

# ----------------------------------------------------------------------------------------------------
# [SECTION] report
# ----------------------------------------------------------------------------------------------------
def fmt_ms(v):
    return "—" if v is None else (f"{v:.1f}" if v >= 10 else f"{v:.2f}")

def fmt_processes(result: dict) -> str:
    """"; processes a / b / c" when the result is the median of several processes."""
    medians = result.get("process_medians") or []
    return "; processes " + " / ".join(fmt_ms(m) for m in medians) if len(medians) > 1 else ""

def fmt_mib(v):
    return "—" if v is None or v < 0 else f"{v / 1048576:.1f}"

def write_markdown(path: Path, args, machine: dict, install_status: dict, rows: list, flash_rows: list,
                   registered: set) -> None:
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = []
    lines.append("# Performance")
    lines.append("")
    lines.append("<!-- Generated by bench/peers/run_peers.py: edit the script, not this file. -->")
    lines.append("")
    lines.append(f"Generated {now} by `python3 bench/peers/run_peers.py {' '.join(sys.argv[1:])}`.")
    lines.append("")
    lines.append("## Machine")
    lines.append("")
    lines.append(f"- CPU: {machine.get('cpu_model', '?')}, {machine.get('logical_cpus', '?')} logical CPUs; "
                 f"{machine.get('threads', '?')} threads used by ours and by every peer (torch.set_num_threads).")
    mem = machine.get("total_memory_bytes") or 0
    lines.append(f"- Memory: {mem / 2**30:.1f} GiB; OS: {platform.platform()}; Python {platform.python_version()}.")
    g, t = machine.get("gemm", {}), machine.get("triad", {})
    if machine.get("measured"):
        lines.append(f"- Roofs measured in our run: SGEMM {g.get('size')}² {g.get('gflops', 0):.1f} GFLOP/s (median; best "
                     f"{g.get('gflops_best', 0):.1f}), triad {t.get('gbs', 0):.1f} GB/s.")
    if args.note:
        lines.append(f"- Note: {args.note}")
    lines.append("")
    lines.append("## Timing method")
    lines.append("")
    lines.append(f"Ours: `attnscope bench` — {args.warmup} warm-up, then the median of {args.runs} wall-clock runs of "
                 "one attention call (all heads), min and max kept; memory = peak tracked bytes of the call "
                 "(outputs included, inputs excluded) and the resident-set growth of the first call. Peers: the same "
                 "warm-up and runs around the module's forward under `torch.no_grad()`, fp32, batch 1, "
                 "resident-set growth of the first call (high-water mark reset through /proc/self/clear_refs). "
                 "Speed-up = peer median / our median (> 1: ours is faster); the CPU-time speed-up divides the "
                 "median process CPU times instead, which is steadier on a shared machine (spin-waits included). "
                 f"Each side runs in {args.processes} separate processes and the table shows the process whose "
                 "median is the median of them (every process's median is listed after the semicolon): on this "
                 "VM one process can run a kernel ~1.4× slower than the next for its whole life (same binary).")
    lines.append("")
    lines.append("## Peers installed")
    lines.append("")
    lines.append("| package | status |")
    lines.append("|---|---|")
    for name, status in install_status.items():
        lines.append(f"| {name} | {status.replace('|', '/')} |")
    lines.append("")
    for n in args.n:
        lines.append(f"## n = {n}, H = {args.heads}, d = {args.dim}")
        lines.append("")
        lines.append("| peer | what | peer ms [min, max] | peer RSS MiB | ours | ours ms [min, max] | ours peak MiB "
                     "(RSS) | speed-up | CPU-time speed-up | target (wall) |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        for row in rows:
            if row["n"] != n:
                continue
            p, o = row["peer_result"], row["ours_point"]
            peer_ms = (f"{fmt_ms(p['median_ms'])} [{fmt_ms(p['min_ms'])}, {fmt_ms(p['max_ms'])}]"
                       f"{fmt_processes(p)}" if p and "median_ms" in p else row["peer_error"])
            peer_rss = fmt_mib(p.get("rss_peak_delta_bytes")) if p and "median_ms" in p else "—"
            if o and o.get("status") == "measured":
                tm = o["time_ms"]
                ours_ms = f"{fmt_ms(tm['median'])} [{fmt_ms(tm['min'])}, {fmt_ms(tm['max'])}]{fmt_processes(o)}"
                mem = o["memory"]
                ours_mem = f"{fmt_mib(mem['peak_bytes'])} ({fmt_mib(mem['rss_peak_delta_bytes'])})"
            else:
                ours_ms, ours_mem = row["ours_error"], "—"
            speed = cpu_speed = met = "—"
            if p and "median_ms" in p and o and o.get("status") == "measured":
                s = p["median_ms"] / o["time_ms"]["median"]
                speed = f"{s:.2f}×"
                if o.get("cpu_ms", 0) > 0 and p.get("cpu_ms", 0) > 0:
                    cpu_speed = f"{p['cpu_ms'] / o['cpu_ms']:.2f}×"
                need = 1.0 if row["ours"] == "flash" else 2.0
                met = ("met" if s >= need else "missed") + f" (≥ {need:g}×)"
            ours_name = row["ours"] + (" " + " ".join(row["sets"]) if row["sets"] else "")
            lines.append(f"| {row['peer']} | {row['what']} | {peer_ms} | {peer_rss} | {ours_name} | {ours_ms} | "
                         f"{ours_mem} | {speed} | {cpu_speed} | {met} |")
        lines.append("")
    if flash_rows:
        lines.append("## flash against the machine")
        lines.append("")
        lines.append("FLOPs of exact attention: 4·n²·d per head (QKᵀ and PV). % of GEMM = achieved GFLOP/s / the "
                     "SGEMM rate of the same run.")
        lines.append("")
        lines.append("| n | ms [min, max] | GFLOP/s | % of GEMM (wall) | % of GEMM (CPU time) | extra MiB (peak − O) "
                     "| peak MiB |")
        lines.append("|---|---|---|---|---|---|---|")
        for o in flash_rows:
            tm = o["time_ms"]
            lines.append(f"| {o['n']} | {fmt_ms(tm['median'])} [{fmt_ms(tm['min'])}, {fmt_ms(tm['max'])}]"
                         f"{fmt_processes(o)} | "
                         f"{o['gflops']:.1f} | {100 * o['gemm_fraction']:.1f}% | "
                         f"{100 * o.get('cpu_gemm_fraction', 0):.1f}% | {fmt_mib(o['memory']['extra_bytes'])} | "
                         f"{fmt_mib(o['memory']['peak_bytes'])} |")
        lines.append("")
    missing = sorted({r["ours"] for r in rows} - registered)
    if missing:
        lines.append(f"Variants not registered in the build that ran this script: {', '.join(missing)} "
                     "(their rows show no number of ours).")
        lines.append("")
    extra = REPO / "docs" / "PERFORMANCE.linformer.md"
    lines.append("## Linformer Table 3")
    lines.append("")
    if extra.exists():
        lines.append(extra.read_text().strip())
    else:
        lines.append("Not generated yet. With the `linformer` variant registered: `attnscope bench --linformer-table "
                     "--n 512:65536 --k 128:2048 --heads 1 --dim 64 --markdown docs/PERFORMANCE.linformer.md`, then "
                     "rerun this script.")
    lines.append("")
    lines.append("## CUDA backend: design targets (unverified)")
    lines.append("")
    lines.append("No NVIDIA GPU was available where this file was generated: the kernels compile (sm_80, sm_86, "
                 "sm_89, sm_90, warnings as errors, every kernel checked with cuobjdump) and their host/device "
                 "math is tested on the CPU, but none of the figures below has been measured. Targets to confirm "
                 "on a GPU with `scripts/gpu-check.sh` (it runs the whole test suite on CUDA, the benchmark sweep on "
                 "both backends and, when PyTorch is installed, flash against torch's scaled_dot_product_attention, "
                 "into one report):")
    lines.append("")
    lines.append("| target | status |")
    lines.append("|---|---|")
    lines.append("| `flash` within 2× of PyTorch's scaled_dot_product_attention on the same GPU | unverified |")
    lines.append("| linear-family variants bound by memory bandwidth at large n (roofline point near the "
                 "bandwidth roof) | unverified |")
    lines.append("| GUI p95 frame time ≤ 16 ms while computing, on a real GPU driver | unverified |")
    lines.append("")
    path.write_text("\n".join(lines) + "\n")

# ----------------------------------------------------------------------------------------------------
# [SECTION] main
# ----------------------------------------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attnscope", default=str(REPO / "build/app/attnscope"), help="our binary")
    ap.add_argument("--n", type=int, action="append", help="sequence length (repeat; default 4096)")
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--budget-s", type=float, default=30.0, help="per-point budget passed to attnscope bench")
    ap.add_argument("--peer-timeout-s", type=float, default=300.0, help="a peer process slower than this is stopped")
    ap.add_argument("--only", action="append", help="run only these peer ids (repeat)")
    ap.add_argument("--processes", type=int, default=3,
                    help="separate processes per side; the median process is reported (default 3)")
    ap.add_argument("--skip-install", action="store_true", help="use the venv as it is")
    ap.add_argument("--install-only", action="store_true", help="install the peers and stop")
    ap.add_argument("--note", default="", help="a line added to the machine section (e.g. 'shared machine: noisy')")
    ap.add_argument("--out", default=str(REPO / "docs/PERFORMANCE.md"))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.n = args.n or [4096]

    if args.worker:
        print(json.dumps(worker(args.worker, args.n[0], args.heads, args.dim, args.threads, args.warmup, args.runs)))
        return 0

    log_dir = Path(tempfile.mkdtemp(prefix="attnscope-peers-"))
    install_status = installed_status() if args.skip_install else install(log_dir)
    print(f"[peers] install status: {json.dumps(install_status, indent=1)}", flush=True)
    if args.install_only:
        return 0

    registered = registered_variants(args.attnscope)
    peers = [p for p in PEERS if not args.only or p[0] in args.only]
    # Ours: one bench run per (variant, sets), all n at once; flash first (it also measures the machine).
    ours = {}
    wanted = [("flash", ())] + [(p[3], tuple(p[4])) for p in peers]
    for variant, sets in dict.fromkeys(wanted):
        if variant not in registered:
            ours[(variant, sets)] = {"error": f"{variant} not registered in this build"}
            continue
        print(f"[peers] ours: {variant} {' '.join(sets)} n={args.n}", flush=True)
        ours[(variant, sets)] = run_ours_processes(args.attnscope, variant, list(sets), args.n, args.heads, args.dim,
                                                   args.runs, args.budget_s, log_dir, args.processes)
    flash_report = ours[("flash", ())]
    machine = flash_report.get("machine", {"cpu_model": platform.processor() or "?", "measured": False})
    threads = int(machine.get("threads") or os.cpu_count() or 1)

    rows, flash_rows = [], []
    for point in flash_report.get("points", []):
        if point.get("status") == "measured":
            flash_rows.append(point)
    for peer, package, what, variant, sets, _causal in peers:
        report = ours[(variant, tuple(sets))]
        for n in args.n:
            row = {"peer": peer, "what": what, "ours": variant, "sets": sets, "n": n, "peer_result": None,
                   "peer_error": "", "ours_point": None, "ours_error": report.get("error", "")}
            for point in report.get("points", []):
                if point["n"] == n:
                    row["ours_point"] = point
                    if point["status"] != "measured":
                        row["ours_error"] = f"{point['status']}: {point['reason'][:120]}"
            if install_status.get(package) != "ok":
                row["peer_error"] = f"{package} not installed"
            else:
                print(f"[peers] {peer} n={n}", flush=True)
                cmd = [str(venv_python()), str(Path(__file__).resolve()), "--worker", peer, "--n", str(n), "--heads",
                       str(args.heads), "--dim", str(args.dim), "--threads", str(threads), "--runs", str(args.runs),
                       "--warmup", str(args.warmup)]
                env = dict(os.environ, OMP_NUM_THREADS=str(threads))
                results = []
                for _ in range(args.processes):
                    try:
                        r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.peer_timeout_s, env=env)
                        if r.returncode == 0:
                            results.append(json.loads(r.stdout.strip().splitlines()[-1]))
                        else:
                            err = (r.stderr.strip().splitlines() or ["failed"])[-1]
                            row["peer_error"] = "run failed: " + err[:160].replace("|", "/")
                            break
                    except subprocess.TimeoutExpired:
                        row["peer_error"] = f"stopped after {args.peer_timeout_s:g} s"
                        break
                if results and not row["peer_error"]:
                    result, medians = median_process(results, lambda res: res["median_ms"])
                    row["peer_result"] = dict(result, process_medians=medians)
            rows.append(row)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_markdown(out, args, machine, install_status, rows, flash_rows, registered)
    print(f"[peers] wrote {out}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
