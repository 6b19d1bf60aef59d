// attnscope — the CPU kernels' vector operations on AVX-512 (F + DQ): 16 float lanes, 32 registers, mask registers.
// Included by core/backend/cpu/simd/vec.h only (which includes <immintrin.h> first); vec_avx2.h has the same names.
#pragma once
#include "core/backend/cpu/simd/exp2_poly.h"

namespace attnscope::simd {

/// Float lanes per vector.
constexpr int kLanes = 16;
/// Register blocking of the flash tile products (cpu_flash_tile.cpp): query vectors per block, and keys (Sᵀ) or value
/// columns (Oᵀ) per block. 6 × 4 accumulators + 4 operand vectors + 1 broadcast of the 32 registers.
constexpr int kTileBlockVectors = 4;
constexpr int kTileQkRows = 6;
constexpr int kTilePvRows = 6;
/// Vectors of a query or value row held in registers at once by the vslash row kernel (cpu_slash_block.cpp): all of
/// d ≤ 128 beside its 16 accumulators.
constexpr int kRowChunkVectors = 8;

using Vec = __m512;    // 16 floats
using IVec = __m512i;  // 16 int32
using Mask = __mmask16;

/// All lanes 0.
inline Vec zero() { return _mm512_setzero_ps(); }
/// All lanes x.
inline Vec set1(float x) { return _mm512_set1_ps(x); }
/// kLanes floats from p (any alignment).
inline Vec load(const float* p) { return _mm512_loadu_ps(p); }
/// Stores kLanes floats to p (any alignment).
inline void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
inline Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline Vec sub(Vec a, Vec b) { return _mm512_sub_ps(a, b); }
inline Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
inline Vec max(Vec a, Vec b) { return _mm512_max_ps(a, b); }
/// a·b + c, rounded once.
inline Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
/// a·b − c, rounded once.
inline Vec fmsub(Vec a, Vec b, Vec c) { return _mm512_fmsub_ps(a, b, c); }
/// c − a·b, rounded once.
inline Vec fnmadd(Vec a, Vec b, Vec c) { return _mm512_fnmadd_ps(a, b, c); }

/// The lanes [0, count) (none when count ≤ 0, all when count ≥ kLanes).
inline Mask first_lanes(int count) {
    return count >= kLanes ? Mask(0xFFFF) : Mask((1u << (count > 0 ? count : 0)) - 1u);
}
/// Lanes in b but not in a.
inline Mask mask_andnot(Mask a, Mask b) { return Mask(~a & b); }
inline Mask mask_and(Mask a, Mask b) { return Mask(a & b); }
/// True when any lane is set.
inline bool any(Mask m) { return m != 0; }
/// Lanes where a == b (ordered: NaN never equals).
inline Mask equal(Vec a, Vec b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
/// Lanes l whose position first + l is below bound.
inline Mask lanes_below(int bound, int first) {
    const IVec pos = _mm512_add_epi32(_mm512_set1_epi32(first),
                                      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    return _mm512_cmpgt_epi32_mask(_mm512_set1_epi32(bound), pos);
}
/// Lane-wise m ? if_true : if_false.
inline Vec select(Mask m, Vec if_true, Vec if_false) { return _mm512_mask_mov_ps(if_false, m, if_true); }
/// The first `count` floats from p, 0 in the other lanes (which are not read).
inline Vec load_first(const float* p, int count) { return _mm512_maskz_loadu_ps(first_lanes(count), p); }
/// Stores the first `count` lanes of v to p (the floats after them are not touched).
inline void store_first(float* p, Vec v, int count) { _mm512_mask_storeu_ps(p, first_lanes(count), v); }

/// The largest lane.
inline float reduce_max(Vec v) { return _mm512_reduce_max_ps(v); }
/// The sum of the lanes.
inline float reduce_add(Vec v) { return _mm512_reduce_add_ps(v); }

/// 2^t: t = n + f with n = ⌊t⌋, f ∈ [0, 1) (vreduceps), 2^f by kExp2Poly, then vscalefps multiplies by 2^⌊t⌋. −inf
/// (masked cells) gives exactly 0 (reduce → 0, scalef by −inf → 0), so no clamp is needed. Results below 2^−126 are
/// subnormal unless the thread holds a flash_tile::FlushSubnormals (cpu_flash_tile.h), which makes them 0.
inline Vec exp2(Vec t) {
    const Vec f = _mm512_reduce_ps(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    Vec p = set1(kExp2Poly[0]);
#pragma GCC unroll 8
    for (int k = 1; k < 7; ++k) p = fmadd(p, f, set1(kExp2Poly[k]));
    return _mm512_scalef_ps(p, t);
}

/// Transposes the kLanes × kLanes matrix whose row i is r[i], in place: afterwards r[j] holds the old column j.
inline void transpose(Vec (&r)[kLanes]) {
    Vec t[16];
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

/// One vector whose lane t is the sum of the lanes of a[t]: pairs, then quads inside each 128-bit lane, then the four
/// 128-bit lanes (three shuffle levels instead of 16 horizontal sums).
inline Vec transpose_sum(const Vec (&a)[kLanes]) {
    Vec pair[8], quad[4];
    for (int p = 0; p < 8; ++p)  // 128-bit lane: [a0+a2, b0+b2, a1+a3, b1+b3] of a = a[2p], b = a[2p+1]
        pair[p] = _mm512_add_ps(_mm512_unpacklo_ps(a[2 * p], a[2 * p + 1]), _mm512_unpackhi_ps(a[2 * p], a[2 * p + 1]));
    for (int p = 0; p < 4; ++p)  // 128-bit lane: one partial sum of each of a[4p … 4p+3]
        quad[p] = _mm512_add_ps(_mm512_shuffle_ps(pair[2 * p], pair[2 * p + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                                _mm512_shuffle_ps(pair[2 * p], pair[2 * p + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    const Vec half0 = _mm512_add_ps(_mm512_shuffle_f32x4(quad[0], quad[1], _MM_SHUFFLE(2, 0, 2, 0)),
                                    _mm512_shuffle_f32x4(quad[0], quad[1], _MM_SHUFFLE(3, 1, 3, 1)));
    const Vec half1 = _mm512_add_ps(_mm512_shuffle_f32x4(quad[2], quad[3], _MM_SHUFFLE(2, 0, 2, 0)),
                                    _mm512_shuffle_f32x4(quad[2], quad[3], _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm512_add_ps(_mm512_shuffle_f32x4(half0, half1, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(half0, half1, _MM_SHUFFLE(3, 1, 3, 1)));
}

/// All lanes x.
inline IVec iset1(int x) { return _mm512_set1_epi32(x); }
/// The first `count` ints from p, 0 in the other lanes (which are not read).
inline IVec iload_first(const int* p, int count) { return _mm512_maskz_loadu_epi32(first_lanes(count), p); }
/// Stores kLanes ints to p (any alignment).
inline void istore(int* p, IVec v) { _mm512_storeu_si512(p, v); }
inline IVec isub(IVec a, IVec b) { return _mm512_sub_epi32(a, b); }
inline IVec imax(IVec a, IVec b) { return _mm512_max_epi32(a, b); }
/// Lanes where a ≥ b.
inline Mask igreater_equal(IVec a, IVec b) { return _mm512_cmpge_epi32_mask(a, b); }
/// The lanes as floats.
inline Vec to_float(IVec v) { return _mm512_cvtepi32_ps(v); }
/// Lane l: base[index[l]] where m has l, else 0 (nothing read there).
inline Vec gather(Mask m, const float* base, IVec index) {
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, index, base, 4);
}

}  // namespace attnscope::simd
