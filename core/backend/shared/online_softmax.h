// attnscope — the online-softmax bookkeeping of FlashAttention, shared by the CPU tiles and CUDA kernels.
// A row keeps a running max m and a running sum l = Σ exp(s - m); seeing a new block with max m_blk
// rescales what was accumulated by exp(m - m_new). The log-sum-exp of the row is m + log(l).
#pragma once
#include <cmath>

#include "core/backend/shared/hd.h"

namespace attnscope {

/// Scores at or below this are treated as "masked out" (never attended).
constexpr float kMaskedScore = -INFINITY;

/// Running state of one softmax row.
struct OnlineSoftmaxRow {
    float m;  // running max of the scores seen (−inf before any)
    float l;  // running Σ exp(score − m)
};

/// The state before any score was seen.
ATTNSCOPE_HD OnlineSoftmaxRow online_softmax_init() { return {-INFINITY, 0.0f}; }

/// New running max after seeing a block whose max is `block_max`.
ATTNSCOPE_HD float online_softmax_new_max(const OnlineSoftmaxRow& row, float block_max) {
    return row.m > block_max ? row.m : block_max;
}

/// Factor that rescales what was accumulated under the old max to the new max (0 when nothing was seen).
ATTNSCOPE_HD float online_softmax_rescale(float old_max, float new_max) {
    return old_max == -INFINITY ? 0.0f : expf(old_max - new_max);
}

/// Folds a block with new max `new_max` and Σ exp(s − new_max) = `block_sum` into the row.
ATTNSCOPE_HD void online_softmax_update(OnlineSoftmaxRow& row, float new_max, float block_sum) {
    row.l = row.l * online_softmax_rescale(row.m, new_max) + block_sum;
    row.m = new_max;
}

/// Merges two partial rows (e.g. two key ranges processed apart); returns the combined state.
ATTNSCOPE_HD OnlineSoftmaxRow online_softmax_merge(const OnlineSoftmaxRow& a, const OnlineSoftmaxRow& b) {
    const float m = a.m > b.m ? a.m : b.m;
    if (m == -INFINITY) return online_softmax_init();
    return {m, a.l * online_softmax_rescale(a.m, m) + b.l * online_softmax_rescale(b.m, m)};
}

/// log Σ exp(s) of the row; −inf for a row that saw no allowed score.
ATTNSCOPE_HD float online_softmax_lse(const OnlineSoftmaxRow& row) {
    return row.l > 0.0f ? row.m + logf(row.l) : -INFINITY;
}

/// 1/l for the final normalisation, 0 for an empty row (its output stays 0 rather than NaN).
ATTNSCOPE_HD float online_softmax_inv_sum(const OnlineSoftmaxRow& row) { return row.l > 0.0f ? 1.0f / row.l : 0.0f; }

}  // namespace attnscope
