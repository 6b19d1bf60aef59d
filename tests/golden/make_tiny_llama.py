#!/usr/bin/env python3
"""Makes tests/golden/tiny_llama/: a tiny random llama-architecture GGUF in a mix of ggml tensor types, its
reference outputs, and a set of broken or unsupported GGUF files for the loader's error paths.

Command line (CPU only; run once, the files are committed; re-running gives byte-identical files):
    /tmp/smol/venv/bin/python tests/golden/make_tiny_llama.py [OUT_DIR]
(the venv of make_decoder_golden.py: numpy, gguf 0.19, llama-cpp-python 0.3.36). OUT_DIR defaults to
tests/golden/tiny_llama/ next to this script.

tiny-llama-mixed.gguf: architecture "llama", 2 blocks, d_model 64, 4 query heads sharing 2 KV heads (head dim 16,
rope.dimension_count 16, RoPE NORM layout), SwiGLU FFN 96, RMSNorm eps 1e-6, rope base 10000, context 64,
untied output.weight, llama.vocab_size 300, add_bos_token false. Weights are seeded random: matrices N(0, 0.3^2),
norms 1 + N(0, 0.1^2), stored in many ggml types so the loader's dequantisation is exercised (TENSOR_TYPES below;
quantised with gguf.quants.quantize). Tokenizer: "gpt2" BPE with pre-tokeniser "smollm": 3 control tokens
(<|endoftext|>, <|im_start|>, <|im_end|>), the 256 GPT-2 byte-level symbols (bytes_to_unicode order) and the
results of the 41 MERGES: vocabulary 300.

tiny_llama_golden.json:
  "model"      file, bytes, sha256, hparams (from make_decoder_golden.Model), "tensor_types" per tensor.
  "tokenizer"  list of {"text", "ids"}: llama.cpp's Llama(vocab_only=True).tokenize(text, add_bos=False,
               special=False) for TEXTS.
  "logits"     on TEXTS[0] (llama.cpp ids): "numpy" = the independent numpy forward of make_decoder_golden.py
               (weights dequantised with gguf.quants.dequantize, float64 arithmetic), full n x vocab rows with 9
               significant digits; "llama_cpp" = Llama(n_ctx=64, logits_all=True, F32 KV cache).eval(ids)
               scores, same shape, 7 digits; "max_abs_diff" and "top1_agree" between the two. llama.cpp
               quantises activations to Q8 before Q4/Q5/Q8 matmuls and rounds them to F16/BF16 for F16/BF16
               weights, and this random net (weights 0.3, sharp attention) amplifies that rounding, so the gap
               is large (~0.8 on logits up to ~9); "f32_copy_max_abs_diff" is the same comparison on an all-F32
               copy of the weights (not committed), where llama.cpp rounds nothing: it checks the numpy forward.
  "bad_files"  for each broken file, what llama.cpp does with it, in a child process, for reference only:
               "vocab_only" and "full" loads, each {"load": the exception text or "loaded (n_vocab N)",
               "tokenize": the ids of "hello world" after a vocab_only load, "log": llama.cpp's log lines
               that name the problem}; "crashed (exit status -6)" is an abort (GGML_ASSERT).

Broken / unsupported files:
  other-arch.gguf        a small, well-formed architecture "gpt2" file (gpt2.* keys, the same vocabulary with
                         pre-tokeniser "gpt-2", only token_embd and position_embd tensors).
  truncated.gguf         tiny-llama-mixed.gguf cut inside its tensor data (first 60% of the bytes).
  header-only.gguf       the first 40 bytes of tiny-llama-mixed.gguf (cut inside the metadata).
  not-gguf.gguf          200 bytes of plain text.
  bad-tensor-type.gguf   tiny-llama-mixed.gguf with blk.0.attn_q.weight's type patched to 4 (the removed Q4_2).
  missing-tensor.gguf    the tiny llama written without blk.1.ffn_down.weight.
  no-vocab.gguf          the tiny llama with tokenizer.ggml.model "none" and no tokenizer arrays (llama.vocab_size
                         kept, as convert_hf_to_gguf.py writes it: llama.cpp then reports 300 dummy tokens).
"""
import hashlib
import importlib.metadata
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import GGUFReader, GGUFWriter, TokenType
from gguf.quants import quantize

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_decoder_golden as mdg  # noqa: E402  (the numpy llama forward and the JSON layout)

SEED = 20250301
N_LAYER, D, N_HEAD, N_KV, D_FF, CTX = 2, 64, 4, 2, 96, 64
HEAD_DIM = D // N_HEAD

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
# Merge rules in rank order; each joins two existing tokens and adds their concatenation to the vocabulary.
MERGES = ["Ġ t", "Ġ a", "i n", "h e", "Ġ Ġ", "e r", "a n", "o n", "r e", "Ġt he", "e n", "a t", "o r", "e s",
          "Ġ s", "Ġ o", "Ġ w", "i s", "e d", "Ġ c", "i t", "Ġ f", "a r", "Ġ b", "Ġ p", "a l", "o u", "n g",
          "in g", "Ġ i", "Ġ m", "Ġ d", "l e", "Ġ h", "Ġo f", "n d", "Ġa nd", "ĠĠ ĠĠ", "Ċ Ċ", "Ġ 1", "c h"]

# Tensor name -> stored ggml type. Norms are F32.
TENSOR_TYPES = {
    "token_embd.weight": T.Q8_0,
    "output.weight": T.F16,
    "output_norm.weight": T.F32,
    "blk.0.attn_q.weight": T.Q4_0,
    "blk.0.attn_k.weight": T.Q4_1,
    "blk.0.attn_v.weight": T.Q5_0,
    "blk.0.attn_output.weight": T.Q5_1,
    "blk.0.ffn_gate.weight": T.BF16,
    "blk.0.ffn_up.weight": T.F16,
    "blk.0.ffn_down.weight": T.Q8_0,
    "blk.1.attn_q.weight": T.Q8_0,
}

TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "def f(x):\n    return x * 2  # double it\n",
    "Call 555 0199 at 10:30, room 42   then 7 8 9.",
    "Où est la bibliothèque ? Déjà vu, ça coûte 10 € à l'hôtel.",
]

BAD_FILES = ["other-arch.gguf", "truncated.gguf", "header-only.gguf", "not-gguf.gguf", "bad-tensor-type.gguf",
             "missing-tensor.gguf", "no-vocab.gguf"]


# ------------------------------------------------------------------------------------------- vocabulary

def bytes_to_unicode():
    """GPT-2's byte -> printable-symbol mapping, in GPT-2's order."""
    return [symbol for _, symbol in mdg.gpt2_byte_symbols()]


def vocabulary():
    tokens = SPECIALS + bytes_to_unicode()
    types = [TokenType.CONTROL] * len(SPECIALS) + [TokenType.NORMAL] * 256
    known = set(tokens)
    for m in MERGES:
        a, b = m.split(" ")
        assert a in known and b in known and a + b not in known, m
        tokens.append(a + b)
        types.append(TokenType.NORMAL)
        known.add(a + b)
    return tokens, [int(t) for t in types]


TOKENS, TOKEN_TYPES = vocabulary()
VOCAB = len(TOKENS)


# ------------------------------------------------------------------------------------------- weights

def weights():
    """name -> float32 array (numpy shape: rows = output features), drawn in a fixed order."""
    rng = np.random.default_rng(SEED)
    mat = lambda r, c: (rng.standard_normal((r, c)) * 0.3).astype(np.float32)  # noqa: E731
    norm = lambda: (1.0 + rng.standard_normal(D) * 0.1).astype(np.float32)      # noqa: E731
    w = {"token_embd.weight": mat(VOCAB, D)}
    for L in range(N_LAYER):
        p = f"blk.{L}."
        w[p + "attn_norm.weight"] = norm()
        w[p + "attn_q.weight"] = mat(N_HEAD * HEAD_DIM, D)
        w[p + "attn_k.weight"] = mat(N_KV * HEAD_DIM, D)
        w[p + "attn_v.weight"] = mat(N_KV * HEAD_DIM, D)
        w[p + "attn_output.weight"] = mat(D, N_HEAD * HEAD_DIM)
        w[p + "ffn_norm.weight"] = norm()
        w[p + "ffn_gate.weight"] = mat(D_FF, D)
        w[p + "ffn_up.weight"] = mat(D_FF, D)
        w[p + "ffn_down.weight"] = mat(D, D_FF)
    w["output_norm.weight"] = norm()
    w["output.weight"] = mat(VOCAB, D)
    return w


def add_tensor(writer, name, a, qtype):
    if qtype == T.F32:
        writer.add_tensor(name, a.astype(np.float32))
    elif qtype == T.F16:
        writer.add_tensor(name, a.astype(np.float16))
    else:
        writer.add_tensor(name, quantize(a, qtype), raw_dtype=qtype)


def write_llama(path, name, skip=(), vocab=True, types=None):
    types = TENSOR_TYPES if types is None else types
    w = weights()
    writer = GGUFWriter(path, "llama")
    writer.add_name(name)
    writer.add_block_count(N_LAYER)
    writer.add_context_length(CTX)
    writer.add_embedding_length(D)
    writer.add_feed_forward_length(D_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_KV)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_rope_freq_base(10000.0)
    writer.add_rope_dimension_count(HEAD_DIM)
    writer.add_vocab_size(VOCAB)
    if vocab:
        writer.add_tokenizer_model("gpt2")
        writer.add_tokenizer_pre("smollm")
        writer.add_token_list(TOKENS)
        writer.add_token_types(TOKEN_TYPES)
        writer.add_token_merges(MERGES)
        writer.add_bos_token_id(1)
        writer.add_eos_token_id(2)
        writer.add_unk_token_id(0)
        writer.add_pad_token_id(2)
        writer.add_add_bos_token(False)
        writer.add_add_space_prefix(False)
    else:
        writer.add_tokenizer_model("none")
    for n, a in w.items():
        if n not in skip:
            add_tensor(writer, n, a, types.get(n, T.F32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def write_gpt2(path):
    rng = np.random.default_rng(SEED + 1)
    d = 16
    writer = GGUFWriter(path, "gpt2")
    writer.add_name("tiny-gpt2")
    writer.add_block_count(1)
    writer.add_context_length(CTX)
    writer.add_embedding_length(d)
    writer.add_feed_forward_length(4 * d)
    writer.add_head_count(2)
    writer.add_layer_norm_eps(1e-5)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(TOKENS)
    writer.add_token_types(TOKEN_TYPES)
    writer.add_token_merges(MERGES)
    writer.add_bos_token_id(0)
    writer.add_eos_token_id(0)
    writer.add_add_bos_token(False)
    writer.add_tensor("token_embd.weight", (rng.standard_normal((VOCAB, d)) * 0.3).astype(np.float16))
    writer.add_tensor("position_embd.weight", (rng.standard_normal((CTX, d)) * 0.3).astype(np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def patch_tensor_type(src, dst, tensor_name, new_type):
    """Copies src to dst with tensor_name's ggml type (uint32 in the tensor-info section) set to new_type."""
    r = GGUFReader(src)
    t = [t for t in r.tensors if t.name == tensor_name][0]
    parts = t.field.parts  # name length, name, n_dims, dims, type, data offset
    pos = t.field.offset + sum(int(p.nbytes) for p in parts[:4])
    data = bytearray(open(src, "rb").read())
    old = int(np.frombuffer(bytes(data[pos:pos + 4]), dtype="<u4")[0])
    assert old == int(t.tensor_type), (old, t.tensor_type)
    data[pos:pos + 4] = int(new_type).to_bytes(4, "little")
    with open(dst, "wb") as f:
        f.write(data)
    return pos


# ------------------------------------------------------------------------------------------- llama.cpp

LOAD_CHILD = r"""
import sys
from llama_cpp import Llama
path, vocab_only = sys.argv[1], sys.argv[2] == "1"
try:
    llm = Llama(model_path=path, vocab_only=vocab_only, n_ctx=64, n_threads=2, verbose=True)
    print(f"LOAD: loaded (n_vocab {llm.n_vocab()})", flush=True)
except Exception as e:
    print(f"LOAD: {type(e).__name__}: {e}", flush=True)
    sys.exit(0)
if vocab_only:
    try:
        ids = [int(i) for i in llm.tokenize(b"hello world", add_bos=False, special=False)]
        print(f"TOKENIZE: {ids}", flush=True)
    except Exception as e:
        print(f"TOKENIZE: {type(e).__name__}: {e}", flush=True)
"""
# llama.cpp log lines worth keeping (the metadata dump and the model summary are left out)
LOG_WORDS = ("error", "failed", "invalid", "assert", "expected", "missing", "not within", "not found",
             "not a multiple")
LOG_SKIP = ("llama_model_loader: - ", "llama_model_loader: Dumping", "llama_model_loader: loaded meta data",
            "print_info:", "Model metadata:")


def try_load(path, vocab_only):
    """Loads path with llama.cpp (Llama(vocab_only=...)) in a child process, since llama.cpp may abort.
    Returns {"load": exception text or "loaded (n_vocab N)", "tokenize": 'hello world' ids or what happened
    (vocab_only only), "log": llama.cpp's log lines that name a problem}."""
    p = subprocess.run([sys.executable, "-c", LOAD_CHILD, path, "1" if vocab_only else "0"],
                       capture_output=True, text=True, errors="replace", timeout=300)
    folder = os.path.dirname(path) + os.sep
    got = {}
    for ln in p.stdout.splitlines():
        for key in ("LOAD", "TOKENIZE"):
            if ln.startswith(key + ": "):
                got[key.lower()] = ln[len(key) + 2:].replace(folder, "")
    died = f"crashed (exit status {p.returncode})" if p.returncode != 0 else None
    out = {"load": got.get("load", died)}
    if vocab_only and out["load"].startswith("loaded"):
        out["tokenize"] = got.get("tokenize", died)
    keep = []
    for ln in p.stderr.splitlines():
        ln = re.sub(r"\S*/vendor/llama\.cpp/", "llama.cpp/", ln.strip().replace(folder, ""))
        if any(k in ln.lower() for k in LOG_WORDS) and not ln.startswith(LOG_SKIP) and ln not in keep:
            keep.append(ln)
    out["log"] = keep
    return out


# ------------------------------------------------------------------------------------------- main

def sha256(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "tiny_llama")
    os.makedirs(out_dir, exist_ok=True)
    P = lambda n: os.path.join(out_dir, n)  # noqa: E731
    mixed = P("tiny-llama-mixed.gguf")

    write_llama(mixed, "tiny-llama-mixed")
    write_gpt2(P("other-arch.gguf"))
    blob = open(mixed, "rb").read()
    r = GGUFReader(mixed)
    data_start = min(int(t.data_offset) for t in r.tensors)
    cut = int(len(blob) * 0.6)
    assert data_start < cut < len(blob)
    open(P("truncated.gguf"), "wb").write(blob[:cut])
    assert 40 < data_start
    open(P("header-only.gguf"), "wb").write(blob[:40])
    text = ("this is not a model, just plain text saved with a .gguf name so that the loader has to say "
            "it is not a GGUF file. " * 3).encode("ascii")[:200]
    open(P("not-gguf.gguf"), "wb").write(text)
    patch_pos = patch_tensor_type(mixed, P("bad-tensor-type.gguf"), "blk.0.attn_q.weight", 4)
    write_llama(P("missing-tensor.gguf"), "tiny-llama-missing-tensor", skip=("blk.1.ffn_down.weight",))
    write_llama(P("no-vocab.gguf"), "tiny-llama-no-vocab", vocab=False)

    import llama_cpp
    from llama_cpp import Llama

    model = mdg.Model(mixed)
    tensor_types = {t.name: t.tensor_type.name for t in r.tensors}
    print("tensor types:", tensor_types)

    vocab_llm = Llama(model_path=mixed, vocab_only=True, verbose=False)

    def tokenize(s):
        return [int(t) for t in vocab_llm.tokenize(s.encode("utf-8"), add_bos=False, special=False)]

    cases = [{"text": s, "ids": tokenize(s)} for s in TEXTS]
    for c in cases:
        assert vocab_llm.detokenize(c["ids"]).decode("utf-8") == c["text"], c
        print(len(c["ids"]), "ids:", repr(c["text"][:30]), c["ids"][:12])
    ids = cases[0]["ids"][:CTX]
    assert len(ids) >= 8

    def llama_scores(path):
        # F32 KV cache, so the only llama.cpp-side rounding left is that of its matmul activations
        llm = Llama(model_path=path, n_ctx=CTX, n_batch=CTX, n_ubatch=CTX, logits_all=True, n_threads=2,
                    type_k=llama_cpp.GGML_TYPE_F32, type_v=llama_cpp.GGML_TYPE_F32, verbose=False)
        llm.reset()
        llm.eval(ids)
        sc = getattr(llm, "scores", None)
        sc = llm._scores if sc is None else sc
        return np.array(sc[: len(ids)], dtype=np.float64)

    logits, _ = model.forward(ids)
    ll = llama_scores(mixed)
    assert ll.shape == logits.shape == (len(ids), VOCAB), (ll.shape, logits.shape)
    diff = float(np.abs(ll - logits).max())
    top1 = int((ll.argmax(1) == logits.argmax(1)).sum())
    print(f"logits: n={len(ids)}, |logit| max {np.abs(logits).max():.3f}, numpy vs llama.cpp max abs diff "
          f"{diff:.3g}, top-1 agree {top1}/{len(ids)}")
    # The same weights stored all-F32: llama.cpp then does no rounding of its own, so this checks the numpy
    # forward (architecture, RoPE layout, GQA) against llama.cpp; the gap above is llama.cpp's activation rounding.
    with tempfile.TemporaryDirectory() as tmp:
        f32_path = os.path.join(tmp, "tiny-llama-f32.gguf")
        write_llama(f32_path, "tiny-llama-f32", types={})
        f32_diff = float(np.abs(llama_scores(f32_path) - mdg.Model(f32_path).forward(ids)[0]).max())
    print(f"all-F32 copy: numpy vs llama.cpp max abs diff {f32_diff:.3g}")
    assert f32_diff < 1e-3, f32_diff
    del vocab_llm

    bad = {}
    for name in BAD_FILES:
        bad[name] = {"bytes": os.path.getsize(P(name)), "vocab_only": try_load(P(name), True),
                     "full": try_load(P(name), False)}
        print(f"{name}: vocab_only {bad[name]['vocab_only']} | full {bad[name]['full']}")
    bad["truncated.gguf"]["note"] = f"first {cut} of {len(blob)} bytes; tensor data starts at {data_start}"
    bad["header-only.gguf"]["note"] = "first 40 bytes (magic, version, counts, start of the first key)"
    bad["bad-tensor-type.gguf"]["note"] = \
        f"blk.0.attn_q.weight type (uint32 at byte {patch_pos}) patched from 2 (Q4_0) to 4 (removed Q4_2)"
    bad["missing-tensor.gguf"]["note"] = "no blk.1.ffn_down.weight"
    bad["no-vocab.gguf"]["note"] = "tokenizer.ggml.model 'none', no tokens/types/merges"
    bad["other-arch.gguf"]["note"] = "architecture gpt2, 1 block, d 16; only token_embd and position_embd"

    fixture = {
        "model": {"file": os.path.basename(mixed), "bytes": os.path.getsize(mixed), "sha256": sha256(mixed),
                  "hparams": model.hparams(), "tensor_types": tensor_types, "seed": SEED},
        "tokenizer": cases,
        "logits": {"text": TEXTS[0], "ids": ids, "n": len(ids), "vocab": VOCAB,
                   "max_abs_diff": mdg.g7(diff), "top1_agree": top1,
                   "f32_copy_max_abs_diff": mdg.g7(f32_diff),
                   "numpy": [[mdg.g9(v) for v in row] for row in logits],
                   "llama_cpp": [[mdg.g7(v) for v in row] for row in ll]},
        "bad_files": bad,
        "versions": {"llama_cpp_python": llama_cpp.__version__, "gguf": importlib.metadata.version("gguf"),
                     "numpy": np.__version__},
    }
    out = P("tiny_llama_golden.json")
    with open(out, "w", encoding="utf-8") as f:
        f.write(mdg.dumps(fixture) + "\n")
    for n in sorted(os.listdir(out_dir)):
        print(f"{os.path.getsize(P(n)):8d}  {sha256(P(n))[:16]}  {n}")


if __name__ == "__main__":
    main()
