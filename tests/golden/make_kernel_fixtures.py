#!/usr/bin/env python3
"""Peer fixtures for the kernel variants (performer, linear, efficient).

Runs the reference implementations from PyPI on small fixed inputs and writes kernel_fixtures.json, which
tests/unit/test_kernel_golden.cpp compares against. CPU only, float64 peers on float32-rounded inputs (the
same numbers the C++ side reads).

    python3 -m venv /tmp/golden && /tmp/golden/bin/pip install torch numpy performer-pytorch
    # fast-transformers 0.4.0 compiles C++ extensions, and CUDA ones too whenever `nvcc` runs (which fails
    # for GPU architectures the local nvcc no longer knows). For a CPU-only build, unpack the sdist and make
    # setup.py's cuda_toolkit_available() return False:
    /tmp/golden/bin/pip download --no-deps --no-binary :all: --no-build-isolation pytorch-fast-transformers==0.4.0
    tar xzf pytorch-fast-transformers-0.4.0.tar.gz && cd pytorch-fast-transformers-0.4.0
    sed -i 's/^def cuda_toolkit_available():/&\n    return False/' setup.py
    /tmp/golden/bin/pip install --no-build-isolation . && cd -
    /tmp/golden/bin/python tests/golden/make_kernel_fixtures.py

Peers and what each output is (see tests/golden/README.md for the conventions that differ):
  performer-pytorch 1.1.4  FastAttention with our ω copied into its projection_matrix buffer (as shipped,
                           eps = 1e-4 on every feature) and its own softmax_kernel / generalized_kernel with
                           eps = 0 + linear_attention / causal_linear_attention_noncuda (the paper's form)
  pytorch-fast-transformers 0.4.0  LinearAttention / CausalLinearAttention (elu + 1, eps = 1e-6)
When fast-transformers cannot be imported the script computes its documented formula with torch ops instead
and labels those outputs "formula (fast-transformers not installed)".
"""
import json
import math
import os
import sys

import numpy as np
import torch

H, N, D, DV, M = 2, 16, 8, 4, 12  # heads, positions, head dim, value dim, random features
SEED = 20210301

torch.manual_seed(SEED)
rng = np.random.default_rng(SEED)


def f32(a):
    """Round to float32 (what the C++ side stores) and return float64 for the peers."""
    return np.asarray(a, dtype=np.float32).astype(np.float64)


Q = f32(0.6 * rng.standard_normal((H, N, D)))
K = f32(0.6 * rng.standard_normal((H, N, D)))
V = f32(rng.standard_normal((H, N, DV)))

import performer_pytorch
from performer_pytorch.performer_pytorch import (FastAttention, causal_linear_attention_noncuda,
                                                 gaussian_orthogonal_random_matrix, generalized_kernel,
                                                 linear_attention, softmax_kernel)

# performer-pytorch's own sampler draws ω (orthogonal blocks, χ(d) norms); both sides then use the same ω.
omega = f32(gaussian_orthogonal_random_matrix(M, D, scaling=0).numpy())

q4, k4, v4 = (torch.from_numpy(x)[None] for x in (Q, K, V))  # (1, H, N, ·)
w = torch.from_numpy(omega)
outputs = {}
labels = {}


def store(name, tensor, label):
    # A query whose features are all 0 (ReLU kernel, ε = 0) makes the peer divide 0 by 0: NaN is stored as
    # null, and the C++ side expects 0 there (it reports D = 0 rows instead of producing NaN).
    values = tensor.detach().reshape(-1).tolist()
    outputs[name] = [v if math.isfinite(v) else None for v in values]
    labels[name] = label


def fast_attention(**kwargs):
    fa = FastAttention(dim_heads=D, nb_features=M, **kwargs).double()
    with torch.no_grad():
        fa.projection_matrix.copy_(w)
    return fa(q4, k4, v4)[0]


with torch.no_grad():
    ver = "performer-pytorch " + getattr(performer_pytorch, "__version__", "1.1.4")
    store("performer_default", fast_attention(causal=False), ver + " FastAttention (eps=1e-4)")
    store("performer_causal_default", fast_attention(causal=True), ver + " FastAttention causal (eps=1e-4, +1e-6 on Σk)")
    store("performer_relu_default", fast_attention(generalized_attention=True),
          ver + " FastAttention generalized ReLU (kernel_epsilon=1e-3)")
    store("efficient_no_projection", fast_attention(no_projection=True), ver + " FastAttention no_projection")
    qf = softmax_kernel(q4, projection_matrix=w, is_query=True, eps=0.0)
    kf = softmax_kernel(k4, projection_matrix=w, is_query=False, eps=0.0)
    store("performer_eps0", linear_attention(qf, kf, v4)[0], ver + " softmax_kernel(eps=0) + linear_attention")
    store("performer_causal_eps0", causal_linear_attention_noncuda(qf, kf, v4, eps=0.0)[0],
          ver + " softmax_kernel(eps=0) + causal_linear_attention_noncuda(eps=0)")
    qr = generalized_kernel(q4, projection_matrix=w, kernel_epsilon=0.0)
    kr = generalized_kernel(k4, projection_matrix=w, kernel_epsilon=0.0)
    store("performer_relu_eps0", linear_attention(qr, kr, v4)[0],
          ver + " generalized_kernel(ReLU, kernel_epsilon=0) + linear_attention")

# fast-transformers works on (batch, length, heads, dim).
qn, kn, vn = (torch.from_numpy(x).permute(1, 0, 2)[None].contiguous() for x in (Q, K, V))
try:
    import fast_transformers
    from fast_transformers.attention import CausalLinearAttention, LinearAttention
    from fast_transformers.masking import FullMask, LengthMask, TriangularCausalMask

    lengths = LengthMask(torch.tensor([N]), max_len=N)
    with torch.no_grad():
        lin = LinearAttention(D).double()(qn, kn, vn, FullMask(N, N), lengths, lengths)
        # Its CPU causal product exists for float32 only.
        cau = CausalLinearAttention(D)(qn.float(), kn.float(), vn.float(), TriangularCausalMask(N), lengths, lengths)
    ft = "pytorch-fast-transformers " + getattr(fast_transformers, "__version__", "0.4.0")
    store("linear_fast_transformers", lin[0].permute(1, 0, 2), ft + " LinearAttention (elu+1, eps=1e-6)")
    store("linear_causal_fast_transformers", cau[0].permute(1, 0, 2).double(),
          ft + " CausalLinearAttention (elu+1, eps=1e-6; float32, its CPU kernel has no float64)")
except ImportError as e:
    print("fast-transformers not importable (" + str(e) + "): computing its documented formula instead", file=sys.stderr)
    phi = lambda x: torch.nn.functional.elu(x) + 1
    with torch.no_grad():
        fq, fk = phi(q4[0]), phi(k4[0])
        kv = torch.einsum("hnd,hne->hde", fk, v4[0])
        z = 1 / (torch.einsum("hnd,hd->hn", fq, fk.sum(1)) + 1e-6)
        store("linear_fast_transformers", torch.einsum("hnd,hde,hn->hne", fq, kv, z),
              "formula (fast-transformers not installed): elu+1, eps=1e-6")
        zc = 1 / (torch.einsum("hnd,hnd->hn", fq, fk.cumsum(1)) + 1e-6)
        ctx = torch.einsum("hnd,hne->hnde", fk, v4[0]).cumsum(1)
        store("linear_causal_fast_transformers", torch.einsum("hnd,hnde,hn->hne", fq, ctx, zc),
              "formula (fast-transformers not installed): causal elu+1, eps=1e-6")

fixture = {
    "about": "kernel-variant peer outputs; regenerate with tests/golden/make_kernel_fixtures.py",
    "torch": torch.__version__,
    "shape": {"H": H, "n": N, "d": D, "dv": DV, "m": M},
    "Q": Q.reshape(-1).tolist(), "K": K.reshape(-1).tolist(), "V": V.reshape(-1).tolist(),
    "omega": omega.reshape(-1).tolist(),
    "outputs": outputs,
    "labels": labels,
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernel_fixtures.json")
with open(path, "w") as f:
    json.dump(fixture, f, indent=0)
    f.write("\n")
for name, label in labels.items():
    print(f"{name:34s} {label}")
print("wrote", path)
