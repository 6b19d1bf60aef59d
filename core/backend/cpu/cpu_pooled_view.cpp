#include <algorithm>
#include <cmath>

#include "core/backend/cpu/cpu_primitives.h"

namespace attnscope {

namespace {

/// out (H, sr, sc): bin (h, bi, bj) of an (H, n, m) grid is `bin(h, i0, i1, j0, j1)` over its source rows [i0, i1)
/// and columns [j0, j1) (pool_bin_begin/end), bins in parallel.
template <class Bin>
void pool_bins(int H, int n, int m, int sr, int sc, Tensor3& out, const Bin& bin) {
    out = Tensor3(H, sr, sc);
#pragma omp parallel for collapse(2) schedule(static)
    for (int h = 0; h < H; ++h)
        for (int bi = 0; bi < sr; ++bi) {
            const int64_t i0 = pool_bin_begin(bi, n, sr), i1 = pool_bin_end(bi, n, sr);
            for (int bj = 0; bj < sc; ++bj)
                out.at(h, bi, bj) = bin(h, i0, i1, pool_bin_begin(bj, m, sc), pool_bin_end(bj, m, sc));
        }
}

}  // namespace

void cpu_pooled_view(const Tensor3& M, int size, PoolMode mode, Tensor3& out) {
    validate_pooled_view(size);
    const int H = M.heads(), n = M.rows(), m = M.cols();
    const int sr = std::min(n, size), sc = std::min(m, size);
    if (sr == n && sc == m) {  // one cell per bin (every text fits a 1024 view): the pooled view is M itself
        out = M;
        return;
    }
    pool_bins(H, n, m, sr, sc, out, [&](int h, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
        float acc = pool_start(mode);
        for (int64_t i = i0; i < i1; ++i) {
            const float* row = M.head_data(h) + i * m;
            for (int64_t j = j0; j < j1; ++j) acc = pool_fold(mode, acc, row[j]);
        }
        return mode == PoolMode::Mean ? acc / static_cast<float>((i1 - i0) * (j1 - j0)) : acc;
    });
}

void pooled_difference(const Tensor3& A, const Tensor3& B, int size, Tensor3& out) {
    validate_pooled_view(size);
    if (A.heads() != B.heads() || A.rows() != B.rows() || A.cols() != B.cols())
        throw Error("pooled_difference: the two matrices differ in shape");
    const int H = A.heads(), n = A.rows(), m = A.cols();
    pool_bins(H, n, m, std::min(n, size), std::min(m, size), out, [&](int h, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
        float acc = pool_start(PoolMode::SignedMaxAbs);
        for (int64_t i = i0; i < i1; ++i) {
            const float* a = A.head_data(h) + i * m;
            const float* b = B.head_data(h) + i * m;
            for (int64_t j = j0; j < j1; ++j) acc = pool_fold(PoolMode::SignedMaxAbs, acc, a[j] - b[j]);
        }
        return acc;
    });
}

}  // namespace attnscope
