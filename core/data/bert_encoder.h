// attnscope — a BERT encoder forward pass on the CPU (Eigen, all cores), exposing what the views need:
// hidden states, per-head Q, K, V and attention probabilities of every layer, and the sentence embedding.
//   embeddings (word + position + token type 0) → LayerNorm
//   per layer: [Q|K|V] = X·W + b → softmax(QKᵀ/√dh)·V per head → output projection → +X → LayerNorm
//              → GELU feed-forward → + → LayerNorm
//   sentence embedding: mean over all tokens of the last hidden states, L2-normalised (sentence-transformers).
// A hook may replace any layer's attention output (the what-if of text_whatif.h).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/data/attention_hook.h"
#include "core/heads.h"
#include "core/data/bert_config.h"
#include "core/data/bert_weights.h"

namespace attnscope {


/// What a forward pass keeps besides the embedding.
struct EncoderOptions {
    bool keep_qkv = true;    // EncoderOutput::Q/K/V of every layer
    bool keep_probs = true;  // EncoderOutput::probs of every layer (H·n² floats per layer)
    AttentionHook hook;      // optional attention replacement
    int last_layer = -1;     // stop after this layer (−1: run all); the embedding is then left empty
};

/// Everything a forward pass produced for one sequence of n tokens.
struct EncoderOutput {
    std::vector<Tensor3> hidden;  // layers + 1 of (1, n, hidden): hidden[l] is the input of layer l
    std::vector<Tensor3> Q, K, V; // per layer (H, n, dh), when keep_qkv
    std::vector<Tensor3> probs;   // per layer (H, n, n) softmax probabilities; empty for a hooked layer
    std::vector<float> embedding; // (hidden) mean-pooled, L2-normalised sentence embedding (all layers run)
};

/// A loaded BERT-family encoder (immutable, shareable across threads).
class BertEncoder {
public:
    /// Reads DIR/config.json and DIR/model.safetensors; throws Error (missing model → run scripts/setup.sh,
    /// unsupported architecture, corrupt file).
    static BertEncoder load(const std::string& dir);
    BertEncoder(BertConfig config, BertWeights weights) : m_config(std::move(config)), m_weights(std::move(weights)) {}

    /// Runs the encoder on token ids (1 ≤ n ≤ max_positions, each id < vocab_size); throws Error otherwise.
    EncoderOutput forward(const std::vector<int>& ids, const EncoderOptions& options = {}) const;
    const BertConfig& config() const { return m_config; }

private:
    BertConfig m_config;
    BertWeights m_weights;
};

/// Cosine similarity of two equal-length vectors (0 when either is zero).
double cosine_similarity(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace attnscope
