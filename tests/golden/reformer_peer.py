#!/usr/bin/env python3
"""Golden fixtures for `lsh` from a peer implementation: reformer-pytorch's LSHAttention (PyPI, CPU).

    python3 -m venv /tmp/peer && /tmp/peer/bin/pip install torch reformer-pytorch numpy
    /tmp/peer/bin/python tests/golden/reformer_peer.py            # writes tests/golden/reformer_lsh.json

The peer draws its rotations with torch.randn inside hash_vectors(); we replace torch.randn for the duration of
the call so it hashes with rotations we chose, and the fixture carries them (in our (R, d, n_b/2) layout) so
tests/unit/test_lsh_golden.cpp can feed the same ones to `lsh` through lsh_run().

Peer configuration that matches docs/VARIANTS.md: shared QK (the peer only has that), keys L2-normalised, scale d^-½,
chunk c = bucket_size with one look-back chunk, attend_across_buckets=True (chunks, not buckets, decide),
allow_duplicate_attention=False (the log(count) duplicate discount), rehash_each_round=True, dropout 0.

Where the peer's convention differs (documented in the fixture's "conventions" and followed by the test):
  * look-back wrap: the peer sorts all rounds as one sequence, so the first chunk of round r looks back at the
    LAST CHUNK OF ROUND r−1 (round 0 at the last round). We follow the paper's per-round formulation: each
    round is an independent hash h^(r), and its first chunk looks back at the last chunk of the SAME round.
    Rows that sit in the first chunk of some round (of more than one) therefore differ; the test compares
    every row for one round and the rows never in a first chunk for several rounds.
  * self score: the peer uses −5e4 (chosen for half precision), we use −1e5 (the paper / trax). Both give a
    weight of exactly 0 in float32 whenever another key is allowed, and 1 when the self cell is alone.
  * rows whose only allowed key is themselves (causal row 0): the peer combines rounds through an absolute
    log-sum-exp near −5e4, where float32 spacing (~0.004) loses ~4e-4 of the row's mass; we form the round
    weights from differences L_r − max_r L_r, so the output is exactly v_i. The test checks ours exactly and
    bounds the peer.
  * n must be a multiple of 2·bucket_size in the peer (no padding) and n_b = n / bucket_size is implied;
    we pad and take n_b as a parameter, so the fixtures use n_b = n / c.
"""
import json
import os

import numpy as np
import torch
from reformer_pytorch.reformer_pytorch import LSHAttention

CASES = [  # n, d, bucket_size (= our chunk c), n_hashes (= our rounds), causal, seed
    (64, 16, 8, 1, False, 1),
    (64, 16, 8, 4, False, 2),
    (64, 16, 8, 4, True, 3),
    (96, 8, 16, 2, False, 4),
]


def short(values):
    """Seven significant digits: the test's tolerance is 1e-4 relative, and the fixture stays small."""
    return [float(f"{x:.7g}") for x in np.asarray(values, dtype=np.float64).ravel()]


def run_case(n, d, c, rounds, causal, seed):
    rng = np.random.default_rng(seed)
    nb = n // c
    while True:
        qk = rng.standard_normal((1, n, d)).astype(np.float32)
        v = rng.standard_normal((1, n, d)).astype(np.float32)
        rot = rng.standard_normal((rounds, d, nb // 2)).astype(np.float32)  # our layout (R, d, n_b/2)
        # No near-ties in argmax([xR; −xR]): both sides must agree on every bucket.
        proj = np.einsum("td,rdb->rtb", qk[0].astype(np.float64), rot.astype(np.float64))
        both = np.sort(np.concatenate([proj, -proj], axis=-1), axis=-1)
        if (both[..., -1] - both[..., -2]).min() > 1e-3:
            break
    peer_rot = torch.from_numpy(np.ascontiguousarray(rot.transpose(1, 0, 2)[None]))  # (1, d, R, n_b/2)
    attn = LSHAttention(bucket_size=c, n_hashes=rounds, causal=causal, allow_duplicate_attention=False,
                        attend_across_buckets=True, rehash_each_round=True, random_rotations_per_head=False,
                        return_attn=True, dropout=0.0)
    attn.eval()
    real_randn = torch.randn
    torch.randn = lambda shape, **kw: peer_rot.clone().to(kw.get("dtype", torch.float32))
    try:
        with torch.no_grad():
            out, p, buckets = attn(torch.from_numpy(qk), torch.from_numpy(v))
    finally:
        torch.randn = real_randn
    buckets = buckets.reshape(rounds, n).numpy() - (np.arange(rounds) * nb)[:, None]
    return {
        "n": n, "d": d, "chunk": c, "buckets": nb, "rounds": rounds, "causal": causal,
        # Inputs keep every float32 bit (9 digits): the hash must see exactly the peer's values.
        "qk": [float(f"{x:.9g}") for x in qk.ravel()], "v": [float(f"{x:.9g}") for x in v.ravel()],
        "rotations": [float(f"{x:.9g}") for x in rot.ravel()],
        "peer_buckets": buckets.ravel().astype(int).tolist(),
        "peer_out": short(out.numpy()), "peer_P": short(p.numpy()),
    }


def main():
    torch.manual_seed(0)
    fixture = {
        "peer": f"reformer-pytorch LSHAttention (torch {torch.__version__})",
        "conventions": "first chunk of round r: peer looks back at the last chunk of round r-1, attnscope at the "
                       "last chunk of round r (paper: rounds are independent); self score peer -5e4, attnscope -1e5",
        "cases": [run_case(*c) for c in CASES],
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reformer_lsh.json")
    with open(path, "w") as f:
        json.dump(fixture, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path} ({os.path.getsize(path)} bytes, {len(CASES)} cases)")


if __name__ == "__main__":
    main()
