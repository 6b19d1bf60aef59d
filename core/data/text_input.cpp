#include "core/data/text_input.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "core/data/text_model.h"

namespace attnscope {

std::vector<int> tokenize_text(const std::string& text, const std::string& model_dir) {
    const ModelChoice choice = resolve_model(model_dir);
    if (choice.decoder) return load_decoder_model(choice.path)->tokenizer.encode(text);
    return load_text_model(choice.path)->tokenizer.encode(text).ids;
}

TextModelFacts text_model_facts(const std::string& model_dir) {
    const ModelChoice choice = resolve_model(model_dir);
    TextModelFacts f;
    f.decoder = choice.decoder;
    f.path = choice.path;
    if (choice.decoder) {
        const LlamaConfig& c = load_decoder_model(choice.path)->decoder.config();
        f.name = c.name + " (decoder)", f.layers = c.layers, f.heads = c.heads, f.kv_heads = c.kv_heads;
        f.max_tokens = c.context;
    } else {
        const BertConfig& c = load_text_model(choice.path)->encoder.config();
        f.name = std::filesystem::path(choice.path).filename().string() + " (encoder)";
        f.layers = c.layers, f.heads = c.heads, f.kv_heads = c.heads, f.max_tokens = c.max_positions;
    }
    return f;
}

namespace {

void check_layer_and_head(const TextInputSpec& spec, int layers, int heads) {
    if (spec.layer < 0 || spec.layer >= layers)
        throw Error("layer " + std::to_string(spec.layer) + " is out of range: the model has layers 0 to " +
                    std::to_string(layers - 1));
    if (spec.head < -1 || spec.head >= heads)
        throw Error("head " + std::to_string(spec.head) + " is out of range: the model has heads 0 to " +
                    std::to_string(heads - 1) + " (or -1 for all)");
}

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

/// encode_text_layers for a decoder: K and V expanded to the query heads, each reading its group's.
TextLayers decode_text_layers(const DecoderModel& model, const TextInputSpec& spec) {
    const LlamaConfig& c = model.decoder.config();
    check_layer_and_head(spec, c.layers, c.heads);
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

}  // namespace

TextLayers encode_text_layers(const TextInputSpec& spec) {
    const ModelChoice choice = resolve_model(spec.model_dir);
    if (choice.decoder) return decode_text_layers(*load_decoder_model(choice.path), spec);
    const auto model = load_text_model(choice.path);
    const BertConfig& config = model->encoder.config();
    check_layer_and_head(spec, config.layers, config.heads);
    Encoding enc = model->tokenizer.encode(spec.text);
    if (enc.ids.size() <= 2)  // [CLS] and [SEP] only: two rows of nothing to attend over
        throw Error("the text is empty (no word after spaces and control characters are removed): type a sentence, "
                    "or choose a synthetic scenario");
    TextLayers out;
    out.input.untruncated_tokens = static_cast<int>(enc.ids.size());
    if (out.input.untruncated_tokens > config.max_positions) {
        if (!spec.truncate)
            throw Error("the text has " + std::to_string(out.input.untruncated_tokens) + " tokens but the model takes at most " +
                        std::to_string(config.max_positions) + ": shorten it or truncate it (--truncate)");
        // Keep [CLS] and the first pieces, and end with [SEP] as a tokenizer's truncation would.
        const int keep = config.max_positions;
        const int sep = enc.ids.back();
        const std::string sep_text = enc.tokens.back();
        enc.ids.resize(static_cast<size_t>(keep));
        enc.tokens.resize(static_cast<size_t>(keep));
        enc.ids.back() = sep;
        enc.tokens.back() = sep_text;
        out.input.truncated = true;
    }
    EncoderOptions options;
    options.keep_probs = false;
    options.last_layer = spec.layer;  // later layers do not change this layer's Q, K, V
    EncoderOutput encoded = model->encoder.forward(enc.ids, options);
    out.Q = std::move(encoded.Q), out.K = std::move(encoded.K), out.V = std::move(encoded.V);
    encoded.hidden.resize(out.Q.size());  // hidden[l] is layer l's input; the last layer's output is not needed
    out.X = std::move(encoded.hidden);
    out.input.heads.tokens = std::move(enc.tokens);
    out.input.heads.source = "text";
    out.input.token_ids = std::move(enc.ids);
    out.input.layers = config.layers;
    out.input.model_heads = config.heads;
    out.input.kv_heads = config.heads;
    out.input.model_name = std::filesystem::path(choice.path).filename().string() + " (encoder)";
    return out;
}

TextInput text_input_of_layer(const TextLayers& layers, int layer, int head) {
    if (layer < 0 || layer >= int(layers.Q.size()))
        throw Error("layer " + std::to_string(layer) + " was not encoded (layers 0 to " + std::to_string(int(layers.Q.size()) - 1) +
                    " were)");
    const auto L = static_cast<size_t>(layer);
    if (head < -1 || head >= layers.Q[L].heads())
        throw Error("head " + std::to_string(head) + " is out of range: the model has heads 0 to " +
                    std::to_string(layers.Q[L].heads() - 1) + " (or -1 for all)");
    TextInput out = layers.input;
    Heads& heads = out.heads;
    if (head < 0) {
        heads.Q = layers.Q[L], heads.K = layers.K[L], heads.V = layers.V[L];
    } else {
        auto one = [&](const Tensor3& t) {
            Tensor3 r(1, t.rows(), t.cols());
            r.head(0) = t.head(head);
            return r;
        };
        heads.Q = one(layers.Q[L]), heads.K = one(layers.K[L]), heads.V = one(layers.V[L]);
    }
    heads.X = layers.X[L];
    return out;
}

TextInput load_text_input(const TextInputSpec& spec) {
    return text_input_of_layer(encode_text_layers(spec), spec.layer, spec.head);
}

namespace {
/// The most text_layer_probs holds for a decoder (a 2-core, 24 GiB machine keeps working beside it).
constexpr double kAllLayersProbsGiB = 2.0;
}  // namespace

std::optional<TextLayerProbs> text_layer_probs(const TextInputSpec& spec, const std::function<bool()>& cancelled) {
    TextInputSpec first = spec;  // tokenizes and truncates exactly as the variants' input does (one layer: cheap)
    first.layer = 0, first.head = -1;
    TextLayerProbs out;
    out.input = load_text_input(first);
    if (cancelled && cancelled()) return std::nullopt;
    const ModelChoice choice = resolve_model(spec.model_dir);
    if (choice.decoder) {
        // Every layer's (heads, n, n) at once: bounded, with the sentence a user can act on.
        const LlamaConfig& c = load_decoder_model(choice.path)->decoder.config();
        const double n = double(out.input.token_ids.size());
        const double gib = double(c.layers) * c.heads * n * n * sizeof(float) / double(1 << 30);
        if (gib > kAllLayersProbsGiB)
            throw Error("every layer's attention of every head at n = " + std::to_string(int(n)) + " would hold " +
                        std::to_string(int(gib + 0.5)) + " GiB (" + std::to_string(c.layers) + " layers × " +
                        std::to_string(c.heads) + " heads × n²): use a text of at most " +
                        std::to_string(int(std::sqrt(kAllLayersProbsGiB * double(1 << 30) / (4.0 * c.layers * c.heads)))) +
                        " tokens for the layers × heads spectra");
        DecoderOptions options;
        options.keep_qkv = false;
        options.keep_probs = true;
        out.probs = load_decoder_model(choice.path)->decoder.forward(out.input.token_ids, options).probs;
        return out;
    }
    EncoderOptions options;
    options.keep_qkv = false;
    options.keep_probs = true;
    out.probs = load_text_model(choice.path)->encoder.forward(out.input.token_ids, options).probs;
    return out;
}

}  // namespace attnscope
