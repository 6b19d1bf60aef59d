// attnscope — fp32 ↔ 16-bit conversions on the device for CUTLASS's bf16 and fp16 attention: Q, K and V rounded from
// their fp32 copies already on the device (kept resident or just uploaded) and O widened back, so neither a host loop
// nor a second upload sits between the caller's tensors and the kernel. They call core/backend/shared/half.h's functions, which the
// host uses too, so the device rounds exactly as the host does (to nearest even), bit for bit. Kernels only: their
// launches are in flash_attention_cutlass.cu; tests/emu runs them on the CPU.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "core/backend/shared/half.h"

namespace attnscope::cuda {

/// y[k] = x[k] rounded to bfloat16 (kBf16) or binary16 bits, for k < count; one thread per element.
template <bool kBf16>
__global__ void narrow_kernel(const float* x, uint16_t* y, int64_t count) {
    const int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < count) y[k] = kBf16 ? float_to_bf16(x[k]) : float_to_f16(x[k]);
}

/// x[k] = the float of bfloat16 (kBf16) or binary16 bits y[k] (exact), for k < count; one thread per element.
template <bool kBf16>
__global__ void widen_kernel(const uint16_t* y, float* x, int64_t count) {
    const int64_t k = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < count) x[k] = kBf16 ? bf16_to_float(y[k]) : f16_to_float(y[k]);
}

/// Threads per block of both conversions.
constexpr int kConvertThreads = 256;

}  // namespace attnscope::cuda
