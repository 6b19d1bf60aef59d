// attnscope — block-sparse attention kernel over the BSR layout of core/backend/interface/block_layout.h (the
// layout and indexing functions the CPU primitive uses). Included by block_sparse_attention.cu (the backend)
// and by the CPU emulation tests (tests/emu), so both run the very same kernel.
//
// Work split: one thread block per (query block I, head h), or per work item of block_sparse_split.cuh (a part of
// row I's stored blocks) where a few rows are much longer than the rest. The block walks query sub-tiles of kFlashBr rows
// inside block I (one sub-tile when b ≤ 64) and, for each, only the key blocks the layout stores for row I:
// their columns are packed back to back into key tiles of BC columns (a b = 1 layout fills a tile with 64
// scattered keys; a b = 256 block spans four tiles), so the work is proportional to the stored blocks. Each
// key tile carries a column map in shared memory (key position, stored-block index, column inside the
// block) through which K and V rows are gathered into shared memory and the in-block mask bits are read
// with layout_cell_allowed. Scores, the online softmax (core/backend/shared/online_softmax.h) and P·V follow
// the flash kernel's lane layout (flash_attention.cuh: lane = 8·rg + cg owns 4 rows and every 8th column).
// Forbidden cells score −inf and weigh exactly 0; a row with no allowed cell ends with O = 0, lse = −inf.
// The loop over key tiles is gathered_keys.cuh's, the tile steps attention_tile.cuh's; head dims above 128 run the
// sliced instantiation (kSliced: feature slices for the scores, value columns over blockIdx.z).
#pragma once
#include <cmath>

#include "core/backend/interface/block_layout.h"
#include "core/backend/cuda/gathered_keys.cuh"

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
    ScoreMod mod;           // applied to every logit before the layout's mask
    // Work items (block_sparse_split.cuh); item_row == nullptr: one item per query block (blockIdx.x = I), written to
    // O and lse. Else item x = blockIdx.x is query block item_row[x], stored blocks [item_part[x]·part_blocks,
    // +part_blocks) of its row, written to O and lse when item_slot[x] < 0, else to partial slot item_slot[x].
    const int* item_row = nullptr;
    const int* item_part = nullptr;
    const int* item_slot = nullptr;
    int item_count = 0;             // work items (the grid's x extent)
    int part_blocks = 0;
    int heads = 0;                  // H, the partial slots' head stride
    float* O_partial = nullptr;     // (slots, H, b, dv): a part's O, normalised by its own sum
    float* lse_partial = nullptr;   // (slots, H, b): a part's lse (−inf when it allows nothing)
};

/// Shared-memory floats of one block: the flash tiles plus the key tile's column map (3 ints per column).
constexpr int block_sparse_smem_floats(int D, int BC) { return flash_smem_floats(D, BC) + 3 * BC; }

/// One block computes O and lse for the rows of query block blockIdx.x of head blockIdx.y (output columns
/// [128·blockIdx.z, +128) when kSliced; attention_tile.cuh).
template <int D, int BC, bool kSliced>
__global__ void __launch_bounds__(kFlashThreads) block_sparse_attention_kernel(BlockSparseParams p) {
    static_assert(D % kFlashRowLanes == 0 && BC % kFlashRowLanes == 0, "tiles must split over 8 lanes");
    static_assert(BC <= kFlashThreads, "one thread writes each column of the key map");
    extern __shared__ float smem[];
    // sQ: the sub-tile's queries (a feature slice when sliced); sK, sV: the gathered keys and values of the tile.
    const TileSmem sm = tile_smem<D, BC>(smem);
    int* sKey = sm.end;                                            // (BC) key position, −1 past the tile
    int* sBlk = sKey + BC;                                         // (BC) stored-block index of the column
    int* sCol = sBlk + BC;                                         // (BC) column inside that block

    const BlockLayoutView& L = p.layout;
    const int item = blockIdx.x, h = blockIdx.y, c0 = kSliced ? int(blockIdx.z) * D : 0;
    const int I = p.item_row ? p.item_row[item] : item;
    const int n = L.n, b = L.block;
    const int block_rows = block_extent(n, b, I);
    int begin = layout_row_begin(L, h, I), end = layout_row_end(L, h, I);
    const int slot = p.item_row ? p.item_slot[item] : -1;
    if (p.item_row) {  // this item's part of the row (empty for a head whose row is shorter)
        begin = min(end, begin + p.item_part[item] * p.part_blocks);
        end = min(end, begin + p.part_blocks);
    }
    float* O_out = slot < 0 ? p.O : p.O_partial;
    float* lse_out = slot < 0 ? p.lse : p.lse_partial;
    const TileLane ln = tile_lane();

    const float* Qh = p.Q + int64_t(h) * n * p.d;
    const float* Kh = p.K + int64_t(h) * n * p.d;
    const float* Vh = p.V + int64_t(h) * n * p.dv;

    for (int r0 = 0; r0 < block_rows; r0 += kFlashBr) {
        const int i0 = I * b + r0, rows = min(kFlashBr, block_rows - r0);
        const auto query_of = [&](int r) { return r < rows ? i0 + r : -1; };
        if (!kSliced) {
            __syncthreads();  // the previous sub-tile is done with sQ
            stage_tile<D, kFlashBr>(sm.sQ, Qh, p.d, 0, p.d, p.scale, query_of);
        }
        TileRows<D> t;
        t.init();
        // Cursor over the stored blocks of row I (segments of their columns): block k, next column cb inside it.
        int k = begin, cb = 0;
        const auto fill_tile = [&] {
            return pack_key_segments<BC>(
                k, end, cb, [&](int s) { return block_extent(n, b, L.col_idx[s]); },
                [&](int c, int s, int col) { sKey[c] = L.col_idx[s] * b + col, sBlk[c] = s, sCol[c] = col; });
        };
        const auto allowed = [&](int r, int c) { return layout_cell_allowed(L, sBlk[c], r0 + r, sCol[c]); };
        fold_gathered_keys<D, BC, kSliced>(sm, sKey, Qh, Kh, Vh, p.d, p.dv, c0, p.scale, p.mod, h, query_of, ln,
                                           fill_tile, allowed, t);

        tile_write<D>(t, O_out, lse_out, p.dv, c0, ln.cg, [&](int i) -> int64_t {
            const int r = ln.row0 + i;
            if (r >= rows) return -1;
            return slot < 0 ? int64_t(h) * n + i0 + r : (int64_t(slot) * p.heads + h) * b + r0 + r;
        });
    }
}

/// Launches the block-sparse kernel for H heads on `stream` (device pointers, layout on the device), any head
/// dim (the sliced instantiation above kMaxFlashHeadDim); throws Error when the launch fails.
void launch_block_sparse_attention(cudaStream_t stream, const BlockSparseParams& p, int H);

}  // namespace attnscope::cuda
