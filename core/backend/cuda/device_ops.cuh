// attnscope — the Ops a composed pipeline (linear_attention.cuh, feature_maps.cuh) runs with on a GPU: cuBLAS
// GEMMs on the context's stream, kernel launches of `threads` threads in blocks of kOpsThreads, and tracked
// scratch buffers freed when the Ops object goes. The emulation tests provide the same interface on the host.
#pragma once
#include <vector>

#include "core/backend/cuda/gemm.cuh"

namespace attnscope::cuda {

/// Threads per block of DeviceOps::launch.
constexpr int kOpsThreads = 256;

/// GEMM, launch and scratch on one Context (see the file comment).
class DeviceOps {
public:
    explicit DeviceOps(Context& ctx) : m_ctx(ctx) {}
    /// C = alpha·op(A)·op(B) + beta·C for `batch` matrices (row-major, heads broadcast by heads == 1).
    void gemm(const DeviceMatrices& A, bool ta, const DeviceMatrices& B, bool tb, float alpha, float beta, float* C,
              int batch, int r, int c) {
        gemm_device(m_ctx, A, ta, B, tb, alpha, beta, C, batch, r, c);
    }
    /// kernel<<<⌈threads / kOpsThreads⌉, kOpsThreads>>>(args...); nothing for threads ≤ 0.
    template <class... KArgs, class... Args>
    void launch(int64_t threads, void (*kernel)(KArgs...), Args... args) {
        if (threads <= 0) return;
        kernel<<<unsigned(ceil_div(threads, kOpsThreads)), kOpsThreads, 0, m_ctx.stream()>>>(KArgs(args)...);
        ATTNSCOPE_CHECK_LAUNCH("a pipeline kernel");
    }
    /// kernel<<<blocks, threads, smem_bytes>>>(args...).
    template <class... KArgs, class... Args>
    void launch_shared(int blocks, int threads, size_t smem_bytes, void (*kernel)(KArgs...), Args... args) {
        if (blocks <= 0) return;
        kernel<<<unsigned(blocks), unsigned(threads), smem_bytes, m_ctx.stream()>>>(KArgs(args)...);
        ATTNSCOPE_CHECK_LAUNCH("a pipeline kernel");
    }
    /// A tracked device buffer of `count` floats, alive as long as this object.
    float* scratch(size_t count, const char* what) {
        m_buffers.emplace_back(count, what);
        return m_buffers.back().get();
    }

private:
    Context& m_ctx;
    std::vector<DeviceBuffer<float>> m_buffers;
};

}  // namespace attnscope::cuda
