#include "core/backend/cpu/cpu_backend.h"

#include <omp.h>

#include "core/backend/cpu/cpu_feature_rows.h"
#include "core/cpu_isa.h"
#include "core/backend/cpu/cpu_primitives.h"

namespace attnscope {

std::string CpuBackend::description() const {
    const bool vector = m_kernels == CpuKernels::Vector && kSimdKernels;
    return "CPU, " + std::to_string(omp_get_max_threads()) + " threads (Eigen " + std::to_string(EIGEN_WORLD_VERSION) +
           "." + std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION) + ", OpenMP" +
           (vector ? std::string(", ") + kCpuIsaName + " flash, block-sparse and vslash kernels"
                   : std::string(", portable Eigen kernels")) + ")";
}

void CpuBackend::gemm(const Tensor3& A, bool ta, const Tensor3& B, bool tb, float alpha, float beta, Tensor3& C) {
    cpu_gemm(A, ta, B, tb, alpha, beta, C);
}

void CpuBackend::dense_attention(const DenseAttentionArgs& args) { cpu_dense_attention(args, m_kernels); }

void CpuBackend::pooled_view(const Tensor3& M, int size, PoolMode mode, Tensor3& out) {
    cpu_pooled_view(M, size, mode, out);
}

void CpuBackend::block_sparse_attention(const BlockSparseAttentionArgs& args) {
    cpu_block_sparse_attention(args, m_kernels);
}
void CpuBackend::vertical_slash_attention(const VerticalSlashAttentionArgs& args) {
    cpu_vertical_slash_attention(args, m_kernels);
}
void CpuBackend::lsh_hash(const LshHashArgs& args) { cpu_lsh_hash(args); }
void CpuBackend::lsh_attention(const LshAttentionArgs& args) { cpu_lsh_attention(args); }
void CpuBackend::lsh_combine(const LshCombineArgs& args) { cpu_lsh_combine(args); }

void CpuBackend::feature_map(const FeatureMapArgs& args) { cpu_feature_map(args); }
void CpuBackend::linear_attention(const LinearAttentionArgs& args) { cpu_linear_attention(args); }
void CpuBackend::kernel_attention(const KernelAttentionArgs& args) {
    // FAVOR keys share a stabiliser over all rows: those maps are materialised, as the default Backend does.
    if (feature_map_blockwise(args.q_map.map) && feature_map_blockwise(args.k_map.map)) return cpu_kernel_attention(args);
    Backend::kernel_attention(args);
}
void CpuBackend::fft2_real(const Tensor3& X, Tensor3& Y) { cpu_fft2_real(X, Y); }

void CpuBackend::singular_values(const SingularValuesArgs& args) { cpu_singular_values(args); }

}  // namespace attnscope
