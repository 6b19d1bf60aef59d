// attnscope — spectra of every layer and head of a text model (Linformer Fig. 1 right): the normalised
// cumulative singular-value sum of each exact softmax matrix P, so a layers × heads heatmap can show how
// low-rank the attention of a trained encoder is, and where.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/data/text_input.h"

namespace attnscope {

/// Normalised cumulative sums of σ of the exact attention P of every (layer, head) of one text.
struct LayerHeadSpectra {
    int layers = 0, heads = 0, n = 0;              // model layers and heads; tokens of the text
    std::vector<std::vector<double>> cumulative;   // [layer · heads + head]: n values Σ_{l≤i} σ_l / Σ σ
    std::vector<std::string> tokens;               // the n token strings
    bool truncated = false;                        // the text was cut to the model's max positions
    /// The cumulative share at index k (1-based, clamped to 1..n) of (layer, head).
    double at(int layer, int head, int k) const;
};

/// Runs the encoder once on spec.text (spec.layer and spec.head are ignored; spec.truncate applies) and takes
/// the exact spectrum of every layer's and head's softmax probabilities. `cancelled` is polled between heads;
/// returns nothing when it fired. Throws Error like load_text_input (missing model, too long, bad UTF-8).
std::optional<LayerHeadSpectra> text_layer_spectra(const TextInputSpec& spec,
                                                   const std::function<bool()>& cancelled = {});

}  // namespace attnscope
