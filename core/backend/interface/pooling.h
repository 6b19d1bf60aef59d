// attnscope — index math of the pooled level-of-detail view (n×n → s×s bins), shared by host and device.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/backend/shared/hd.h"

namespace attnscope {

/// How cells of one bin are reduced to one pixel.
enum class PoolMode {
    Max,           // the largest weight in the bin: sparse patterns stay visible when zoomed out
    Mean,          // the average: preserves total mass
    SignedMaxAbs,  // the entry of largest magnitude, with its sign: a one-cell difference or negative weight stays
};

/// The starting value of a bin's reduction.
ATTNSCOPE_HD float pool_start(PoolMode mode) { return mode == PoolMode::Max ? -INFINITY : 0.0f; }

/// Folds value v into the bin's running reduction acc (the mean's sum is divided by the cell count afterwards).
ATTNSCOPE_HD float pool_fold(PoolMode mode, float acc, float v) {
    if (mode == PoolMode::Max) return acc > v ? acc : v;
    if (mode == PoolMode::Mean) return acc + v;
    return (v < 0 ? -v : v) > (acc < 0 ? -acc : acc) ? v : acc;
}

/// First source index of bin b when n items are split into s bins as evenly as possible.
ATTNSCOPE_HD int64_t pool_bin_begin(int64_t b, int64_t n, int64_t s) { return (b * n) / s; }

/// One past the last source index of bin b.
ATTNSCOPE_HD int64_t pool_bin_end(int64_t b, int64_t n, int64_t s) { return ((b + 1) * n) / s; }

/// The bin of source index i when n items are split into s ≤ n bins (the b with pool_bin_begin(b) ≤ i < pool_bin_end(b)).
ATTNSCOPE_HD int64_t pool_bin_of(int64_t i, int64_t n, int64_t s) { return ((i + 1) * s - 1) / n; }

}  // namespace attnscope
