// attnscope — the CPU flash kernel's tile phases in the build's vector ISA (see cpu_flash_tile.h for the layout).
// Why hand-written: the tile products are small (64–256 queries × 64–256 keys × d ≤ 128) and run n/Bc times per
// query tile; Eigen's GEMM packs both operands on every call and reached ~50% of the machine's SGEMM rate, and
// per-tile cblas_sgemm packs as well. Here nothing is packed but Qᵀ (once per query tile): K and V rows are read
// by scalar broadcast, which the load ports absorb while the two FMA ports stay busy. The register blocks are the
// ISA's (simd::kTileBlockVectors × kTileQkRows / kTilePvRows): 4 × 6 vectors of 16 lanes on AVX-512, 2 × 6 of 8 on AVX2.
#include "core/backend/cpu/simd/vec.h"  // first: it includes <immintrin.h> (see there)

#include "core/backend/cpu/cpu_flash_tile.h"

#if ATTNSCOPE_SIMD

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "core/tensor.h"
#include "core/backend/shared/online_softmax.h"
#include "core/backend/interface/pooling.h"

namespace attnscope::flash_tile {

namespace {

using simd::kLog2e;
using simd::Vec;
constexpr int kBlockVectors = simd::kTileBlockVectors;  // query vectors per register block
constexpr int kBlockLanes = kBlockVectors * kLanes;
constexpr int kQkRows = simd::kTileQkRows;               // keys per Sᵀ register block
constexpr int kPvRows = simd::kTilePvRows;               // value columns per Oᵀ register block
static_assert(kLanes == simd::kLanes);

/// Keys of the key tile [j0, j0 + cols) that any query of the block [q0, q0 + lanes) of tile t may see.
inline int key_limit(const Tile& t, int j0, int cols, bool causal, int q0, int lanes) {
    if (!causal) return cols;
    return std::clamp(t.i0 + q0 + lanes - j0, 0, cols);
}

/// Lanes of the query block starting at q0 (a whole number of vectors, ≤ kBlockLanes).
inline int block_lanes(const Tile& t, int q0) { return std::min(kBlockLanes, t.brp - q0); }

/// Sets lanes whose query (query0 + lane) precedes `key` to −inf.
inline Vec mask_future(Vec s, int key, int query0) {
    return simd::select(simd::lanes_below(key, query0), simd::set1(-INFINITY), s);
}

/// Sᵀ block: MR keys (rows of k, stride d) × NV query vectors of qt (stride brp) → st (stride brp). With `fuse`,
/// applies the causal mask (when `mask`) and folds the block into tmax; without, stores the raw scores.
template <int MR, int NV>
void qk_block(const float* k, int d, const float* qt, int brp, float* st, float* tmax, bool fuse, bool mask, int key0,
              int query0) {
    Vec acc[MR][NV];
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) acc[i][j] = simd::zero();
    for (int x = 0; x < d; ++x) {
        Vec b[NV];
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) b[j] = simd::load(qt + static_cast<ptrdiff_t>(x) * brp + j * kLanes);
#pragma GCC unroll 16
        for (int i = 0; i < MR; ++i) {
            const Vec a = simd::set1(k[static_cast<ptrdiff_t>(i) * d + x]);
#pragma GCC unroll 4
            for (int j = 0; j < NV; ++j) acc[i][j] = simd::fmadd(a, b[j], acc[i][j]);
        }
    }
    Vec mx[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) mx[j] = simd::load(tmax + j * kLanes);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) {
            Vec s = acc[i][j];
            if (fuse) {
                if (mask) s = mask_future(s, key0 + i, query0 + j * kLanes);
                mx[j] = simd::max(mx[j], s);
            }
            simd::store(st + static_cast<ptrdiff_t>(i) * brp + j * kLanes, s);
        }
    if (fuse)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) simd::store(tmax + j * kLanes, mx[j]);
}

/// Oᵀ block: MR value columns × NV query vectors; ot = rescale·ot + Σ_c v[c][0:MR]ᵀ·pt[c] over `cols` keys
/// (v: rows of stride dv; pt, ot: stride brp).
template <int MR, int NV>
void pv_block(const float* v, int dv, const float* pt, int brp, int cols, float* ot, const float* rescale) {
    Vec acc[MR][NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
        const Vec r = simd::load(rescale + j * kLanes);
#pragma GCC unroll 16
        for (int i = 0; i < MR; ++i)
            acc[i][j] = simd::mul(r, simd::load(ot + static_cast<ptrdiff_t>(i) * brp + j * kLanes));
    }
    for (int c = 0; c < cols; ++c) {
        Vec p[NV];
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) p[j] = simd::load(pt + static_cast<ptrdiff_t>(c) * brp + j * kLanes);
#pragma GCC unroll 16
        for (int i = 0; i < MR; ++i) {
            const Vec a = simd::set1(v[static_cast<ptrdiff_t>(c) * dv + i]);
#pragma GCC unroll 4
            for (int j = 0; j < NV; ++j) acc[i][j] = simd::fmadd(a, p[j], acc[i][j]);
        }
    }
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int j = 0; j < NV; ++j) simd::store(ot + static_cast<ptrdiff_t>(i) * brp + j * kLanes, acc[i][j]);
}

using QkFn = void (*)(const float*, int, const float*, int, float*, float*, bool, bool, int, int);
using PvFn = void (*)(const float*, int, const float*, int, int, float*, const float*);

/// Tables of every block shape (rows 1…kQkRows or kPvRows, vectors 1…kBlockVectors): edges of a tile use the smaller
/// shapes.
template <int MR, int... V>
constexpr std::array<QkFn, kBlockVectors> qk_shapes(std::integer_sequence<int, V...>) {
    return {&qk_block<MR, V + 1>...};
}
template <int MR, int... V>
constexpr std::array<PvFn, kBlockVectors> pv_shapes(std::integer_sequence<int, V...>) {
    return {&pv_block<MR, V + 1>...};
}
template <int... R>
constexpr std::array<std::array<QkFn, kBlockVectors>, sizeof...(R)> qk_table(std::integer_sequence<int, R...>) {
    return {qk_shapes<R + 1>(std::make_integer_sequence<int, kBlockVectors>{})...};
}
template <int... R>
constexpr std::array<std::array<PvFn, kBlockVectors>, sizeof...(R)> pv_table(std::integer_sequence<int, R...>) {
    return {pv_shapes<R + 1>(std::make_integer_sequence<int, kBlockVectors>{})...};
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
            Vec mx = simd::load(t.tmax + q0 + j);
            for (int c = 0; c < lim; ++c) {
                float* s = t.st + static_cast<ptrdiff_t>(c) * t.brp + q0 + j;
                Vec x = simd::load(s);
                if (causal) x = mask_future(x, j0 + c, t.i0 + q0 + j);
                mx = simd::max(mx, x);
                simd::store(s, x);
            }
            simd::store(t.tmax + q0 + j, mx);
        }
    }
}

}  // namespace

FlushSubnormals::FlushSubnormals() : m_saved(_mm_getcsr()) { _mm_setcsr(m_saved | 0x8040u); }

FlushSubnormals::~FlushSubnormals() { _mm_setcsr(m_saved); }

void begin(const Tile& t, const float* q, float scale) {
    // Qᵀ by kLanes × kLanes blocks: kLanes query rows (zero past t.rows, so padding lanes hold zero queries), transposed
    // in registers.
    const Vec s = simd::set1(scale), zero = simd::zero();
    for (int r0 = 0; r0 < t.brp; r0 += kLanes) {
        const int rows = std::clamp(t.rows - r0, 0, kLanes);
        for (int x0 = 0; x0 < t.d; x0 += kLanes) {
            Vec block[kLanes];
            for (int i = 0; i < kLanes; ++i)
                block[i] = i < rows ? simd::mul(s, simd::load_first(q + static_cast<ptrdiff_t>(t.i0 + r0 + i) * t.d + x0,
                                                                    t.d - x0))
                                    : zero;
            simd::transpose(block);
            for (int j = 0; j < std::min(kLanes, t.d - x0); ++j)
                simd::store(t.qt + static_cast<ptrdiff_t>(x0 + j) * t.brp + r0, block[j]);
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
    // the kLanes bins' lane-wise maxima into vectors whose lane-wise max holds each bin's max in its own lane.
    const Vec ninf = simd::set1(-INFINITY);
    Vec acc[kLanes];
    for (int b = 0; b < kLanes; ++b) acc[b] = ninf;
    for (int k = r0 / kLanes; k * kLanes < r1; ++k) {
        const int o = k * kLanes;
        const simd::Mask in = simd::lanes_between(r0 - o, r1 - o);
        const Vec l = simd::load(lse + o);
#pragma GCC unroll 16
        for (int b = 0; b < kLanes; ++b)  // fixed trip count: acc stays in registers
            if (b < count) {
                const Vec x = simd::sub(simd::load(binmax + static_cast<ptrdiff_t>(b0 + b) * brp + o), l);
                acc[b] = simd::select(in, simd::max(acc[b], x), acc[b]);
            }
    }
    simd::transpose(acc);
    Vec x = acc[0];
    for (int b = 1; b < kLanes; ++b) x = simd::max(x, acc[b]);
    simd::store_first(out, simd::exp2(simd::mul(x, simd::set1(kLog2e))), count);
}

namespace {

/// softmax_pass on the NV query vectors of the block at q0, over its first `lim` keys. NV is a compile-time count so
/// each vector's shift, sum and bin max stay in registers: with a run-time count they lived on the stack and every
/// key row waited on a store and a reload per vector, which halved the exp phase's speed at AVX2's two vectors a block.
template <bool kBins, int NV>
void softmax_block(const Tile& t, int q0, int lim, int j0, int m, int sc, float* binmax) {
    const Vec log2e = simd::set1(kLog2e), ninf = simd::set1(-INFINITY), zero = simd::zero();
    Vec shift[NV], sum[NV];
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
        const int o = q0 + j * kLanes;
        const Vec m_old = simd::load(t.m + o);
        const Vec m_new = simd::max(m_old, simd::load(t.tmax + o));
        // A query with nothing allowed yet keeps shift 0 so exp(−inf − 0) = 0, not NaN; nothing accumulated
        // yet (m_old = −inf) rescales by 0.
        shift[j] = simd::mul(simd::select(simd::equal(m_new, ninf), zero, m_new), log2e);
        const Vec rescale = simd::exp2(simd::mul(simd::sub(m_old, m_new), log2e));
        simd::store(t.tmax + o, simd::select(simd::equal(m_old, ninf), zero, rescale));
        simd::store(t.m + o, m_new);
        sum[j] = zero;
    }
    if constexpr (kBins) {
        for (int64_t b = pool_bin_of(j0, m, sc), c0 = 0; c0 < lim; ++b) {
            const int64_t c1 = std::min<int64_t>(pool_bin_end(b, m, sc) - j0, lim);
            float* row = binmax + b * t.brp + q0;
            Vec mx[NV];
#pragma GCC unroll 4
            for (int j = 0; j < NV; ++j) mx[j] = simd::load(row + j * kLanes);
            for (int64_t c = c0; c < c1; ++c) {
                float* s = t.st + c * t.brp + q0;
#pragma GCC unroll 4
                for (int j = 0; j < NV; ++j) {
                    const Vec x = simd::load(s + j * kLanes);
                    mx[j] = simd::max(mx[j], x);
                    const Vec p = simd::exp2(simd::fmsub(x, log2e, shift[j]));
                    sum[j] = simd::add(sum[j], p);
                    simd::store(s + j * kLanes, p);
                }
            }
#pragma GCC unroll 4
            for (int j = 0; j < NV; ++j) simd::store(row + j * kLanes, mx[j]);
            c0 = c1;
        }
    } else {
        // The tile's fields in locals: GCC otherwise reloads them after every store through s.
        float* const st = t.st + q0;
        const ptrdiff_t brp = t.brp;
        for (int c = 0; c < lim; ++c) {
            float* s = st + c * brp;
#pragma GCC unroll 4
            for (int j = 0; j < NV; ++j) {
                const Vec p = simd::exp2(simd::fmsub(simd::load(s + j * kLanes), log2e, shift[j]));
                sum[j] = simd::add(sum[j], p);
                simd::store(s + j * kLanes, p);
            }
        }
    }
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) {
        const int o = q0 + j * kLanes;
        simd::store(t.l + o, simd::fmadd(simd::load(t.l + o), simd::load(t.tmax + o), sum[j]));
    }
}

using SoftmaxFn = void (*)(const Tile&, int, int, int, int, int, float*);

/// softmax_block for every vector count 1…kBlockVectors (a tile's last block may be narrower).
template <bool kBins, int... V>
constexpr std::array<SoftmaxFn, kBlockVectors> softmax_shapes(std::integer_sequence<int, V...>) {
    return {&softmax_block<kBins, V + 1>...};
}

/// softmax, and with kBins bin_max's running maxima over each column bin in the same pass over Sᵀ (the scores are
/// in registers for the exp anyway: one vector max per key row per kLanes queries, no extra load).
template <bool kBins>
void softmax_pass(const Tile& t, int j0, int cols, bool causal, int m, int sc, float* binmax) {
    static constexpr auto kShapes = softmax_shapes<kBins>(std::make_integer_sequence<int, kBlockVectors>{});
    for (int q0 = 0; q0 < t.brp; q0 += kBlockLanes) {
        const int lanes = block_lanes(t, q0), lim = key_limit(t, j0, cols, causal, q0, lanes);
        kShapes[lanes / kLanes - 1](t, q0, lim, j0, m, sc, binmax);
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
        simd::store(row + q, simd::max(simd::load(row + q), simd::load(t.tmax + q)));
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
    // O rows by kLanes × kLanes blocks of Oᵀ, transposed in registers and scaled by each row's 1/l.
    const Vec zero = simd::zero();
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
            Vec block[kLanes];
            for (int j = 0; j < kLanes; ++j)
                block[j] = j < cols ? simd::load(t.ot + static_cast<ptrdiff_t>(x0 + j) * t.brp + r0) : zero;
            simd::transpose(block);
            for (int i = 0; i < rows; ++i)
                simd::store_first(o + static_cast<ptrdiff_t>(t.i0 + r0 + i) * t.dv + x0,
                                  simd::mul(block[i], simd::set1(inv[i])), cols);
        }
    }
}

}  // namespace attnscope::flash_tile

#else
// No vector ISA: nothing here is defined, flash_tile::kAvailable is false and no caller reaches these functions.
#endif  // ATTNSCOPE_SIMD
