#!/usr/bin/env python3
"""Makes tests/golden/streaming_golden.json: StreamingLLM perplexities of SmolLM2-135M-Instruct on
assets/samples/harbour.txt, from the numpy forward of make_decoder_golden.py (float64, written from the
architecture), each attention built here from its definition, every layer and head replaced:

  "window_only"  query t attends keys j <= t with j > t - w, at their text positions;
  "sinks_text"   query t attends keys j <= t with j < s or j > t - w, at their text positions (a mask);
  "sinks_cache"  StreamingLLM's cache (Xiao et al. 2023, section 3.2): the cache holds the s first tokens and
                 the w most recent ones (all tokens 0..t while t < s + w) and RoPE positions are assigned
                 within the cache (0 .. size-1, the query last), so raw q and k are rotated afresh per query;
  "recompute"    the paper's sliding window with re-computation: for each sampled position t, a fresh forward
                 over ids[max(0, t - w + 1) .. t] (positions 0 ..) and the NLL of ids[t + 1] from its last row.
Positions sampled for "recompute": RECOMPUTE_SAMPLES spread evenly over [w, n - 2], rounded to nearest
(attnscope's rule in measure_streaming). Perplexity = exp(mean NLL over the positions used).
The token ids are decoder_golden.json's "perplexity" ids (llama.cpp's tokenisation), so only numpy and gguf
are needed:
    /tmp/smol/venv/bin/python tests/golden/make_streaming_golden.py [MODEL.gguf] [OUT.json]
"""
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_decoder_golden import Model, nll_of, ppl_of, g7, dumps  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODEL = os.path.expanduser("~/.cache/attnscope/models/SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf")
WINDOW = 64
SINKS = 4
RECOMPUTE_SAMPLES = 2


def softmax_rows(s):
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    return p / p.sum(axis=-1, keepdims=True)


def masked_attend(model, keep):
    """Attention over text positions with keep(t, j) choosing the keys of query t."""
    def attend(_layer, q, k, v):
        n, H, hd = q.shape
        G = k.shape[1]
        rep = H // G
        q, k = model.rope(q), model.rope(k)
        t = np.arange(n)[:, None]
        j = np.arange(n)[None, :]
        mask = np.where(keep(t, j), 0.0, -np.inf)
        s = np.einsum("igrd,jgd->grij", q.reshape(n, G, rep, hd), k) / math.sqrt(hd) + mask
        return np.einsum("grij,jgd->igrd", softmax_rows(s), v).reshape(n, H * hd)
    return attend


def cache_attend(model, sinks, window):
    """StreamingLLM's cache: per query, the cached tokens get positions 0 .. size-1 within the cache."""
    def attend(_layer, q, k, v):
        n, H, hd = q.shape
        G = k.shape[1]
        rep = H // G
        out = np.empty((n, H * hd))
        for t in range(n):
            idx = np.arange(t + 1) if t < sinks + window else np.r_[np.arange(sinks), np.arange(t - window + 1, t + 1)]
            size = len(idx)
            kk = model.rope(k[idx], positions=np.arange(size))                     # (size, G, hd)
            qq = model.rope(q[t:t + 1], positions=[size - 1])[0].reshape(G, rep, hd)
            s = np.einsum("grd,jgd->grj", qq, kk) / math.sqrt(hd)
            out[t] = np.einsum("grj,jgd->grd", softmax_rows(s), v[idx]).reshape(H * hd)
        return out
    return attend


def main():
    model_path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_MODEL
    out_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "streaming_golden.json")
    with open(os.path.join(HERE, "decoder_golden.json"), encoding="utf-8") as f:
        ids = json.load(f)["perplexity"]["ids"]
    n = len(ids)
    t0 = time.time()
    model = Model(model_path)
    w, s = WINDOW, SINKS
    result = {"file": "assets/samples/harbour.txt", "n": n, "window": w, "sinks": s}
    runs = {
        "window_only": masked_attend(model, lambda t, j: (j <= t) & (j > t - w)),
        "sinks_text": masked_attend(model, lambda t, j: (j <= t) & ((j < s) | (j > t - w))),
        "sinks_cache": cache_attend(model, s, w),
    }
    for name, attend in runs.items():
        logits, _ = model.forward(ids, attend=attend)
        result[name] = g7(ppl_of(nll_of(logits, ids)))
        print(f"{name}: {result[name]} ({time.time() - t0:.1f}s)")
    lo, hi = min(w, n - 2), n - 2
    positions = sorted({lo + int(round((hi - lo) * k / (RECOMPUTE_SAMPLES - 1))) for k in range(RECOMPUTE_SAMPLES)})
    nll = []
    for t in positions:
        piece = ids[max(0, t - w + 1): t + 1]
        logits, _ = model.forward(piece)
        nll.append(float(nll_of(logits[-1:], [piece[-1], ids[t + 1]])[0]))
    result["recompute_positions"] = positions
    result["recompute"] = g7(math.exp(sum(nll) / len(nll)))
    print(f"recompute at {positions}: {result['recompute']} ({time.time() - t0:.1f}s)")
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(dumps(result) + "\n")
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
