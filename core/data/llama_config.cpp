#include "core/data/llama_config.h"

#include <filesystem>

#include "core/data/gguf_file.h"

namespace attnscope {

namespace {

constexpr char kSupported[] =
    "attnscope runs llama-architecture decoders (SmolLM2, TinyLlama, Llama 2 and 3.x, …) from one GGUF file";

int positive_key(const GgufFile& f, const std::string& key) {
    const std::optional<int64_t> v = f.int_value(key);
    if (!v) throw Error("'" + f.name() + "' has no metadata key '" + key + "': " + kSupported);
    if (*v <= 0 || *v > (int64_t(1) << 30))
        throw Error("'" + f.name() + "': metadata key '" + key + "' is " + std::to_string(*v) +
                    ", which no model has; the file is corrupt");
    return static_cast<int>(*v);
}

}  // namespace

LlamaConfig read_llama_config(const GgufFile& f) {
    const std::optional<std::string> arch = f.string_value("general.architecture");
    if (!arch) throw Error("'" + f.name() + "' has no general.architecture key: " + kSupported);
    if (*arch != "llama")
        throw Error("'" + f.name() + "' is a '" + *arch + "' model: " + kSupported +
                    "; other architectures (their attention or normalisation differs) are not supported");
    LlamaConfig c;
    c.name = f.string_value("general.name").value_or(std::filesystem::path(f.name()).filename().string());
    c.layers = positive_key(f, "llama.block_count");
    c.hidden = positive_key(f, "llama.embedding_length");
    c.heads = positive_key(f, "llama.attention.head_count");
    c.kv_heads = f.int_value("llama.attention.head_count_kv") ? positive_key(f, "llama.attention.head_count_kv") : c.heads;
    c.ffn = positive_key(f, "llama.feed_forward_length");
    c.context = positive_key(f, "llama.context_length");
    c.head_dim = f.int_value("llama.attention.key_length") ? positive_key(f, "llama.attention.key_length") : c.hidden / c.heads;
    if (c.heads % c.kv_heads != 0)
        throw Error("'" + f.name() + "': " + std::to_string(c.heads) + " query heads cannot share " +
                    std::to_string(c.kv_heads) + " KV heads evenly; the metadata is inconsistent");
    if (c.head_dim % 2 != 0 || c.head_dim > 1024)
        throw Error("'" + f.name() + "': head dimension " + std::to_string(c.head_dim) +
                    " is not an even size up to 1024, which RoPE needs; the metadata is inconsistent");
    if (const auto v = f.int_value("llama.attention.value_length"); v && *v != c.head_dim)
        throw Error("'" + f.name() + "': keys of " + std::to_string(c.head_dim) + " and values of " + std::to_string(*v) +
                    " dimensions are not a llama layout attnscope runs");
    if (const auto rot = f.int_value("llama.rope.dimension_count"); rot && *rot != c.head_dim)
        throw Error("'" + f.name() + "': RoPE rotates " + std::to_string(*rot) + " of " + std::to_string(c.head_dim) +
                    " dimensions per head; attnscope implements full-width RoPE only");
    c.rms_eps = f.float_value("llama.attention.layer_norm_rms_epsilon").value_or(1e-5);
    c.rope_base = f.float_value("llama.rope.freq_base").value_or(10000.0);
    if (!(c.rms_eps > 0 && c.rms_eps < 1) || !(c.rope_base > 1))
        throw Error("'" + f.name() + "': RMSNorm ε " + std::to_string(c.rms_eps) + " or RoPE base " +
                    std::to_string(c.rope_base) + " is out of range; the file is corrupt");
    const std::string scaling = f.string_value("llama.rope.scaling.type").value_or("none");
    if (scaling == "linear") {
        c.rope_linear = f.float_value("llama.rope.scaling.factor").value_or(1.0);
        if (!(c.rope_linear >= 1 && c.rope_linear <= 1024))
            throw Error("'" + f.name() + "': linear RoPE scaling factor " + std::to_string(c.rope_linear) + " is out of range");
    } else if (scaling != "none") {
        throw Error("'" + f.name() + "' uses RoPE scaling '" + scaling +
                    "': attnscope implements plain RoPE, linear scaling and Llama 3's frequency factors");
    }
    const GgufTensorInfo* embd = f.find_tensor("token_embd.weight");
    if (!embd || embd->dims.size() != 2 || embd->dims[0] != c.hidden)
        throw Error("'" + f.name() + "' has no token_embd.weight of width " + std::to_string(c.hidden) + ": " + kSupported);
    c.vocab = static_cast<int>(embd->dims[1]);
    c.tied_output = f.find_tensor("output.weight") == nullptr;
    c.rope_freq_factors = f.find_tensor("rope_freqs.weight") != nullptr;
    return c;
}

}  // namespace attnscope
