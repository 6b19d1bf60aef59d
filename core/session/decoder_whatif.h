// attnscope — the decoder's perplexity what-if: replace the causal attention of a span of layers by a variant, run the
// rest of the decoder, and compare its next-token predictions with the exact model's on the same text. This is the cost
// the sparse-attention papers report (perplexity), with what it hides: the per-position NLL, how far each next-token
// distribution moved (KL) and how often the most likely token changed (top-1 agreement).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/data/text_model.h"
#include "core/session/experiment.h"

namespace attnscope {

/// Layers first … last (inclusive) whose attention a what-if replaces.
struct LayerSpan {
    int first = 0;
    int last = 0;
    bool contains(int layer) const { return layer >= first && layer <= last; }
    /// "layer 5", "layers 3-7" or "all 30 layers" (for a model of `layers` layers).
    std::string text(int layers) const;
};

/// Parses "all", "L" or "A-B" for a model of `layers` layers; throws Error naming `option` and the valid range.
LayerSpan parse_layer_span(const std::string& text, int layers, const std::string& option);

/// The exact decoder's next-token predictions on one text: computed once, compared with every what-if.
struct ExactNextTokens {
    std::vector<int> ids;     // the text's token ids (n ≥ 2)
    MatrixRM logits;          // (n, vocab)
    std::vector<double> nll;  // (n − 1): −log p(ids[t + 1] | ids[0 … t])
    double perplexity = 0;    // exp(mean nll)
};

/// Runs the exact decoder on ids; throws Error for fewer than two tokens (nothing to predict) or a bad id.
ExactNextTokens exact_next_tokens(const LlamaDecoder& decoder, const std::vector<int>& ids);

/// A what-if's next-token predictions against the exact model's, over positions 0 … n − 2.
struct NextTokenComparison {
    double perplexity = 0;        // exp(mean NLL) with the replacement
    double exact_perplexity = 0;  // the exact model's on the same text
    double delta_perplexity = 0;  // perplexity − exact_perplexity
    double mean_kl = 0;           // mean over positions of KL(exact ‖ what-if) of the next-token distributions (nats)
    double top1_agreement = 0;    // share of positions whose most likely next token is the exact model's
    std::vector<double> nll;      // (n − 1) per-position NLL with the replacement
};

/// Compares `logits` (n, vocab) of a what-if with the exact predictions (log-softmax in float64).
NextTokenComparison compare_next_tokens(const ExactNextTokens& exact, const MatrixRM& logits);

/// The outcome of one perplexity what-if.
struct PerplexityWhatIf {
    std::string variant;  // variant id
    LayerSpan layers;     // the replaced layers
    NextTokenComparison result;
    double time_ms = 0;   // wall time of the replaced forward pass
};

/// Runs the decoder on exact.ids with the attention of `layers` (every head) replaced by `request`'s output on those
/// layers' Q, K and V (each query head with its group's K and V). Throws Error when the request is not causal (a
/// variant that reads later tokens would see the token it predicts) or rejects the input. `cancelled` (optional) is
/// polled between layers; when it returns true the run stops with Error("cancelled").
PerplexityWhatIf run_perplexity_whatif(const LlamaDecoder& decoder, const ExactNextTokens& exact, LayerSpan layers,
                                       const VariantRequest& request, Backend& backend,
                                       const std::function<bool()>& cancelled = {});

/// A measure for sweeps and error maps: the perplexity of `ids` with `layers` replaced by the request's variant; the
/// exact predictions are computed once, on the first call.
std::function<std::optional<double>(const VariantRequest&, Backend&)> perplexity_measure(
    std::shared_ptr<const DecoderModel> model, std::vector<int> ids, LayerSpan layers);

}  // namespace attnscope
