// attnscope — feature maps a block of rows at a time on the CPU (implemented in cpu_feature_maps.cpp), so
// linear attention can compute φ where it uses it (core/backend/cpu/cpu_linear_attention.cpp) instead of
// holding φ(Q), φ(K) (H, n, f) in memory. The whole-tensor feature_map runs the same per-row code.
#pragma once
#include "core/backend/interface/backend.h"

namespace attnscope {

/// True when φ of a row needs only that row and per-head statistics: every map but the FAVOR kinds (their keys
/// share one stabiliser taken over every row's projection).
bool feature_map_blockwise(FeatureMap map);

/// Per-head statistics of a blockwise map over all rows of a.X: SoftmaxPositions' column max (row 0) and
/// 1/Σ exp(x − max) (row 1), (H, 2, d); an empty tensor for the row-local maps.
Tensor3 feature_map_head_stats(const FeatureMapArgs& a);

/// Writes φ of rows [r0, r0 + rows) of head h of a.X (a blockwise map) into out (rows, f) with row stride
/// `stride` floats, the leading 1 included when a.prepend_one; `stats` from feature_map_head_stats.
void feature_map_rows(const FeatureMapArgs& a, const Tensor3& stats, int h, int r0, int rows, float* out,
                      int64_t stride);

}  // namespace attnscope
