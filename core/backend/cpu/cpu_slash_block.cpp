// attnscope — vslash's diagonal cells of a row block with AVX-512 intrinsics (see cpu_slash_block.h).
#include "core/backend/cpu/cpu_slash_block.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include "core/backend/cpu/cpu_avx512_math.h"  // first: it includes <immintrin.h> (see there)

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "core/backend/cpu/online_softmax.h"

namespace attnscope::slash_block {

namespace {

using avx512::first_lanes;

constexpr int kLanes = 16;

/// One vector whose lane t is the sum of the 16 lanes of a[t]: pairs, then quads inside each 128-bit lane, then
/// the four 128-bit lanes.
inline __m512 transpose_sum16(const __m512 (&a)[16]) {
    __m512 pair[8], quad[4];
    for (int p = 0; p < 8; ++p)  // 128-bit lane: [a0+a2, b0+b2, a1+a3, b1+b3] of a = a[2p], b = a[2p+1]
        pair[p] = _mm512_add_ps(_mm512_unpacklo_ps(a[2 * p], a[2 * p + 1]), _mm512_unpackhi_ps(a[2 * p], a[2 * p + 1]));
    for (int p = 0; p < 4; ++p)  // 128-bit lane: one partial sum of each of a[4p … 4p+3]
        quad[p] = _mm512_add_ps(_mm512_shuffle_ps(pair[2 * p], pair[2 * p + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                                _mm512_shuffle_ps(pair[2 * p], pair[2 * p + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    const __m512 half0 = _mm512_add_ps(_mm512_shuffle_f32x4(quad[0], quad[1], _MM_SHUFFLE(2, 0, 2, 0)),
                                       _mm512_shuffle_f32x4(quad[0], quad[1], _MM_SHUFFLE(3, 1, 3, 1)));
    const __m512 half1 = _mm512_add_ps(_mm512_shuffle_f32x4(quad[2], quad[3], _MM_SHUFFLE(2, 0, 2, 0)),
                                       _mm512_shuffle_f32x4(quad[2], quad[3], _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm512_add_ps(_mm512_shuffle_f32x4(half0, half1, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(half0, half1, _MM_SHUFFLE(3, 1, 3, 1)));
}

/// Lane t: q · k[keys[t]] for d = 16·NX (16 keys, each a valid row; lanes the caller masks later read any valid
/// row). The query stays in NX registers and each key row is read whole: 16 independent chains of NX FMAs.
template <int NX>
inline __m512 dot16_fixed(const float* q, const float* k, const int* keys) {
    __m512 qv[NX], acc[16];
#pragma GCC unroll 8
    for (int x = 0; x < NX; ++x) qv[x] = _mm512_loadu_ps(q + x * kLanes);
#pragma GCC unroll 16
    for (int t = 0; t < 16; ++t) {
        const float* row = k + static_cast<ptrdiff_t>(keys[t]) * (NX * kLanes);
        acc[t] = _mm512_mul_ps(qv[0], _mm512_loadu_ps(row));
#pragma GCC unroll 8
        for (int x = 1; x < NX; ++x) acc[t] = _mm512_fmadd_ps(qv[x], _mm512_loadu_ps(row + x * kLanes), acc[t]);
    }
    return transpose_sum16(acc);
}

/// dot16_fixed for any d (a partial last vector is masked).
inline __m512 dot16_any(const float* q, const float* k, int d, const int* keys) {
    __m512 acc[16];
    for (int t = 0; t < 16; ++t) acc[t] = _mm512_setzero_ps();
    for (int x = 0; x < d; x += kLanes) {
        const __mmask16 part = first_lanes(d - x);
        const __m512 qv = _mm512_maskz_loadu_ps(part, q + x);
        for (int t = 0; t < 16; ++t)
            acc[t] = _mm512_fmadd_ps(qv, _mm512_maskz_loadu_ps(part, k + static_cast<ptrdiff_t>(keys[t]) * d + x), acc[t]);
    }
    return transpose_sum16(acc);
}

/// Lane t: q · k[keys[t]], on the fixed-width kernel where d is a multiple of 16 up to 128.
inline __m512 dot16(const float* q, const float* k, int d, const int* keys) {
    switch (d) {
        case 32: return dot16_fixed<2>(q, k, keys);
        case 64: return dot16_fixed<4>(q, k, keys);
        case 96: return dot16_fixed<6>(q, k, keys);
        case 128: return dot16_fixed<8>(q, k, keys);
        default: return dot16_any(q, k, d, keys);
    }
}

/// acc = rescale·acc + Σ_t p[t]·v[keys[t]] for dv = 16·NV: the output row stays in registers, split over two
/// accumulator sets (even and odd t) so 2·NV FMA chains run side by side instead of one chain per vector.
template <int NV>
inline void add_values_fixed(float* acc, float rescale, const float* p, const int* keys, int count, const float* v) {
    __m512 even[NV], odd[NV];
    const __m512 r = _mm512_set1_ps(rescale);
#pragma GCC unroll 8
    for (int x = 0; x < NV; ++x) even[x] = _mm512_mul_ps(_mm512_loadu_ps(acc + x * kLanes), r), odd[x] = _mm512_setzero_ps();
    int t = 0;
    for (; t + 1 < count; t += 2) {
        const __m512 p0 = _mm512_set1_ps(p[t]), p1 = _mm512_set1_ps(p[t + 1]);
        const float* v0 = v + static_cast<ptrdiff_t>(keys[t]) * (NV * kLanes);
        const float* v1 = v + static_cast<ptrdiff_t>(keys[t + 1]) * (NV * kLanes);
#pragma GCC unroll 8
        for (int x = 0; x < NV; ++x) {
            even[x] = _mm512_fmadd_ps(p0, _mm512_loadu_ps(v0 + x * kLanes), even[x]);
            odd[x] = _mm512_fmadd_ps(p1, _mm512_loadu_ps(v1 + x * kLanes), odd[x]);
        }
    }
    if (t < count) {
        const __m512 p0 = _mm512_set1_ps(p[t]);
        const float* v0 = v + static_cast<ptrdiff_t>(keys[t]) * (NV * kLanes);
#pragma GCC unroll 8
        for (int x = 0; x < NV; ++x) even[x] = _mm512_fmadd_ps(p0, _mm512_loadu_ps(v0 + x * kLanes), even[x]);
    }
#pragma GCC unroll 8
    for (int x = 0; x < NV; ++x) _mm512_storeu_ps(acc + x * kLanes, _mm512_add_ps(even[x], odd[x]));
}

/// add_values_fixed for any dv (a partial last vector is masked).
inline void add_values_any(float* acc, float rescale, const float* p, const int* keys, int count, const float* v, int dv) {
    const __m512 r = _mm512_set1_ps(rescale);
    for (int x = 0; x < dv; x += kLanes) {
        const __mmask16 part = first_lanes(dv - x);
        __m512 out = _mm512_mul_ps(_mm512_maskz_loadu_ps(part, acc + x), r);
        for (int t = 0; t < count; ++t)
            out = _mm512_fmadd_ps(_mm512_set1_ps(p[t]), _mm512_maskz_loadu_ps(part, v + static_cast<ptrdiff_t>(keys[t]) * dv + x), out);
        _mm512_mask_storeu_ps(acc + x, part, out);
    }
}

/// acc = rescale·acc + Σ_t p[t]·v[keys[t]], on the fixed-width kernel where dv is a multiple of 16 up to 128.
inline void add_values(float* acc, float rescale, const float* p, const int* keys, int count, const float* v, int dv) {
    switch (dv) {
        case 32: return add_values_fixed<2>(acc, rescale, p, keys, count, v);
        case 64: return add_values_fixed<4>(acc, rescale, p, keys, count, v);
        case 96: return add_values_fixed<6>(acc, rescale, p, keys, count, v);
        case 128: return add_values_fixed<8>(acc, rescale, p, keys, count, v);
        default: return add_values_any(acc, rescale, p, keys, count, v, dv);
    }
}

/// The score modifier on 16 lanes of scores on diagonals o (as floats): ALiBi subtracts slope·o (|i − j| = o on a
/// diagonal), soft-capping is applied lane by lane.
inline __m512 modify(__m512 s, const ScoreMod& mod, int h, __m512 o) {
    if (mod.kind == ScoreModKind::Alibi) return _mm512_fnmadd_ps(_mm512_set1_ps(alibi_slope(h, mod.heads)), o, s);
    if (mod.kind == ScoreModKind::Softcap) {
        alignas(64) float x[kLanes];
        _mm512_store_ps(x, s);
        for (float& e : x) e = mod.cap * std::tanh(e / mod.cap);
        return _mm512_load_ps(x);
    }
    return s;
}

}  // namespace

void fold(const Block& b, const float* k, const float* v, int d, int dv, const float* is_column, const ScoreMod& mod,
          int h, float* scratch) {
    static_assert(kDiagonals == kLanes, "one lane per diagonal");
    float* p = scratch;                                            // (rows, 16) scores, then weights
    int* keys = reinterpret_cast<int*>(scratch + b.rows * kLanes);  // (rows, 16) key of each lane (valid or not)
    const __m512 ninf = _mm512_set1_ps(-INFINITY), zero = _mm512_setzero_ps(), log2e = _mm512_set1_ps(avx512::kLog2e);
    const __mmask16 used = first_lanes(b.count);
    const __m512i offs = _mm512_maskz_loadu_epi32(used, b.offs);
    const __m512 offs_f = _mm512_cvtepi32_ps(offs);
    const __m512i first_key = _mm512_setzero_si512();
    // Scores, row by row: lane t of row r is key i0 + r − o_t when that key exists (≥ 0) and is not a kept column.
    for (int r = 0; r < b.rows; ++r) {
        const __m512i key = _mm512_sub_epi32(_mm512_set1_epi32(b.i0 + r), offs);
        __mmask16 lanes = used & _mm512_cmpge_epi32_mask(key, first_key);
        int* row_keys = keys + r * kLanes;
        _mm512_storeu_si512(row_keys, _mm512_max_epi32(key, first_key));  // lanes before key 0 read row 0, masked
        if (lanes == 0) {
            _mm512_storeu_ps(p + r * kLanes, ninf);
            continue;
        }
        const __m512 column = _mm512_mask_i32gather_ps(zero, lanes, key, is_column, 4);
        lanes &= _mm512_cmp_ps_mask(column, zero, _CMP_EQ_OQ);  // kept columns were scored by the vertical pass
        const __m512 s = modify(dot16(b.q + static_cast<ptrdiff_t>(r) * d, k, d, row_keys), mod, h, offs_f);
        _mm512_storeu_ps(p + r * kLanes, _mm512_mask_mov_ps(ninf, lanes, s));
    }
    // Softmax step and values, row by row.
    for (int r = 0; r < b.rows; ++r) {
        float* pr = p + r * kLanes;
        const __m512 s = _mm512_loadu_ps(pr);
        const float top = _mm512_reduce_max_ps(s);
        if (top == -INFINITY) continue;  // no cell of this row in the block
        const float m_old = b.m[r], m_new = online_softmax_new_max(OnlineSoftmaxRow{m_old, b.l[r]}, top);
        const float rescale = online_softmax_rescale(m_old, m_new);
        const __m512 e = avx512::exp2_ps(_mm512_fmsub_ps(s, log2e, _mm512_set1_ps(m_new * avx512::kLog2e)));
        _mm512_storeu_ps(pr, e);  // masked lanes are −inf: exp2 gave exactly 0
        b.l[r] = b.l[r] * rescale + _mm512_reduce_add_ps(e);
        b.m[r] = m_new;
        add_values(b.acc + static_cast<ptrdiff_t>(r) * dv, rescale, pr, keys + r * kLanes, b.count, v, dv);
    }
}

}  // namespace attnscope::slash_block

#endif  // __AVX512F__ && __AVX512DQ__
