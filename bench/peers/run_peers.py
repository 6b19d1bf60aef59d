#!/usr/bin/env python3
"""attnscope against peer implementations, on the same shapes and thread count (run by hand).

Installs the peers from PyPI into a venv (~/.cache/attnscope/peers-venv; pip's output kept in --log-dir), then
measures each table row in PAIRS of processes run back to back: our `attnscope bench --json` for the row's variant,
then the peer in its own process (same warm-up and timed runs, median), then ours again, and so on (--pairs P).
Each pair gives peer_median / our_median, in wall-clock and in process CPU time; a row reports the median of its
P per-pair ratios with their min and max. A slow phase of the shared machine longer than a pair slows both sides
of that pair, so it cancels in the ratio instead of landing on one side only. Regenerates docs/PERFORMANCE.md
(or --out) with the date and the machine. A peer that fails to install or to run is listed with its error: no
number is invented.

    python3 bench/peers/run_peers.py --attnscope build/app/attnscope --n 4096 --heads 8 --dim 64 --pairs 3

Every figure names the hardware it came from: the CPU model, its cores, the ISA our kernels were compiled for (the
build's -march: AVX-512, AVX2 or none), OpenBLAS's kernel set (the roof) and torch's CPU capability. To measure what
an AVX2-only CPU gets on an AVX-512 machine, run an x86-64-v3 build with --isa-cap avx2 (it also holds OpenBLAS,
torch and MKL to their AVX2 kernels) and show that run beside the native one with --beside:

    python3 bench/peers/run_peers.py --attnscope build-v3/app/attnscope --isa-cap avx2 --out /tmp/avx2.md
    python3 bench/peers/run_peers.py --attnscope build/app/attnscope --beside LOG_DIR/run-…/pairs.json

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

# --isa-cap: the environment that holds every library to one ISA's kernels, for our process and for the peers'. Our
# own kernels follow the build's -march instead (checked: the binary must report that ISA).
ISA_CAPS = {
    "avx2": {"ours": {"OPENBLAS_CORETYPE": "Haswell"},
             "peer": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "OPENBLAS_CORETYPE": "Haswell"},
             "kernel_isa": "AVX2"},
}

# Targets on the median paired wall-clock ratio (peer / ours); a row not listed needs 2×.
TARGETS = {"torch.sdpa": 1.3, "fast_transformers.linear": 2.0, "fast_transformers.causal_linear": 2.0,
           "local_attention": 3.0}

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
        with open(log_dir / "install-pip.log", "w") as out:
            subprocess.run([str(venv_python()), "-m", "pip", "install", "--upgrade", "pip", "setuptools", "wheel"],
                           stdout=out, stderr=subprocess.STDOUT, check=False)
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
    capability = torch.backends.cpu.get_cpu_capability() if hasattr(torch.backends, "cpu") else "?"
    return {"peer": peer, "n": n, "median_ms": median(samples), "min_ms": min(samples), "max_ms": max(samples),
            "cpu_ms": median(cpu_samples), "rss_peak_delta_bytes": rss_delta, "torch": torch.__version__,
            "threads": torch.get_num_threads(), "cpu_capability": capability}

def median(values: list) -> float:
    v = sorted(values)
    k = len(v)
    return v[k // 2] if k % 2 else 0.5 * (v[k // 2 - 1] + v[k // 2])

# ----------------------------------------------------------------------------------------------------
# [SECTION] one process of each side
# ----------------------------------------------------------------------------------------------------
def registered_variants(attnscope: str) -> set:
    out = subprocess.run([attnscope, "variants", "--json"], capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    items = data if isinstance(data, list) else data.get("variants", [])
    return {item["id"] for item in items}

def last_line(text: str, fallback: str = "failed") -> str:
    return (text.strip().splitlines() or [fallback])[-1][:160].replace("|", "/")

def run_ours_once(args, variant: str, sets: list, n: int, machine: bool, out: Path) -> dict:
    """One `attnscope bench` process for one variant at one n: {"point", "machine"} or {"error"}. With `machine` the
    process also measures its roofs (flash only: the "flash against the machine" section reads them)."""
    cmd = [args.attnscope, "bench", "--variants", variant, "--n", str(n), "--heads", str(args.heads), "--dim",
           str(args.dim), "--runs", str(args.runs), "--warmup", str(args.warmup), "--budget-s", str(args.budget_s),
           "--json", str(out), "--no-progress"]
    for s in sets:
        cmd += ["--set", s]
    if not machine:
        cmd.append("--no-machine")
    env = dict(os.environ, **(ISA_CAPS[args.isa_cap]["ours"] if args.isa_cap else {}))
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.process_timeout_s, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"stopped after {args.process_timeout_s:g} s"}
    out.with_suffix(".log").write_text(" ".join(cmd) + "\n" + r.stdout + r.stderr)
    if r.returncode != 0:
        return {"error": last_line(r.stderr)}
    report = json.loads(out.read_text())
    points = [pt for pt in report.get("points", []) if pt["n"] == n]
    if not points:
        return {"error": "no point in our report"}
    if points[0]["status"] != "measured":
        return {"error": f"{points[0]['status']}: {points[0].get('reason', '')[:120]}"}
    return {"point": points[0], "machine": report.get("machine", {})}

def run_peer_once(args, peer: str, n: int, threads: int) -> dict:
    """One worker process of the peer in the venv: its result dict or {"error"}."""
    cmd = [str(venv_python()), str(Path(__file__).resolve()), "--worker", peer, "--n", str(n), "--heads",
           str(args.heads), "--dim", str(args.dim), "--threads", str(threads), "--runs", str(args.runs),
           "--warmup", str(args.warmup)]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), **(ISA_CAPS[args.isa_cap]["peer"] if args.isa_cap else {}))
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.process_timeout_s, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"stopped after {args.process_timeout_s:g} s"}
    if r.returncode != 0:
        return {"error": "run failed: " + last_line(r.stderr)}
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": "run failed: no result line"}

# ----------------------------------------------------------------------------------------------------
# [SECTION] paired estimator
# ----------------------------------------------------------------------------------------------------
def spread(values: list):
    """(median, min, max) of a list, None when it is empty."""
    return (median(values), min(values), max(values)) if values else None

def median_index(values: list) -> int:
    """Index of the lower-middle value: the process shown as "the median process" of a side."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    return order[(len(order) - 1) // 2]

def load_1min() -> float:
    """The kernel's 1-minute load average when a process starts: above the CPU count, other jobs compete for cores."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return -1.0

def run_row(args, peer: str, package: str, variant: str, sets: list, n: int, ours_ok: str, peer_ok: str,
            threads: int, run_dir: Path) -> dict:
    """P pairs for one table row, interleaved: ours, peer, ours, peer, … Each pair k gives
    wall_k = peer_median_k / ours_median_k and cpu_k = peer_cpu_k / ours_cpu_k. A side that cannot run (not installed,
    not registered) is skipped and the other still runs its P processes, for its own figures; a process that fails
    ends the row (the pairs completed before it are kept)."""
    row = {"ours_processes": [], "peer_processes": [], "pairs": [], "ours_error": ours_ok, "peer_error": peer_ok,
           "threads": threads}
    measure_machine = variant == "flash" and not sets
    for k in range(args.pairs):
        ours = peer_result = None
        loads = {}
        if not row["ours_error"]:
            loads["ours"] = load_1min()
            tag = f"{variant}{'-' + '-'.join(sets) if sets else ''}-{peer}-n{n}-pair{k + 1}".replace("=", "")
            res = run_ours_once(args, variant, sets, n, measure_machine, run_dir / f"ours-{tag}.json")
            if "error" in res:
                row["ours_error"] = res["error"]
            else:
                ours = res
                row["ours_processes"].append(res)
                if not row["threads"]:
                    row["threads"] = int(res["machine"].get("threads") or 0)
        if not row["peer_error"]:
            loads["peer"] = load_1min()
            res = run_peer_once(args, peer, n, row["threads"] or os.cpu_count() or 1)
            if "error" in res:
                row["peer_error"] = res["error"]
            else:
                peer_result = res
                row["peer_processes"].append(res)
        if ours and peer_result:
            o, p = ours["point"], peer_result
            pair = {"k": k + 1, "ours_ms": o["time_ms"]["median"], "peer_ms": p["median_ms"],
                    "ours_cpu_ms": o.get("cpu_ms", 0), "peer_cpu_ms": p.get("cpu_ms", 0), "load_1min": loads}
            pair["wall_ratio"] = pair["peer_ms"] / pair["ours_ms"] if pair["ours_ms"] > 0 else None
            pair["cpu_ratio"] = (pair["peer_cpu_ms"] / pair["ours_cpu_ms"]
                                 if pair["ours_cpu_ms"] > 0 and pair["peer_cpu_ms"] > 0 else None)
            row["pairs"].append(pair)
            print(f"[peers]   pair {k + 1}/{args.pairs}: ours {pair['ours_ms']:.2f} ms, peer {pair['peer_ms']:.2f} ms"
                  f" -> {pair['wall_ratio']:.2f}x wall" + (f", {pair['cpu_ratio']:.2f}x CPU" if pair["cpu_ratio"]
                                                           else ""), flush=True)
        row.setdefault("loads", []).extend(loads.values())
        if row["ours_error"] and row["peer_error"]:
            break
        if (row["ours_error"] and row["ours_processes"]) or (row["peer_error"] and row["peer_processes"]):
            break  # a side failed mid-row: no more pairs can be formed
    row["wall"] = spread([p["wall_ratio"] for p in row["pairs"] if p["wall_ratio"]])
    row["cpu"] = spread([p["cpu_ratio"] for p in row["pairs"] if p["cpu_ratio"]])
    return row

# ----------------------------------------------------------------------------------------------------
# [SECTION] roof shares (flash against the machine)
# ----------------------------------------------------------------------------------------------------
def roof_of(point: dict) -> dict:
    """The roof shares of one of our flash processes. Reads the per-point `roof` object when the binary writes it
    (the faster of OpenBLAS and Eigen sgemm, interleaved with the variant's runs, paired shares), else falls back to
    gemm_fraction / cpu_gemm_fraction against the run's SGEMM. A share above 1 is a measurement fault, never a result."""
    roof = point.get("roof")
    if isinstance(roof, dict) and roof.get("share_wall") is not None:
        out = {"name": roof.get("name", "?"), "wall": roof.get("share_wall"), "cpu": roof.get("share_cpu"),
               "fault": bool(roof.get("fault"))}
        for key in ("share_wall_min", "share_wall_max", "share_cpu_min", "share_cpu_max"):
            out[key] = roof.get(key)
        out["paired"] = True
    else:
        out = {"name": "sgemm", "wall": point.get("gemm_fraction") or None,
               "cpu": point.get("cpu_gemm_fraction") or None, "fault": False, "paired": False}
    out["wall_fault"] = out["fault"] or (out["wall"] is not None and out["wall"] > 1)
    out["cpu_fault"] = out["fault"] or (out["cpu"] is not None and out["cpu"] > 1)
    return out

def fmt_share(processes: list, key: str) -> str:
    """Median [min, max] over the processes whose share is no fault; the faulty ones are counted, not shown."""
    values = [r[key] for r in processes if r[key] is not None and not r[key + "_fault"]]
    faults = sum(1 for r in processes if r[key + "_fault"])
    if not values and not faults:
        return "—"
    if not values:
        return "measurement fault" + (f" (all {faults} processes)" if faults > 1 else "")
    m, lo, hi = spread(values)
    text = f"{100 * m:.1f}%" + (f" [{100 * lo:.1f}, {100 * hi:.1f}]" if len(values) > 1 else "")
    if faults:
        text += f"; measurement fault in {faults} of {len(processes)} processes"
    return text

# ----------------------------------------------------------------------------------------------------
# [SECTION] report
# ----------------------------------------------------------------------------------------------------
def fmt_ms(v):
    return "—" if v is None else (f"{v:.1f}" if v >= 10 else f"{v:.2f}")

def fmt_mib(v):
    return "—" if v is None or v < 0 else f"{v / 1048576:.1f}"

def fmt_ratio(s) -> str:
    if not s:
        return "—"
    m, lo, hi = s
    return f"{m:.2f}× [{lo:.2f}, {hi:.2f}]"

def fmt_side(medians: list, shown_ms: float, lo: float, hi: float) -> str:
    """The median process's "median [min, max]" over its timed runs, then every process's median in run order."""
    text = f"{fmt_ms(shown_ms)} [{fmt_ms(lo)}, {fmt_ms(hi)}]"
    return text + ("; processes " + " / ".join(fmt_ms(m) for m in medians) if len(medians) > 1 else "")

def target_of(peer: str) -> float:
    return TARGETS.get(peer, 2.0)

def ours_label(row: dict) -> str:
    return row["ours"] + (" " + " ".join(row["sets"]) if row["sets"] else "")

def bars(rows: list) -> list:
    """A text bar per row: the median paired wall ratio (█), the spread to the largest pair (░) and the target (|)."""
    measured = [r for r in rows if r["wall"]]
    if not measured:
        return []
    width = 40
    top = max(max(r["wall"][2], target_of(r["peer"])) for r in measured)
    scale = width / top
    name_w = max(len(r["peer"]) for r in measured)
    out = ["```text", f"{'':{name_w}}  0×{'':{width - 4}}{top:.1f}×"]
    for r in measured:
        m, lo, hi = r["wall"]
        cells = [" "] * (width + 1)
        for i in range(int(round(m * scale))):
            cells[i] = "█"
        for i in range(int(round(m * scale)), int(round(hi * scale))):
            cells[i] = "░"
        cells[min(width, int(round(target_of(r["peer"]) * scale)))] = "|"
        out.append(f"{r['peer']:{name_w}}  {''.join(cells)} {m:.2f}× [{lo:.2f}, {hi:.2f}] (target {target_of(r['peer']):g}×)")
    out.append("```")
    return out

def machine_lines(machine: dict, flash_machines: list) -> list:
    lines = [f"- CPU: {machine.get('cpu_model', '?')}, {machine.get('logical_cpus', '?')} logical CPUs; "
             f"{machine.get('threads', '?')} threads used by ours and by every peer (torch.set_num_threads)."]
    mem = machine.get("total_memory_bytes") or 0
    lines.append(f"- Memory: {mem / 2**30:.1f} GiB; OS: {platform.platform()}; Python {platform.python_version()}.")
    measured = [m for m in flash_machines if m.get("measured")]
    if not measured:
        return lines
    g0 = measured[0].get("gemm", {})
    where = f"in our {len(measured)} flash process{'es' if len(measured) > 1 else ''} (median [min, max])"

    def fig(values):
        values = [v for v in values if v]
        if not values:
            return "?"
        m, lo, hi = spread(values)
        return f"{m:.1f}" + (f" [{lo:.1f}, {hi:.1f}]" if len(values) > 1 else "")

    triad = fig([m.get("triad", {}).get("gbs") for m in measured])
    if "openblas_gflops" in g0 or "backend_gflops" in g0:
        roofs = {m.get("gemm", {}).get("roof", "?") for m in measured}
        lines.append(f"- Roofs measured {where}: SGEMM {g0.get('size', '?')}² OpenBLAS "
                     f"{fig([m['gemm'].get('openblas_gflops') for m in measured])} GFLOP/s, Eigen "
                     f"{fig([m['gemm'].get('backend_gflops') for m in measured])} GFLOP/s (wall, median); roof = the faster per CPU-second: "
                     f"{' / '.join(sorted(roofs))}; triad {triad} GB/s.")
    else:
        lines.append(f"- Roofs measured {where}: SGEMM {g0.get('size', '?')}² "
                     f"{fig([m.get('gemm', {}).get('gflops') for m in measured])} GFLOP/s, triad {triad} GB/s.")
    return lines

def peer_tables(rows: list, ns: list, heads: int, dim: int, level: str) -> list:
    """The table of every peer row at each n (Markdown heading `level`), with its bar chart."""
    lines = []
    for n in ns:
        lines += [f"{level} n = {n}, H = {heads}, d = {dim}", ""]
        lines.append("| peer | what | peer ms [min, max] | peer RSS MiB | ours | ours ms [min, max] | ours peak MiB "
                     "(RSS) | speed-up, paired (wall) [min, max] | CPU-time speed-up, paired [min, max] | target "
                     "(wall) |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        for row in [r for r in rows if r["n"] == n]:
            peers_done, ours_done = row["peer_processes"], row["ours_processes"]
            if peers_done:
                medians = [p["median_ms"] for p in peers_done]
                p = peers_done[median_index(medians)]
                peer_ms = fmt_side(medians, p["median_ms"], p["min_ms"], p["max_ms"])
                peer_rss = fmt_mib(p.get("rss_peak_delta_bytes"))
                if row["peer_error"]:
                    peer_ms += f"; then {row['peer_error']}"
            else:
                peer_ms, peer_rss = row["peer_error"] or "—", "—"
            if ours_done:
                medians = [o["point"]["time_ms"]["median"] for o in ours_done]
                o = ours_done[median_index(medians)]["point"]
                ours_ms = fmt_side(medians, o["time_ms"]["median"], o["time_ms"]["min"], o["time_ms"]["max"])
                mem = o["memory"]
                ours_mem = f"{fmt_mib(mem['peak_bytes'])} ({fmt_mib(mem['rss_peak_delta_bytes'])})"
                if row["ours_error"]:
                    ours_ms += f"; then {row['ours_error']}"
            else:
                ours_ms, ours_mem = row["ours_error"] or "—", "—"
            need = target_of(row["peer"])
            met = "—"
            if row["wall"]:
                reached = sum(1 for q in row["pairs"] if q["wall_ratio"] and q["wall_ratio"] >= need)
                met = (f"{'met' if row['wall'][0] >= need else 'missed'} (≥ {need:g}×; {reached} of "
                       f"{len(row['pairs'])} pairs)")
            lines.append(f"| {row['peer']} | {row['what']} | {peer_ms} | {peer_rss} | {ours_label(row)} | {ours_ms} | "
                         f"{ours_mem} | {fmt_ratio(row['wall'])} | {fmt_ratio(row['cpu'])} | {met} |")
        lines.append("")
        chart = bars([r for r in rows if r["n"] == n])
        if chart:
            lines.append("Paired wall-clock speed-ups: █ up to the median of the pairs, ░ on to the largest pair, | the "
                         "target.")
            lines.append("")
            lines += chart
            lines.append("")
    return lines

def flash_table(flash_rows: list) -> list:
    """flash's share of the machine's SGEMM roof in each of our flash processes (the torch.sdpa rows)."""
    lines = []
    if not flash_rows:
        lines += ["Not measured in this run (the torch.sdpa row, whose flash processes measure the roofs, was not "
                  "run).", ""]
    else:
        paired = any(roof_of(p["point"])["paired"] for r in flash_rows for p in r["ours_processes"])
        if paired:
            lines.append("FLOPs of exact attention: 4·n²·d per head (QKᵀ and PV). Roof = the faster of OpenBLAS and "
                         "Eigen SGEMM on this machine, timed by `attnscope bench` in turns with flash's own runs; a "
                         "process's share = flash's GFLOP/s over the roof's, paired run by run, in wall-clock and in "
                         "CPU time. The table gives the median share over our flash processes of the torch.sdpa row "
                         "[min, max over them].")
        else:
            lines.append("FLOPs of exact attention: 4·n²·d per head (QKᵀ and PV). % of GEMM = flash's GFLOP/s over "
                         "the SGEMM rate measured in the same process (before its runs), in wall-clock and in CPU "
                         "time; median over our flash processes of the torch.sdpa row [min, max over them].")
        lines.append("A share above 100% cannot be a result (nothing beats the roof it is measured against): it is "
                     "shown as a measurement fault and left out of the median.")
        lines.append("")
        lines.append("| n | ms [min, max] | GFLOP/s | roof | share of roof (wall) | share of roof (CPU time) | "
                     "extra MiB (peak − O) | peak MiB |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for r in flash_rows:
            points = [p["point"] for p in r["ours_processes"]]
            medians = [pt["time_ms"]["median"] for pt in points]
            o = points[median_index(medians)]
            roofs = [roof_of(pt) for pt in points]
            names = " / ".join(sorted({x["name"] for x in roofs}))
            gf = spread([pt["gflops"] for pt in points])
            lines.append(f"| {r['n']} | {fmt_side(medians, o['time_ms']['median'], o['time_ms']['min'], o['time_ms']['max'])}"
                         f" | {gf[0]:.1f} [{gf[1]:.1f}, {gf[2]:.1f}] | {names} | {fmt_share(roofs, 'wall')} | "
                         f"{fmt_share(roofs, 'cpu')} | {fmt_mib(o['memory']['extra_bytes'])} | "
                         f"{fmt_mib(o['memory']['peak_bytes'])} |")
        lines.append("")
    return lines

def isa_line(machine: dict, rows: list, isa_cap: str) -> str:
    """Which instruction sets the figures of a run used: ours (the build's), OpenBLAS's (the roof) and torch's."""
    caps = sorted({p.get("cpu_capability", "?") for r in rows for p in r["peer_processes"] if "torch" in r["package"]})
    held = (f" Held to {isa_cap.upper()} kernels by --isa-cap {isa_cap} ("
            + ", ".join(f"{k}={v}" for k, v in {**ISA_CAPS[isa_cap]["ours"], **ISA_CAPS[isa_cap]["peer"]}.items())
            + ").") if isa_cap else ""
    return (f"- ISA: our kernels compiled for {machine.get('kernel_isa', '?')} ({machine.get('backend', '?')}); "
            f"OpenBLAS kernels (the roof): {machine.get('blas_core', '?')}; torch's CPU capability: "
            f"{', '.join(caps) if caps else '—'}.{held}")

def load_beside(path: Path) -> dict:
    """Another run of this script (its pairs.json), to show beside this one (--beside)."""
    data = json.loads(path.read_text())
    if "machine" not in data:
        raise SystemExit(f"--beside {path}: written by an older run_peers.py (no machine figures); run it again")
    isa = data["machine"].get("kernel_isa", "?")
    return {"label": f"{isa} build" + (f", --isa-cap {data['isa_cap']}" if data.get("isa_cap") else ""),
            "machine": data["machine"], "rows": data["rows"], "isa_cap": data.get("isa_cap") or "",
            "heads": data.get("heads"), "dim": data.get("dim"), "n": data.get("n") or [], "argv": data.get("argv", []),
            "generated": data.get("generated", "?"), "pairs": data.get("pairs")}

def isa_comparison(runs: list) -> list:
    """flash's share of the roof and every peer's paired speed-up in each run, side by side, then the other run's own
    tables (its machine, peers and flash figures)."""
    lines = ["## Two builds side by side: vector ISA of the kernels", "",
             "The same rows in two runs of this script on the same machine: this run, and the run of "
             "`--beside` (its own pairs, its own roofs). A share or speed-up compares within its run only.", ""]
    lines.append("| run | CPU | our kernels | OpenBLAS (roof) | torch capability | flash share of roof (wall) | "
                 "flash share of roof (CPU) | " + " | ".join(r["peer"] for r in runs[0]["rows"]) + " |")
    lines.append("|---|---|---|---|---|---|---|" + "---|" * len(runs[0]["rows"]))
    for run in runs:
        m, rows = run["machine"], run["rows"]
        flash_rows = [r for r in rows if r["ours"] == "flash" and not r["sets"] and r["ours_processes"]]
        roofs = [roof_of(p["point"]) for r in flash_rows for p in r["ours_processes"]]
        caps = sorted({p.get("cpu_capability", "?") for r in rows for p in r["peer_processes"] if "torch" in r["package"]})
        by_peer = {r["peer"]: r for r in rows}
        ratios = [fmt_ratio(by_peer[r["peer"]]["wall"]) if r["peer"] in by_peer else "—" for r in runs[0]["rows"]]
        lines.append(f"| {run['label']} | {m.get('cpu_model', '?')}, {m.get('threads', '?')} threads | "
                     f"{m.get('kernel_isa', '?')} | {m.get('blas_core', '?')} | {', '.join(caps) or '—'} | "
                     f"{fmt_share(roofs, 'wall') if roofs else '—'} | {fmt_share(roofs, 'cpu') if roofs else '—'} | "
                     + " | ".join(ratios) + " |")
    lines.append("")
    lines.append("Peer columns: the paired wall-clock speed-up of ours over that peer (peer time / ours), median of the "
                 "pairs [min, max].")
    lines.append("")
    for run in runs[1:]:
        lines += [f"### {run['label']}", "",
                  f"Generated {run['generated']} by `python3 bench/peers/run_peers.py {' '.join(run['argv'])}`.", ""]
        lines += machine_lines(run["machine"], [p["machine"] for r in run["rows"] for p in r["ours_processes"]
                                                if r["ours"] == "flash" and not r["sets"]])
        lines.append(isa_line(run["machine"], run["rows"], run["isa_cap"]))
        lines.append("")
        lines += peer_tables(run["rows"], run["n"], run["heads"], run["dim"], "####")
        lines += ["#### flash against the machine", ""]
        lines += flash_table([r for r in run["rows"] if r["ours"] == "flash" and not r["sets"] and r["ours_processes"]])
    return lines

def write_markdown(path: Path, args, machine: dict, install_status: dict, rows: list, registered: set,
                   beside: dict | None) -> None:
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    flash_rows = [r for r in rows if r["ours"] == "flash" and not r["sets"] and r["ours_processes"]]
    flash_machines = [p["machine"] for r in flash_rows for p in r["ours_processes"]]
    lines = ["# Performance", "", "<!-- Generated by bench/peers/run_peers.py: edit the script, not this file. -->", "",
             f"Generated {now} by `python3 bench/peers/run_peers.py {' '.join(sys.argv[1:])}`.", "", "## Machine", ""]
    lines += machine_lines(machine, flash_machines)
    lines.append(isa_line(machine, rows, args.isa_cap))
    loads = [x for r in rows for x in r.get("loads", []) if x >= 0]
    if loads:
        cpus = machine.get("logical_cpus") or os.cpu_count() or 1
        lines.append(f"- 1-minute load average when each process started: {min(loads):.1f} to {max(loads):.1f} "
                     f"(median {median(loads):.1f}) on {cpus} logical CPUs; it counts the benchmark's own threads too.")
        if max(loads) > cpus + 1:
            lines.append(f"- **Oversubscribed run**: other jobs kept cores busy besides the benchmark's own threads. "
                         "Pairing cancels a slow phase that slows both sides alike, but not a side that suffers more "
                         "from it: PyTorch's OpenMP threads wait for each other at the end of every operation and "
                         "can lose far more than ours when a core is taken away, most in peers made of many small "
                         "operations, so their times (and the speed-ups) can be inflated. Regenerate on an idle "
                         "machine before quoting these figures.")
    if args.note:
        lines.append(f"- Note: {args.note}")
    lines += ["", "## Timing method", ""]
    lines.append(
        f"Every row is measured in {args.pairs} pairs of processes that run back to back: our `attnscope bench` "
        "process, then the peer's process, then ours again, then the peer again, and so on (ours, peer, ours, peer, …). "
        f"Each process prepares its inputs, makes {args.warmup} untimed warm-up call(s) and {args.runs} timed calls of "
        "one attention forward (all heads, fp32, batch 1; the peers under `torch.no_grad()`), and keeps the median of "
        "the timed calls in wall-clock time and in process CPU time (the CPU time of all its threads). For each pair "
        "the speed-up is the peer's median divided by ours (above 1×: ours is faster). The two processes of a pair "
        "run seconds apart, so when the shared machine goes through a slow phase it mostly slows both of them and "
        "the ratio stays put; medians taken minutes apart, as this page used to compare, do not cancel it. "
        f"The speed-up column is the median of the {args.pairs} per-pair ratios, with the smallest and the largest "
        "per-pair ratio in brackets: a wide bracket means the machine changed speed within pairs, and it is the "
        "spread of what was seen, not a confidence interval. The CPU-time speed-up is the same estimate with the "
        "CPU-time medians, which a busy machine disturbs less (time spent waiting for a core is not counted; "
        "spin-waits are). The target column judges the median wall-clock ratio and says in how many pairs it was "
        "reached. The ms columns show, for each side, the process whose median is the median of that side's "
        "processes, with the fastest and slowest of its timed calls, then every process's median in the order they "
        "ran. Memory: ours = peak tracked bytes of the call (outputs included, inputs excluded) and, in brackets, the "
        "resident-set growth of the first call; peers = resident-set growth of the first call (high-water mark "
        "reset through /proc/self/clear_refs).")
    lines += ["", "## Peers installed", "", "| package | status |", "|---|---|"]
    for name, status in install_status.items():
        lines.append(f"| {name} | {status.replace('|', '/')} |")
    lines.append("")
    lines += peer_tables(rows, args.n, args.heads, args.dim, "##")
    lines += ["## flash against the machine", ""]
    lines += flash_table(flash_rows)
    if beside:
        lines += isa_comparison(
            [{"label": "this run", "machine": machine, "rows": rows, "isa_cap": args.isa_cap}, beside])
    missing = sorted({r["ours"] for r in rows} - registered)
    if missing:
        lines.append(f"Variants not registered in the build that ran this script: {', '.join(missing)} "
                     "(their rows show no number of ours).")
        lines.append("")
    extra = REPO / "docs" / "PERFORMANCE.linformer.md"
    lines += ["## Linformer Table 3", ""]
    if extra.exists():
        lines.append(extra.read_text().strip())
    else:
        lines.append("Not generated yet. With the `linformer` variant registered: `attnscope bench --linformer-table "
                     "--n 512:65536 --k 128:2048 --heads 1 --dim 64 --markdown docs/PERFORMANCE.linformer.md`, then "
                     "rerun this script.")
    decoder = REPO / "docs" / "PERFORMANCE.decoder.md"
    if decoder.exists():  # bench/peers/decoder_prefill.py: the decoder's prefill against llama.cpp's, paired
        lines += ["", "## Decoder prefill against llama.cpp", "", decoder.read_text().strip()]
    gui = REPO / "docs" / "PERFORMANCE.gui.md"
    if gui.exists():  # measured in the GUI by hand (gui --measure-latency / --measure-first-view / --measure-pan)
        lines += ["", "## GUI responsiveness", "", gui.read_text().strip()]
    kernels = REPO / "docs" / "PERFORMANCE.kernels.md"
    if kernels.exists():  # measured by hand: what docs/ARCHITECTURE.md's design choices rest on
        lines += ["", "## Kernel measurements", "", kernels.read_text().strip()]
    build = REPO / "docs" / "PERFORMANCE.build.md"
    if build.exists():  # measured by hand: the README's test command from an empty compiler cache
        lines += ["", "## Build time", "", build.read_text().strip()]
    cuda = REPO / "docs" / "PERFORMANCE.cuda.md"
    if cuda.exists():  # measured on a GPU machine by scripts/gpu-check.sh, written there (docs/GPU.md)
        lines += ["", cuda.read_text().strip(), ""]
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
    ap.add_argument("--runs", type=int, default=5, help="timed runs per process, both sides (≥ 5 for ours)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed warm-up runs per process, both sides")
    ap.add_argument("--budget-s", type=float, default=30.0, help="per-point budget passed to attnscope bench")
    ap.add_argument("--process-timeout-s", "--peer-timeout-s", type=float, default=300.0,
                    help="a process (ours or a peer's) slower than this is stopped and its row ends")
    ap.add_argument("--only", action="append", help="run only these peer ids (repeat)")
    ap.add_argument("--pairs", "--processes", type=int, default=3,
                    help="pairs of processes per row, run ours, peer, ours, peer, … (default 3)")
    ap.add_argument("--skip-install", action="store_true", help="use the venv as it is")
    ap.add_argument("--install-only", action="store_true", help="install the peers and stop")
    ap.add_argument("--log-dir", default=str(VENV.parent / "peers-logs"),
                    help="pip logs, and per run a folder with every process's JSON and pairs.json")
    ap.add_argument("--note", default="", help="a line added to the machine section (e.g. 'shared machine: noisy')")
    ap.add_argument("--out", default=str(REPO / "docs/PERFORMANCE.md"), help="the markdown written")
    ap.add_argument("--isa-cap", choices=sorted(ISA_CAPS), default="",
                    help="hold OpenBLAS, torch and MKL to this ISA's kernels (our binary must be built for it, e.g. "
                         "-march=x86-64-v3 for avx2): what a CPU without the wider ISA gets")
    ap.add_argument("--beside", help="the pairs.json of another run (e.g. an --isa-cap avx2 run) to show beside this one")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.n = args.n or [4096]
    if args.pairs < 1:
        ap.error("--pairs must be ≥ 1")

    if args.worker:
        print(json.dumps(worker(args.worker, args.n[0], args.heads, args.dim, args.threads, args.warmup, args.runs)))
        return 0

    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    install_status = installed_status() if args.skip_install else install(log_dir)
    print(f"[peers] install status: {json.dumps(install_status, indent=1)}", flush=True)
    if args.install_only:
        return 0

    beside = load_beside(Path(args.beside)) if args.beside else None
    if args.isa_cap:
        want = ISA_CAPS[args.isa_cap]["kernel_isa"]
        probe = Path(tempfile.mkdtemp()) / "probe.json"
        subprocess.run([args.attnscope, "bench", "--variants", "full", "--n", "64", "--heads", "1", "--dim", "16",
                        "--no-machine", "--no-progress", "--json", str(probe)], capture_output=True, check=True)
        got = json.loads(probe.read_text()).get("machine", {}).get("kernel_isa", "?")
        if got != want:
            ap.error(f"--isa-cap {args.isa_cap}: {args.attnscope} has {got} kernels, not {want}: build it with "
                     f"-DATTNSCOPE_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3")
    run_dir = log_dir / ("run-" + dt.datetime.now().strftime("%Y%m%d-%H%M%S"))
    run_dir.mkdir(parents=True, exist_ok=True)
    registered = registered_variants(args.attnscope)
    peers = [p for p in PEERS if not args.only or p[0] in args.only]
    if args.only and len(peers) != len(args.only):
        ap.error(f"--only: unknown peer id among {args.only}; known: {', '.join(p[0] for p in PEERS)}")
    rows = []
    threads = 0
    for peer, package, what, variant, sets, _causal in peers:
        for n in args.n:
            ours_ok = "" if variant in registered else f"{variant} not registered in this build"
            peer_ok = "" if install_status.get(package) == "ok" else f"{package} not installed"
            print(f"[peers] {peer} vs {variant} {' '.join(sets)} n={n}: {args.pairs} pairs", flush=True)
            row = run_row(args, peer, package, variant, list(sets), n, ours_ok, peer_ok, threads, run_dir)
            threads = threads or row["threads"]
            row.update({"peer": peer, "package": package, "what": what, "ours": variant, "sets": list(sets), "n": n})
            rows.append(row)
            print(f"[peers]   {peer}: wall {fmt_ratio(row['wall'])}, CPU {fmt_ratio(row['cpu'])}"
                  + (f"; ours: {row['ours_error']}" if row["ours_error"] else "")
                  + (f"; peer: {row['peer_error']}" if row["peer_error"] else ""), flush=True)
    machine = next((p["machine"] for r in rows for p in r["ours_processes"]),
                   {"cpu_model": platform.processor() or "?", "measured": False})
    generated = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    (run_dir / "pairs.json").write_text(json.dumps(
        {"argv": sys.argv[1:], "generated": generated, "install": install_status, "machine": machine,
         "isa_cap": args.isa_cap, "heads": args.heads, "dim": args.dim, "n": args.n, "pairs": args.pairs,
         "rows": rows}, indent=1) + "\n")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_markdown(out, args, machine, install_status, rows, registered, beside)
    print(f"[peers] wrote {out} (every process's figures: {run_dir / 'pairs.json'})")
    return 0

if __name__ == "__main__":
    sys.exit(main())
