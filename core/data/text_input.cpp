#include "core/data/text_input.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "core/data/decoder_text.h"
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

void check_text_layer_and_head(const TextInputSpec& spec, int layers, int heads) {
    if (spec.layer < 0 || spec.layer >= layers)
        throw Error("layer " + std::to_string(spec.layer) + " is out of range: the model has layers 0 to " +
                    std::to_string(layers - 1));
    if (spec.head < -1 || spec.head >= heads)
        throw Error("head " + std::to_string(spec.head) + " is out of range: the model has heads 0 to " +
                    std::to_string(heads - 1) + " (or -1 for all)");
}

TextLayers encode_text_layers(const TextInputSpec& spec) {
    const ModelChoice choice = resolve_model(spec.model_dir);
    if (choice.decoder) return decode_text_layers(*load_decoder_model(choice.path), spec);
    const auto model = load_text_model(choice.path);
    const BertConfig& config = model->encoder.config();
    check_text_layer_and_head(spec, config.layers, config.heads);
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
