#include "core/session/text_whatif.h"

#include <chrono>

namespace attnscope {

std::vector<float> exact_text_embedding(const TextModel& model, const std::vector<int>& ids) {
    EncoderOptions options;
    options.keep_qkv = false;
    options.keep_probs = false;
    return model.encoder.forward(ids, options).embedding;
}

WhatIfResult run_text_whatif(const TextModel& model, const std::vector<int>& ids, const std::vector<float>& exact,
                             int layer, const VariantRequest& request, Backend& backend) {
    const int layers = model.encoder.config().layers;
    if (layer != kAllLayers && (layer < 0 || layer >= layers))
        throw Error("what-if layer " + std::to_string(layer) + " is out of range: choose 0 to " +
                    std::to_string(layers - 1) + " or all");
    EncoderOptions options;
    options.keep_qkv = false;
    options.keep_probs = false;
    RunOptions run_options;  // no matrices: only O feeds the rest of the encoder
    options.hook = [&](int l, const Heads& heads) -> std::optional<Tensor3> {
        if (layer != kAllLayers && l != layer) return std::nullopt;
        try {
            return run_variant(heads, request, run_options, backend, nullptr).O;
        } catch (const Error& e) {
            throw Error("what-if at layer " + std::to_string(l) + ": " + e.what());
        }
    };
    const auto start = std::chrono::steady_clock::now();
    const EncoderOutput out = model.encoder.forward(ids, options);
    WhatIfResult r;
    r.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    r.variant = request.id;
    r.layer = layer;
    r.embedding_cosine = cosine_similarity(out.embedding, exact);
    return r;
}

std::function<std::optional<double>(const VariantRequest&, Backend&)> embedding_cosine_measure(
    std::shared_ptr<const TextModel> model, std::vector<int> ids, int layer) {
    auto exact = std::make_shared<std::vector<float>>();
    return [model, ids = std::move(ids), layer, exact](const VariantRequest& request, Backend& backend) -> std::optional<double> {
        if (exact->empty()) *exact = exact_text_embedding(*model, ids);
        return run_text_whatif(*model, ids, *exact, layer, request, backend).embedding_cosine;
    };
}

}  // namespace attnscope
