#!/usr/bin/env python3
"""Makes tests/golden/tiny_bert/: a tiny random BERT folder plus its reference outputs, so the test suite
checks that `--model DIR` works for a BERT other than all-MiniLM-L6-v2, and exercises what that model does
not: the "bert." name prefix of a BertForMaskedLM checkpoint (with extra "cls." tensors to ignore), F16
weights, a cased vocabulary (no lower-casing, accents kept, from tokenizer_config.json), the tanh GELU
("gelu_new") and a non-default layer_norm_eps. The model is seeded, 2 layers, 2 heads, hidden 16 (~15 KB).

Setup as for make_text_golden.py, then:
    ~/.cache/attnscope/golden-venv/bin/python tests/golden/make_tiny_bert.py
"""
import json
import os

import torch
from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tiny_bert")
SENTENCES = [
    "Hello World, the Café is open!",
    "hello world: café OPEN?",
    "Ünïcode naïve 東京 tokens",
    "",
]
VOCAB = (["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + list(",.!?:;'\"()-")
         + ["Hello", "hello", "World", "world", "the", "The", "Café", "café", "Cafe", "is", "open", "OP", "##EN",
            "Ü", "##n", "##ï", "##code", "naï", "##ve", "東", "京", "token", "##s", "a", "##a", "b", "##b"])


def main():
    torch.manual_seed(1234)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(VOCAB) + "\n")
    with open(os.path.join(OUT, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"do_lower_case": False, "tokenize_chinese_chars": True, "tokenizer_class": "BertTokenizer",
                   "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
                   "mask_token": "[MASK]", "model_max_length": 64}, f, indent=1)
    config = BertConfig(vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64, type_vocab_size=2,
                        hidden_act="gelu_new", layer_norm_eps=1e-6)
    model = BertForMaskedLM(config).eval()
    # Larger-than-default weights so the attention is far from uniform and differences would show.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.5)
    model = model.half()
    model.save_pretrained(OUT, safe_serialization=True)
    for extra in ("generation_config.json",):
        path = os.path.join(OUT, extra)
        if os.path.exists(path):
            os.remove(path)
    # Reference in float32 from the very F16 weights that were saved.
    model = BertForMaskedLM.from_pretrained(OUT, torch_dtype=torch.float32, attn_implementation="eager").eval()
    tok = BertTokenizerFast.from_pretrained(OUT)
    cases = []
    with torch.no_grad():
        for text in SENTENCES:
            enc = tok(text, return_tensors="pt")
            out = model.bert(**enc, output_attentions=True)
            hidden = out.last_hidden_state[0]
            emb = torch.nn.functional.normalize(hidden.mean(dim=0), dim=0)
            ids = enc["input_ids"][0].tolist()
            cases.append({
                "text": text,
                "ids": ids,
                "tokens": tok.convert_ids_to_tokens(ids),
                "attention_e6": {f"{l}/{h}": [int(round(v * 1e6)) for v in out.attentions[l][0, h].flatten().tolist()]
                                 for l in range(2) for h in range(2)},
                "embedding": [round(float(v), 7) for v in emb.tolist()],
            })
            print(ids, tok.convert_ids_to_tokens(ids))
    with open(os.path.join(HERE, "tiny_bert_golden.json"), "w", encoding="utf-8") as f:
        json.dump({"made_by": "tests/golden/make_tiny_bert.py", "cases": cases}, f, ensure_ascii=False,
                  separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
