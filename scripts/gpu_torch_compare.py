#!/usr/bin/env python3
"""Compares attnscope's flash kernel with torch's scaled_dot_product_attention on the same GPU.

Usage: gpu_torch_compare.py DUMP_DIR
DUMP_DIR holds what `flash_attention_dev 2 n d H causal DUMP_DIR` wrote: q, k, v (inputs), o, lse (the kernel's
outputs) as raw float32 (H, n, d), and meta.txt (sizes, scale, kernel milliseconds by CUDA events).
Prints a Markdown section: element-wise error of O against SDPA in fp32 and the kernel-to-kernel time ratio.
Exits 1 when the outputs disagree beyond tolerance, 2 when torch or CUDA is missing.
"""
import sys
from pathlib import Path

import numpy as np


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("torch is not installed: pip install torch (a CUDA build) to compare with SDPA", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("torch has no CUDA device: install a CUDA build of torch to compare with SDPA", file=sys.stderr)
        return 2
    folder = Path(sys.argv[1])
    meta = dict(line.split(maxsplit=1) for line in (folder / "meta.txt").read_text().splitlines() if line.strip())
    H, n, d, causal = int(meta["H"]), int(meta["n"]), int(meta["d"]), meta["causal"] == "1"
    scale, flash_ms = float(meta["scale"]), float(meta["ms"])

    def load(name):
        return torch.from_numpy(np.fromfile(folder / f"{name}.f32", dtype=np.float32).reshape(H, n, d)).cuda()

    q, k, v, o = load("q"), load("k"), load("v"), load("o")
    # fp32 SDPA with TF32 off, so the reference has the same precision as the kernel.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    ref = F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=causal, scale=scale)[0]
    diff = (o - ref).abs()
    rel = (torch.linalg.vector_norm(o - ref) / torch.linalg.vector_norm(ref)).item()
    bad = int((diff > 1e-5 + 1e-4 * ref.abs()).sum().item())

    for _ in range(3):
        F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=causal, scale=scale)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    repeats = 20
    torch.cuda.synchronize()
    start.record()
    for _ in range(repeats):
        F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=causal, scale=scale)
    stop.record()
    torch.cuda.synchronize()
    sdpa_ms = start.elapsed_time(stop) / repeats
    ok = bad == 0
    print(f"### flash vs torch SDPA (H={H}, n={n}, d={d}, {'causal' if causal else 'bidirectional'}, fp32)")
    print(f"- torch {torch.__version__}, device {torch.cuda.get_device_name(0)}")
    print(f"- max |O - SDPA| = {diff.max().item():.3e}, relative Frobenius error = {rel:.3e}, "
          f"elements outside 1e-5 + 1e-4·|ref|: {bad} -> {'OK' if ok else 'FAIL'}")
    print(f"- kernel time: attnscope flash {flash_ms:.4f} ms, torch SDPA {sdpa_ms:.4f} ms, "
          f"ratio {flash_ms / sdpa_ms:.2f}x (design target: within 2x)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
