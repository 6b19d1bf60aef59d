#include <algorithm>
#include <cmath>

#include "cpu_primitives.h"

namespace attnscope {

void cpu_pooled_view(const Tensor3& M, int size, PoolMode mode, Tensor3& out) {
    validate_pooled_view(size);
    const int H = M.heads(), n = M.rows(), m = M.cols();
    const int sr = std::min(n, size), sc = std::min(m, size);
    if (sr == n && sc == m) {  // one cell per bin (every text fits a 1024 view): the pooled view is M itself
        out = M;
        return;
    }
    out = Tensor3(H, sr, sc);
#pragma omp parallel for collapse(2) schedule(static)
    for (int h = 0; h < H; ++h)
        for (int bi = 0; bi < sr; ++bi) {
            const int64_t i0 = pool_bin_begin(bi, n, sr), i1 = pool_bin_end(bi, n, sr);
            for (int bj = 0; bj < sc; ++bj) {
                const int64_t j0 = pool_bin_begin(bj, m, sc), j1 = pool_bin_end(bj, m, sc);
                float acc = mode == PoolMode::Max ? -INFINITY : 0.0f;
                for (int64_t i = i0; i < i1; ++i) {
                    const float* row = M.head_data(h) + i * m;
                    for (int64_t j = j0; j < j1; ++j) acc = mode == PoolMode::Max ? std::max(acc, row[j]) : acc + row[j];
                }
                if (mode == PoolMode::Mean) acc /= static_cast<float>((i1 - i0) * (j1 - j0));
                out.at(h, bi, bj) = acc;
            }
        }
}

}  // namespace attnscope
