// attnscope — the compute primitives of Backend (core/backend/interface/backend.h documents each) as one list, so
// a backend's overrides, MeasuredCudaBackend's timing and the per-backend test suite are written from it rather than
// repeated: a primitive added to Backend is added here, and every backend then has to define it.
//
// ATTNSCOPE_BACKEND_PRIMITIVES(EACH) calls EACH(name, (parameters), (arguments)) once per pure primitive.
// kernel_attention is not in it: Backend gives it a default composed of feature_map and linear_attention, which a
// backend may override (the CPU fuses the two; CUDA keeps φ(Q), φ(K) on the device and times the call as one).
#pragma once

/// EACH(name, (parameters), (arguments)) for every pure compute primitive of Backend, in the interface's order.
#define ATTNSCOPE_BACKEND_PRIMITIVES(EACH)                                                                             \
    EACH(gemm, (const Tensor3& A, bool trans_a, const Tensor3& B, bool trans_b, float alpha, float beta, Tensor3& C),  \
         (A, trans_a, B, trans_b, alpha, beta, C))                                                                     \
    EACH(dense_attention, (const DenseAttentionArgs& args), (args))                                                    \
    EACH(pooled_view, (const Tensor3& M, int size, PoolMode mode, Tensor3& out), (M, size, mode, out))                 \
    EACH(block_sparse_attention, (const BlockSparseAttentionArgs& args), (args))                                       \
    EACH(vertical_slash_attention, (const VerticalSlashAttentionArgs& args), (args))                                   \
    EACH(lsh_hash, (const LshHashArgs& args), (args))                                                                  \
    EACH(lsh_attention, (const LshAttentionArgs& args), (args))                                                        \
    EACH(lsh_combine, (const LshCombineArgs& args), (args))                                                            \
    EACH(feature_map, (const FeatureMapArgs& args), (args))                                                            \
    EACH(linear_attention, (const LinearAttentionArgs& args), (args))                                                  \
    EACH(fft2_real, (const Tensor3& X, Tensor3& Y), (X, Y))                                                            \
    EACH(singular_values, (const SingularValuesArgs& args), (args))

/// EACH for ATTNSCOPE_BACKEND_PRIMITIVES inside a class derived from Backend: declares the primitive's override.
#define ATTNSCOPE_BACKEND_OVERRIDE(name, params, args) void name params override;
