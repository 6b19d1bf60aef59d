// attnscope — CPU implementations of the primitives (one .cpp per family), used by CpuBackend.
// Kept as free functions so tests and benchmarks can call them without a backend object.
#pragma once
#include "core/backend/interface/backend.h"

namespace attnscope {

/// Which code a CPU primitive with a hand-written vector kernel runs.
enum class CpuKernels {
    Vector,    // the vector kernels of the build's ISA where it has one (core/cpu_isa.h: AVX-512 or AVX2; cpu_flash_tile.h for
               // dense and block-sparse attention, cpu_slash_block.h), else Portable
    Portable,  // the Eigen paths every build has: what a build without a vector ISA runs (testable on one with it)
};

/// Batched GEMM on the CPU; see Backend::gemm for the contract.
void cpu_gemm(const Tensor3& A, bool trans_a, const Tensor3& B, bool trans_b, float alpha, float beta, Tensor3& C);
/// Dense attention on the CPU (tiled online softmax, or materialised P); see Backend::dense_attention.
void cpu_dense_attention(const DenseAttentionArgs& args, CpuKernels kernels = CpuKernels::Vector);
/// Pooled level-of-detail view on the CPU; see Backend::pooled_view.
void cpu_pooled_view(const Tensor3& M, int size, PoolMode mode, Tensor3& out);
/// out (H, s, s): per bin the entry of A − B of largest magnitude, with its sign (the pooled difference view); no
/// n×n difference is built. Throws Error when A and B differ in shape.
void pooled_difference(const Tensor3& A, const Tensor3& B, int size, Tensor3& out);
/// Block-sparse attention on the CPU; see Backend::block_sparse_attention.
void cpu_block_sparse_attention(const BlockSparseAttentionArgs& args, CpuKernels kernels = CpuKernels::Vector);
/// Vertical-slash attention on the CPU (GEMM over gathered columns, diagonals 16 per vector); see
/// Backend::vertical_slash_attention.
void cpu_vertical_slash_attention(const VerticalSlashAttentionArgs& args, CpuKernels kernels = CpuKernels::Vector);

/// LSH hash + sort on the CPU; see Backend::lsh_hash.
void cpu_lsh_hash(const LshHashArgs& args);
/// Chunked LSH attention on the CPU; see Backend::lsh_attention.
void cpu_lsh_attention(const LshAttentionArgs& args);
/// LSH round combination on the CPU; see Backend::lsh_combine.
void cpu_lsh_combine(const LshCombineArgs& args);
/// Feature maps φ on the CPU; see Backend::feature_map.
void cpu_feature_map(const FeatureMapArgs& args);
/// Linear attention (bidirectional or chunked causal prefix sums) on the CPU; see Backend::linear_attention.
void cpu_linear_attention(const LinearAttentionArgs& args);
/// Feature maps + linear attention fused block by block (φ never materialised); blockwise maps only (not FAVOR:
/// feature_map_blockwise), else Error. See Backend::kernel_attention.
void cpu_kernel_attention(const KernelAttentionArgs& args);
/// Real part of the 2-D DFT of each head (FFTW3 float) on the CPU; see Backend::fft2_real.
void cpu_fft2_real(const Tensor3& X, Tensor3& Y);

/// Singular values on the CPU (LAPACK exact, or the randomized top-k of core/backend/cpu/svd.h); see
/// Backend::singular_values.
void cpu_singular_values(const SingularValuesArgs& args);

}  // namespace attnscope
