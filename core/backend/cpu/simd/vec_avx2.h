// attnscope — the CPU kernels' vector operations on AVX2 + FMA (x86-64-v3): 8 float lanes, 16 registers; a mask is a
// vector whose true lanes have every bit set. Included by core/backend/cpu/simd/vec.h only (which includes
// <immintrin.h> first); vec_avx512.h has the same names.
#pragma once
#include "core/backend/cpu/simd/exp2_poly.h"

namespace attnscope::simd {

/// Float lanes per vector.
constexpr int kLanes = 8;
/// Register blocking of the flash tile products (cpu_flash_tile.cpp): query vectors per block, and keys (Sᵀ) or value
/// columns (Oᵀ) per block. 6 × 2 accumulators + 2 operand vectors + 1 broadcast of the 16 registers (the shape of
/// the usual Haswell SGEMM micro-kernel).
constexpr int kTileBlockVectors = 2;
constexpr int kTileQkRows = 6;
constexpr int kTilePvRows = 6;
/// Vectors of a query or value row held in registers at once by the vslash row kernel (cpu_slash_block.cpp): 4 beside
/// its 8 accumulators (all of d = 128 would be 16 and spill).
constexpr int kRowChunkVectors = 4;

using Vec = __m256;    // 8 floats
using IVec = __m256i;  // 8 int32
using Mask = __m256;   // all bits set in a true lane

/// All lanes 0.
inline Vec zero() { return _mm256_setzero_ps(); }
/// All lanes x.
inline Vec set1(float x) { return _mm256_set1_ps(x); }
/// kLanes floats from p (any alignment).
inline Vec load(const float* p) { return _mm256_loadu_ps(p); }
/// Stores kLanes floats to p (any alignment).
inline void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
inline Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline Vec sub(Vec a, Vec b) { return _mm256_sub_ps(a, b); }
inline Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
inline Vec max(Vec a, Vec b) { return _mm256_max_ps(a, b); }
/// a·b + c, rounded once.
inline Vec fmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
/// a·b − c, rounded once.
inline Vec fmsub(Vec a, Vec b, Vec c) { return _mm256_fmsub_ps(a, b, c); }
/// c − a·b, rounded once.
inline Vec fnmadd(Vec a, Vec b, Vec c) { return _mm256_fnmadd_ps(a, b, c); }

/// The lane numbers 0 … 7.
inline IVec lane_index() { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
/// The lanes [0, count) (none when count ≤ 0, all when count ≥ kLanes).
inline Mask first_lanes(int count) {
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(count), lane_index()));
}
/// Lanes in b but not in a.
inline Mask mask_andnot(Mask a, Mask b) { return _mm256_andnot_ps(a, b); }
inline Mask mask_and(Mask a, Mask b) { return _mm256_and_ps(a, b); }
/// True when any lane is set.
inline bool any(Mask m) { return _mm256_movemask_ps(m) != 0; }
/// Lanes where a == b (ordered: NaN never equals).
inline Mask equal(Vec a, Vec b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
/// Lanes l whose position first + l is below bound.
inline Mask lanes_below(int bound, int first) { return first_lanes(bound - first); }
/// Lane-wise m ? if_true : if_false.
inline Vec select(Mask m, Vec if_true, Vec if_false) { return _mm256_blendv_ps(if_false, if_true, m); }
/// The first `count` floats from p, 0 in the other lanes (which are not read).
inline Vec load_first(const float* p, int count) {
    return _mm256_maskload_ps(p, _mm256_castps_si256(first_lanes(count)));
}
/// Stores the first `count` lanes of v to p (the floats after them are not touched).
inline void store_first(float* p, Vec v, int count) {
    _mm256_maskstore_ps(p, _mm256_castps_si256(first_lanes(count)), v);
}

/// The largest lane.
inline float reduce_max(Vec v) {
    __m128 x = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_max_ps(x, _mm_movehl_ps(x, x));
    return _mm_cvtss_f32(_mm_max_ss(x, _mm_movehdup_ps(x)));
}
/// The sum of the lanes.
inline float reduce_add(Vec v) {
    __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    return _mm_cvtss_f32(_mm_add_ss(x, _mm_movehdup_ps(x)));
}

/// 2^t: t = n + f with n = ⌊t⌋ (vroundps), f ∈ [0, 1), 2^f by kExp2Poly, times 2^n built in the exponent field. t is
/// first clamped to [−127, 128]: −inf (masked cells) and anything below −127 get n = −127, whose exponent field is 0,
/// so the result is exactly 0; results below 2^−126 are 0 as under flash_tile::FlushSubnormals (cpu_flash_tile.h), and
/// t ≥ 128 gives +inf. A NaN stays NaN (each clamp returns its second operand, t, when t is NaN). 2^n is n + 127 + 2^23
/// added as a float, whose low bits are then n + 127, shifted into the exponent field (one add where a conversion and
/// an integer add were).
inline Vec exp2(Vec t) {
    t = _mm256_min_ps(_mm256_set1_ps(128.0f), _mm256_max_ps(_mm256_set1_ps(-127.0f), t));
    const Vec n = _mm256_floor_ps(t);
    const Vec f = _mm256_sub_ps(t, n);
    Vec p = set1(kExp2Poly[0]);
#pragma GCC unroll 8
    for (int k = 1; k < 7; ++k) p = fmadd(p, f, set1(kExp2Poly[k]));
    const __m256i biased = _mm256_castps_si256(_mm256_add_ps(n, _mm256_set1_ps(8388608.0f + 127.0f)));
    return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(biased, 23)));
}

/// Transposes the kLanes × kLanes matrix whose row i is r[i], in place: afterwards r[j] holds the old column j.
inline void transpose(Vec (&r)[kLanes]) {
    Vec t[8], u[8];
    for (int i = 0; i < 8; i += 2) {  // interleave pairs of rows
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {  // 4×4 blocks inside each 128-bit lane
        u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    // Lane half H of u[c] holds rows 0 … 3 of column 4H + c, of u[4 + c] rows 4 … 7: swap the halves across.
    for (int c = 0; c < 4; ++c) {
        r[c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x20);
        r[4 + c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x31);
    }
}

/// One vector whose lane t is the sum of the lanes of a[t]: pairs, then quads inside each 128-bit lane, then the two
/// 128-bit lanes (three shuffle levels instead of 8 horizontal sums).
inline Vec transpose_sum(const Vec (&a)[kLanes]) {
    Vec pair[4], quad[2];
    for (int p = 0; p < 4; ++p)  // 128-bit lane: [a0+a2, b0+b2, a1+a3, b1+b3] of a = a[2p], b = a[2p+1]
        pair[p] = _mm256_add_ps(_mm256_unpacklo_ps(a[2 * p], a[2 * p + 1]), _mm256_unpackhi_ps(a[2 * p], a[2 * p + 1]));
    for (int p = 0; p < 2; ++p)  // 128-bit lane: one partial sum of each of a[4p … 4p+3]
        quad[p] = _mm256_add_ps(_mm256_shuffle_ps(pair[2 * p], pair[2 * p + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                                _mm256_shuffle_ps(pair[2 * p], pair[2 * p + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm256_add_ps(_mm256_permute2f128_ps(quad[0], quad[1], 0x20), _mm256_permute2f128_ps(quad[0], quad[1], 0x31));
}

/// All lanes x.
inline IVec iset1(int x) { return _mm256_set1_epi32(x); }
/// The first `count` ints from p, 0 in the other lanes (which are not read).
inline IVec iload_first(const int* p, int count) {
    return _mm256_maskload_epi32(p, _mm256_castps_si256(first_lanes(count)));
}
/// Stores kLanes ints to p (any alignment).
inline void istore(int* p, IVec v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
inline IVec isub(IVec a, IVec b) { return _mm256_sub_epi32(a, b); }
inline IVec imax(IVec a, IVec b) { return _mm256_max_epi32(a, b); }
/// Lanes where a ≥ b.
inline Mask igreater_equal(IVec a, IVec b) {
    return _mm256_castsi256_ps(_mm256_or_si256(_mm256_cmpgt_epi32(a, b), _mm256_cmpeq_epi32(a, b)));
}
/// The lanes as floats.
inline Vec to_float(IVec v) { return _mm256_cvtepi32_ps(v); }
/// Lane l: base[index[l]] where m has l, else 0 (nothing read there).
inline Vec gather(Mask m, const float* base, IVec index) {
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), base, index, m, 4);
}

}  // namespace attnscope::simd
