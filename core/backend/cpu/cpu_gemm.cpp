#include <omp.h>

#include <algorithm>

#include "core/backend/cpu/cpu_primitives.h"

namespace attnscope {

void cpu_gemm(const Tensor3& A, bool ta, const Tensor3& B, bool tb, float alpha, float beta, Tensor3& C) {
    const int H = C.heads();
    const int r = validate_gemm(A, ta, B, tb, C).rows;
    // Many heads: one head per thread. Few heads: split the rows of C over the threads, each block a sequential
    // Eigen product (Eigen's own threaded GEMM spin-waits between its threads, which stalls for whole scheduler
    // slices when the cores are shared — measured 20× slower for Linformer's E·K under load).
    auto block = [&](int h, int r0, int rows) {
        ConstMatView a = A.head(A.heads() == 1 ? 0 : h), b = B.head(B.heads() == 1 ? 0 : h);
        auto out = C.head(h).middleRows(r0, rows);
        if (beta == 0.0f) out.setZero();
        else if (beta != 1.0f) out *= beta;
        if (!ta && !tb) out.noalias() += alpha * a.middleRows(r0, rows) * b;
        else if (ta && !tb) out.noalias() += alpha * a.middleCols(r0, rows).transpose() * b;
        else if (!ta && tb) out.noalias() += alpha * a.middleRows(r0, rows) * b.transpose();
        else out.noalias() += alpha * a.middleCols(r0, rows).transpose() * b.transpose();
    };
    const int threads = omp_get_max_threads();
    if (H >= threads) {
#pragma omp parallel for schedule(dynamic)
        for (int h = 0; h < H; ++h) block(h, 0, r);
    } else {
        const int per_head = std::max(1, std::min(r, 4 * threads));
        const int64_t tasks = int64_t(H) * per_head;
#pragma omp parallel for schedule(dynamic)
        for (int64_t t = 0; t < tasks; ++t) {
            const int h = static_cast<int>(t / per_head), piece = static_cast<int>(t % per_head);
            const int r0 = static_cast<int>(int64_t(r) * piece / per_head), r1 = static_cast<int>(int64_t(r) * (piece + 1) / per_head);
            if (r1 > r0) block(h, r0, r1 - r0);
        }
    }
}

}  // namespace attnscope
