// attnscope — linear attention O_i = φQ_i·S / D_i on CUDA, never with an n×n matrix (the CPU version is
// core/backend/cpu/cpu_linear_attention.cpp; the per-element rules come from core/backend/shared/feature_maps.h).
// V is augmented with a column of ones, so one GEMM gives numerator and denominator together:
//   bidirectional: S = φKᵀ·[V | 1] (f, dv + 1) per head, z_eps added to its last column, num = φQ·S;
//   causal (chunked prefix scan): the rows are cut into chunks of c (zero-padded to a multiple of c), every
//   chunk's state S_t = φK_tᵀ·[V_t | 1] comes from one batched GEMM, an exclusive scan over the chunks turns
//   them into the state before each chunk, and num_t = φQ_t·S_t + tril(φQ_t·φK_tᵀ)·[V_t | 1] (batched GEMMs
//   around a kernel that clears the strictly upper triangle of every c×c block);
//   then O = num / D with D = num's last column + d_eps (fmap::safe_divide: D = 0 gives 0, never NaN).
// The pipeline is a template over `Ops` (GEMM, kernel launch, scratch allocation): linear_attention.cu runs
// it with cuBLAS and real launches, the emulation tests (tests/emu) with a host GEMM computing exactly the
// column-major call cuBLAS would receive and emulated launches, so both run the same orchestration.
// It defines non-template kernels: include it from one .cu of the library only (linear_attention.cu).
#pragma once
#include <cstdint>

#include "core/backend/shared/feature_maps.h"
#include "core/backend/cuda/gemm.cuh"

namespace attnscope::cuda {

/// dst (H, n_pad, w_dst) = src (H, n, w) in its first n rows and w columns; column w (when w_dst > w) holds
/// `extra` in real rows; everything else (padding rows, other columns) is 0.
__global__ void linear_pad_kernel(const float* src, int H, int n, int w, float* dst, int n_pad, int w_dst,
                                  float extra) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= int64_t(H) * n_pad * w_dst) return;
    const int64_t c = idx % w_dst, row = idx / w_dst, i = row % n_pad, h = row / n_pad;
    float value = 0.0f;
    if (i < n && c < w) value = src[(h * n + i) * w + c];
    else if (i < n && c == w) value = extra;
    dst[idx] = value;
}

/// Exclusive scan over the `chunks` states of each head, in place: S (H, chunks, f, dv1) becomes the sum of
/// the states before each chunk, starting from z_eps in the last column for features ≥ z_eps_first.
/// One thread per (head, state element).
__global__ void linear_prefix_kernel(float* S, int H, int chunks, int f, int dv1, float z_eps, int z_eps_first) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t per_state = int64_t(f) * dv1;
    if (idx >= int64_t(H) * per_state) return;
    const int64_t h = idx / per_state, e = idx % per_state;
    const int feature = int(e / dv1), col = int(e % dv1);
    float running = (col == dv1 - 1 && feature >= z_eps_first) ? z_eps : 0.0f;
    float* p = S + h * chunks * per_state + e;
    for (int t = 0; t < chunks; ++t) {
        const float state = p[t * per_state];
        p[t * per_state] = running;
        running += state;
    }
}

/// Adds z_eps to the last column of S (H, f, dv1) for features ≥ z_eps_first (bidirectional path).
__global__ void linear_z_offset_kernel(float* S, int H, int f, int dv1, float z_eps, int z_eps_first) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= int64_t(H) * f) return;
    if (int(idx % f) >= z_eps_first) S[idx * dv1 + dv1 - 1] += z_eps;
}

/// Clears the strictly upper triangle (key after query) of each of `blocks` c×c blocks.
__global__ void linear_tril_kernel(float* A, int64_t blocks, int c) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= blocks * c * c) return;
    const int i = int((idx / c) % c), j = int(idx % c);
    if (j > i) A[idx] = 0.0f;
}

/// O (H, n, dv) = num / D with D = num[:, dv] + d_eps (1 when not normalising); num is (H, n_pad, dv + 1).
/// denom (H, n, 1) receives D when given.
__global__ void linear_finish_kernel(const float* num, int H, int n, int n_pad, int dv, bool normalise, float d_eps,
                                     float* O, float* denom) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    const int width = dv > 0 ? dv : 1;
    if (idx >= int64_t(H) * n * width) return;
    const int64_t row = idx / width, h = row / n, i = row % n;
    const int c = int(idx % width);
    const float* r = num + (h * n_pad + i) * (dv + 1);
    const float D = normalise ? r[dv] + d_eps : 1.0f;
    if (dv > 0) O[row * dv + c] = fmap::safe_divide(r[c], D);
    if (denom && c == 0) denom[row] = D;
}

/// Floats of scratch run_linear_attention allocates through ops.scratch for shape s.
inline int64_t linear_attention_scratch_floats(const LinearAttentionShape& s) {
    const int64_t H = s.H, n = s.n, f = s.f, dv1 = s.dv + 1;
    if (!s.causal) return H * (n + s.m) * dv1 + H * f * dv1;
    const int64_t c = s.chunk, chunks = (n + c - 1) / c, n_pad = chunks * c;
    return H * n_pad * (2 * f + 2 * dv1) + H * chunks * (f * dv1 + c * c);
}

/// Runs linear attention on device buffers phi_Q (H, n, f), phi_K (H, m, f), V (H, m, dv) into O (H, n, dv) and denom
/// (H, n, 1) or nullptr. Ops provides gemm(A, ta, B, tb, alpha, beta, C, batch, r, c) on DeviceMatrices,
/// launch(threads, kernel, args...) and scratch(count, what) → float* (owned by ops).
template <class Ops>
void run_linear_attention(Ops& ops, const LinearAttentionShape& s, const float* phi_Q, const float* phi_K,
                          const float* V, float* O, float* denom) {
    const int H = s.H, n = s.n, f = s.f, dv = s.dv, dv1 = dv + 1;
    if (H == 0 || n == 0) return;
    if (!s.causal) {
        const int m = s.m;
        float* Vaug = ops.scratch(size_t(H) * m * dv1, "[V | 1]");
        ops.launch(int64_t(H) * m * dv1, linear_pad_kernel, V, H, m, dv, Vaug, m, dv1, 1.0f);
        float* S = ops.scratch(size_t(H) * f * dv1, "[S | z]");
        ops.gemm(DeviceMatrices{phi_K, H, m, f}, true, DeviceMatrices{Vaug, H, m, dv1}, false, 1.0f, 0.0f, S, H, f,
                 dv1);
        ops.launch(int64_t(H) * f, linear_z_offset_kernel, S, H, f, dv1, s.z_eps, s.z_eps_first);
        float* num = ops.scratch(size_t(H) * n * dv1, "φQ·[S | z]");
        ops.gemm(DeviceMatrices{phi_Q, H, n, f}, false, DeviceMatrices{S, H, f, dv1}, false, 1.0f, 0.0f, num, H, n,
                 dv1);
        ops.launch(int64_t(H) * n * (dv > 0 ? dv : 1), linear_finish_kernel, num, H, n, n, dv, s.normalise, s.d_eps,
                   O, denom);
        return;
    }
    const int c = s.chunk, chunks = (n + c - 1) / c, n_pad = chunks * c;
    const int batch = H * chunks;  // every (head, chunk) is one GEMM of the batch
    float* Q = ops.scratch(size_t(H) * n_pad * f, "padded φQ");
    float* K = ops.scratch(size_t(H) * n_pad * f, "padded φK");
    float* Vaug = ops.scratch(size_t(H) * n_pad * dv1, "padded [V | 1]");
    ops.launch(int64_t(H) * n_pad * f, linear_pad_kernel, phi_Q, H, n, f, Q, n_pad, f, 0.0f);
    ops.launch(int64_t(H) * n_pad * f, linear_pad_kernel, phi_K, H, n, f, K, n_pad, f, 0.0f);
    ops.launch(int64_t(H) * n_pad * dv1, linear_pad_kernel, V, H, n, dv, Vaug, n_pad, dv1, 1.0f);
    // S_t = φK_tᵀ·[V_t | 1] per chunk, then the exclusive prefix over chunks.
    float* S = ops.scratch(size_t(batch) * f * dv1, "chunk states");
    ops.gemm(DeviceMatrices{K, batch, c, f}, true, DeviceMatrices{Vaug, batch, c, dv1}, false, 1.0f, 0.0f, S, batch, f,
             dv1);
    ops.launch(int64_t(H) * f * dv1, linear_prefix_kernel, S, H, chunks, f, dv1, s.z_eps, s.z_eps_first);
    // num_t = φQ_t·S_t + tril(φQ_t·φK_tᵀ)·[V_t | 1].
    float* num = ops.scratch(size_t(H) * n_pad * dv1, "numerators");
    ops.gemm(DeviceMatrices{Q, batch, c, f}, false, DeviceMatrices{S, batch, f, dv1}, false, 1.0f, 0.0f, num, batch, c,
             dv1);
    float* A = ops.scratch(size_t(batch) * c * c, "chunk scores");
    ops.gemm(DeviceMatrices{Q, batch, c, f}, false, DeviceMatrices{K, batch, c, f}, true, 1.0f, 0.0f, A, batch, c, c);
    ops.launch(int64_t(batch) * c * c, linear_tril_kernel, A, int64_t(batch), c);
    ops.gemm(DeviceMatrices{A, batch, c, c}, false, DeviceMatrices{Vaug, batch, c, dv1}, false, 1.0f, 1.0f, num, batch,
             c, dv1);
    ops.launch(int64_t(H) * n * (dv > 0 ? dv : 1), linear_finish_kernel, num, H, n, n_pad, dv, s.normalise, s.d_eps, O,
               denom);
}

}  // namespace attnscope::cuda
