#include "core/backend/cpu/cpu_pooled_attention.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "core/backend/cpu/cpu_flash_tile.h"
#include "core/backend/interface/pooling.h"

namespace attnscope {

namespace {

/// cell = max(cell, v) against other threads doing the same (a compare-and-swap loop; a lost race retries only
/// while v is still larger).
void atomic_max(float& cell, float v) {
    std::atomic_ref<float> ref(cell);
    float seen = ref.load(std::memory_order_relaxed);
    while (v > seen && !ref.compare_exchange_weak(seen, v, std::memory_order_relaxed)) {
    }
}

}  // namespace

void pooled_bin_max(ConstMatView s, int j0, int m, int sc, float* binmax, int stride) {
    const int rows = static_cast<int>(s.rows()), cols = static_cast<int>(s.cols());
    for (int64_t b = pool_bin_of(j0, m, sc), c0 = 0; c0 < cols; ++b) {
        const int64_t c1 = std::min<int64_t>(pool_bin_end(b, m, sc) - j0, cols);
        Eigen::Map<Eigen::VectorXf> bin(binmax + b * stride, rows);
        bin = bin.cwiseMax(s.middleCols(c0, c1 - c0).rowwise().maxCoeff());
        c0 = c1;
    }
}

void pooled_fold_tile(const float* binmax, int stride, const float* lse, int i0, int rows, int n, Tensor3& pooled,
                      int h, [[maybe_unused]] bool vector) {
    const int sr = pooled.rows(), sc = pooled.cols();
    for (int r0 = 0; r0 < rows;) {
        const int64_t a = pool_bin_of(i0 + r0, n, sr), a0 = pool_bin_begin(a, n, sr), a1 = pool_bin_end(a, n, sr);
        const int r1 = static_cast<int>(std::min<int64_t>(a1 - i0, rows));
        // A row bin inside this tile gets no other writer: plain stores over the zeros. One the tile shares with its
        // neighbours' rows takes an atomic max.
        const bool exclusive = a0 >= i0 && a1 <= i0 + rows;
        float* cells = pooled.head_data(h) + a * sc;
        for (int b0 = 0; b0 < sc; b0 += flash_tile::kLanes) {  // as many bins as bin_exp_max takes
            const int count = std::min(flash_tile::kLanes, sc - b0);
            float top[flash_tile::kLanes];
#if ATTNSCOPE_SIMD
            if (vector) {
                flash_tile::bin_exp_max(binmax, stride, lse, r0, r1, b0, count, top);
            } else
#else
            // (no vector kernel in this build: `vector` is never true, see pooled_fold_tile's contract)
#endif
            {
                const Eigen::Map<const Eigen::ArrayXf> l(lse + r0, r1 - r0);
                for (int k = 0; k < count; ++k) {
                    // max_r exp(binmax − lse_r) = exp(max_r (binmax − lse_r)): one exp per bin of the segment.
                    const Eigen::Map<const Eigen::ArrayXf> bin(binmax + int64_t(b0 + k) * stride + r0, r1 - r0);
                    const float x = (bin - l).maxCoeff();
                    top[k] = x > -INFINITY ? std::exp(x) : 0.0f;
                }
            }
            if (exclusive)
                std::copy(top, top + count, cells + b0);
            else
                for (int k = 0; k < count; ++k)
                    if (top[k] > 0) atomic_max(cells[b0 + k], top[k]);
        }
        r0 = r1;
    }
}

void pooled_from_probabilities(const Tensor3& P, Tensor3& pooled) {
    const int H = P.heads(), n = P.rows(), m = P.cols(), sr = pooled.rows(), sc = pooled.cols();
#pragma omp parallel for collapse(2) schedule(static)
    for (int h = 0; h < H; ++h)
        for (int a = 0; a < sr; ++a) {
            const int64_t i0 = pool_bin_begin(a, n, sr), i1 = pool_bin_end(a, n, sr);
            for (int b = 0; b < sc; ++b) {
                const int64_t j0 = pool_bin_begin(b, m, sc), j1 = pool_bin_end(b, m, sc);
                pooled.at(h, a, b) = P.head(h).block(i0, j0, i1 - i0, j1 - j0).maxCoeff();
            }
        }
}

}  // namespace attnscope
