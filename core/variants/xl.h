// attnscope — Transformer-XL evaluation modes (Dai et al. 2019 §3.2): reusing the cached memory segment by
// segment versus recomputing the whole context for every segment, timed side by side on the same input.
// Used by the `xl` variant's notes, lessons and benchmarks.
#pragma once
#include "core/backend/interface/backend.h"
#include "core/variants/variant.h"

namespace attnscope {

/// Timings of the two evaluation modes over all segments of one input.
struct XlEvaluationTiming {
    int segments = 0;            // ⌈n / L⌉
    double cached_ms = 0;        // per segment: its L queries against cached memory K, V + the segment (causal)
    double recompute_ms = 0;     // per segment: dense causal attention over the whole context window (M + L)
    double speedup = 0;          // recompute_ms / cached_ms
    double max_abs_diff = 0;     // largest |O_cached − O_recompute| over the segments' rows (should be ~1e-7)
    double cached_flops = 0;     // analytic flops of the cached mode
    double recompute_flops = 0;  // analytic flops of the recompute mode
};

/// Evaluates segment by segment with segment length L ≥ 1 and memory M ≥ 0 (the same_length = off form),
/// both modes with scale s; throws Error on bad L, M.
XlEvaluationTiming time_xl_evaluation(const Heads& heads, int L, int M, float scale, Backend& backend);

}  // namespace attnscope
