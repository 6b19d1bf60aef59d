// attnscope — the figures of the decoder's perplexity: the per-position next-token NLL of each what-if beside the
// exact model's, and StreamingLLM's table (perplexity against the window, each method against full attention on the
// same positions, and the exact attention the first tokens receive per layer). Used by `attnscope figure --view
// perplexity|streaming` and the GUI's Perplexity and Streaming panels.
#pragma once
#include <string>
#include <vector>

#include "core/figure/plot.h"
#include "core/session/decoder_whatif.h"
#include "core/session/streaming_llm.h"

namespace attnscope::figure {

/// One instance's what-if, named as the legend shows it.
struct PerplexityCurve {
    std::string name;  // instance label
    NextTokenComparison result;
};

/// Positions a figure's NLL curves are averaged over (a running mean: single tokens' NLL swings over 0–15 nats).
constexpr int kNllSmoothing = 16;

/// The running mean of `values` over windows of `width` (centred, shorter at the ends).
std::vector<double> running_mean(const std::vector<double>& values, int width);

/// Per-position NLL (running mean over kNllSmoothing positions) of the exact model and of each curve, with each one's
/// perplexity, ΔPPL, KL and top-1 agreement in the notes; `layers` says which layers were replaced ("all 30 layers").
/// Throws Error without curves or when the curves' lengths differ from the exact one's.
PlotFigure perplexity_figure(const std::vector<double>& exact_nll, double exact_perplexity,
                             const std::vector<PerplexityCurve>& curves, const std::string& layers);

/// StreamingLLM: perplexity against the window (log axis) for the window alone and the sinks at cache and text
/// positions, full attention as a line; each method ÷ full attention on the same positions; and the exact attention
/// on the first s tokens per layer. Throws Error for an empty table.
PlotFigure streaming_figure(const StreamingTable& table);

}  // namespace attnscope::figure
