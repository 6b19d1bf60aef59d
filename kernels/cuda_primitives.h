// attnscope — the CUDA primitives as plain C++ entry points on host buffers (no CUDA or Eigen types), so the
// host-compiled CudaBackend (cuda_backend.cpp) can call them. Each entry uploads its inputs, launches on the
// context's stream, downloads its outputs and returns; device-pointer launchers for composing kernels on
// the device live in the family headers (gemm.cuh, flash_attention.cuh).
// One .cu per family: gemm.cu, dense_attention.cu, pooled_view.cu; shared machinery in common.cu.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "core/primitives/pooling.h"

namespace attnscope::cuda {

class Context;
/// Destroys a Context (defined in common.cu, where Context is complete).
struct ContextDeleter {
    void operator()(Context* ctx) const noexcept;
};
using ContextPtr = std::unique_ptr<Context, ContextDeleter>;

/// Creates a stream + cuBLAS handle on device 0; throws Error when that fails.
ContextPtr make_context();

/// "" when a usable CUDA device exists, else why not, e.g. "no CUDA device found (cudaGetDeviceCount: ...)".
/// The answer is computed once per process.
std::string probe_device();
/// One line naming device 0, e.g. "CUDA, NVIDIA A100-SXM4-40GB (sm_80, 40.0 GiB), runtime 13.0".
std::string device_description();

/// Bytes of device memory held by tracked allocations now.
int64_t device_bytes_live();
/// Peak of device_bytes_live() since the last reset_device_peak().
int64_t device_bytes_peak();
/// Starts a new peak measurement at the current level.
void reset_device_peak();

/// One operand of a batched GEMM: `heads` row-major (rows, cols) matrices back to back; heads == 1 broadcasts.
struct HostMatrices {
    const float* data = nullptr;  // (heads, rows, cols) on the host
    int heads = 0, rows = 0, cols = 0;
};

/// C_h = alpha·op(A_h)·op(B_h) + beta·C_h through cuBLAS; shapes already validated by the caller.
void gemm(Context& ctx, const HostMatrices& A, bool trans_a, const HostMatrices& B, bool trans_b, float alpha,
          float beta, float* C, int H, int r, int c);  // C: (H, r, c) on the host, read when beta != 0

/// Sizes of one dense attention call (validated by the caller).
struct AttentionShape {
    int H = 0, n = 0, m = 0, d = 0, dv = 0;  // heads, queries, keys, head dim, value dim
    float scale = 1.0f;                      // s in softmax(s·QKᵀ)
    bool causal = false;                     // key j allowed only when j ≤ i (m == n)
};

/// Largest head dim (d and dv) the tiled flash kernel is compiled for; larger gives Error.
constexpr int kMaxFlashHeadDim = 128;

/// Tiled online-softmax attention (FlashAttention-2 style); lse may be nullptr.
void flash_attention(Context& ctx, const AttentionShape& s, const float* Q, const float* K, const float* V,
                     float* O, float* lse);  // Q (H,n,d), K (H,m,d), V (H,m,dv), O (H,n,dv), lse (H,n,1)

/// Attention with P materialised: S = s·QKᵀ (cuBLAS), row softmax in place, O = P·V (cuBLAS).
void materialised_attention(Context& ctx, const AttentionShape& s, const float* Q, const float* K, const float* V,
                            float* O, float* lse, float* P);  // P (H,n,m); lse may be nullptr

/// Pools each head of M (H, n, m) to out (H, sr, sc) by bins of pooling.h, reducing by max or mean.
void pooled_view(Context& ctx, const float* M, int H, int n, int m, int sr, int sc, PoolMode mode, float* out);

}  // namespace attnscope::cuda
