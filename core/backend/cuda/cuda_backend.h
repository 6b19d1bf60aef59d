// attnscope — the CUDA backend: the Backend primitives on an NVIDIA GPU (sm_80 or newer).
// Host tensors in and out: each call uploads its inputs, runs on one stream and copies its outputs back, so a
// variant sees exactly the CPU backend's contract. Device memory is estimated before each call and allocated
// through one tracked allocator (core/backend/cuda/common.cuh); running out gives an Error that says to use the CPU.
// Plain C++ header (no CUDA types): included by core/backend/factory/make_backend.cpp, compiled by the host compiler.
#pragma once
#include <memory>
#include <string>

#include "core/backend/interface/backend.h"
#include "core/backend/interface/backend_primitives.h"
#include "core/backend/cuda/cuda_primitives.h"

namespace attnscope {

/// "" when a usable CUDA device exists, else the reason, e.g. "no CUDA device found (cudaGetDeviceCount: ...)".
std::string cuda_probe_device();
/// A CudaBackend on device 0; throws Error when no device is usable (call cuda_probe_device() first).
std::unique_ptr<Backend> make_cuda_backend();

/// Backend running every primitive on CUDA device 0.
/// Dense attention: the tiled kernel's tiles are fixed when compiled (Br = 64, Bc = 64, or 32 for head dims
/// above 64), so DenseAttentionArgs::tile_rows/tile_cols only steer the CPU backend; any head dim (above
/// cuda::kMaxFlashHeadDim = 128 a sliced kernel); precision = tf32 runs the tensor-core kernel up to 128;
/// kernel = Cutlass runs CUTLASS's fused attention in fp32 (3×TF32), bf16 or fp16; kernel = Best runs it wherever it
/// takes the call (dense_kernel_to_run).
class CudaBackend : public Backend {
public:
    /// Creates the stream and cuBLAS handle; throws Error when the device cannot be used.
    CudaBackend();
    std::string name() const override { return "cuda"; }
    std::string description() const override;
    /// Every primitive of backend_primitives.h (contracts on Backend); cuda_backend.cpp says which kernel or library
    /// runs each.
    ATTNSCOPE_BACKEND_PRIMITIVES(ATTNSCOPE_BACKEND_OVERRIDE)
    /// The feature maps and linear attention in one call with φ(Q), φ(K) kept on the device (only O and D cross).
    void kernel_attention(const KernelAttentionArgs& args) override;
    /// cublasGemmEx on operands kept on the device (core/backend/cuda/resident_gemm.cu).
    ResidentGemmSample time_resident_gemm(int size, GemmPrecision precision, Tensor3* result = nullptr) override;
    /// Copies each tensor to the device once (untimed) and serves the primitives' reads of it from there.
    void keep_inputs_on_device(const std::vector<const Tensor3*>& tensors) override;
    /// Frees those copies.
    void release_device_inputs() override;

protected:
    /// The stream and library handles every primitive of this backend runs on.
    cuda::Context& context() { return *m_ctx; }

private:
    /// The tiled dense path on CUTLASS's kernel: fp32 tensors as they are, bf16/fp16 rounded on the device.
    void cutlass_attention(const DenseAttentionArgs& a, const cuda::AttentionShape& s, float* lse);

    cuda::ContextPtr m_ctx;
    cuda::ResidentGemmPtr m_resident_gemm;  // the GEMM roof's device operands, made on its first call
    std::string m_description;
};

/// The CUDA backend as make_cuda_backend() returns it: every primitive call is bracketed by a CUDA event pair on
/// the backend's stream and its elapsed device time accumulated (host fallbacks inside a call are bracketed
/// too, so they count); device memory is the tracked allocator of core/backend/cuda/common.cuh. The timed primitives
/// are the list of backend_primitives.h, so a primitive added there is timed here too, and kernel_attention (not in
/// the list, since Backend gives it a default).
class MeasuredCudaBackend final : public CudaBackend {
public:
    /// Creates the backend and its event pair; throws Error when the device cannot be used.
    MeasuredCudaBackend();
    /// CudaBackend's primitive, between the event pair (see timed()).
    ATTNSCOPE_BACKEND_PRIMITIVES(ATTNSCOPE_BACKEND_OVERRIDE)
    /// CudaBackend's fused kernel attention, between the event pair.
    void kernel_attention(const KernelAttentionArgs& args) override;

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
    double m_copy_ms_total = 0;     // device ms of the host↔device copies inside those calls
    int64_t m_copy_bytes_total = 0;
};

}  // namespace attnscope
