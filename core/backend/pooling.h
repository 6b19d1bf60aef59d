// attnscope — index math of the pooled level-of-detail view (n×n → s×s bins), shared by host and device.
#pragma once
#include <cstdint>

#include "hd.h"

namespace attnscope {

/// How cells of one bin are reduced to one pixel.
enum class PoolMode {
    Max,   // the largest weight in the bin: sparse patterns stay visible when zoomed out
    Mean,  // the average: preserves total mass
};

/// First source index of bin b when n items are split into s bins as evenly as possible.
ATTNSCOPE_HD int64_t pool_bin_begin(int64_t b, int64_t n, int64_t s) { return (b * n) / s; }

/// One past the last source index of bin b.
ATTNSCOPE_HD int64_t pool_bin_end(int64_t b, int64_t n, int64_t s) { return ((b + 1) * n) / s; }

}  // namespace attnscope
