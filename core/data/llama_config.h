// attnscope — the hyper-parameters of a llama-architecture decoder, read from its GGUF metadata (llama.*).
#pragma once
#include <string>

namespace attnscope {

class GgufFile;

/// What the forward pass needs to know about a llama-architecture checkpoint.
struct LlamaConfig {
    std::string name;          // general.name, or the file's name
    int layers = 0;            // llama.block_count
    int hidden = 0;            // llama.embedding_length
    int heads = 0;             // llama.attention.head_count (query heads)
    int kv_heads = 0;          // llama.attention.head_count_kv (grouped-query attention when < heads)
    int head_dim = 0;          // llama.attention.key_length, else hidden / heads
    int ffn = 0;               // llama.feed_forward_length (SwiGLU width)
    int vocab = 0;             // rows of token_embd.weight
    int context = 0;           // llama.context_length: the longest text the model was trained on
    double rms_eps = 1e-5;     // llama.attention.layer_norm_rms_epsilon
    double rope_base = 10000;  // llama.rope.freq_base
    double rope_linear = 1;    // llama.rope.scaling.factor when the scaling type is "linear" (positions divided by it)
    bool rope_freq_factors = false;  // rope_freqs.weight present (Llama 3's per-frequency factors)
    bool tied_output = true;   // no output.weight: the logits use token_embd.weight

    /// Query heads per KV head.
    int group() const { return heads / kv_heads; }
    /// The KV head query head h reads.
    int kv_head_of(int h) const { return h / group(); }
};

/// Reads and checks the llama.* metadata; throws Error saying what is wrong and what is supported (another
/// architecture, a missing or inconsistent key, a RoPE scaling attnscope does not implement).
LlamaConfig read_llama_config(const GgufFile& file);

}  // namespace attnscope
