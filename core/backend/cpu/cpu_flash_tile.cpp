// attnscope — the CPU flash kernel's tile phases with AVX-512 intrinsics (see cpu_flash_tile.h for the layout).
// Why hand-written: the tile products are small (64–256 queries × 64–256 keys × d ≤ 128) and run n/Bc times per
// query tile; Eigen's GEMM packs both operands on every call and reached ~50% of the machine's SGEMM rate, and
// per-tile cblas_sgemm packs as well. Here nothing is packed but Qᵀ (once per query tile): K and V rows are read
// by scalar broadcast, which the load ports absorb while the two FMA ports stay busy.
#include "core/backend/cpu/cpu_flash_tile.h"

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include "core/backend/cpu/cpu_avx512_math.h"  // first: it includes <immintrin.h> (see there)

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "core/tensor.h"
#include "core/backend/cpu/online_softmax.h"
#include "core/backend/interface/pooling.h"

namespace attnscope::flash_tile {

namespace {

using avx512::exp2_ps;
using avx512::kLog2e;
constexpr int kBlockVectors = 4;                 // query vectors per register block (64 queries)
constexpr int kBlockLanes = kBlockVectors * kLanes;
constexpr int kQkRows = 6;                       // keys per Sᵀ register block: 6 × 4 accumulators
constexpr int kPvRows = 6;                       // value columns per Oᵀ register block: 6 × 4 accumulators

/// Keys of the key tile [j0, j0 + cols) that any query of the block [q0, q0 + lanes) of tile t may see.
inline int key_limit(const Tile& t, int j0, int cols, bool causal, int q0, int lanes) {
    if (!causal) return cols;
    return std::clamp(t.i0 + q0 + lanes - j0, 0, cols);
}

/// Lanes of the query block starting at q0 (a whole number of vectors, ≤ kBlockLanes).
inline int block_lanes(const Tile& t, int q0) { return std::min(kBlockLanes, t.brp - q0); }

/// Sets lanes whose query (query0 + lane) precedes `key` to −inf.
inline __m512 mask_future(__m512 s, int key, int query0) {
    const __m512i q = _mm512_add_epi32(_mm512_set1_epi32(query0),
                                       _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    const __mmask16 future = _mm512_cmpgt_epi32_mask(_mm512_set1_epi32(key), q);
    return _mm512_mask_mov_ps(s, future, _mm512_set1_ps(-INFINITY));
}

/// Sᵀ block: MR keys (rows of k, stride d) × NV query vectors of qt (stride brp) → st (stride brp). With `fuse`,
/// applies the causal mask (when `mask`) and folds the block into tmax; without, stores the raw scores.
template <int MR, int NV>
void qk_block(const float* k, int d, const float* qt, int brp, float* st, float* tmax, bool fuse, bool mask, int key0,
              int query0) {
    __m512 acc[MR][NV];
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) acc[i][j] = _mm512_setzero_ps();
    for (int x = 0; x < d; ++x) {
        __m512 b[NV];
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) b[j] = _mm512_loadu_ps(qt + static_cast<ptrdiff_t>(x) * brp + j * kLanes);
#pragma GCC unroll 16
        for (int i = 0; i < MR; ++i) {
            const __m512 a = _mm512_set1_ps(k[static_cast<ptrdiff_t>(i) * d + x]);
#pragma GCC unroll 4
            for (int j = 0; j < NV; ++j) acc[i][j] = _mm512_fmadd_ps(a, b[j], acc[i][j]);
        }
    }
    __m512 mx[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) mx[j] = _mm512_loadu_ps(tmax + j * kLanes);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) {
            __m512 s = acc[i][j];
            if (fuse) {
                if (mask) s = mask_future(s, key0 + i, query0 + j * kLanes);
                mx[j] = _mm512_max_ps(mx[j], s);
            }
            _mm512_storeu_ps(st + static_cast<ptrdiff_t>(i) * brp + j * kLanes, s);
        }
    if (fuse)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) _mm512_storeu_ps(tmax + j * kLanes, mx[j]);
}

/// Oᵀ block: MR value columns × NV query vectors; ot = rescale·ot + Σ_c v[c][0:MR]ᵀ·pt[c] over `cols` keys
/// (v: rows of stride dv; pt, ot: stride brp).
template <int MR, int NV>
void pv_block(const float* v, int dv, const float* pt, int brp, int cols, float* ot, const float* rescale) {
    __m512 acc[MR][NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
        const __m512 r = _mm512_loadu_ps(rescale + j * kLanes);
#pragma GCC unroll 16
        for (int i = 0; i < MR; ++i)
            acc[i][j] = _mm512_mul_ps(r, _mm512_loadu_ps(ot + static_cast<ptrdiff_t>(i) * brp + j * kLanes));
    }
    for (int c = 0; c < cols; ++c) {
        __m512 p[NV];
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) p[j] = _mm512_loadu_ps(pt + static_cast<ptrdiff_t>(c) * brp + j * kLanes);
#pragma GCC unroll 16
        for (int i = 0; i < MR; ++i) {
            const __m512 a = _mm512_set1_ps(v[static_cast<ptrdiff_t>(c) * dv + i]);
#pragma GCC unroll 4
            for (int j = 0; j < NV; ++j) acc[i][j] = _mm512_fmadd_ps(a, p[j], acc[i][j]);
        }
    }
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) _mm512_storeu_ps(ot + static_cast<ptrdiff_t>(i) * brp + j * kLanes, acc[i][j]);
}

using QkFn = void (*)(const float*, int, const float*, int, float*, float*, bool, bool, int, int);
using PvFn = void (*)(const float*, int, const float*, int, int, float*, const float*);

/// Tables of every block shape (rows 1…R, vectors 1…4): edges of a tile use the smaller shapes.
template <int MR>
constexpr std::array<QkFn, kBlockVectors> qk_shapes() {
    return {&qk_block<MR, 1>, &qk_block<MR, 2>, &qk_block<MR, 3>, &qk_block<MR, 4>};
}
template <int MR>
constexpr std::array<PvFn, kBlockVectors> pv_shapes() {
    return {&pv_block<MR, 1>, &pv_block<MR, 2>, &pv_block<MR, 3>, &pv_block<MR, 4>};
}
template <int... R>
constexpr std::array<std::array<QkFn, kBlockVectors>, sizeof...(R)> qk_table(std::integer_sequence<int, R...>) {
    return {qk_shapes<R + 1>()...};
}
template <int... R>
constexpr std::array<std::array<PvFn, kBlockVectors>, sizeof...(R)> pv_table(std::integer_sequence<int, R...>) {
    return {pv_shapes<R + 1>()...};
}
constexpr auto kQk = qk_table(std::make_integer_sequence<int, kQkRows>{});
constexpr auto kPv = pv_table(std::make_integer_sequence<int, kPvRows>{});

/// Applies a score modifier to the computed cells of Sᵀ (the same cells `scores` wrote), before any mask.
void apply_mod(const Tile& t, int j0, int cols, bool causal, const ScoreMod& mod, int h) {
    if (mod.kind == ScoreModKind::Softcap) {
        // Eigen's vectorised tanh: as accurate as the reference path's (a cancelling 1 − 2/(e^2x + 1) is not).
        for (int q0 = 0; q0 < t.brp; q0 += kBlockLanes) {
            const int lanes = block_lanes(t, q0), lim = key_limit(t, j0, cols, causal, q0, lanes);
            for (int c = 0; c < lim; ++c) {
                Eigen::Map<Eigen::ArrayXf> s(t.st + static_cast<ptrdiff_t>(c) * t.brp + q0, lanes);
                s = mod.cap * (s / mod.cap).tanh();
            }
        }
        return;
    }
    if (mod.kind == ScoreModKind::Alibi) {
        const float slope = alibi_slope(h, mod.heads);
        for (int q0 = 0; q0 < t.brp; q0 += kBlockLanes) {
            const int lanes = block_lanes(t, q0), lim = key_limit(t, j0, cols, causal, q0, lanes);
            for (int c = 0; c < lim; ++c) {
                float* s = t.st + static_cast<ptrdiff_t>(c) * t.brp + q0;
                for (int r = 0; r < lanes; ++r) s[r] -= slope * std::fabs(float(t.i0 + q0 + r - (j0 + c)));
            }
        }
    }
}

/// The causal mask and the per-query max over computed cells of Sᵀ, for scores that were stored raw.
void mask_and_max(const Tile& t, int j0, int cols, bool causal) {
    for (int q0 = 0; q0 < t.brp; q0 += kBlockLanes) {
        const int lanes = block_lanes(t, q0), lim = key_limit(t, j0, cols, causal, q0, lanes);
        for (int j = 0; j < lanes; j += kLanes) {
            __m512 mx = _mm512_loadu_ps(t.tmax + q0 + j);
            for (int c = 0; c < lim; ++c) {
                float* s = t.st + static_cast<ptrdiff_t>(c) * t.brp + q0 + j;
                __m512 x = _mm512_loadu_ps(s);
                if (causal) x = mask_future(x, j0 + c, t.i0 + q0 + j);
                mx = _mm512_max_ps(mx, x);
                _mm512_storeu_ps(s, x);
            }
            _mm512_storeu_ps(t.tmax + q0 + j, mx);
        }
    }
}

}  // namespace

FlushSubnormals::FlushSubnormals() : m_saved(_mm_getcsr()) { _mm_setcsr(m_saved | 0x8040u); }

FlushSubnormals::~FlushSubnormals() { _mm_setcsr(m_saved); }

void begin(const Tile& t, const float* q, float scale) {
    // Qᵀ by 16×16 blocks: 16 query rows (zero past t.rows, so padding lanes hold zero queries), transposed in registers.
    const __m512 s = _mm512_set1_ps(scale), zero = _mm512_setzero_ps();
    for (int r0 = 0; r0 < t.brp; r0 += kLanes) {
        const int rows = std::clamp(t.rows - r0, 0, kLanes);
        for (int x0 = 0; x0 < t.d; x0 += kLanes) {
            const __mmask16 part = avx512::first_lanes(t.d - x0);
            __m512 block[kLanes];
            for (int i = 0; i < kLanes; ++i)
                block[i] = i < rows ? _mm512_mul_ps(s, _mm512_maskz_loadu_ps(part, q + static_cast<ptrdiff_t>(t.i0 + r0 + i) * t.d + x0))
                                    : zero;
            avx512::transpose16(block);
            for (int j = 0; j < std::min(kLanes, t.d - x0); ++j)
                _mm512_storeu_ps(t.qt + static_cast<ptrdiff_t>(x0 + j) * t.brp + r0, block[j]);
        }
    }
    std::fill(t.ot, t.ot + static_cast<ptrdiff_t>(t.dv) * t.brp, 0.0f);
    std::fill(t.m, t.m + t.brp, -INFINITY);
    std::fill(t.l, t.l + t.brp, 0.0f);
}

void scores(const Tile& t, const float* k, int j0, int cols, bool causal, const ScoreMod& mod, int h) {
    const bool fuse = mod.kind == ScoreModKind::None;
    std::fill(t.tmax, t.tmax + t.brp, -INFINITY);
    for (int q0 = 0; q0 < t.brp; q0 += kBlockLanes) {
        const int lanes = block_lanes(t, q0), lim = key_limit(t, j0, cols, causal, q0, lanes);
        const int query0 = t.i0 + q0;
        for (int c0 = 0; c0 < lim; c0 += kQkRows) {
            const int mr = std::min(kQkRows, lim - c0);
            // Only blocks whose last key lies after their first query can hold a masked cell.
            const bool mask = causal && j0 + c0 + mr - 1 > query0;
            kQk[mr - 1][lanes / kLanes - 1](k + static_cast<ptrdiff_t>(j0 + c0) * t.d, t.d, t.qt + q0, t.brp,
                                            t.st + static_cast<ptrdiff_t>(c0) * t.brp + q0, t.tmax + q0, fuse, mask,
                                            j0 + c0, query0);
        }
    }
    if (!fuse) {
        apply_mod(t, j0, cols, causal, mod, h);
        mask_and_max(t, j0, cols, causal);
    }
}

void raw_scores(const Tile& t, const float* k, int j0, int cols, const ScoreMod& mod, int h) {
    for (int q0 = 0; q0 < t.brp; q0 += kBlockLanes) {
        const int lanes = block_lanes(t, q0);
        for (int c0 = 0; c0 < cols; c0 += kQkRows) {
            const int mr = std::min(kQkRows, cols - c0);
            kQk[mr - 1][lanes / kLanes - 1](k + static_cast<ptrdiff_t>(j0 + c0) * t.d, t.d, t.qt + q0, t.brp,
                                            t.st + static_cast<ptrdiff_t>(c0) * t.brp + q0, t.tmax + q0, false, false,
                                            j0 + c0, t.i0 + q0);
        }
    }
    apply_mod(t, j0, cols, false, mod, h);
}

void tile_max(const Tile& t, int cols) {
    std::fill(t.tmax, t.tmax + t.brp, -INFINITY);
    mask_and_max(t, 0, cols, false);
}

void bin_exp_max(const float* binmax, int brp, const float* lse, int r0, int r1, int b0, int count, float* out) {
    // Bins run along registers and queries along lanes: reduce the segment's vectors per bin, then one transpose turns
    // the 16 bins' lane-wise maxima into vectors whose lane-wise max holds each bin's max in its own lane.
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    __m512 acc[kLanes];
    for (int b = 0; b < kLanes; ++b) acc[b] = ninf;
    for (int k = r0 / kLanes; k * kLanes < r1; ++k) {
        const int o = k * kLanes;
        const __mmask16 in = avx512::first_lanes(r1 - o) & ~avx512::first_lanes(r0 - o);
        const __m512 l = _mm512_loadu_ps(lse + o);
#pragma GCC unroll 16
        for (int b = 0; b < kLanes; ++b)  // fixed trip count: acc stays in registers
            if (b < count) {
                const __m512 x = _mm512_sub_ps(_mm512_loadu_ps(binmax + static_cast<ptrdiff_t>(b0 + b) * brp + o), l);
                acc[b] = _mm512_mask_max_ps(acc[b], in, acc[b], x);
            }
    }
    avx512::transpose16(acc);
    __m512 x = acc[0];
    for (int b = 1; b < kLanes; ++b) x = _mm512_max_ps(x, acc[b]);
    _mm512_mask_storeu_ps(out, avx512::first_lanes(count), exp2_ps(_mm512_mul_ps(x, _mm512_set1_ps(kLog2e))));
}

namespace {

/// softmax, and with kBins bin_max's running maxima over each column bin in the same pass over Sᵀ (the scores are
/// in registers for the exp anyway: one vector max per key row per 16 queries, no extra load).
template <bool kBins>
void softmax_pass(const Tile& t, int j0, int cols, bool causal, int m, int sc, float* binmax) {
    const __m512 log2e = _mm512_set1_ps(kLog2e), ninf = _mm512_set1_ps(-INFINITY), zero = _mm512_setzero_ps();
    for (int q0 = 0; q0 < t.brp; q0 += kBlockLanes) {
        const int lanes = block_lanes(t, q0), lim = key_limit(t, j0, cols, causal, q0, lanes);
        const int nv = lanes / kLanes;
        __m512 shift[kBlockVectors], sum[kBlockVectors];
        for (int j = 0; j < nv; ++j) {
            const int o = q0 + j * kLanes;
            const __m512 m_old = _mm512_loadu_ps(t.m + o);
            const __m512 m_new = _mm512_max_ps(m_old, _mm512_loadu_ps(t.tmax + o));
            // A query with nothing allowed yet keeps shift 0 so exp(−inf − 0) = 0, not NaN; nothing accumulated
            // yet (m_old = −inf) rescales by 0.
            shift[j] = _mm512_mul_ps(_mm512_mask_mov_ps(m_new, _mm512_cmp_ps_mask(m_new, ninf, _CMP_EQ_OQ), zero),
                                     log2e);
            const __m512 rescale = exp2_ps(_mm512_mul_ps(_mm512_sub_ps(m_old, m_new), log2e));
            _mm512_storeu_ps(t.tmax + o,
                             _mm512_mask_mov_ps(rescale, _mm512_cmp_ps_mask(m_old, ninf, _CMP_EQ_OQ), zero));
            _mm512_storeu_ps(t.m + o, m_new);
            sum[j] = zero;
        }
        if constexpr (kBins) {
            for (int64_t b = pool_bin_of(j0, m, sc), c0 = 0; c0 < lim; ++b) {
                const int64_t c1 = std::min<int64_t>(pool_bin_end(b, m, sc) - j0, lim);
                float* row = binmax + b * t.brp + q0;
                __m512 mx[kBlockVectors];
                for (int j = 0; j < nv; ++j) mx[j] = _mm512_loadu_ps(row + j * kLanes);
                for (int64_t c = c0; c < c1; ++c) {
                    float* s = t.st + c * t.brp + q0;
                    for (int j = 0; j < nv; ++j) {
                        const __m512 x = _mm512_loadu_ps(s + j * kLanes);
                        mx[j] = _mm512_max_ps(mx[j], x);
                        const __m512 p = exp2_ps(_mm512_fmsub_ps(x, log2e, shift[j]));
                        sum[j] = _mm512_add_ps(sum[j], p);
                        _mm512_storeu_ps(s + j * kLanes, p);
                    }
                }
                for (int j = 0; j < nv; ++j) _mm512_storeu_ps(row + j * kLanes, mx[j]);
                c0 = c1;
            }
        } else {
            for (int c = 0; c < lim; ++c) {
                float* s = t.st + static_cast<ptrdiff_t>(c) * t.brp + q0;
                for (int j = 0; j < nv; ++j) {
                    const __m512 p = exp2_ps(_mm512_fmsub_ps(_mm512_loadu_ps(s + j * kLanes), log2e, shift[j]));
                    sum[j] = _mm512_add_ps(sum[j], p);
                    _mm512_storeu_ps(s + j * kLanes, p);
                }
            }
        }
        for (int j = 0; j < nv; ++j) {
            const int o = q0 + j * kLanes;
            _mm512_storeu_ps(t.l + o, _mm512_fmadd_ps(_mm512_loadu_ps(t.l + o), _mm512_loadu_ps(t.tmax + o), sum[j]));
        }
    }
}

}  // namespace

void softmax(const Tile& t, int j0, int cols, bool causal) { softmax_pass<false>(t, j0, cols, causal, 0, 0, nullptr); }

void softmax_bin_max(const Tile& t, int j0, int cols, bool causal, int m, int sc, float* binmax) {
    const int64_t first = pool_bin_of(j0, m, sc);
    if (pool_bin_end(first, m, sc) < j0 + cols) {
        softmax_pass<true>(t, j0, cols, causal, m, sc, binmax);
        return;
    }
    // The whole key tile lies in one bin (m/sc ≥ Bc, e.g. 64 keys a bin at n = 65536, s = 1024): its max per query is
    // the tile max that scores left in tmax, which softmax then overwrites.
    float* row = binmax + first * t.brp;
    for (int q = 0; q < t.brp; q += kLanes)
        _mm512_storeu_ps(row + q, _mm512_max_ps(_mm512_loadu_ps(row + q), _mm512_loadu_ps(t.tmax + q)));
    softmax_pass<false>(t, j0, cols, causal, 0, 0, nullptr);
}

void accumulate(const Tile& t, const float* v, int j0, int cols, bool causal) {
    for (int q0 = 0; q0 < t.brp; q0 += kBlockLanes) {
        const int lanes = block_lanes(t, q0), lim = key_limit(t, j0, cols, causal, q0, lanes);
        const int nv = lanes / kLanes;
        for (int v0 = 0; v0 < t.dv; v0 += kPvRows) {
            const int mr = std::min(kPvRows, t.dv - v0);
            kPv[mr - 1][nv - 1](v + static_cast<ptrdiff_t>(j0) * t.dv + v0, t.dv, t.st + q0, t.brp, lim,
                                t.ot + static_cast<ptrdiff_t>(v0) * t.brp + q0, t.tmax + q0);
        }
    }
}

void finish(const Tile& t, float* o, float* lse) {
    // O rows by 16×16 blocks of Oᵀ, transposed in registers and scaled by each row's 1/l.
    const __m512 zero = _mm512_setzero_ps();
    for (int r0 = 0; r0 < t.rows; r0 += kLanes) {
        const int rows = std::min(kLanes, t.rows - r0);
        alignas(64) float inv[kLanes];
        for (int i = 0; i < rows; ++i) {
            const OnlineSoftmaxRow row{t.m[r0 + i], t.l[r0 + i]};
            inv[i] = online_softmax_inv_sum(row);
            if (lse) lse[t.i0 + r0 + i] = online_softmax_lse(row);
        }
        for (int x0 = 0; x0 < t.dv; x0 += kLanes) {
            const int cols = std::min(kLanes, t.dv - x0);
            __m512 block[kLanes];
            for (int j = 0; j < kLanes; ++j)
                block[j] = j < cols ? _mm512_loadu_ps(t.ot + static_cast<ptrdiff_t>(x0 + j) * t.brp + r0) : zero;
            avx512::transpose16(block);
            for (int i = 0; i < rows; ++i)
                _mm512_mask_storeu_ps(o + static_cast<ptrdiff_t>(t.i0 + r0 + i) * t.dv + x0, avx512::first_lanes(cols),
                                      _mm512_mul_ps(block[i], _mm512_set1_ps(inv[i])));
        }
    }
}

}  // namespace attnscope::flash_tile

#endif  // __AVX512F__ && __AVX512DQ__
