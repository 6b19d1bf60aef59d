// attnscope — vector math the AVX-512 CPU kernels share (flash tiles, vslash rows). Include only where
// __AVX512F__ and __AVX512DQ__ are defined, and before any other header that may include <immintrin.h> (Eigen's):
// GCC 12's shuffle intrinsics start from _mm512_undefined_ps(), which -Wuninitialized reports once inlined (GCC
// bug 105593, fixed in 13), and the diagnostic state that counts is the one where <immintrin.h> is first read.
#pragma once
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

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

/// Transposes the 16×16 matrix whose row i is r[i], in place: afterwards r[j] holds the old column j.
inline void transpose16(__m512 (&r)[16]) {
    __m512 t[16];
    for (int i = 0; i < 16; i += 2) {  // interleave pairs of rows
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4)  // 4×4 blocks inside each 128-bit lane
        for (int j = 0; j < 2; ++j) {
            const __m512d a = _mm512_castps_pd(t[i + j]), b = _mm512_castps_pd(t[i + j + 2]);
            r[i + 2 * j] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
            r[i + 2 * j + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
        }
    // Now lane L of r[4g + c] holds rows 4g … 4g+3 of column 4L + c; a 4×4 transpose of 128-bit lanes among
    // r[c], r[4 + c], r[8 + c], r[12 + c] puts column 4L + c whole into one vector.
    for (int i = 0; i < 4; ++i) {
        t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], _MM_SHUFFLE(2, 0, 2, 0));
        t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], _MM_SHUFFLE(3, 1, 3, 1));
        t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], _MM_SHUFFLE(2, 0, 2, 0));
        t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], _MM_SHUFFLE(3, 1, 3, 1));
    }
    for (int i = 0; i < 4; ++i) {
        r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], _MM_SHUFFLE(2, 0, 2, 0));
        r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], _MM_SHUFFLE(3, 1, 3, 1));
        r[i + 4] = _mm512_shuffle_f32x4(t[i + 4], t[i + 12], _MM_SHUFFLE(2, 0, 2, 0));
        r[i + 12] = _mm512_shuffle_f32x4(t[i + 4], t[i + 12], _MM_SHUFFLE(3, 1, 3, 1));
    }
}

/// The lanes [0, count) of a vector (all 16 when count ≥ 16).
inline __mmask16 first_lanes(int count) {
    return count >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (count > 0 ? count : 0)) - 1u);
}

}  // namespace attnscope::avx512
