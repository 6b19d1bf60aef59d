// attnscope — the weights of a llama-architecture decoder, dequantised from GGUF to fp32 and laid out for the forward
// pass: one fused [Q|K|V] and one fused [gate|up] projection per layer, each (out, in) row-major as GGUF stores it.
#pragma once
#include <vector>

#include "core/data/llama_config.h"
#include "core/tensor.h"

namespace attnscope {

class GgufFile;

/// One transformer block's weights.
struct LlamaLayerWeights {
    Eigen::RowVectorXf attn_norm;  // (hidden) RMSNorm gain before attention
    MatrixRM qkv;                  // ((heads + 2·kv_heads)·head_dim, hidden): rows of Q, then K, then V
    MatrixRM out;                  // (hidden, heads·head_dim)
    Eigen::RowVectorXf ffn_norm;   // (hidden) RMSNorm gain before the feed-forward
    MatrixRM gate_up;              // (2·ffn, hidden): rows of the gate, then the up projection
    MatrixRM down;                 // (hidden, ffn)
};

/// Every weight of the model.
struct LlamaWeights {
    MatrixRM embed;                     // (vocab, hidden) token embeddings
    MatrixRM output;                    // (vocab, hidden) output projection; empty when tied to `embed`
    Eigen::RowVectorXf output_norm;     // (hidden)
    Eigen::RowVectorXf rope_factors;    // (head_dim / 2) Llama 3's frequency divisors; empty when absent
    std::vector<LlamaLayerWeights> layers;

    /// The matrix the logits are computed with.
    const MatrixRM& logits_matrix() const { return output.size() ? output : embed; }
};

/// Reads every tensor the config names, with shape checks; throws Error naming the tensor that is missing, misshapen
/// or of a type ggml cannot dequantise.
LlamaWeights load_llama_weights(const GgufFile& file, const LlamaConfig& config);

}  // namespace attnscope
