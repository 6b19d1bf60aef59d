// attnscope — the CPU backend: Eigen kernels parallelised over all cores with OpenMP.
// Each primitive family lives in core/backend/cpu/cpu_*.cpp; this class only routes to them.
#pragma once
#include "core/backend/interface/backend.h"
#include "core/backend/interface/backend_primitives.h"
#include "core/backend/cpu/cpu_primitives.h"

namespace attnscope {

/// Backend running on every core of the host CPU.
class CpuBackend : public Backend {
public:
    /// A backend whose flash and vslash primitives run `kernels` (Portable: the Eigen paths, as without a vector ISA).
    explicit CpuBackend(CpuKernels kernels = CpuKernels::Vector) : m_kernels(kernels) {}
    std::string name() const override { return m_kernels == CpuKernels::Portable ? "cpu-portable" : "cpu"; }
    std::string description() const override;
    /// Every primitive of backend_primitives.h (contracts on Backend), routed to its core/backend/cpu/cpu_*.cpp.
    ATTNSCOPE_BACKEND_PRIMITIVES(ATTNSCOPE_BACKEND_OVERRIDE)
    /// Feature maps and linear attention fused block by block (φ never materialised) when both maps are blockwise;
    /// otherwise (FAVOR: one stabiliser over all rows) the default, which materialises them.
    void kernel_attention(const KernelAttentionArgs& args) override;

private:
    CpuKernels m_kernels;
};

}  // namespace attnscope
