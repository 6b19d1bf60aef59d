#include "core/data/llama_weights.h"

#include "core/data/gguf_file.h"

namespace attnscope {

namespace {

/// Rows of `parts` stacked in order (each (rows_k, cols)).
MatrixRM stack_rows(const std::vector<MatrixRM>& parts) {
    Eigen::Index rows = 0;
    for (const MatrixRM& p : parts) rows += p.rows();
    MatrixRM out(rows, parts.front().cols());
    Eigen::Index r = 0;
    for (const MatrixRM& p : parts) out.middleRows(r, p.rows()) = p, r += p.rows();
    return out;
}

}  // namespace

LlamaWeights load_llama_weights(const GgufFile& f, const LlamaConfig& c) {
    LlamaWeights w;
    const int q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim;
    w.embed = f.read_matrix("token_embd.weight", c.vocab, c.hidden);
    if (!c.tied_output) w.output = f.read_matrix("output.weight", c.vocab, c.hidden);
    w.output_norm = f.read_vector("output_norm.weight", c.hidden);
    if (c.rope_freq_factors) w.rope_factors = f.read_vector("rope_freqs.weight", c.head_dim / 2);
    // Grown layer by layer: a block count the file's tensors do not back stops at the first missing tensor, not at
    // an allocation of that many layers.
    for (int l = 0; l < c.layers; ++l) {
        const std::string b = "blk." + std::to_string(l) + ".";
        LlamaLayerWeights& L = w.layers.emplace_back();
        L.attn_norm = f.read_vector(b + "attn_norm.weight", c.hidden);
        L.qkv = stack_rows({f.read_matrix(b + "attn_q.weight", q, c.hidden), f.read_matrix(b + "attn_k.weight", kv, c.hidden),
                            f.read_matrix(b + "attn_v.weight", kv, c.hidden)});
        L.out = f.read_matrix(b + "attn_output.weight", c.hidden, q);
        L.ffn_norm = f.read_vector(b + "ffn_norm.weight", c.hidden);
        L.gate_up = stack_rows({f.read_matrix(b + "ffn_gate.weight", c.ffn, c.hidden),
                                f.read_matrix(b + "ffn_up.weight", c.ffn, c.hidden)});
        L.down = f.read_matrix(b + "ffn_down.weight", c.hidden, c.ffn);
    }
    return w;
}

}  // namespace attnscope
