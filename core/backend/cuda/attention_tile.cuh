// attnscope — the steps of a FlashAttention-style tile shared by every fp32 attention kernel (dense flash,
// wide flash, block-sparse, LSH): stage rows into shared memory, score a (kFlashBr × BC) tile, fold it into each
// row's online softmax (core/backend/shared/online_softmax.h, the functions the CPU tiles call), accumulate P·V and
// write the rows. Lane layout (lane = 8·rg + cg): the lane owns rows row0 .. row0 + 3 of its warp's 16, score
// columns cg, cg + 8, ... of the key tile and output columns cg, cg + 8, ...; the 8 lanes with the same rg hold a
// full row between them, so row max and row sum are 3 xor-shuffles (group_max/group_sum<8>).
//
// Head dims: a kernel instantiated for D covers max(d, dv) ≤ D with zero padding; above kMaxFlashHeadDim the
// sliced instantiation (kSliced = true, D = 128) walks the features in slices of D for the scores (Q and K
// slices re-staged per key tile) and serves D output columns per block, with blockIdx.z choosing the slice
// (attention_output_slices), so any head dim runs on the device at the price of recomputing the scores
// once per 128 output columns.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/backend/cuda/common.cuh"
#include "core/backend/shared/online_softmax.h"
#include "core/backend/cuda/device_util.cuh"

namespace attnscope::cuda {

/// Query rows per block (4 warps × 16 rows).
constexpr int kFlashBr = 64;
/// Threads per block.
constexpr int kFlashThreads = 128;
/// Query rows owned by one warp, and by one lane.
constexpr int kFlashWarpRows = 16, kFlashLaneRows = 4;
/// Lanes sharing one row (score and output columns are dealt out round-robin among them).
constexpr int kFlashRowLanes = 8;

/// Shared-memory floats of the tiles of one block for head-dim bucket D and key tile BC: sQ (kBr, D), sK and
/// sV (BC, D), rows padded to D + 1, and the probability slabs sP (kBr, BC + 1).
constexpr int flash_smem_floats(int D, int BC) {
    return kFlashBr * (D + 1) + BC * (D + 1) + BC * (D + 1) + kFlashBr * (BC + 1);
}

/// Where this thread sits in the tile (see the header comment).
struct TileLane {
    int tid, rg, cg, row0;  // thread id, row group, column group, first local row owned
};

/// This thread's place in the lane layout.
__device__ __forceinline__ TileLane tile_lane() {
    const int tid = threadIdx.x, warp = tid / kWarpSize, lane = tid % kWarpSize;
    const int rg = lane / kFlashRowLanes, cg = lane % kFlashRowLanes;
    return {tid, rg, cg, warp * kFlashWarpRows + rg * kFlashLaneRows};
}

/// The flash tiles at the start of a block's dynamic shared memory (flash_smem_floats(D, BC) floats): sQ
/// (kBr, D) the pre-scaled queries, sK and sV (BC, D) the key and value tile, all with row stride D + 1, and sP
/// (kBr, BC + 1) the probabilities, each warp its own 16 rows. A kernel's own maps start at `end`.
struct TileSmem {
    float *sQ, *sK, *sV, *sP;
    int* end;
};

/// Carves the flash tiles of bucket (D, BC) out of the block's dynamic shared memory `smem`.
template <int D, int BC>
__device__ __forceinline__ TileSmem tile_smem(float* smem) {
    float* sK = smem + kFlashBr * (D + 1);
    float* sV = sK + BC * (D + 1);
    float* sP = sV + BC * (D + 1);
    return {smem, sK, sV, sP, reinterpret_cast<int*>(sP + kFlashBr * (BC + 1))};
}

/// Running state of one lane's rows: the online softmax and the accumulator of D output columns.
template <int D>
struct TileRows {
    OnlineSoftmaxRow state[kFlashLaneRows];
    float acc[kFlashLaneRows][D / kFlashRowLanes];
    __device__ __forceinline__ void init() {
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i) {
            state[i] = online_softmax_init();
#pragma unroll
            for (int c = 0; c < D / kFlashRowLanes; ++c) acc[i][c] = 0.0f;
        }
    }
};

/// Stages ROWS × D floats into dst (row stride D + 1): dst[r][k] = scale·src[row_of(r)·ld + f0 + k] when
/// row_of(r) ≥ 0 and f0 + k < width, else 0. All threads of the block take part.
template <int D, int ROWS, class RowOf>
__device__ __forceinline__ void stage_tile(float* dst, const float* src, int ld, int f0, int width, float scale,
                                           RowOf row_of) {
    for (int e = threadIdx.x; e < ROWS * D; e += kFlashThreads) {
        const int r = e / D, k = e % D, row = row_of(r);
        dst[r * (D + 1) + k] = (row >= 0 && f0 + k < width) ? scale * src[int64_t(row) * ld + f0 + k] : 0.0f;
    }
}

/// s[i][j] += Σ_k sQ[row0 + i][k]·sK[cg + 8j][k] over the D staged features (both row stride D + 1).
template <int D, int BC>
__device__ __forceinline__ void tile_scores(const float* sQ, const float* sK, const TileLane& ln,
                                            float (&s)[kFlashLaneRows][BC / kFlashRowLanes]) {
    constexpr int kStride = D + 1, kCols = BC / kFlashRowLanes;
#pragma unroll 4
    for (int k = 0; k < D; ++k) {
        float q[kFlashLaneRows], kk[kCols];
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i) q[i] = sQ[(ln.row0 + i) * kStride + k];
#pragma unroll
        for (int j = 0; j < kCols; ++j) kk[j] = sK[(ln.cg + j * kFlashRowLanes) * kStride + k];
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i)
#pragma unroll
            for (int j = 0; j < kCols; ++j) s[i][j] = fmaf(q[i], kk[j], s[i][j]);
    }
}

/// Scores of one key tile: s = (s·Q)·Kᵀ for the lane's rows over all d features, K rows gathered through
/// key_of(c) (−1 = padding). Unsliced, sQ already holds the pre-scaled query tile and K is staged once; sliced,
/// Q (through query_of) and K are re-staged per feature slice of D. All threads of the block call it after a
/// __syncthreads that ends every read of sK (and of sQ when sliced); it ends with the scores in s, and its last
/// __syncthreads also publishes whatever the block wrote to shared memory before the call.
template <int D, int BC, bool kSliced, class QueryOf, class KeyOf>
__device__ __forceinline__ void tile_score_slices(float* sQ, float* sK, const float* Qh, const float* Kh, int d,
                                                  float scale, QueryOf query_of, KeyOf key_of, const TileLane& ln,
                                                  float (&s)[kFlashLaneRows][BC / kFlashRowLanes]) {
#pragma unroll
    for (int i = 0; i < kFlashLaneRows; ++i)
#pragma unroll
        for (int j = 0; j < BC / kFlashRowLanes; ++j) s[i][j] = 0.0f;
    const int d_end = kSliced ? d : 1;  // feature slices: one (the whole head dim) unless sliced
    for (int f0 = 0; f0 < d_end; f0 += D) {
        if (f0 > 0) __syncthreads();  // every warp is done reading the previous feature slice
        if (kSliced) stage_tile<D, kFlashBr>(sQ, Qh, d, f0, d, scale, query_of);
        stage_tile<D, BC>(sK, Kh, d, f0, d, 1.0f, key_of);
        __syncthreads();
        tile_scores<D, BC>(sQ, sK, ln, s);
    }
}

/// Folds a masked score tile (−inf = not allowed) into the rows: running max and sum, the probabilities into
/// the lane's rows of the warp slab sPw (row stride BC + 1), the accumulator rescaled. Every lane calls it.
template <int D, int BC>
__device__ __forceinline__ void tile_online_softmax(float (&s)[kFlashLaneRows][BC / kFlashRowLanes], TileRows<D>& t,
                                                    float* sPw, int cg) {
    constexpr int kCols = BC / kFlashRowLanes, kPStride = BC + 1;
#pragma unroll
    for (int i = 0; i < kFlashLaneRows; ++i) {
        float block_max = -INFINITY;
#pragma unroll
        for (int j = 0; j < kCols; ++j) block_max = fmaxf(block_max, s[i][j]);
        block_max = group_max<kFlashRowLanes>(block_max);
        const float new_max = online_softmax_new_max(t.state[i], block_max);
        const float rescale = online_softmax_rescale(t.state[i].m, new_max);
        const float shift = new_max == -INFINITY ? 0.0f : new_max;  // exp(−inf − 0) = 0, not NaN
        float block_sum = 0.0f;
#pragma unroll
        for (int j = 0; j < kCols; ++j) {
            const float prob = expf(s[i][j] - shift);  // exactly 0 for masked cells
            block_sum += prob;
            sPw[i * kPStride + cg + j * kFlashRowLanes] = prob;
        }
        block_sum = group_sum<kFlashRowLanes>(block_sum);
        online_softmax_update(t.state[i], new_max, block_sum);
#pragma unroll
        for (int c = 0; c < D / kFlashRowLanes; ++c) t.acc[i][c] *= rescale;
    }
}

/// acc += P·V over the BC columns of the tile (P from the warp slab, V staged with row stride D + 1).
template <int D, int BC>
__device__ __forceinline__ void tile_accumulate(const float* sPw, const float* sV, TileRows<D>& t, int cg) {
    constexpr int kStride = D + 1, kPStride = BC + 1, kOut = D / kFlashRowLanes;
#pragma unroll 4
    for (int c = 0; c < BC; ++c) {
        float prob[kFlashLaneRows], v[kOut];
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i) prob[i] = sPw[i * kPStride + c];
#pragma unroll
        for (int o = 0; o < kOut; ++o) v[o] = sV[c * kStride + cg + o * kFlashRowLanes];
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i)
#pragma unroll
            for (int o = 0; o < kOut; ++o) t.acc[i][o] = fmaf(prob[i], v[o], t.acc[i][o]);
    }
}

/// One masked score tile into the rows: tile_online_softmax into the lane's rows of sP, then (once the warp's
/// slab is complete) tile_accumulate of P·V. Every lane calls it.
template <int D, int BC>
__device__ __forceinline__ void tile_fold(float (&s)[kFlashLaneRows][BC / kFlashRowLanes], TileRows<D>& t,
                                          const TileSmem& sm, const TileLane& ln) {
    float* sPw = sm.sP + ln.row0 * (BC + 1);
    tile_online_softmax<D, BC>(s, t, sPw, ln.cg);
    __syncwarp();  // the warp's probability slab is complete before any lane reads a whole row of it
    tile_accumulate<D, BC>(sPw, sm.sV, t, ln.cg);
}

/// Writes the lane's rows: O[out_row(i)·dv + c0 + col] = acc / l for output columns c0 + col < dv, and
/// lse[out_row(i)] when lse is given and c0 = 0. out_row(i) < 0 skips row i (padding).
template <int D, class OutRow>
__device__ __forceinline__ void tile_write(const TileRows<D>& t, float* O, float* lse, int dv, int c0, int cg,
                                           OutRow out_row) {
#pragma unroll
    for (int i = 0; i < kFlashLaneRows; ++i) {
        const int64_t row = out_row(i);
        if (row < 0) continue;
        const float inv = online_softmax_inv_sum(t.state[i]);
#pragma unroll
        for (int o = 0; o < D / kFlashRowLanes; ++o) {
            const int col = c0 + cg + o * kFlashRowLanes;
            if (col < dv) O[row * dv + col] = t.acc[i][o] * inv;
        }
        if (lse && c0 == 0 && cg == 0) lse[row] = online_softmax_lse(t.state[i]);
    }
}

/// Blocks along blockIdx.z that share the output columns of a sliced launch (1 when not sliced).
__host__ __device__ constexpr int attention_output_slices(bool sliced, int dv) {
    return sliced && dv > kMaxFlashHeadDim ? (dv + kMaxFlashHeadDim - 1) / kMaxFlashHeadDim : 1;
}

/// Calls f.template operator()<D, BC, kSliced>() for the instantiation serving head dim `dim` = max(d, dv):
/// the flash buckets up to kMaxFlashHeadDim, the sliced D = 128 kernel above. Every head dim is served.
template <class F>
void with_attention_bucket(int dim, F&& f) {
    if (dim <= 32) f.template operator()<32, 64, false>();
    else if (dim <= 64) f.template operator()<64, 64, false>();
    else if (dim <= kMaxFlashHeadDim) f.template operator()<kMaxFlashHeadDim, 32, false>();
    else f.template operator()<kMaxFlashHeadDim, 32, true>();
}

}  // namespace attnscope::cuda
