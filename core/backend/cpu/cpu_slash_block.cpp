// attnscope — vslash's diagonal cells of a row block in the build's vector ISA (see cpu_slash_block.h).
#include "core/backend/cpu/simd/vec.h"  // first: it includes <immintrin.h> (see there)

#include "core/backend/cpu/cpu_slash_block.h"

#if ATTNSCOPE_SIMD

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "core/backend/shared/online_softmax.h"

namespace attnscope::slash_block {

namespace {

using simd::kLanes;
using simd::Vec;
constexpr int kChunk = simd::kRowChunkVectors;  // row vectors held in registers at once

/// Lane t: q · k[keys[t]] for d = kLanes·NX (kLanes keys, each a valid row; lanes the caller masks later read any
/// valid row). The query is held in registers kChunk vectors at a time and each key row is read in the same
/// stretches: kLanes independent chains of FMAs, one load each.
template <int NX>
inline Vec dot_fixed(const float* q, const float* k, const int* keys) {
    static_assert(NX <= kChunk || NX % kChunk == 0, "whole chunks of the row");
    Vec acc[kLanes];
#pragma GCC unroll 16
    for (int t = 0; t < kLanes; ++t) acc[t] = simd::zero();
#pragma GCC unroll 4
    for (int x0 = 0; x0 < NX; x0 += kChunk) {
        constexpr int kWidth = NX < kChunk ? NX : kChunk;
        Vec qv[kWidth];
#pragma GCC unroll 8
        for (int x = 0; x < kWidth; ++x) qv[x] = simd::load(q + (x0 + x) * kLanes);
#pragma GCC unroll 16
        for (int t = 0; t < kLanes; ++t) {
            const float* row = k + static_cast<ptrdiff_t>(keys[t]) * (NX * kLanes) + x0 * kLanes;
#pragma GCC unroll 8
            for (int x = 0; x < kWidth; ++x) acc[t] = simd::fmadd(qv[x], simd::load(row + x * kLanes), acc[t]);
        }
    }
    return simd::transpose_sum(acc);
}

/// dot_fixed for any d (a partial last vector is masked).
inline Vec dot_any(const float* q, const float* k, int d, const int* keys) {
    Vec acc[kLanes];
    for (int t = 0; t < kLanes; ++t) acc[t] = simd::zero();
    for (int x = 0; x < d; x += kLanes) {
        const Vec qv = simd::load_first(q + x, d - x);
        for (int t = 0; t < kLanes; ++t)
            acc[t] = simd::fmadd(qv, simd::load_first(k + static_cast<ptrdiff_t>(keys[t]) * d + x, d - x), acc[t]);
    }
    return simd::transpose_sum(acc);
}

/// Lane t: q · k[keys[t]], on the fixed-width kernel where d is 32, 64, 96 or 128.
inline Vec dot(const float* q, const float* k, int d, const int* keys) {
    switch (d) {
        case 32: return dot_fixed<32 / kLanes>(q, k, keys);
        case 64: return dot_fixed<64 / kLanes>(q, k, keys);
        case 96: return dot_fixed<96 / kLanes>(q, k, keys);
        case 128: return dot_fixed<128 / kLanes>(q, k, keys);
        default: return dot_any(q, k, d, keys);
    }
}

/// acc = rescale·acc + Σ_t p[t]·v[keys[t]] for dv = kLanes·NV: the output row is held in registers kChunk vectors at a
/// time, split over two accumulator sets (even and odd t) so 2·kChunk FMA chains run side by side instead of one
/// chain per vector.
template <int NV>
inline void add_values_fixed(float* acc, float rescale, const float* p, const int* keys, int count, const float* v) {
    static_assert(NV <= kChunk || NV % kChunk == 0, "whole chunks of the row");
    const Vec r = simd::set1(rescale);
#pragma GCC unroll 4
    for (int x0 = 0; x0 < NV; x0 += kChunk) {
        constexpr int kWidth = NV < kChunk ? NV : kChunk;
        Vec even[kWidth], odd[kWidth];
#pragma GCC unroll 8
        for (int x = 0; x < kWidth; ++x)
            even[x] = simd::mul(simd::load(acc + (x0 + x) * kLanes), r), odd[x] = simd::zero();
        int t = 0;
        for (; t + 1 < count; t += 2) {
            const Vec p0 = simd::set1(p[t]), p1 = simd::set1(p[t + 1]);
            const float* v0 = v + static_cast<ptrdiff_t>(keys[t]) * (NV * kLanes) + x0 * kLanes;
            const float* v1 = v + static_cast<ptrdiff_t>(keys[t + 1]) * (NV * kLanes) + x0 * kLanes;
#pragma GCC unroll 8
            for (int x = 0; x < kWidth; ++x) {
                even[x] = simd::fmadd(p0, simd::load(v0 + x * kLanes), even[x]);
                odd[x] = simd::fmadd(p1, simd::load(v1 + x * kLanes), odd[x]);
            }
        }
        if (t < count) {
            const Vec p0 = simd::set1(p[t]);
            const float* v0 = v + static_cast<ptrdiff_t>(keys[t]) * (NV * kLanes) + x0 * kLanes;
#pragma GCC unroll 8
            for (int x = 0; x < kWidth; ++x) even[x] = simd::fmadd(p0, simd::load(v0 + x * kLanes), even[x]);
        }
#pragma GCC unroll 8
        for (int x = 0; x < kWidth; ++x) simd::store(acc + (x0 + x) * kLanes, simd::add(even[x], odd[x]));
    }
}

/// add_values_fixed for any dv (a partial last vector is masked).
inline void add_values_any(float* acc, float rescale, const float* p, const int* keys, int count, const float* v, int dv) {
    const Vec r = simd::set1(rescale);
    for (int x = 0; x < dv; x += kLanes) {
        Vec out = simd::mul(simd::load_first(acc + x, dv - x), r);
        for (int t = 0; t < count; ++t)
            out = simd::fmadd(simd::set1(p[t]), simd::load_first(v + static_cast<ptrdiff_t>(keys[t]) * dv + x, dv - x), out);
        simd::store_first(acc + x, out, dv - x);
    }
}

/// acc = rescale·acc + Σ_t p[t]·v[keys[t]], on the fixed-width kernel where dv is 32, 64, 96 or 128.
inline void add_values(float* acc, float rescale, const float* p, const int* keys, int count, const float* v, int dv) {
    switch (dv) {
        case 32: return add_values_fixed<32 / kLanes>(acc, rescale, p, keys, count, v);
        case 64: return add_values_fixed<64 / kLanes>(acc, rescale, p, keys, count, v);
        case 96: return add_values_fixed<96 / kLanes>(acc, rescale, p, keys, count, v);
        case 128: return add_values_fixed<128 / kLanes>(acc, rescale, p, keys, count, v);
        default: return add_values_any(acc, rescale, p, keys, count, v, dv);
    }
}

/// The score modifier on kLanes lanes of scores on diagonals o (as floats): ALiBi subtracts slope·o (|i − j| = o on a
/// diagonal), soft-capping is applied lane by lane.
inline Vec modify(Vec s, const ScoreMod& mod, int h, Vec o) {
    if (mod.kind == ScoreModKind::Alibi) return simd::fnmadd(simd::set1(alibi_slope(h, mod.heads)), o, s);
    if (mod.kind == ScoreModKind::Softcap) {
        alignas(64) float x[kLanes];
        simd::store(x, s);
        for (float& e : x) e = mod.cap * std::tanh(e / mod.cap);
        return simd::load(x);
    }
    return s;
}

}  // namespace

void fold(const Block& b, const float* k, const float* v, int d, int dv, const float* is_column, const ScoreMod& mod,
          int h, float* scratch) {
    static_assert(kDiagonals == kLanes, "one lane per diagonal");
    float* p = scratch;                                            // (rows, kLanes) scores, then weights
    int* keys = reinterpret_cast<int*>(scratch + b.rows * kLanes);  // (rows, kLanes) key of each lane (valid or not)
    const Vec ninf = simd::set1(-INFINITY), zero = simd::zero(), log2e = simd::set1(simd::kLog2e);
    const simd::Mask used = simd::first_lanes(b.count);
    const simd::IVec offs = simd::iload_first(b.offs, b.count);
    const Vec offs_f = simd::to_float(offs);
    const simd::IVec first_key = simd::iset1(0);
    // Scores, row by row: lane t of row r is key i0 + r − o_t when that key exists (≥ 0) and is not a kept column.
    for (int r = 0; r < b.rows; ++r) {
        const simd::IVec key = simd::isub(simd::iset1(b.i0 + r), offs);
        simd::Mask lanes = simd::mask_and(used, simd::igreater_equal(key, first_key));
        int* row_keys = keys + r * kLanes;
        simd::istore(row_keys, simd::imax(key, first_key));  // lanes before key 0 read row 0, masked
        if (!simd::any(lanes)) {
            simd::store(p + r * kLanes, ninf);
            continue;
        }
        const Vec column = simd::gather(lanes, is_column, key);
        lanes = simd::mask_and(lanes, simd::equal(column, zero));  // kept columns were scored by the vertical pass
        const Vec s = modify(dot(b.q + static_cast<ptrdiff_t>(r) * d, k, d, row_keys), mod, h, offs_f);
        simd::store(p + r * kLanes, simd::select(lanes, s, ninf));
    }
    // Softmax step and values, row by row.
    for (int r = 0; r < b.rows; ++r) {
        float* pr = p + r * kLanes;
        const Vec s = simd::load(pr);
        const float top = simd::reduce_max(s);
        if (top == -INFINITY) continue;  // no cell of this row in the block
        const float m_old = b.m[r], m_new = online_softmax_new_max(OnlineSoftmaxRow{m_old, b.l[r]}, top);
        const float rescale = online_softmax_rescale(m_old, m_new);
        const Vec e = simd::exp2(simd::fmsub(s, log2e, simd::set1(m_new * simd::kLog2e)));
        simd::store(pr, e);  // masked lanes are −inf: exp2 gave exactly 0
        b.l[r] = b.l[r] * rescale + simd::reduce_add(e);
        b.m[r] = m_new;
        add_values(b.acc + static_cast<ptrdiff_t>(r) * dv, rescale, pr, keys + r * kLanes, b.count, v, dv);
    }
}

}  // namespace attnscope::slash_block

#else
// No vector ISA: fold is not defined, slash_block::kAvailable is false and cpu_vertical_slash.cpp never calls it.
#endif  // ATTNSCOPE_SIMD
