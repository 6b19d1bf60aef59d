#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/ (small valid and nearly valid
inputs, so each fuzzer starts inside the formats instead of guessing magic bytes). Pure Python, no numpy.
Usage: python3 tests/fuzz/make_seeds.py"""
import json
import pathlib
import shutil
import struct

here = pathlib.Path(__file__).resolve().parent
root = here.parent.parent
out = here / "corpus"


def npy(shape, values, descr="<f4", fortran=False, version=1):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False", "".join(f"{s}, " for s in shape) if len(shape) != 1 else f"{shape[0]},")
    fmt = {"<f4": "<%df", "<f8": "<%dd", ">f4": ">%df", "<i4": "<%di"}[descr]
    prefix = 10 if version == 1 else 12
    pad = (64 - (prefix + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode() + struct.pack(fmt % len(values), *values)


def safetensors(tensors, metadata=None):
    header, blob = {}, b""
    for name, (shape, values, dtype) in tensors.items():
        data = struct.pack({"F32": "<%df", "F64": "<%dd", "I64": "<%dq"}[dtype] % len(values), *values)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(blob), len(blob) + len(data)]}
        blob += data
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + blob


def gguf(kv, tensors, alignment=32):
    """A GGUF v3 image: kv is [(key, type, value)] with type "u32", "f32", "str", "bool" or ("arr", "str"|"i32"|"f32");
    tensors is [(name, dims fastest-first, values)] stored as F32."""
    def string(text):
        b = text.encode()
        return struct.pack("<Q", len(b)) + b
    scalar = {"u32": (4, "<I"), "i32": (5, "<i"), "f32": (6, "<f"), "bool": (7, "<?")}
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv))
    for key, kind, value in kv:
        out += string(key)
        if kind == "str":
            out += struct.pack("<I", 8) + string(value)
        elif isinstance(kind, tuple):
            elem = kind[1]
            out += struct.pack("<IIQ", 9, 8 if elem == "str" else scalar[elem][0], len(value))
            for v in value:
                out += string(v) if elem == "str" else struct.pack(scalar[elem][1], v)
        else:
            out += struct.pack("<I", scalar[kind][0]) + struct.pack(scalar[kind][1], value)
    blob, offsets = b"", []
    for name, dims, values in tensors:
        offsets.append(len(blob))
        blob += struct.pack("<%df" % len(values), *values)
        blob += b"\0" * ((-len(blob)) % alignment)
    for (name, dims, values), offset in zip(tensors, offsets):
        out += string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", 0, offset)
    out += b"\0" * ((-len(out)) % alignment)
    return out + blob


def byte_symbols():
    """GPT-2's byte-level alphabet: printable bytes stand for themselves, the rest for code points from U+0100."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    symbols, extra = {}, 0
    for b in range(256):
        if b in keep:
            symbols[b] = chr(b)
        else:
            symbols[b] = chr(0x100 + extra)
            extra += 1
    return [symbols[b] for b in range(256)]


def tiny_llama(layers=1, hidden=8, heads=2, kv_heads=1, ffn=8, context=16, arch="llama", minimal=False):
    """A small llama GGUF with a byte-level BPE vocabulary (256 bytes + 3 merges, or with `minimal` only the byte
    symbols of the fuzz target's text and a newline: a 2 KB seed that runs fast) and F32 weights."""
    symbols = byte_symbols()
    alphabet = symbols if not minimal else [symbols[b] for b in sorted(set(b"Hi, you 12\n"))]
    tokens = alphabet + ["\u0120t", "h e".replace(" ", ""), "\u0120th"]
    merges = ["\u0120 t", "h e", "\u0120t h"]
    vocab, dh = len(tokens), hidden // heads
    value = lambda n, k: [((i * 7 + k * 13) % 11 - 5) / 10.0 for i in range(n)]
    kv = [("general.architecture", "str", arch), ("general.name", "str", "fuzz-seed"),
          (arch + ".block_count", "u32", layers), (arch + ".embedding_length", "u32", hidden),
          (arch + ".attention.head_count", "u32", heads), (arch + ".attention.head_count_kv", "u32", kv_heads),
          (arch + ".feed_forward_length", "u32", ffn), (arch + ".context_length", "u32", context),
          (arch + ".attention.layer_norm_rms_epsilon", "f32", 1e-5), (arch + ".rope.freq_base", "f32", 10000.0),
          ("tokenizer.ggml.model", "str", "gpt2"), ("tokenizer.ggml.pre", "str", "smollm"),
          ("tokenizer.ggml.tokens", ("arr", "str"), tokens), ("tokenizer.ggml.token_type", ("arr", "i32"), [1] * vocab),
          ("tokenizer.ggml.merges", ("arr", "str"), merges), ("tokenizer.ggml.add_bos_token", "bool", False)]
    t = [("token_embd.weight", [hidden, vocab], value(hidden * vocab, 0)), ("output_norm.weight", [hidden], [1.0] * hidden)]
    for l in range(layers):
        b = f"blk.{l}."
        t += [(b + "attn_norm.weight", [hidden], [1.0] * hidden),
              (b + "attn_q.weight", [hidden, heads * dh], value(hidden * heads * dh, 1)),
              (b + "attn_k.weight", [hidden, kv_heads * dh], value(hidden * kv_heads * dh, 2)),
              (b + "attn_v.weight", [hidden, kv_heads * dh], value(hidden * kv_heads * dh, 3)),
              (b + "attn_output.weight", [heads * dh, hidden], value(hidden * heads * dh, 4)),
              (b + "ffn_norm.weight", [hidden], [1.0] * hidden),
              (b + "ffn_gate.weight", [hidden, ffn], value(hidden * ffn, 5)),
              (b + "ffn_up.weight", [hidden, ffn], value(hidden * ffn, 6)),
              (b + "ffn_down.weight", [ffn, hidden], value(hidden * ffn, 7))]
    return gguf(kv, t)


def write(target, name, data):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def main():
    shutil.rmtree(out, ignore_errors=True)
    v6 = [0.5, -1.0, 2.0, 0.25, 3.0, -0.5]
    write("npy", "f4_2x3.npy", npy((2, 3), v6))
    write("npy", "f8_3d.npy", npy((1, 2, 3), v6, "<f8"))
    write("npy", "fortran.npy", npy((2, 3), v6, fortran=True))
    write("npy", "big_endian.npy", npy((2, 3), v6, ">f4"))
    write("npy", "int32.npy", npy((6,), [1, 2, 3, 4, 5, 6], "<i4"))
    write("npy", "v2.npy", npy((3, 2), v6, version=2))
    write("npy", "empty.npy", npy((0, 3), []))

    qkv = {"q": ([2, 3], v6, "F32"), "k": ([2, 3], v6, "F32"), "v": ([2, 3], v6, "F32")}
    write("safetensors", "qkv.safetensors", safetensors(qkv, {"tokens": json.dumps(["a", "b"])}))
    write("safetensors", "f64_i64.safetensors", safetensors({"x": ([3], v6[:3], "F64"), "i": ([2], [1, 2], "I64")}))
    write("safetensors", "scalar.safetensors", safetensors({"s": ([], [1.0], "F32")}))
    write("safetensors", "tiny_bert.safetensors", (root / "tests/golden/tiny_bert/model.safetensors").read_bytes()[:4096])

    write("tensor_import", "file.bin", b"\x00" + safetensors(qkv, {"tokens": json.dumps(["a", "b"])}))
    heads3 = {"Q": ([2, 2, 3], v6 + v6, "F32"), "K": ([2, 2, 3], v6 + v6, "F32"), "V": ([2, 2, 1], [1, 2, 3, 4], "F32")}
    write("tensor_import", "file_upper.bin", b"\x00" + safetensors(heads3))
    sep = b"\n@@\n"
    write("tensor_import", "folder.bin", b"\x01" + npy((2, 3), v6) + sep + npy((2, 3), v6) + sep + npy((2, 3), v6) + sep + b"a\nb\n")
    write("tensor_import", "folder_3d.bin", b"\x01" + npy((1, 2, 3), v6) + sep + npy((1, 2, 3), v6, "<f8") + sep + npy((1, 2, 2), v6[:4]))

    for k, text in enumerate(["The quick brown fox jumps.", "unjumpable things!", "Héllo wörld ÀÉÎ", "中文 and 日本",
                              "[MASK] the [CLS] fox [SEP]", "a\tb\nc\u2028d\u00a0e", "x" * 120, "l'été, c'est ça?",
                              "\U0001F600 emoji \u0301combining"]):
        write("tokenizer", f"text{k}.txt", bytes([k % 16]) + text.encode())

    write("bert_config", "tiny_bert.json", (root / "tests/golden/tiny_bert/config.json").read_bytes())
    write("bert_config", "minilm.json", json.dumps({
        "model_type": "bert", "vocab_size": 30522, "hidden_size": 384, "num_hidden_layers": 6,
        "num_attention_heads": 12, "intermediate_size": 1536, "max_position_embeddings": 512, "type_vocab_size": 2,
        "layer_norm_eps": 1e-12, "hidden_act": "gelu", "position_embedding_type": "absolute"}))

    for f in sorted((root / "tests/gui/sessions").glob("*.json")):
        write("session", f.name, f.read_bytes())

    for k, text in enumerate(["full,flash\ncausal=1\nn=1:8",
                              "longformer\nwindow=16\nglobals=0,5,9\nwindow=4:64:x2",
                              "lsh\nrounds=4\nbuckets=8\nrounds=1:8:+1",
                              "performer,linformer\nperformer.features=64\nlinformer.k=32\nk=8:128:x2",
                              "svd\nrank=8\nrank=1:32:x1.5",
                              "bigbird,strided,fixed\nblock=16\nrandom=2\nblock=8:64:+8",
                              "taylor,linear,efficient,fnet,xl\nmemory=32\nsegment=64\nmemory=0:128:+32"]):
        write("params", f"params{k}.txt", text)

    for f in sorted((root / "assets/lessons").glob("*.json")):
        write("lesson", f.name, f.read_bytes())

    write("gguf", "tiny_llama.gguf", tiny_llama())
    write("gguf", "tiny_llama_2layers_gqa.gguf", tiny_llama(layers=2, hidden=16, heads=4, kv_heads=2, ffn=16))
    write("gguf", "other_arch.gguf", tiny_llama(arch="gpt2"))
    write("gguf", "minimal_vocab.gguf", tiny_llama(minimal=True))
    write("gguf", "minimal_vocab_gqa.gguf", tiny_llama(layers=2, hidden=16, heads=4, kv_heads=2, ffn=16, minimal=True))
    for f in ["other-arch.gguf", "header-only.gguf", "not-gguf.gguf"]:
        write("gguf", f, (root / "tests/golden/tiny_llama" / f).read_bytes())


if __name__ == "__main__":
    main()
