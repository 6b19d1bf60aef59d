// attnscope — the LSH kernels that need no library: bucket argmax (after cuBLAS has formed x·R for every
// round), the sort keys bucket·n + position per (round, head) segment, the sorted keys back to positions, and
// the log-sum-exp combination of the hash rounds. The math is core/backend/interface/lsh_rules.h, which the CPU calls too.
// Included by lsh.cu and by the CPU emulation tests (tests/emu); it defines non-template kernels, so include
// it from one .cu of the library only (lsh.cu).
#pragma once
#include <cstdint>

#include "core/backend/cuda/common.cuh"
#include "core/backend/interface/lsh_rules.h"

namespace attnscope::cuda {

/// Threads per block of the LSH element-wise kernels.
constexpr int kLshThreads = 256;

/// For every (round r, head h, position i), idx = (r·H + h)·n + i: bucket[idx] from the projections
/// xr[idx·half ..] with lsh_argmax_bucket, and the segmented sort key ((r·H + h)·nb + bucket)·n + i, so one
/// radix sort over all keys orders every segment by (bucket, position) and keeps segments apart.
__global__ void lsh_bucket_kernel(const float* xr, int64_t total, int n, int n_buckets, int* buckets,
                                  uint64_t* keys) {  // xr (R, H·n, nb/2) or nullptr when nb = 1; outs (R, H, n)
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= total) return;
    const int half = n_buckets / 2;
    const int bucket = n_buckets > 1 ? lsh_argmax_bucket(xr + idx * half, n_buckets) : 0;
    buckets[idx] = bucket;
    const int64_t segment = idx / n, position = idx % n;
    keys[idx] = uint64_t((segment * n_buckets + bucket) * n + position);
}

/// perm[idx] = the position encoded in the sorted key at slot idx (segments hold exactly n keys each).
__global__ void lsh_perm_kernel(const uint64_t* sorted_keys, int64_t total, int n, int* perm) {  // (R, H, n)
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= total) return;
    perm[idx] = int(sorted_keys[idx] % uint64_t(n));
}

/// O[row, col] = Σ_r O_r[row, col]·exp(L_r − logsumexp_r L_r) for rows = H·n, one thread per output cell
/// (one per row when dv = 0), the rounds summed in order like the CPU; lse[row] = logsumexp_r L_r (by the
/// column-0 thread) when given.
__global__ void lsh_combine_kernel(const float* O_rounds, const float* lse_rounds, int rounds, int64_t rows, int dv,
                                   float* O, float* lse) {  // O_rounds (R, rows, dv), lse_rounds (R, rows), O (rows, dv)
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int width = dv > 0 ? dv : 1;
    if (idx >= rows * width) return;
    const int64_t row = idx / width;
    const LshRoundsNorm norm = lsh_rounds_norm(lse_rounds + row, rounds, rows);
    if (dv > 0) {
        float o = 0.0f;
        for (int r = 0; r < rounds; ++r) {
            const float weight = lsh_round_weight(lse_rounds[r * rows + row], norm);
            if (weight != 0.0f) o += weight * O_rounds[r * rows * dv + idx];
        }
        O[idx] = o;
    }
    if (lse && idx % width == 0) lse[row] = lsh_rounds_lse(norm);
}

}  // namespace attnscope::cuda
