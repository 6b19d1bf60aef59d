// attnscope — the polynomial every vector exp2 of the CPU kernels evaluates: 2^f for f ∈ [0, 1), degree 6,
// relative error ≤ 1e-7 (float rounding). Highest degree first, for Horner's rule; each ISA (vec_avx512.h,
// vec_avx2.h) scales the result by 2^⌊t⌋ with its own instructions.
#pragma once

namespace attnscope::simd {

/// Coefficients c6 … c0 of 2^f ≈ Σ c_k f^k on [0, 1).
constexpr float kExp2Poly[7] = {2.1700182696804404e-4f, 1.2440299615263939e-3f, 9.678773581981659e-3f,
                                5.548337474465370e-2f,  2.4022983014583588e-1f, 6.931470036506653e-1f,
                                1.0f};

}  // namespace attnscope::simd
