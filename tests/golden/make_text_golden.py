#!/usr/bin/env python3
"""Makes tests/golden/text_golden.json: reference values of the text path from the PyPI reference stack
(transformers' BertTokenizerFast + BertModel, sentence-transformers) on the installed all-MiniLM-L6-v2.

For every sentence: token ids and strings, attention probabilities of layers 0 and 5 for heads 0 and 7,
and the mean-pooled, L2-normalised sentence embedding. Probabilities are stored as integers in units of 1e-6. tests/unit/test_text_golden.cpp compares attnscope's
tokenizer and encoder against it (probabilities within 1e-4, embedding cosine >= 0.9999).

Setup (CPU is enough; run once, the JSON is committed):
    python3 -m venv ~/.cache/attnscope/golden-venv
    ~/.cache/attnscope/golden-venv/bin/pip install torch transformers sentence-transformers
    ~/.cache/attnscope/golden-venv/bin/python tests/golden/make_text_golden.py [MODEL_DIR]
MODEL_DIR defaults to ~/.cache/attnscope/models/all-MiniLM-L6-v2 (installed by scripts/setup.sh).
"""
import json
import os
import sys

import torch
import transformers
from sentence_transformers import SentenceTransformer
from transformers import AutoModel, AutoTokenizer, BertTokenizer

LAYERS = [0, 5]
HEADS = [0, 7]
SENTENCES = [
    # punctuation
    "Hello, world! How are you today? (Fine.) -- 'quoted' \"double\"; a/b & c...",
    # accents: stripped for an uncased vocabulary
    "Café naïve résumé — Ångström façade, jalapeño, Zoë, Søren.",
    # numbers
    "In 2024, 3.14159 x 42 = 131.94678 and 1,000,000 people paid $19.99 (or 7%).",
    # CJK ideographs are split one by one; kana are not
    "東京は日本の首都です。北京也是大城市。",
    # emoji: not in the vocabulary, so [UNK]
    "I love pizza 🍕 and hugs 🤗 so much 🙂!",
    # a very long word (WordPiece pieces) and one over 100 characters ([UNK])
    "Pneumonoultramicroscopicsilicovolcanoconiosis is long; " + "antidisestablishmentarianism" * 4 + " is longer.",
    # mixed case
    "ThE QuIcK BrOwN FoX JUMPS over the LAZY DoG, McDonald's iPhone.",
    # empty string: [CLS] [SEP] only
    "",
    # special-token text, tabs, newlines, a control character, a zero-width space (Cf)
    "[MASK] tokens\tand\nnew lines\u0007 with\u200bzero width",
    # Greek (final sigma), Cyrillic, Turkish dotted capital I
    "ΣΟΦΙΑ Ελληνικά, русский текст, İstanbul.",
]


def rounded(values, digits):
    return [round(float(v), digits) for v in values]


def main():
    model_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/attnscope/models/all-MiniLM-L6-v2")
    out_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "text_golden.json")
    torch.set_grad_enabled(False)
    fast = AutoTokenizer.from_pretrained(model_dir)
    slow = BertTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir, attn_implementation="eager").eval()
    st = SentenceTransformer(model_dir, device="cpu")

    cases = []
    for text in SENTENCES:
        enc = fast(text, return_tensors="pt")
        ids = enc["input_ids"][0].tolist()
        slow_ids = slow(text)["input_ids"]
        if slow_ids != ids:
            print(f"note: slow and fast tokenizers differ on {text!r}:\n  fast {ids}\n  slow {slow_ids}")
        outputs = model(**enc, output_attentions=True)
        attention = {}
        for layer in LAYERS:
            for head in HEADS:
                p = outputs.attentions[layer][0, head]  # (n, n)
                # Fixed point (units of 1e-6, row-major n×n) keeps the file small; the test tolerance is 1e-4.
                attention[f"{layer}/{head}"] = [int(round(v * 1e6)) for v in p.flatten().tolist()]
        # sentence-transformers' mean pooling, then L2 normalisation (the model's Normalize module).
        emb = st.encode([text], convert_to_tensor=True, normalize_embeddings=True)[0]
        hidden = outputs.last_hidden_state[0]
        manual = torch.nn.functional.normalize(hidden.mean(dim=0), dim=0)
        agree = torch.nn.functional.cosine_similarity(emb, manual, dim=0).item()
        assert agree > 0.999999, f"sentence-transformers and manual pooling disagree ({agree}) on {text!r}"
        cases.append({
            "text": text,
            "ids": ids,
            "tokens": fast.convert_ids_to_tokens(ids),
            "attention_e6": attention,
            "embedding": rounded(emb.tolist(), 7),
        })
        print(f"{len(ids):4d} tokens  {text[:60]!r}")

    golden = {
        "made_by": "tests/golden/make_text_golden.py",
        "reference": f"transformers {transformers.__version__}, torch {torch.__version__}, "
                     f"sentence-transformers {__import__('sentence_transformers').__version__}",
        "model": os.path.basename(os.path.normpath(model_dir)),
        "layers": LAYERS,
        "heads": HEADS,
        "cases": cases,
    }
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {out_path} ({os.path.getsize(out_path)} bytes)")


if __name__ == "__main__":
    main()
