// attnscope — a figure of variant runs on one input: which matrix each panel shows (weights, mask by reason, or
// the difference to exact softmax), with the instance in every title and metric lines that say what they are
// measured against. Used by `attnscope figure`, `run --png` and the GUI's File → Export figure.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/heads.h"
#include "core/session/display_order.h"
#include "core/variants/variant.h"
#include "core/figure/figure.h"

namespace attnscope::figure {

/// What every panel draws.
enum class View {
    Weights,     // P_eff on the sequential map (log or linear)
    Mask,        // P_eff tinted by why each cell is allowed, forbidden cells dimmed, with the reason legend
    Difference,  // P_eff − P (exact softmax of the same causality) on the diverging map
    Buckets,     // P_eff with both axes in an lsh round's bucket order, bucket boundaries and every round's strip
};

/// Parses "weights", "mask", "difference" or "buckets"; throws Error listing them.
View parse_view(const std::string& text);
/// Parses "light" or "dark"; throws Error listing them.
Theme parse_theme(const std::string& text);

/// How to draw the runs.
struct RunFigureOptions {
    View view = View::Mask;
    int head = 0;                // the head every panel shows, and whose own metrics its lines give
    int head_number = -1;        // the number titles call that head (text --head H loads H alone, as head 0); −1: head
    bool log_scale = true;       // weights: log10 colours over `decades`
    float decades = 4;
    Theme theme = Theme::Light;
    float width = 1600, height = 0;  // logical pixels (0 height: as the panels need)
    std::string title;           // above the panels, e.g. the input
    DisplayOrder order = DisplayOrder::Positions;  // both axes (Buckets: always an lsh round's order)
    int order_round = 0;         // the lsh round whose sorted order is shown
};

/// The exact softmax P (H, n, n) of one causality, or nullptr when it was not materialised.
using ExactMatrix = std::function<const Tensor3*(bool causal)>;

/// The figure of `results` on `heads` (tokens label the axes). Throws Error when no result has a matrix, the head
/// does not exist, or the difference view has no exact P.
FigureSpec figure_of_runs(const Heads& heads, const std::vector<RunResult>& results, const RunFigureOptions& options,
                          const ExactMatrix& exact);

}  // namespace attnscope::figure
