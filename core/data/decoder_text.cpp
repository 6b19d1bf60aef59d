#include "core/data/decoder_text.h"

#include <mutex>

#include "core/data/text_model.h"

namespace attnscope {

namespace {

/// The decoder's tokens of spec.text, cut to its context when spec.truncate; fills the input's counts.
std::vector<int> decoder_tokens(const DecoderModel& model, const TextInputSpec& spec, TextInput& input) {
    const LlamaConfig& c = model.decoder.config();
    std::vector<int> ids = model.tokenizer.encode(spec.text);
    if (ids.empty())
        throw Error("the text is empty: type a sentence, or choose a synthetic scenario");
    input.untruncated_tokens = static_cast<int>(ids.size());
    if (input.untruncated_tokens > c.context) {
        if (!spec.truncate)
            throw Error("the text has " + std::to_string(ids.size()) + " tokens but " + c.name + " takes at most " +
                        std::to_string(c.context) + " (its context): shorten it or truncate it (--truncate)");
        ids.resize(static_cast<size_t>(c.context));
        input.truncated = true;
    }
    input.token_ids = ids;
    input.heads.tokens.clear();
    for (int id : ids) input.heads.tokens.push_back(model.tokenizer.display(id));
    input.heads.source = "text";
    input.layers = c.layers;
    input.model_heads = c.heads;
    input.kv_heads = c.kv_heads;
    input.causal = true;
    input.model_name = c.name + " (decoder)";
    return ids;
}

/// The last decoder pass of this process and what it was run on: an edit that keeps the text's first tokens (typing at
/// its end) recomputes only the positions after them (LlamaDecoder::extend), as a causal model allows.
struct DecoderPassCache {
    std::mutex mutex;
    std::string model;
    std::vector<int> ids;
    std::shared_ptr<const DecoderOutput> pass;  // layers 0 … pass->Q.size() − 1, with Q, K, V and inputs
};

/// Passes above this size are not kept (a long text's every-layer states would hold gigabytes).
constexpr int64_t kDecoderCacheBytes = int64_t(256) << 20;

int64_t pass_bytes(const DecoderOutput& pass) {
    int64_t floats = 0;
    for (const auto* list : {&pass.Q, &pass.K, &pass.V, &pass.hidden})
        for (const Tensor3& t : *list) floats += t.size();
    return floats * int64_t(sizeof(float));
}

/// model.decoder.forward(ids, options) (keep_qkv, no probabilities or logits), from the cached pass's common prefix
/// when it has one and covers the layers asked for.
std::shared_ptr<const DecoderOutput> decode_reusing_prefix(const DecoderModel& model, const std::vector<int>& ids,
                                                           const DecoderOptions& options) {
    static DecoderPassCache cache;
    std::shared_ptr<const DecoderOutput> previous;
    size_t common = 0;
    {
        std::lock_guard<std::mutex> lock(cache.mutex);
        if (cache.pass && cache.model == model.path && int(cache.pass->Q.size()) > options.last_layer) {
            previous = cache.pass;
            while (common < ids.size() && common < cache.ids.size() && ids[common] == cache.ids[common]) ++common;
            if (common == ids.size() && common == cache.ids.size()) return previous;
        }
    }
    auto pass = std::make_shared<const DecoderOutput>(
        previous && common > 0 ? model.decoder.extend(ids, *previous, int(std::min(common, ids.size() - 1)), options)
                               : model.decoder.forward(ids, options));
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (pass_bytes(*pass) <= kDecoderCacheBytes) cache.model = model.path, cache.ids = ids, cache.pass = pass;
    else cache.pass.reset(), cache.ids.clear();
    return pass;
}

}  // namespace

/// encode_text_layers for a decoder: K and V expanded to the query heads, each reading its group's.
TextLayers decode_text_layers(const DecoderModel& model, const TextInputSpec& spec) {
    const LlamaConfig& c = model.decoder.config();
    check_text_layer_and_head(spec, c.layers, c.heads);
    TextLayers out;
    const std::vector<int> ids = decoder_tokens(model, spec, out.input);
    DecoderOptions options;
    options.last_layer = spec.layer;  // later layers do not change this layer's Q, K, V
    const std::shared_ptr<const DecoderOutput> decoded = decode_reusing_prefix(model, ids, options);
    out.Q = decoded->Q;
    out.Q.resize(size_t(spec.layer) + 1);
    for (int l = 0; l <= spec.layer; ++l) {
        out.K.push_back(expand_kv_heads(decoded->K[size_t(l)], c.heads));
        out.V.push_back(expand_kv_heads(decoded->V[size_t(l)], c.heads));
        out.X.push_back(decoded->hidden[size_t(l)]);
    }
    return out;
}


}  // namespace attnscope
