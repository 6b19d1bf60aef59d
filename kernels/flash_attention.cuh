// attnscope — the tiled online-softmax attention kernel (FlashAttention-2 style, fp32 on CUDA cores).
// Included by dense_attention.cu (the backend) and by kernels/dev/flash_attention.cu (the tuning harness),
// so both run the very same kernel.
//
// Work split: one thread block per (query tile of kBr = 64 rows, head). The block stages its Q tile once in
// shared memory (pre-scaled by s), then walks the key tiles of BC columns: K and V tiles are loaded into
// shared memory by all threads, each warp computes its own 16 × BC score slab from shared memory into
// registers, updates the running max / sum of its rows with the shared online-softmax functions
// (core/primitives/online_softmax.h, the same ones the CPU tiles call), writes the probabilities of its slab
// to a warp-private part of shared memory and accumulates P·V into registers. Only Q, the current K/V tile
// and the probability slab are ever in shared memory, so extra memory is O(n) (O and the lse).
//
// Thread layout inside a warp (lane = 8·rg + cg): the lane owns rows 4·rg .. 4·rg+3 of the warp's 16 rows,
// score columns cg, cg+8, ... of the key tile and output columns cg, cg+8, ... of O. The 8 lanes with the
// same rg hold a full row between them, so row max and row sum are 3 xor-shuffles (group_max/group_sum<8>).
//
// Head dims: the kernel is compiled for D ∈ {32, 64, 128} ≥ max(d, dv); Q, K, V are zero-padded to D in
// shared memory (zero columns add nothing to q·k and produce output columns that are not written).
// Shared-memory rows are padded by one float so the column reads of the score loop hit distinct banks.
#pragma once
#include <cmath>

#include "common.cuh"
#include "core/primitives/online_softmax.h"
#include "device_util.cuh"

namespace attnscope::cuda {

/// Query rows per block (4 warps × 16 rows).
constexpr int kFlashBr = 64;
/// Threads per block.
constexpr int kFlashThreads = 128;
/// Query rows owned by one warp, and by one lane.
constexpr int kFlashWarpRows = 16, kFlashLaneRows = 4;
/// Lanes sharing one row (score and output columns are dealt out round-robin among them).
constexpr int kFlashRowLanes = 8;

/// Arguments of one launch (device pointers; shapes as in DenseAttentionArgs).
struct FlashParams {
    const float* Q;  // (H, n, d)
    const float* K;  // (H, m, d)
    const float* V;  // (H, m, dv)
    float* O;        // (H, n, dv)
    float* lse;      // (H, n, 1) or nullptr
    int n, m, d, dv;
    float scale;
    bool causal;
};

/// Shared-memory floats of one block for head-dim bucket D and key tile BC.
constexpr int flash_smem_floats(int D, int BC) {
    return kFlashBr * (D + 1) + BC * (D + 1) + BC * (D + 1) + kFlashBr * (BC + 1);
}

/// One block computes O and lse for kBr query rows of one head (blockIdx.x = query tile, blockIdx.y = head).
template <int D, int BC>
__global__ void __launch_bounds__(kFlashThreads) flash_attention_kernel(FlashParams p) {
    static_assert(D % kFlashRowLanes == 0 && BC % kFlashRowLanes == 0, "tiles must split over 8 lanes");
    constexpr int kStride = D + 1;       // row stride of sQ, sK, sV (floats)
    constexpr int kPStride = BC + 1;     // row stride of sP
    constexpr int kCols = BC / kFlashRowLanes;  // score columns per lane
    constexpr int kOut = D / kFlashRowLanes;    // output columns per lane
    extern __shared__ float smem[];
    float* sQ = smem;                    // (kBr, D)  pre-scaled queries of this tile
    float* sK = sQ + kFlashBr * kStride; // (BC, D)   current key tile
    float* sV = sK + BC * kStride;       // (BC, D)   current value tile (columns ≥ dv are 0)
    float* sP = sV + BC * kStride;       // (kBr, BC) probabilities, each warp its own 16 rows

    // Causal: the last query tiles have the most key tiles; schedule them first.
    const int tile = p.causal ? int(gridDim.x) - 1 - int(blockIdx.x) : int(blockIdx.x);
    const int h = blockIdx.y;
    const int i0 = tile * kFlashBr;
    const int rows = min(kFlashBr, p.n - i0);
    const int tid = threadIdx.x, warp = tid / kWarpSize, lane = tid % kWarpSize;
    const int rg = lane / kFlashRowLanes, cg = lane % kFlashRowLanes;
    const int row0 = warp * kFlashWarpRows + rg * kFlashLaneRows;  // first local row owned by this lane

    const float* Qh = p.Q + int64_t(h) * p.n * p.d;
    const float* Kh = p.K + int64_t(h) * p.m * p.d;
    const float* Vh = p.V + int64_t(h) * p.m * p.dv;

    // Stage Q·s, zero beyond the tile's rows and beyond d (consecutive threads read consecutive features).
    for (int e = tid; e < kFlashBr * D; e += kFlashThreads) {
        const int r = e / D, k = e % D;
        sQ[r * kStride + k] = (r < rows && k < p.d) ? p.scale * Qh[int64_t(i0 + r) * p.d + k] : 0.0f;
    }

    OnlineSoftmaxRow state[kFlashLaneRows];
    float acc[kFlashLaneRows][kOut];
#pragma unroll
    for (int i = 0; i < kFlashLaneRows; ++i) {
        state[i] = online_softmax_init();
#pragma unroll
        for (int c = 0; c < kOut; ++c) acc[i][c] = 0.0f;
    }

    // Causal: key tiles starting after the tile's last query are entirely masked and never visited.
    const int key_end = p.causal ? min(p.m, i0 + rows) : p.m;
    for (int j0 = 0; j0 < key_end; j0 += BC) {
        const int cols = min(BC, key_end - j0);
        __syncthreads();  // every warp is done with the previous K/V tile (and, first time, sQ is written)
        for (int e = tid; e < BC * D; e += kFlashThreads) {
            const int c = e / D, k = e % D;
            const bool in = c < cols;
            sK[c * kStride + k] = (in && k < p.d) ? Kh[int64_t(j0 + c) * p.d + k] : 0.0f;
            sV[c * kStride + k] = (in && k < p.dv) ? Vh[int64_t(j0 + c) * p.dv + k] : 0.0f;
        }
        __syncthreads();

        // S = (s·Q) Kᵀ for this lane's 4 rows × kCols columns.
        float s[kFlashLaneRows][kCols];
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i)
#pragma unroll
            for (int j = 0; j < kCols; ++j) s[i][j] = 0.0f;
#pragma unroll 4
        for (int k = 0; k < D; ++k) {
            float q[kFlashLaneRows], kk[kCols];
#pragma unroll
            for (int i = 0; i < kFlashLaneRows; ++i) q[i] = sQ[(row0 + i) * kStride + k];
#pragma unroll
            for (int j = 0; j < kCols; ++j) kk[j] = sK[(cg + j * kFlashRowLanes) * kStride + k];
#pragma unroll
            for (int i = 0; i < kFlashLaneRows; ++i)
#pragma unroll
                for (int j = 0; j < kCols; ++j) s[i][j] = fmaf(q[i], kk[j], s[i][j]);
        }

        // Mask padding columns and, on diagonal tiles, keys after the query; then the online softmax.
        float* sPw = sP + row0 * kPStride;
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i) {
            const int query = i0 + row0 + i;
            float block_max = -INFINITY;
#pragma unroll
            for (int j = 0; j < kCols; ++j) {
                const int c = cg + j * kFlashRowLanes;
                if (c >= cols || (p.causal && j0 + c > query)) s[i][j] = kMaskedScore;
                block_max = fmaxf(block_max, s[i][j]);
            }
            block_max = group_max<kFlashRowLanes>(block_max);
            const float new_max = online_softmax_new_max(state[i], block_max);
            const float rescale = online_softmax_rescale(state[i].m, new_max);
            // A row with nothing allowed yet keeps shift 0 so exp(−inf − 0) = 0, not NaN (as on the CPU).
            const float shift = new_max == -INFINITY ? 0.0f : new_max;
            float block_sum = 0.0f;
#pragma unroll
            for (int j = 0; j < kCols; ++j) {
                const float prob = expf(s[i][j] - shift);  // exactly 0 for masked cells
                block_sum += prob;
                sPw[i * kPStride + cg + j * kFlashRowLanes] = prob;
            }
            block_sum = group_sum<kFlashRowLanes>(block_sum);
            online_softmax_update(state[i], new_max, block_sum);
#pragma unroll
            for (int c = 0; c < kOut; ++c) acc[i][c] *= rescale;
        }
        __syncwarp();  // the warp's probability slab is complete before any lane reads a whole row of it

        // acc += P·V over the tile (padded columns have P = 0 and V = 0).
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
                for (int o = 0; o < kOut; ++o) acc[i][o] = fmaf(prob[i], v[o], acc[i][o]);
        }
        // The next tile's __syncthreads() orders these sP/sV reads before they are overwritten.
    }

    // Normalise and write the lane's rows (rows past n and columns past dv are padding).
#pragma unroll
    for (int i = 0; i < kFlashLaneRows; ++i) {
        const int r = row0 + i;
        if (r >= rows) continue;
        const int64_t out_row = int64_t(h) * p.n + i0 + r;
        const float inv = online_softmax_inv_sum(state[i]);
#pragma unroll
        for (int o = 0; o < kOut; ++o) {
            const int col = cg + o * kFlashRowLanes;
            if (col < p.dv) p.O[out_row * p.dv + col] = acc[i][o] * inv;
        }
        if (p.lse && cg == 0) p.lse[out_row] = online_softmax_lse(state[i]);
    }
}

/// Calls f.template operator()<D, BC>() for the kernel instantiation serving head dim `dim` = max(d, dv);
/// returns false when dim exceeds kMaxFlashHeadDim. The one place that maps head dims to instantiations.
template <class F>
bool with_flash_bucket(int dim, F&& f) {
    if (dim <= 32) f.template operator()<32, 64>();
    else if (dim <= 64) f.template operator()<64, 64>();
    // Bc = 32 keeps the D = 128 block under the 99 KiB of shared memory that sm_86/sm_89 allow.
    else if (dim <= kMaxFlashHeadDim) f.template operator()<kMaxFlashHeadDim, 32>();
    else return false;
    return true;
}

/// Launches the flash kernel for H heads on `stream` (device pointers), any head dim (above kMaxFlashHeadDim the
/// wide kernel of flash_attention_wide.cuh); throws Error when the launch fails.
void launch_flash_attention(cudaStream_t stream, const FlashParams& p, int H);

}  // namespace attnscope::cuda
