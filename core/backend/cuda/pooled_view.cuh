// attnscope — the pooled level-of-detail view kernel: one thread per output pixel reduces its bin of the
// n×m matrix with the bin bounds of core/backend/interface/pooling.h (the same functions the CPU loop calls), in the
// same order as the CPU (row by row, left to right), so mean pixels match it to the last rounding step.
// Included by pooled_view.cu and by the CPU emulation tests (tests/emu).
// It defines a non-template kernel: include it from one .cu of the library only (pooled_view.cu).
#pragma once
#include <cmath>

#include "core/backend/cuda/common.cuh"
#include "core/backend/interface/pooling.h"

namespace attnscope::cuda {

/// out (H, sr, sc): each pixel the reduction `mode` of its bin of M (H, n, m) (core/backend/interface/pooling.h).
__global__ void pooled_view_kernel(const float* M, int H, int n, int m, int sr, int sc, PoolMode mode, float* out) {
    const int64_t pixel = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t per_head = int64_t(sr) * sc;
    if (pixel >= per_head * H) return;
    const int64_t h = pixel / per_head;
    const int64_t bi = (pixel % per_head) / sc, bj = pixel % sc;
    const int64_t i0 = pool_bin_begin(bi, n, sr), i1 = pool_bin_end(bi, n, sr);
    const int64_t j0 = pool_bin_begin(bj, m, sc), j1 = pool_bin_end(bj, m, sc);
    float acc = pool_start(mode);
    for (int64_t i = i0; i < i1; ++i) {
        const float* row = M + (h * n + i) * m;
        for (int64_t j = j0; j < j1; ++j) acc = pool_fold(mode, acc, row[j]);
    }
    if (mode == PoolMode::Mean) acc /= float((i1 - i0) * (j1 - j0));
    out[pixel] = acc;
}

}  // namespace attnscope::cuda
