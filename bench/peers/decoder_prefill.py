#!/usr/bin/env python3
"""attnscope's decoder prefill against llama.cpp's on the same GGUF, text length and thread count (run by hand).

Prefill: one forward pass over an n-token prompt, the first thing a decoder does with a text (and all attnscope's
views need). Ours is the Google Benchmark BM_DecoderPrefill/<n>/0 of build/bench/attnscope_microbench (fp32 weights
dequantised once at load, Eigen GEMMs); the peer is llama-cpp-python (its vendored llama.cpp, CPU backend:
quantised weights, activations quantised to 8 bits for the integer dot products) evaluating the same token ids in
one batch. Each pair runs ours, then the peer, in fresh processes back to back (--pairs P), so a slow phase of a
shared machine lands on both sides of a pair; a row reports the median of its per-pair ratios with min and max, each
side's median tokens per second, and each process's peak resident memory (wait4's ru_maxrss: weights, activations,
allocator, everything the process held).

    python3 bench/peers/decoder_prefill.py --microbench build/bench/attnscope_microbench \\
        --python ~/.cache/attnscope/peers-venv/bin/python --n 512 2048 --pairs 3 --threads 2

--python is an interpreter with llama_cpp importable (pip install llama-cpp-python==0.3.36 builds it from source,
~10 minutes on 2 cores); without it the script says so and measures nothing for the peer.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

DEFAULT_MODEL = Path(os.environ.get("ATTNSCOPE_CACHE", Path.home() / ".cache/attnscope")) / \
    "models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf"

# The peer's side, run as `python -c PEER ARGS_JSON`: the same token ids as BM_DecoderPrefill (a sentence's pieces
# repeated to n), one warm-up evaluation, then R timed ones from an empty cache.
PEER = r"""
import json, sys, time
import llama_cpp
a = json.loads(sys.argv[1])
llm = llama_cpp.Llama(model_path=a["model"], n_ctx=max(a["n"], 512), n_batch=a["n"], n_ubatch=a["n"],
                      n_threads=a["threads"], n_threads_batch=a["threads"], logits_all=False, verbose=False)
base = llm.tokenize(a["sentence"].encode(), add_bos=False, special=False)
ids = [base[k % len(base)] for k in range(a["n"])]
times = []
for r in range(a["runs"] + 1):
    llm.reset()
    t0 = time.perf_counter()
    llm.eval(ids)
    if r: times.append(time.perf_counter() - t0)
print(json.dumps({"seconds": sorted(times)[len(times) // 2], "version": llama_cpp.__version__}))
"""
MARKER = "<!-- written by hand below: kept when bench/peers/decoder_prefill.py measures again -->"
SENTENCE = "Efficient attention replaces the quadratic softmax with sparse, low-rank or kernelised approximations. "


def peak_wrapped(cmd: list[str], env: dict) -> tuple[str, int]:
    """Runs cmd under a python wrapper that waits for it with os.wait4 and prints its ru_maxrss (KiB) last."""
    wrapper = ("import os, sys, subprocess\n"
               "p = subprocess.Popen(sys.argv[1:])\n"
               "_, status, ru = os.wait4(p.pid, 0)\n"
               "sys.stdout.flush()\n"
               "print('PEAK_KIB', ru.ru_maxrss, os.waitstatus_to_exitcode(status), flush=True)\n")
    proc = subprocess.run([sys.executable, "-c", wrapper, *cmd], capture_output=True, text=True, env=env)
    lines = proc.stdout.strip().splitlines()
    if not lines or not lines[-1].startswith("PEAK_KIB"):
        raise RuntimeError(f"{cmd[0]}: no result ({proc.stderr.strip()[-400:]})")
    _, kib, code = lines[-1].split()
    if int(code) != 0:
        raise RuntimeError(f"{cmd[0]} failed ({code}): {proc.stderr.strip()[-400:]}")
    return "\n".join(lines[:-1]), int(kib)


def ours(args, n: int, env: dict) -> tuple[float, int]:
    out, kib = peak_wrapped([args.microbench, f"--benchmark_filter=^BM_DecoderPrefill/{n}/0/",
                             "--benchmark_format=json", f"--benchmark_repetitions={args.runs}",
                             "--benchmark_report_aggregates_only=true"], env)
    report = json.loads(out)
    rows = report["benchmarks"]  # one repetition reports no aggregates: its own row is the median
    median = next((b for b in rows if b.get("aggregate_name") == "median"), rows[0])
    seconds = median["real_time"] / {"ms": 1e3, "us": 1e6, "ns": 1e9, "s": 1.0}[median["time_unit"]]
    return n / seconds, kib


def peer(args, n: int, env: dict) -> tuple[float, int, str]:
    payload = json.dumps({"model": str(args.model), "n": n, "threads": args.threads, "runs": args.runs,
                          "sentence": SENTENCE})
    out, kib = peak_wrapped([args.python, "-c", PEER, payload], env)
    result = json.loads(out.strip().splitlines()[-1])
    return n / result["seconds"], kib, result["version"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--microbench", default="build/bench/attnscope_microbench")
    ap.add_argument("--python", help="an interpreter with llama_cpp (llama-cpp-python 0.3.36)")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--n", type=int, nargs="+", default=[512, 2048])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--runs", type=int, default=3, help="timed runs per process (median)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--markdown", type=Path, default=Path(__file__).resolve().parents[2] / "docs/PERFORMANCE.decoder.md",
                    help="written with the table (run_peers.py includes it in docs/PERFORMANCE.md)")
    ap.add_argument("--note", default="", help="a sentence about the conditions, printed under the table")
    args = ap.parse_args()
    lines: list[str] = []
    say = lambda text: (print(text), lines.append(text))
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OMP_WAIT_POLICY="passive")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
    isa = "AVX-512" if "avx512f" in open("/proc/cpuinfo").read() else "AVX2"
    import datetime
    # The command as run, without the note (printed below the table) and with the interpreter's path (a machine's) named.
    shown_args = []
    for k, a in enumerate(sys.argv[1:]):
        previous = sys.argv[k]  # sys.argv[1:][k - 1]
        if a == "--note" or (k > 0 and previous == "--note"):
            continue
        shown_args.append("PYTHON_WITH_LLAMA_CPP" if k > 0 and previous == "--python" else a)
    say(f"Measured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by `python3 bench/peers/decoder_prefill.py "
        f"{' '.join(shown_args)}` on {cpu}, {os.cpu_count()} logical CPUs ({isa}); {args.threads} threads each side; "
        f"model {args.model.name}; {args.pairs} pairs of processes, {args.runs} timed runs in each (median). "
        "Prefill: one forward pass over n tokens of a repeated sentence; tokens per second = n / that time. Peak RSS: "
        "the process's largest resident memory (weights, activations, allocator).")
    say("")
    say("| n | attnscope tok/s | llama.cpp tok/s | ratio ours/peer (median [min, max] of pairs) | peak RSS attnscope | peak RSS llama.cpp |")
    say("|---|---|---|---|---|---|")
    for n in args.n:
        ours_tps, peer_tps, ratios, ours_kib, peer_kib, version = [], [], [], [], [], "?"
        for _ in range(args.pairs):
            t, k = ours(args, n, env)
            ours_tps.append(t), ours_kib.append(k)
            if args.python:
                try:
                    pt, pk, version = peer(args, n, env)
                except RuntimeError as e:
                    print(f"peer failed at n = {n}: {e}", file=sys.stderr)
                    args.python = None
                    continue
                peer_tps.append(pt), peer_kib.append(pk), ratios.append(t / pt)
        o = statistics.median(ours_tps)
        if ratios:
            p = statistics.median(peer_tps)
            say(f"| {n} | {o:.0f} | {p:.0f} (llama-cpp-python {version}) | {statistics.median(ratios):.2f} "
                f"[{min(ratios):.2f}, {max(ratios):.2f}] | {max(ours_kib) / 1024:.0f} MiB | {max(peer_kib) / 1024:.0f} MiB |")
        else:
            say(f"| {n} | {o:.0f} | not measured (no --python with llama_cpp) | - | {max(ours_kib) / 1024:.0f} MiB | - |")
    if args.note:
        say("")
        say(args.note)
    # What follows the marker is written by hand (what the numbers mean) and kept when the table is measured again.
    kept = ""
    if args.markdown.exists() and MARKER in args.markdown.read_text():
        kept = args.markdown.read_text().split(MARKER, 1)[1]
    args.markdown.write_text("\n".join(lines) + "\n\n" + MARKER + kept.rstrip("\n") + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
