// attnscope — tick labels for log-scale plot axes that span less than two decades, where ImPlot would label only
// the one power of ten inside (a sweep from 8 to 64 showed a single "10"): 1-2-5 steps, each labelled.
#pragma once
#include <implot.h>

namespace attnscope::gui {

/// Between BeginPlot and the first plot call, after SetupAxisScale(axis, Log10): labelled ticks at 1, 2, 5 × 10^k
/// inside [lo, hi] when hi/lo < 100 (wider ranges keep ImPlot's labelled decades). lo and hi must be > 0.
void setup_log_ticks(ImAxis axis, double lo, double hi);

}  // namespace attnscope::gui
