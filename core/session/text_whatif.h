// attnscope — what-if through the model: replace the attention of one layer (or of every layer) by a
// variant, run the rest of the encoder, and compare the sentence embedding with the exact one. A task-level
// fidelity figure beside the matrix errors: cosine 1 means the approximation changed nothing downstream.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/session/experiment.h"
#include "core/data/text_model.h"

namespace attnscope {

/// Which layers a what-if replaces.
constexpr int kAllLayers = -1;

/// The outcome of one what-if run.
struct WhatIfResult {
    std::string variant;          // variant id
    int layer = kAllLayers;       // replaced layer, or kAllLayers
    double embedding_cosine = 0;  // cosine(embedding with replacement, exact embedding)
    double time_ms = 0;           // wall time of the replaced forward pass
};

/// The exact sentence embedding of `ids` (mean-pooled, L2-normalised), (hidden).
std::vector<float> exact_text_embedding(const TextModel& model, const std::vector<int>& ids);

/// Runs `model` on `ids` with the attention of `layer` (kAllLayers: every layer) replaced by `request`'s
/// output on that layer's Q, K, V (X = the layer input), and reports the embedding cosine to `exact`.
/// Throws Error on a layer out of range or a variant that rejects the input.
WhatIfResult run_text_whatif(const TextModel& model, const std::vector<int>& ids, const std::vector<float>& exact,
                             int layer, const VariantRequest& request, Backend& backend);

/// A measure for sweeps (SweepSpec::evaluate): the embedding cosine of `ids` with the attention of `layer`
/// replaced by the request's variant; the exact embedding is computed once, on the first call.
std::function<std::optional<double>(const VariantRequest&, Backend&)> embedding_cosine_measure(
    std::shared_ptr<const TextModel> model, std::vector<int> ids, int layer);

}  // namespace attnscope
