// attnscope — the row softmax of the materialised attention path: one warp per row of S (rows, m), in place.
// Each lane folds its strided share of the row with the shared online-softmax functions
// (core/backend/shared/online_softmax.h), then the lanes combine their partial (max, sum) pairs with
// online_softmax_merge from the same header. Included by dense_attention.cu and by the CPU emulation tests
// (tests/emu).
// It defines a non-template kernel: include it from one .cu of the library only (dense_attention.cu).
#pragma once
#include <cmath>

#include "core/backend/cuda/common.cuh"
#include "core/backend/interface/score_mod.h"
#include "core/backend/shared/online_softmax.h"
#include "core/backend/cuda/device_util.cuh"

namespace attnscope::cuda {

constexpr int kSoftmaxWarps = 8;  // rows per block of the row-softmax kernel (one warp per row)

/// In place over S (rows = H·n, m): s = mod(s) for head row / n, query row % n and key column j; run before the
/// row softmax (and before causal masking, which the softmax applies).
__global__ void score_mod_rows_kernel(float* S, int64_t rows, int n, int m, ScoreMod mod) {
    const int64_t cells = rows * m, step = int64_t(gridDim.x) * blockDim.x;
    for (int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < cells; k += step) {
        const int64_t row = k / m;
        S[k] = apply_score_mod(mod, int(row / n), int(row % n), int(k % m), S[k]);
    }
}

/// In place over S (rows, m): P = softmax of each row over its allowed keys (j ≤ i when causal), 0 elsewhere;
/// lse (rows) = log Σ_allowed exp(s) when not null. `n` is the number of queries per head (for causality).
__global__ void __launch_bounds__(kSoftmaxWarps* kWarpSize)
    softmax_rows_kernel(float* S, float* lse, int64_t rows, int n, int m, bool causal) {
    const int64_t row = int64_t(blockIdx.x) * kSoftmaxWarps + threadIdx.x / kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    if (row >= rows) return;  // whole warps leave together, so the shuffles below see full warps
    float* s = S + row * m;
    const int query = int(row % n);
    const int allowed = causal ? min(m, query + 1) : m;

    // Each lane folds its strided share of the row, then lanes merge their partial (max, sum) pairs.
    OnlineSoftmaxRow state = online_softmax_init();
    for (int j = lane; j < allowed; j += kWarpSize) {
        const float x = s[j];
        const float new_max = online_softmax_new_max(state, x);
        online_softmax_update(state, new_max, expf(x - new_max));
    }
#pragma unroll
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
        const OnlineSoftmaxRow other{__shfl_xor_sync(0xffffffffu, state.m, offset),
                                     __shfl_xor_sync(0xffffffffu, state.l, offset)};
        state = online_softmax_merge(state, other);
    }
    // Lanes may differ in the last bit (FMA contraction inside the merge); take lane 0's state so every
    // probability of the row and its lse use the same (max, sum).
    state.m = __shfl_sync(0xffffffffu, state.m, 0);
    state.l = __shfl_sync(0xffffffffu, state.l, 0);
    const float inv = online_softmax_inv_sum(state);
    for (int j = lane; j < m; j += kWarpSize) s[j] = j < allowed ? expf(s[j] - state.m) * inv : 0.0f;
    if (lse && lane == 0) lse[row] = online_softmax_lse(state);
}

}  // namespace attnscope::cuda
