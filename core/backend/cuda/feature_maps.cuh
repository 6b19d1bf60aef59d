// attnscope — the feature maps φ on CUDA (performer, linear, efficient, taylor), with the per-element
// formulas of core/backend/shared/feature_maps.h that the CPU backend (cpu_feature_maps.cpp) calls too.
//   FAVOR kinds: P = x_scale·X·ωᵀ by one batched GEMM (ω broadcast when shared), one thread per row for
//   h = ‖x̂‖²/2 and the row's largest exponent, a per-head max of those for keys (one block per head), then
//   one thread per (row, random feature) writes the finished feature(s);
//   row maps (elu + 1, softmax over a row, L2 normalisation): one thread per row;
//   softmax over positions: one thread per (head, feature column), walking the rows in order like the CPU.
// `add` is added to every feature and, with prepend_one, column 0 holds 1.
// The FAVOR pipeline is a template over Ops like linear_attention.cuh (GEMM, launch, scratch), so the
// emulation tests run the same orchestration. Non-template kernels: include from feature_maps.cu only.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/backend/shared/feature_maps.h"
#include "core/backend/cuda/gemm.cuh"

namespace attnscope::cuda {

/// Threads of favor_head_max_kernel's blocks (a power of two).
constexpr int kFeatureThreads = 256;

/// The non-FAVOR maps (FeatureMap's values without backend.h).
enum class RowMapKind { EluPlusOne = 0, SoftmaxRows = 1, L2Normalise = 2 };

/// One launch of a feature map: X (H, n, d) → out (H, n, cols), features start at column `offset` (1 with
/// prepend_one, whose column 0 gets 1).
struct FeatureMapShape {
    int H = 0, n = 0, d = 0, cols = 0, offset = 0;
    float add = 0.0f;
};

/// Row maps: one thread per (head, row).
__global__ void row_map_kernel(const float* X, FeatureMapShape s, RowMapKind kind, float* out) {
    const int64_t row = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= int64_t(s.H) * s.n) return;
    const float* x = X + row * s.d;
    float* f = out + row * s.cols;
    if (s.offset) f[0] = 1.0f;
    f += s.offset;
    if (kind == RowMapKind::EluPlusOne) {
        for (int c = 0; c < s.d; ++c) f[c] = fmap::elu_plus_one(x[c]) + s.add;
    } else if (kind == RowMapKind::SoftmaxRows) {
        float mx = -INFINITY;
        for (int c = 0; c < s.d; ++c) mx = fmaxf(mx, x[c]);
        float sum = 0.0f;
        for (int c = 0; c < s.d; ++c) sum += expf(x[c] - mx);
        const float inv = 1.0f / sum;
        for (int c = 0; c < s.d; ++c) f[c] = fmap::softmax_term(x[c], mx, inv) + s.add;
    } else {
        float sq = 0.0f;
        for (int c = 0; c < s.d; ++c) sq += x[c] * x[c];
        const float inv = fmap::inv_l2_norm(sq);
        for (int c = 0; c < s.d; ++c) f[c] = x[c] * inv + s.add;
    }
}

/// Softmax over the n positions of each feature column: one thread per (head, column).
__global__ void softmax_positions_kernel(const float* X, FeatureMapShape s, float* out) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= int64_t(s.H) * s.d) return;
    const int64_t h = idx / s.d;
    const int c = int(idx % s.d);
    const float* x = X + h * s.n * s.d + c;
    float mx = -INFINITY;
    for (int i = 0; i < s.n; ++i) mx = fmaxf(mx, x[int64_t(i) * s.d]);
    float sum = 0.0f;
    for (int i = 0; i < s.n; ++i) sum += expf(x[int64_t(i) * s.d] - mx);
    const float inv = 1.0f / sum;
    float* f = out + h * s.n * s.cols + s.offset + c;
    for (int i = 0; i < s.n; ++i) {
        f[int64_t(i) * s.cols] = fmap::softmax_term(x[int64_t(i) * s.d], mx, inv) + s.add;
        if (s.offset && c == 0) f[int64_t(i) * s.cols - 1] = 1.0f;
    }
}

/// FAVOR pass 1, one thread per (head, row): half[row] = ‖x̂‖²/2 and row_max[row] = the row's largest exponent
/// over the m projections P (H, n, m).
__global__ void favor_row_stats_kernel(const float* X, const float* P, int H, int n, int d, int m, float x_scale,
                                       fmap::FavorKind kind, float* half, float* row_max) {
    const int64_t row = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= int64_t(H) * n) return;
    float sq = 0.0f;
    for (int c = 0; c < d; ++c) sq += X[row * d + c] * X[row * d + c];
    const float hr = fmap::favor_half_sq_norm(sq, x_scale);
    const float* p = P + row * m;
    float best = 0.0f;
    if (kind == fmap::FavorKind::Positive || kind == fmap::FavorKind::Hyperbolic) {
        best = -INFINITY;
        for (int c = 0; c < m; ++c)
            best = fmaxf(best, kind == fmap::FavorKind::Positive ? fmap::favor_positive_exponent(p[c], hr)
                                                                 : fmap::favor_hyperbolic_exponent(p[c], hr));
    } else if (kind == fmap::FavorKind::Trig) {
        best = hr;
    }
    half[row] = hr;
    row_max[row] = best;
}

/// Keys share one stabiliser per head: stab[row] = max over the head's rows of row_max (one block per head,
/// kFeatureThreads threads, a tree reduction in shared memory of kFeatureThreads floats).
__global__ void favor_head_max_kernel(const float* row_max, int n, float* stab) {
    extern __shared__ float smem[];
    const int h = blockIdx.x, t = threadIdx.x;
    float best = -INFINITY;
    for (int i = t; i < n; i += blockDim.x) best = fmaxf(best, row_max[int64_t(h) * n + i]);
    smem[t] = best;
    __syncthreads();
    for (int width = blockDim.x / 2; width > 0; width /= 2) {
        if (t < width) smem[t] = fmaxf(smem[t], smem[t + width]);
        __syncthreads();
    }
    const float head_max = smem[0];
    for (int i = t; i < n; i += blockDim.x) stab[int64_t(h) * n + i] = head_max;
}

/// FAVOR pass 2, one thread per (head, row, random feature c): the finished feature(s) of projection c.
__global__ void favor_finish_kernel(const float* P, const float* half, const float* stab, FeatureMapShape s, int m,
                                    fmap::FavorKind kind, float* out) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= int64_t(s.H) * s.n * m) return;
    const int64_t row = idx / m;
    const int c = int(idx % m);
    const float p = P[idx], hr = half[row], st = stab[row];
    const float ratio = fmap::favor_ratio(kind, m);
    float* f = out + row * s.cols;
    if (s.offset && c == 0) f[0] = 1.0f;
    f += s.offset;
    switch (kind) {
        case fmap::FavorKind::Positive: f[c] = fmap::favor_positive(p, hr, st, ratio) + s.add; break;
        case fmap::FavorKind::Hyperbolic:
            f[c] = fmap::favor_positive(p, hr, st, ratio) + s.add;
            f[m + c] = fmap::favor_negative(p, hr, st, ratio) + s.add;
            break;
        case fmap::FavorKind::Trig:
            f[c] = fmap::favor_trig_sin(p, hr, st, ratio) + s.add;
            f[m + c] = fmap::favor_trig_cos(p, hr, st, ratio) + s.add;
            break;
        case fmap::FavorKind::Relu: f[c] = fmap::favor_relu(p, ratio) + s.add; break;
    }
}

/// Runs a FAVOR map on device buffers: X (H, n, d), omega (omega_heads ∈ {1, H}, m, d) → out (H, n, cols).
/// Ops as in run_linear_attention, plus launch_shared(blocks, threads, smem_bytes, kernel, args...).
template <class Ops>
void run_favor_map(Ops& ops, const FeatureMapShape& s, const float* X, const float* omega, int omega_heads, int m,
                   float x_scale, bool is_query, fmap::FavorKind kind, float* out) {
    if (s.H == 0 || s.n == 0) return;
    const int64_t rows = int64_t(s.H) * s.n;
    float* P = ops.scratch(size_t(rows) * m, "projections x̂·ωᵀ");
    ops.gemm(DeviceMatrices{X, s.H, s.n, s.d}, false, DeviceMatrices{omega, omega_heads, m, s.d}, true, x_scale, 0.0f,
             P, s.H, s.n, m);
    float* half = ops.scratch(size_t(rows), "‖x̂‖²/2");
    float* row_max = ops.scratch(size_t(rows), "row stabilisers");
    ops.launch(rows, favor_row_stats_kernel, X, P, s.H, s.n, s.d, m, x_scale, kind, half, row_max);
    float* stab = row_max;
    if (!is_query) {
        stab = ops.scratch(size_t(rows), "head stabilisers");
        ops.launch_shared(s.H, kFeatureThreads, kFeatureThreads * sizeof(float), favor_head_max_kernel, row_max, s.n,
                          stab);
    }
    ops.launch(rows * m, favor_finish_kernel, P, half, stab, s, m, kind, out);
}

}  // namespace attnscope::cuda
