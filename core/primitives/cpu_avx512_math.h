// attnscope — vector math the AVX-512 CPU kernels share (flash tiles, vslash rows). Include only where
// __AVX512F__ and __AVX512DQ__ are defined.
#pragma once
#include <immintrin.h>

namespace attnscope::avx512 {

/// log2(e): exp(x) = 2^(x·log2 e).
constexpr float kLog2e = 1.4426950408889634f;

/// 2^t for a vector: t = n + f with n = ⌊t⌋, f ∈ [0, 1) (vreduceps), 2^f by a degree-6 polynomial (relative error
/// ≤ 1e-7, float rounding), then vscalefps multiplies by 2^⌊t⌋. −inf (masked cells) gives exactly 0 (reduce → 0,
/// scalef by −inf → 0), so no clamp is needed. Results below 2^−126 are subnormal unless the caller holds a
/// flash_tile::FlushSubnormals, which makes them 0.
inline __m512 exp2_ps(__m512 t) {
    const __m512 f = _mm512_reduce_ps(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512 p = _mm512_set1_ps(2.1700182696804404e-4f);
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.2440299615263939e-3f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(9.678773581981659e-3f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(5.548337474465370e-2f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(2.4022983014583588e-1f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(6.931470036506653e-1f));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, t);
}

/// The lanes [0, count) of a vector (all 16 when count ≥ 16).
inline __mmask16 first_lanes(int count) {
    return count >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (count > 0 ? count : 0)) - 1u);
}

}  // namespace attnscope::avx512
