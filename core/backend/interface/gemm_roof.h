// attnscope — what a device GEMM roof measures (Backend::time_resident_gemm), shared by the host code and the CUDA
// entry points (no Eigen or CUDA types).
#pragma once
#include <cstdint>

#include "core/backend/shared/hd.h"

namespace attnscope {

/// Operands and arithmetic of a device GEMM roof.
enum class GemmPrecision {
    Fp32,  // fp32 in, out and arithmetic (cuBLAS SGEMM)
    Tf32,  // fp32 in and out, tensor-core products of TF32-rounded inputs, fp32 accumulation
    Bf16,  // bf16 in, fp32 accumulation and out
};

/// Every precision, in the order reports list them.
inline constexpr GemmPrecision kGemmPrecisions[] = {GemmPrecision::Fp32, GemmPrecision::Tf32, GemmPrecision::Bf16};

/// "fp32", "tf32" or "bf16".
inline const char* gemm_precision_name(GemmPrecision precision) {
    switch (precision) {
        case GemmPrecision::Fp32: return "fp32";
        case GemmPrecision::Tf32: return "tf32";
        case GemmPrecision::Bf16: return "bf16";
    }
    return "?";
}

/// One timed product of Backend::time_resident_gemm.
struct ResidentGemmSample {
    double device_ms = 0;  // CUDA-event time of the library call alone (operands already on the device)
    double wall_ms = 0;    // host wall time of the same call: launch and wait
};

/// Entry k of a resident GEMM's operand A (which = 0) or B (which = 1), row-major: values in a narrow range that
/// keep the products away from denormals and overflow (the host roof's pattern).
ATTNSCOPE_HD float resident_gemm_operand(int which, int64_t k) {
    return which == 0 ? 0.5f + float(k % 7) * 0.01f : 0.25f - float(k % 5) * 0.01f;
}

}  // namespace attnscope
