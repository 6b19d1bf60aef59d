// attnscope — a sweep's cost model before anything is measured: each variant's analytic FLOPs and peak-bytes
// estimate over n, from its estimate functions alone (no input is built, nothing is run). The Performance panel
// draws these curves at once and the measured points over them as they arrive.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/bench/engine.h"

namespace attnscope {

/// One variant's cost model at one n.
struct ModelPoint {
    std::string label;        // the sweep label of the variant
    int n = 0;                // sequence length
    double flops = 0;         // Variant::estimate_flops
    int64_t peak_bytes = 0;   // Variant::estimate_peak_bytes
    std::string error;        // why there is no model here (parameters invalid at this n); figures are 0 then
};

/// The cost model of every (variant, n) of `config` in (variant, n) order, with the config's heads and dims.
/// Throws Error for an unknown variant id.
std::vector<ModelPoint> cost_model_points(const BenchConfig& config);

}  // namespace attnscope
