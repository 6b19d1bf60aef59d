// attnscope — the CPU flash (tiled online-softmax) kernel's phases on one query tile, in the build's vector ISA
// (core/backend/cpu/simd/vec.h: AVX-512 or AVX2 + FMA).
// The tile is kept TRANSPOSED: queries run along the vector lanes (Qᵀ, Sᵀ/Pᵀ and Oᵀ rows hold one value per query),
// so every per-query reduction of the softmax (max, sum, rescale) is a lane-wise vector op with no horizontal
// shuffles, and both products read K and V rows straight from the inputs by scalar broadcast (no packing):
//   Sᵀ(keys × queries) = K·(scale·Qᵀ)   register-blocked FMA micro-kernel, broadcast K[j][x], vectors of Qᵀ[x]
//   Pᵀ = exp2((Sᵀ − m)·log2 e)          one pass: max fused into the Sᵀ store, sum fused into the exp
//   Oᵀ(dv × queries) = rescale·Oᵀ + Vᵀ·Pᵀ   register-blocked FMA micro-kernel, broadcast V[j][v], vectors of Pᵀ[j]
// cpu_dense_attention.cpp drives the phases; bench/flash_paired profiles them one by one. Without a vector ISA the
// functions are not defined (kAvailable is false) and the dense attention keeps its Eigen path.
#pragma once
#include "core/cpu_isa.h"
#include "core/backend/interface/score_mod.h"

namespace attnscope::flash_tile {

/// True when this build has the vector tile kernel (compile-time: the build's -march decides).
constexpr bool kAvailable = kSimdKernels;

/// Float lanes per vector; scratch rows are padded to a whole number of them.
constexpr int kLanes = kSimdLanes;

/// `rows` query rows rounded up to whole vectors: the stride of every transposed scratch row.
constexpr int padded_rows(int rows) { return (rows + kLanes - 1) / kLanes * kLanes; }

/// One query tile's transposed working set: views into per-thread scratch (none owned), every row of stride brp.
struct Tile {
    int i0 = 0;             // first query of the tile
    int rows = 0;           // queries in the tile (≤ brp)
    int brp = 0;            // padded_rows(rows): lanes per scratch row (padding lanes hold zero queries)
    int d = 0, dv = 0;      // key and value widths
    float* qt = nullptr;    // (d, brp)  scale·Qᵀ
    float* st = nullptr;    // (Bc, brp) scores Sᵀ of the current key tile, overwritten by Pᵀ
    float* ot = nullptr;    // (dv, brp) unnormalised output Oᵀ
    float* m = nullptr;     // (brp) running max per query
    float* l = nullptr;     // (brp) running Σ exp(s − m) per query
    float* tmax = nullptr;  // (brp) the key tile's max per query, then the factor rescaling what came before
    float* sum = nullptr;   // (brp) scratch: the key tile's Σ exp per query
};

/// While alive, this thread's SSE/AVX arithmetic flushes subnormal results and reads subnormal inputs as zero
/// (MXCSR FTZ and DAZ; the previous MXCSR is restored on destruction). Hold one around the phases: weights below
/// 2^−126 of the row maximum (ALiBi's far keys, peaked rows) otherwise cost a microcode assist in every FMA that
/// touches them (docs/PERFORMANCE.reasons.md), while they weigh < 1e−38 of the row's largest.
class FlushSubnormals {
public:
    FlushSubnormals();
    ~FlushSubnormals();
    FlushSubnormals(const FlushSubnormals&) = delete;
    FlushSubnormals& operator=(const FlushSubnormals&) = delete;

private:
    unsigned m_saved;  // MXCSR before
};

/// Starts tile t: qt = scale·Q[i0 : i0+rows]ᵀ (padding lanes 0), ot = 0, m = −inf, l = 0. q is one head (n, d).
void begin(const Tile& t, const float* q, float scale);

/// Scores key tile [j0, j0 + cols) of k (one head, rows of width d) into t.st and the tile's per-query max into
/// t.tmax. Causal: key j > query i is −inf, and cells above the diagonal of a whole register block of queries are not
/// computed (every later phase skips them the same way). A non-None mod is applied before the mask (h: head).
void scores(const Tile& t, const float* k, int j0, int cols, bool causal, const ScoreMod& mod, int h);

/// As scores without the causal mask and the max, for a caller whose mask is not causal (block-sparse layouts): stores
/// the (modified) scores of key tile [j0, j0 + cols) in t.st. The caller sets its forbidden cells to −inf, then
/// calls tile_max.
void raw_scores(const Tile& t, const float* k, int j0, int cols, const ScoreMod& mod, int h);

/// t.tmax = each query's max over the first `cols` key columns of t.st (after raw_scores and the caller's mask).
void tile_max(const Tile& t, int cols);

/// For the `count` ≤ kLanes column bins [b0, b0 + count) of binmax (rows of brp floats, one lane per query, as
/// softmax_bin_max leaves them): out[k] = max over queries r ∈ [r0, r1) of exp(binmax[b0 + k][r] − lse[r]), 0 where
/// every such max is −inf. lse holds brp floats (lanes outside [r0, r1) are not read into the result).
void bin_exp_max(const float* binmax, int brp, const float* lse, int r0, int r1, int b0, int count, float* out);

/// Folds the key tile's max into the running max, turns t.st into Pᵀ = exp(s − m) in place, updates l and
/// leaves in t.tmax the factor exp(m_old − m_new) that rescales the accumulated output.
void softmax(const Tile& t, int j0, int cols, bool causal);

/// softmax, and in the same pass raises binmax (sc rows of brp floats: per column bin, one lane per query) to the max
/// of each query's scores over the keys of this tile in that bin, column bins splitting the m keys into sc (pooling.h).
void softmax_bin_max(const Tile& t, int j0, int cols, bool causal, int m, int sc, float* binmax);

/// ot = rescale·ot + Vᵀ·Pᵀ for key tile [j0, j0 + cols) of v (one head, rows of width dv).
void accumulate(const Tile& t, const float* v, int j0, int cols, bool causal);

/// Writes O[i0 + r] = ot[:, r] / l[r] into o (one head, (n, dv)) and, when lse is not null, lse[i0 + r] = m + log l
/// (rows that saw no key get 0 and −inf).
void finish(const Tile& t, float* o, float* lse);

}  // namespace attnscope::flash_tile
