// attnscope — the CPU backend: Eigen kernels parallelised over all cores with OpenMP.
// Each primitive family lives in core/backend/cpu/cpu_*.cpp; this class only routes to them.
#pragma once
#include "core/backend/interface/backend.h"
#include "core/backend/cpu/cpu_primitives.h"

namespace attnscope {

/// Backend running on every core of the host CPU.
class CpuBackend : public Backend {
public:
    /// A backend whose flash and vslash primitives run `kernels` (Portable: the Eigen paths, as without AVX-512).
    explicit CpuBackend(CpuKernels kernels = CpuKernels::Vector) : m_kernels(kernels) {}
    std::string name() const override { return m_kernels == CpuKernels::Portable ? "cpu-portable" : "cpu"; }
    std::string description() const override;
    void gemm(const Tensor3& A, bool trans_a, const Tensor3& B, bool trans_b, float alpha, float beta,
              Tensor3& C) override;
    void dense_attention(const DenseAttentionArgs& args) override;
    void pooled_view(const Tensor3& M, int size, PoolMode mode, Tensor3& out) override;
    void block_sparse_attention(const BlockSparseAttentionArgs& args) override;
    void vertical_slash_attention(const VerticalSlashAttentionArgs& args) override;
    void lsh_hash(const LshHashArgs& args) override;
    void lsh_attention(const LshAttentionArgs& args) override;
    void lsh_combine(const LshCombineArgs& args) override;
    void feature_map(const FeatureMapArgs& args) override;
    void linear_attention(const LinearAttentionArgs& args) override;
    void kernel_attention(const KernelAttentionArgs& args) override;
    void fft2_real(const Tensor3& X, Tensor3& Y) override;
    void singular_values(const SingularValuesArgs& args) override;

private:
    CpuKernels m_kernels;
};

}  // namespace attnscope
