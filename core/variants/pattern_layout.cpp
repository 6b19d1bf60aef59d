#include "core/variants/pattern_layout.h"

#include <algorithm>

namespace attnscope {

void band_candidates(int n, int b, int I, int64_t lo, int64_t hi, std::vector<BlockCandidate>& out) {
    if (lo > hi) return;
    const int64_t i0 = int64_t(I) * b, i1 = i0 + block_extent(n, b, I) - 1;
    // i − j ∈ [lo, hi] for some i in the block ⇔ j ∈ [i0 − hi, i1 − lo].
    const int64_t j_begin = std::max<int64_t>(0, i0 - hi), j_end = std::min<int64_t>(n - 1, i1 - lo);
    if (j_begin > j_end) return;
    for (int64_t J = j_begin / b; J <= j_end / b; ++J) {
        const int64_t j0 = J * b, j1 = j0 + block_extent(n, b, static_cast<int>(J)) - 1;
        // Every (i, j) of the block is inside the band when its extreme differences are.
        const bool full = i0 - j1 >= lo && i1 - j0 <= hi;
        out.push_back({static_cast<int>(J), full});
    }
}

void range_candidates(int n, int b, int64_t j_begin, int64_t j_end, std::vector<BlockCandidate>& out) {
    j_begin = std::max<int64_t>(0, j_begin), j_end = std::min<int64_t>(n - 1, j_end);
    for (int64_t J = j_begin / b; j_begin <= j_end && J <= j_end / b; ++J) out.push_back({static_cast<int>(J), false});
}

}  // namespace attnscope
