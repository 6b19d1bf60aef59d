// attnscope — a llama-architecture decoder's forward pass on the CPU (Eigen, all cores), exposing what the views need:
// every layer's input, its query heads' Q and its KV heads' K after RoPE and V, the causal attention probabilities,
// and the next-token logits.
//   x = embedding[ids]
//   per layer: h = RMSNorm(x)·g → [Q|K|V] = h·Wᵀ → RoPE on Q and K (GGUF's layout: adjacent pairs (2i, 2i+1) rotate)
//              → causal softmax(QKᵀ/√dh)·V, query head h reading KV head h / (heads / kv_heads)
//              → ·Woᵀ, + x → h = RMSNorm(x)·g → down(SiLU(gate(h)) ⊙ up(h)), + x
//   logits = RMSNorm(x)·g · Eᵀ (E the output matrix, or the token embeddings when tied)
// A hook may replace any layer's attention output, as for the encoder.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/data/attention_hook.h"
#include "core/data/llama_config.h"
#include "core/data/llama_weights.h"

namespace attnscope {

/// What a decoder forward pass keeps.
struct DecoderOptions {
    bool keep_qkv = true;     // DecoderOutput::Q/K/V of every layer run
    bool keep_probs = false;  // DecoderOutput::probs of every layer run ((heads, n, n) floats each)
    bool logits = false;      // DecoderOutput::logits (n, vocab); needs every layer
    bool last_logits_only = false;  // with logits: only the last position's row (1, vocab), a fresh pass's prediction
    bool received = false;    // DecoderOutput::received: the attention each key receives, summed over query rows
    AttentionHook hook;       // optional attention replacement: gets Heads with K and V expanded to the query heads
    int last_layer = -1;      // stop after this layer (−1: run all)
};

/// Everything a decoder forward pass produced for one sequence of n tokens.
struct DecoderOutput {
    std::vector<Tensor3> hidden;  // per layer run: its input (1, n, hidden)
    std::vector<Tensor3> Q;       // per layer (heads, n, head_dim), after RoPE
    std::vector<Tensor3> K, V;    // per layer (kv_heads, n, head_dim); K after RoPE
    std::vector<Tensor3> probs;   // per layer (heads, n, n) causal softmax probabilities, when keep_probs
    MatrixRM logits;              // (n, vocab) next-token logits, when options.logits
    std::vector<std::vector<double>> received;  // per layer: (heads · n) column sums of the causal softmax P, when
                                                // options.received (never materialised: summed tile by tile)
};

/// A loaded llama-architecture decoder (immutable, shareable across threads).
class LlamaDecoder {
public:
    LlamaDecoder(LlamaConfig config, LlamaWeights weights) : m_config(std::move(config)), m_weights(std::move(weights)) {}
    /// Runs the decoder on token ids (1 ≤ n ≤ context, each id < vocab); throws Error otherwise.
    DecoderOutput forward(const std::vector<int>& ids, const DecoderOptions& options = {}) const;
    /// forward() of ids whose first `reuse` tokens are those `previous` was computed from (with keep_qkv, at least
    /// options.last_layer's layers): in a causal model those positions' states do not depend on what follows, so only
    /// positions reuse … n − 1 are computed (an edit at the end of a text costs its new tokens). Runs a whole forward()
    /// when the options ask for a hook, probabilities or logits, or `previous` does not cover them.
    DecoderOutput extend(const std::vector<int>& ids, const DecoderOutput& previous, int reuse,
                         const DecoderOptions& options = {}) const;
    const LlamaConfig& config() const { return m_config; }
    /// RoPE's angle per position step of each dimension pair (2i, 2i + 1), i < head_dim / 2: position p turns pair i by
    /// p · frequencies[i] (base^(−2i/d), scaled by the file's rope factors and linear scaling).
    std::vector<double> rope_frequencies() const;
    /// Bytes the fp32 weights hold.
    int64_t weight_bytes() const;

private:
    /// The pass over positions first … n − 1, earlier rows taken from `previous` (nullptr when first = 0).
    DecoderOutput forward_rows(const std::vector<int>& ids, const DecoderOptions& options, const DecoderOutput* previous,
                               int first) const;

    LlamaConfig m_config;
    LlamaWeights m_weights;
};

/// K or V of the KV heads (kv_heads, n, d) expanded to one head per query head (heads, n, d): what each query head
/// reads under grouped-query attention.
Tensor3 expand_kv_heads(const Tensor3& kv, int heads);

/// Mean negative log-likelihood of ids[t + 1] under logits row t, for t = 0 … n − 2, in float64 (log-softmax of each
/// row); per_position (optional) receives the n − 1 values.
double mean_next_token_nll(const MatrixRM& logits, const std::vector<int>& ids, std::vector<double>* per_position = nullptr);

}  // namespace attnscope
