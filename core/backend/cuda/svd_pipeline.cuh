// attnscope — the SVD recipes of core/backend/cuda/svd.cu written once over an Ops interface (column-major products,
// transposes, QR re-orthonormalisation, singular values of a small matrix, the sketch kernel), so the emulation
// tests (tests/emu) run the very same sequence on the host with Eigen that the GPU runs with cuBLAS/cuSOLVER.
// Included by svd.cu and by the emulation tests; it defines a non-template kernel, so include it once per binary.
//
// Layout: a row-major (r, c) buffer read column-major is Mᵀ (c × r, lda = c), and σ(Mᵀ) = σ(M).
//
// Ops (all matrices column-major):
//   product(trans_a, m, n, k, A, lda, B, ldb, C, ldc)   C (m × n) = op(A)·B
//   transpose(rows, cols, A, lda, T, ldt)               T (rows × cols) = Aᵀ, A is (cols × rows)
//   orthonormalise(Y, rows, l)                          Y's l columns → an orthonormal basis of their span
//   values(A, m, n, S)                                  every σ of A (m × n, m ≥ n), descending; A overwritten
//   sketch(omega, c, l, seed)                           launches svd_sketch_kernel
//   scratch(count)                                      a float buffer alive as long as the Ops
//   copy(dst, src, count)                               floats, same memory space
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/backend/shared/svd_sketch.h"

namespace attnscope::cuda {

/// Threads per block of svd_sketch_kernel.
constexpr int kSvdThreads = 256;

/// Ω (c × l, column-major): entry (i, j) = svd_sketch_entry(seed, i, j, l), the CPU's Ω(i, j).
__global__ void svd_sketch_kernel(float* omega, int c, int l, uint64_t seed) {
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= int64_t(c) * l) return;
    omega[idx] = svd_sketch_entry(seed, idx % c, idx / c, l);
}

/// Every σ of the row-major (r, c) matrix at M: gesvd-style factorisations need rows ≥ columns, so Mᵀ as it lies
/// when c ≥ r (M is overwritten), else M itself, transposed into `work` (r × c floats).
template <class Ops>
void exact_values(Ops& ops, float* M, int r, int c, float* work, float* S) {
    if (c >= r) {
        ops.values(M, c, r, S);
    } else {
        ops.transpose(r, c, M, c, work, r);
        ops.values(work, r, c, S);
    }
}

/// Top-k σ of the row-major (r, c) matrix whose column-major view is A = Mᵀ (c × r, lda = c), with l = sketch
/// columns (k ≤ l ≤ min(r, c)): the CPU recipe of core/backend/cpu/svd.cpp — Y = M·Ω, power iterations
/// Z = orth(Mᵀ·Q), Q = orth(M·Z), then σ(Qᵀ·M) = σ(A·Q) — with M·X = Aᵀ·X and Mᵀ·X = A·X.
template <class Ops>
void randomized_values(Ops& ops, const float* A, int r, int c, int k, int l, uint64_t seed, int power_iterations,
                       float* S) {
    float* omega = ops.scratch(size_t(c) * l);
    float* Y = ops.scratch(size_t(r) * l);
    float* Z = ops.scratch(size_t(c) * l);
    float* sl = ops.scratch(size_t(l));
    ops.sketch(omega, c, l, seed);
    ops.product(true, r, l, c, A, c, omega, c, Y, r);  // Y = M·Ω
    ops.orthonormalise(Y, r, l);
    for (int it = 0; it < power_iterations; ++it) {
        ops.product(false, c, l, r, A, c, Y, r, Z, c);  // Z = Mᵀ·Q
        ops.orthonormalise(Z, c, l);
        ops.product(true, r, l, c, A, c, Z, c, Y, r);  // Q = M·Z
        ops.orthonormalise(Y, r, l);
    }
    ops.product(false, c, l, r, A, c, Y, r, Z, c);  // Bᵀ = (Qᵀ·M)ᵀ = A·Q, c × l with c ≥ l
    ops.values(Z, c, l, sl);
    ops.copy(S, sl, size_t(k));
}

}  // namespace attnscope::cuda
