// attnscope — block-sparse attention kernel over the BSR layout of core/primitives/block_layout.h (the
// layout and indexing functions the CPU primitive uses). Included by block_sparse_attention.cu (the backend)
// and by the CPU emulation tests (tests/emu), so both run the very same kernel.
//
// Work split: one thread block per (query block I, head h). The block walks query sub-tiles of kFlashBr rows
// inside block I (one sub-tile when b ≤ 64) and, for each, only the key blocks the layout stores for row I:
// their columns are packed back to back into key tiles of BC columns (a b = 1 layout fills a tile with 64
// scattered keys; a b = 256 block spans four tiles), so the work is proportional to the stored blocks. Each
// key tile carries a column map in shared memory (key position, stored-block index, column inside the
// block) through which K and V rows are gathered into shared memory and the in-block mask bits are read
// with layout_cell_allowed. Scores, the online softmax (core/primitives/online_softmax.h) and P·V follow
// the flash kernel's lane layout (flash_attention.cuh: lane = 8·rg + cg owns 4 rows and every 8th column).
// Forbidden cells score −inf and weigh exactly 0; a row with no allowed cell ends with O = 0, lse = −inf.
#pragma once
#include <cmath>

#include "core/primitives/block_layout.h"
#include "flash_attention.cuh"

namespace attnscope::cuda {

/// Arguments of one launch (device pointers; shapes as in BlockSparseAttentionArgs).
struct BlockSparseParams {
    const float* Q;         // (H, n, d)
    const float* K;         // (H, n, d)
    const float* V;         // (H, n, dv)
    float* O;               // (H, n, dv)
    float* lse;             // (H, n, 1) or nullptr
    BlockLayoutView layout; // arrays in device memory
    int d, dv;
    float scale;
};

/// Shared-memory floats of one block: the flash tiles plus the key tile's column map (3 ints per column).
constexpr int block_sparse_smem_floats(int D, int BC) { return flash_smem_floats(D, BC) + 3 * BC; }

/// One block computes O and lse for the rows of query block blockIdx.x of head blockIdx.y.
template <int D, int BC>
__global__ void __launch_bounds__(kFlashThreads) block_sparse_attention_kernel(BlockSparseParams p) {
    static_assert(D % kFlashRowLanes == 0 && BC % kFlashRowLanes == 0, "tiles must split over 8 lanes");
    static_assert(BC <= kFlashThreads, "one thread writes each column of the key map");
    constexpr int kStride = D + 1, kPStride = BC + 1;
    constexpr int kCols = BC / kFlashRowLanes, kOut = D / kFlashRowLanes;
    extern __shared__ float smem[];
    float* sQ = smem;                     // (kBr, D)  pre-scaled queries of the sub-tile
    float* sK = sQ + kFlashBr * kStride;  // (BC, D)   gathered keys of the tile
    float* sV = sK + BC * kStride;        // (BC, D)   gathered values (columns ≥ dv are 0)
    float* sP = sV + BC * kStride;        // (kBr, BC) probabilities, each warp its own 16 rows
    int* sKey = reinterpret_cast<int*>(sP + kFlashBr * kPStride);  // (BC) key position, −1 past the tile
    int* sBlk = sKey + BC;                                         // (BC) stored-block index of the column
    int* sCol = sBlk + BC;                                         // (BC) column inside that block

    const BlockLayoutView& L = p.layout;
    const int I = blockIdx.x, h = blockIdx.y;
    const int n = L.n, b = L.block;
    const int block_rows = block_extent(n, b, I);
    const int begin = layout_row_begin(L, h, I), end = layout_row_end(L, h, I);
    const int tid = threadIdx.x, warp = tid / kWarpSize, lane = tid % kWarpSize;
    const int rg = lane / kFlashRowLanes, cg = lane % kFlashRowLanes;
    const int row0 = warp * kFlashWarpRows + rg * kFlashLaneRows;

    const float* Qh = p.Q + int64_t(h) * n * p.d;
    const float* Kh = p.K + int64_t(h) * n * p.d;
    const float* Vh = p.V + int64_t(h) * n * p.dv;

    for (int r0 = 0; r0 < block_rows; r0 += kFlashBr) {
        const int i0 = I * b + r0, rows = min(kFlashBr, block_rows - r0);
        __syncthreads();  // the previous sub-tile is done with sQ
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

        // Cursor over the stored blocks of row I: block k, next column cb inside it. Every thread walks the
        // same cursor (a few integer steps per tile), and the thread whose id is a tile column writes its map.
        int k = begin, cb = 0;
        while (k < end) {
            __syncthreads();  // every warp is done with the previous tile's sK, sV, sP and map
            int filled = 0;
            while (k < end && filled < BC) {
                const int J = L.col_idx[k];
                const int take = min(block_extent(n, b, J) - cb, BC - filled);
                if (tid >= filled && tid < filled + take) {
                    sKey[tid] = J * b + cb + (tid - filled);
                    sBlk[tid] = k;
                    sCol[tid] = cb + (tid - filled);
                }
                filled += take, cb += take;
                if (cb == block_extent(n, b, J)) ++k, cb = 0;
            }
            if (tid >= filled && tid < BC) sKey[tid] = -1, sBlk[tid] = 0, sCol[tid] = 0;
            __syncthreads();
            for (int e = tid; e < BC * D; e += kFlashThreads) {
                const int c = e / D, f = e % D, key = sKey[c];
                sK[c * kStride + f] = (key >= 0 && f < p.d) ? Kh[int64_t(key) * p.d + f] : 0.0f;
                sV[c * kStride + f] = (key >= 0 && f < p.dv) ? Vh[int64_t(key) * p.dv + f] : 0.0f;
            }
            __syncthreads();

            float s[kFlashLaneRows][kCols];
#pragma unroll
            for (int i = 0; i < kFlashLaneRows; ++i)
#pragma unroll
                for (int j = 0; j < kCols; ++j) s[i][j] = 0.0f;
#pragma unroll 4
            for (int f = 0; f < D; ++f) {
                float q[kFlashLaneRows], kk[kCols];
#pragma unroll
                for (int i = 0; i < kFlashLaneRows; ++i) q[i] = sQ[(row0 + i) * kStride + f];
#pragma unroll
                for (int j = 0; j < kCols; ++j) kk[j] = sK[(cg + j * kFlashRowLanes) * kStride + f];
#pragma unroll
                for (int i = 0; i < kFlashLaneRows; ++i)
#pragma unroll
                    for (int j = 0; j < kCols; ++j) s[i][j] = fmaf(q[i], kk[j], s[i][j]);
            }

            float* sPw = sP + row0 * kPStride;
#pragma unroll
            for (int i = 0; i < kFlashLaneRows; ++i) {
                const int r = r0 + row0 + i;  // row inside query block I
                float block_max = -INFINITY;
#pragma unroll
                for (int j = 0; j < kCols; ++j) {
                    const int c = cg + j * kFlashRowLanes;
                    // Rows past the block and columns past the tile are padding; the rest obey the mask bits.
                    const bool allowed = r < block_rows && c < filled && layout_cell_allowed(L, sBlk[c], r, sCol[c]);
                    if (!allowed) s[i][j] = kMaskedScore;
                    block_max = fmaxf(block_max, s[i][j]);
                }
                block_max = group_max<kFlashRowLanes>(block_max);
                const float new_max = online_softmax_new_max(state[i], block_max);
                const float rescale = online_softmax_rescale(state[i].m, new_max);
                const float shift = new_max == -INFINITY ? 0.0f : new_max;  // exp(−inf − 0) = 0, not NaN
                float block_sum = 0.0f;
#pragma unroll
                for (int j = 0; j < kCols; ++j) {
                    const float prob = expf(s[i][j] - shift);  // exactly 0 for forbidden cells
                    block_sum += prob;
                    sPw[i * kPStride + cg + j * kFlashRowLanes] = prob;
                }
                block_sum = group_sum<kFlashRowLanes>(block_sum);
                online_softmax_update(state[i], new_max, block_sum);
#pragma unroll
                for (int c = 0; c < kOut; ++c) acc[i][c] *= rescale;
            }
            __syncwarp();  // the warp's probability slab is complete before any lane reads a whole row of it

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
        }

#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i) {
            const int r = row0 + i;
            if (r >= rows) continue;
            const int64_t out_row = int64_t(h) * n + i0 + r;
            const float inv = online_softmax_inv_sum(state[i]);
#pragma unroll
            for (int o = 0; o < kOut; ++o) {
                const int col = cg + o * kFlashRowLanes;
                if (col < p.dv) p.O[out_row * p.dv + col] = acc[i][o] * inv;
            }
            if (p.lse && cg == 0) p.lse[out_row] = online_softmax_lse(state[i]);
        }
    }
}

/// Launches the block-sparse kernel for H heads on `stream` (device pointers, layout on the device); throws
/// Error when max(d, dv) exceeds kMaxFlashHeadDim or the launch fails.
void launch_block_sparse_attention(cudaStream_t stream, const BlockSparseParams& p, int H);

}  // namespace attnscope::cuda
