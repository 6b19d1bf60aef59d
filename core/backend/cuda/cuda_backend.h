// attnscope — the CUDA backend: the Backend primitives on an NVIDIA GPU (sm_80 or newer).
// Host tensors in and out: each call uploads its inputs, runs on one stream and copies its outputs back, so a
// variant sees exactly the CPU backend's contract. Device memory is estimated before each call and allocated
// through one tracked allocator (core/backend/cuda/common.cuh); running out gives an Error that says to use the CPU.
// Plain C++ header (no CUDA types): included by core/backend/factory/make_backend.cpp, compiled by the host compiler.
#pragma once
#include <memory>
#include <string>

#include "core/backend/interface/backend.h"
#include "core/backend/cuda/cuda_primitives.h"

namespace attnscope {

/// "" when a usable CUDA device exists, else the reason, e.g. "no CUDA device found (cudaGetDeviceCount: ...)".
std::string cuda_probe_device();
/// A CudaBackend on device 0; throws Error when no device is usable (call cuda_probe_device() first).
std::unique_ptr<Backend> make_cuda_backend();

/// Block of the layout CudaBackend::vertical_slash_attention builds: the width the vslash variant used before the line
/// primitive (narrow lines waste less of a block the smaller it is; 16 keeps the kernel's tiles busy).
constexpr int kVerticalSlashCudaBlock = 16;

/// Backend running every primitive on CUDA device 0.
/// Dense attention: the tiled kernel's tiles are fixed when compiled (Br = 64, Bc = 64, or 32 for head dims
/// above 64), so DenseAttentionArgs::tile_rows/tile_cols only steer the CPU backend; any head dim (above
/// cuda::kMaxFlashHeadDim = 128 a sliced kernel); precision = tf32 runs the tensor-core kernel up to 128.
class CudaBackend : public Backend {
public:
    /// Creates the stream and cuBLAS handle; throws Error when the device cannot be used.
    CudaBackend();
    std::string name() const override { return "cuda"; }
    std::string description() const override;
    void gemm(const Tensor3& A, bool trans_a, const Tensor3& B, bool trans_b, float alpha, float beta,
              Tensor3& C) override;
    void dense_attention(const DenseAttentionArgs& args) override;
    void pooled_view(const Tensor3& M, int size, PoolMode mode, Tensor3& out) override;
    /// The block-sparse kernel (core/backend/cuda/block_sparse_attention.cuh), any head dim (sliced above 128).
    void block_sparse_attention(const BlockSparseAttentionArgs& args) override;
    /// The lines' layout (core/backend/interface/vertical_slash_layout.h, blocks of kVerticalSlashCudaBlock, built on the host)
    /// through the block-sparse kernel: no dedicated kernel, so a line costs its whole blocks on the GPU.
    void vertical_slash_attention(const VerticalSlashAttentionArgs& args) override;
    /// Hashing (cuBLAS projections, bucket kernel, CUB radix sort), the chunked attention of the sorted
    /// rounds (core/backend/cuda/lsh_attention.cuh) and the round combination, all on the GPU.
    void lsh_hash(const LshHashArgs& args) override;
    void lsh_attention(const LshAttentionArgs& args) override;
    void lsh_combine(const LshCombineArgs& args) override;
    /// Feature maps (core/backend/cuda/feature_maps.cuh, FAVOR projections through cuBLAS), linear attention (cuBLAS,
    /// causal by a chunked prefix scan: core/backend/cuda/linear_attention.cuh) and the 2-D FFT (cuFFT + core/backend/cuda/fft.cuh);
    /// the per-element math is core/backend/cpu/feature_maps.h, which the CPU calls too.
    void feature_map(const FeatureMapArgs& args) override;
    void linear_attention(const LinearAttentionArgs& args) override;
    void fft2_real(const Tensor3& X, Tensor3& Y) override;
    /// cuSOLVER: batched Jacobi for heads of at most 32×32, gesvd per head otherwise; randomized top-k with the
    /// CPU's sketch Ω drawn on the device (core/backend/cuda/svd.cu).
    void singular_values(const SingularValuesArgs& args) override;

protected:
    /// The stream and library handles every primitive of this backend runs on.
    cuda::Context& context() { return *m_ctx; }

private:
    cuda::ContextPtr m_ctx;
    std::string m_description;
};

/// The CUDA backend as make_cuda_backend() returns it: every primitive call is bracketed by a CUDA event pair on
/// the backend's stream and its elapsed device time accumulated (host fallbacks inside a call are bracketed
/// too, so they count); device memory is the tracked allocator of core/backend/cuda/common.cuh. A primitive added to
/// Backend must be forwarded here as well, else its calls go untimed (kernel_attention is not: its default
/// composes feature_map and linear_attention, which are timed here).
class MeasuredCudaBackend final : public CudaBackend {
public:
    /// Creates the backend and its event pair; throws Error when the device cannot be used.
    MeasuredCudaBackend();
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
    void fft2_real(const Tensor3& X, Tensor3& Y) override;
    void singular_values(const SingularValuesArgs& args) override;

    bool has_device() const override { return true; }
    DeviceClock device_clock() const override;
    void set_device_peak(int64_t bytes) override;
    int64_t device_free_bytes() const override;

private:
    /// Runs f() between the start and stop events; adds the elapsed device ms and the call's wall ms.
    template <class F>
    void timed(F&& f);

    cuda::EventPairPtr m_events;
    double m_ms_total = 0;
    double m_call_wall_ms_total = 0;
};

}  // namespace attnscope
