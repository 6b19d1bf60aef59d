// attnscope — vertical-slash attention (MInference's kept key columns and diagonals) on CUDA. One thread block per
// (block of kFlashBr query rows, head) runs two passes into one online softmax:
//  - gathered keys (MInference's kernel layout): the kept columns and the diagonals that come in runs of neighbours,
//    as the merged key ranges core/backend/interface/vertical_slash_layout.h builds for the block, packed back to back
//    into key tiles by gathered_keys.cuh; cell (i, j) counts when j ≤ i and j is a kept column or i − j a run
//    diagonal. A column costs one key per row; a run of r diagonals kFlashBr − 1 + r keys per row;
//  - isolated diagonals, walked cell by cell: diagonal o gives row i its own key i − o, so there is no tile of keys to
//    share between rows; each lane scores and adds its cells from global memory (a cell whose key is a kept column
//    was counted in the first pass). An isolated diagonal costs one key per row, where a key range would cost 64.
// The split (split_diagonals, kVerticalSlashMinRun) decides which diagonal goes where; the block-sparse route it
// replaces paid a 16×16 block per line crossing and a 64-row tile per 16 rows.
// Included by vertical_slash_attention.cu and by the CPU emulation tests (tests/emu).
#pragma once
#include <cstdint>

#include "core/backend/cuda/gathered_keys.cuh"

namespace attnscope::cuda {

/// Shortest run of consecutive diagonals gathered as a key range: a run of r costs 63 + r keys per row from shared
/// tiles, walking it cell by cell r keys per row read from L2 each (several times a tile key's cost). Chosen by that
/// estimate, not yet by measurement.
constexpr int kVerticalSlashMinRun = 8;

/// Arguments of one launch (device pointers; shapes as in VerticalSlashAttentionArgs).
struct VerticalSlashParams {
    const float* Q;             // (H, n, d)
    const float* K;             // (H, n, d)
    const float* V;             // (H, n, dv)
    float* O;                   // (H, n, dv)
    float* lse;                 // (H, n, 1) or nullptr
    const int* range_ptr;       // (H · row_blocks + 1), blocks of kFlashBr rows (VerticalSlashRanges)
    const int* range_start;     // first key of each range
    const int* range_length;    // keys of each range
    const uint8_t* is_column;   // (H, n) 1 where key j is a kept column of head h
    const uint8_t* is_run;      // (H, n) 1 where o is a run diagonal of head h (gathered as key ranges)
    const int* isolated_ptr;    // (H + 1): head h's isolated diagonals are isolated[isolated_ptr[h] …]
    const int* isolated;        // ascending offsets per head
    int n, d, dv;
    float scale;
    ScoreMod mod;               // applied to every kept logit
};

/// Shared-memory floats of one block: the flash tiles plus the key tile's positions (or the diagonals' offsets).
constexpr int vertical_slash_smem_floats(int D, int BC) { return flash_smem_floats(D, BC) + BC; }

/// Folds head h's isolated diagonals into the rows of `t`, BC diagonals per tile (query rows i0 … i0 + rows − 1, output
/// columns [c0, c0 + D)). Cell (i, i − o) counts when i − o ≥ 0 and its key is not a kept column. All threads call it.
template <int D, int BC>
__device__ __forceinline__ void fold_isolated_diagonals(const TileSmem& sm, int* sOff, const VerticalSlashParams& p,
                                                        int h, int i0, int rows, int c0, const TileLane& ln,
                                                        TileRows<D>& t) {
    constexpr int kCols = BC / kFlashRowLanes, kOut = D / kFlashRowLanes, kPStride = BC + 1;
    const int n = p.n, last = i0 + rows - 1;
    const float* Qh = p.Q + int64_t(h) * n * p.d;
    const float* Kh = p.K + int64_t(h) * n * p.d;
    const float* Vh = p.V + int64_t(h) * n * p.dv;
    const uint8_t* column = p.is_column + int64_t(h) * n;
    // Only diagonals o ≤ the block's last row meet it: the first offset past it ends the walk (offsets ascend).
    int first = p.isolated_ptr[h], end = p.isolated_ptr[h + 1];
    for (int lo = first; lo < end;) {
        const int mid = (lo + end) / 2;
        if (p.isolated[mid] <= last) lo = mid + 1;
        else end = mid;
    }
    for (int k0 = first; k0 < end; k0 += BC) {
        __syncthreads();  // every warp is done with the previous tile's sP and offsets
        if (ln.tid < BC) sOff[ln.tid] = k0 + ln.tid < end ? p.isolated[k0 + ln.tid] : -1;
        __syncthreads();
        // The key of the lane's cell (r, c), or −1 when the cell does not count.
        const auto key_at = [&](int r, int c) {
            const int o = sOff[c], i = i0 + r, j = i - o;
            return (r < rows && o >= 0 && j >= 0 && column[j] == 0) ? j : -1;
        };
        float s[kFlashLaneRows][kCols];
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i) {
            const int r = ln.row0 + i;
#pragma unroll
            for (int jj = 0; jj < kCols; ++jj) {
                const int j = key_at(r, ln.cg + jj * kFlashRowLanes);
                if (j < 0) {
                    s[i][jj] = kMaskedScore;
                    continue;
                }
                const float* q = Qh + int64_t(i0 + r) * p.d;
                const float* k = Kh + int64_t(j) * p.d;
                float dot = 0.0f;
                for (int f = 0; f < p.d; ++f) dot = fmaf(q[f], k[f], dot);
                s[i][jj] = apply_score_mod(p.mod, h, i0 + r, j, p.scale * dot);
            }
        }
        float* sPw = sm.sP + ln.row0 * kPStride;
        tile_online_softmax<D, BC>(s, t, sPw, ln.cg);
        __syncwarp();  // the warp's probability slab is complete before any lane reads a whole row of it
        // P·V with each cell's own value row: the lane adds its output columns of every cell of its rows.
        for (int c = 0; c < BC; ++c) {
#pragma unroll
            for (int i = 0; i < kFlashLaneRows; ++i) {
                const int j = key_at(ln.row0 + i, c);
                if (j < 0) continue;
                const float prob = sPw[i * kPStride + c];
                const float* v = Vh + int64_t(j) * p.dv;
#pragma unroll
                for (int o = 0; o < kOut; ++o) {
                    const int col = c0 + ln.cg + o * kFlashRowLanes;
                    if (col < p.dv) t.acc[i][o] = fmaf(prob, v[col], t.acc[i][o]);
                }
            }
        }
    }
}

/// One block computes O and lse for query rows [kFlashBr·blockIdx.x, +kFlashBr) of head blockIdx.y (output columns
/// [128·blockIdx.z, +128) when kSliced; attention_tile.cuh).
template <int D, int BC, bool kSliced>
__global__ void __launch_bounds__(kFlashThreads) vertical_slash_attention_kernel(VerticalSlashParams p) {
    static_assert(D % kFlashRowLanes == 0 && BC % kFlashRowLanes == 0, "tiles must split over 8 lanes");
    static_assert(BC <= kFlashThreads, "one thread writes each column of the key map");
    extern __shared__ float smem[];
    const TileSmem sm = tile_smem<D, BC>(smem);
    int* sKey = sm.end;  // (BC) key position, −1 past the tile; then the isolated diagonals' offsets

    const int B = blockIdx.x, h = blockIdx.y, c0 = kSliced ? int(blockIdx.z) * D : 0;
    const int n = p.n, row_blocks = int(gridDim.x), i0 = B * kFlashBr, rows = min(kFlashBr, n - i0);
    const TileLane ln = tile_lane();
    const float* Qh = p.Q + int64_t(h) * n * p.d;
    const float* Kh = p.K + int64_t(h) * n * p.d;
    const float* Vh = p.V + int64_t(h) * n * p.dv;
    const uint8_t* column = p.is_column + int64_t(h) * n;
    const uint8_t* run = p.is_run + int64_t(h) * n;

    const auto query_of = [&](int r) { return r < rows ? i0 + r : -1; };
    if (!kSliced) stage_tile<D, kFlashBr>(sm.sQ, Qh, p.d, 0, p.d, p.scale, query_of);
    TileRows<D> t;
    t.init();
    int k = p.range_ptr[h * row_blocks + B], cb = 0;
    const int end = p.range_ptr[h * row_blocks + B + 1];
    const auto fill_tile = [&] {
        return pack_key_segments<BC>(k, end, cb, [&](int s) { return p.range_length[s]; },
                                     [&](int c, int s, int col) { sKey[c] = p.range_start[s] + col; });
    };
    // A cell on a kept column and a run diagonal is one cell: its key appears once in the merged ranges.
    const auto allowed = [&](int r, int c) {
        const int i = i0 + r, j = sKey[c];
        return j <= i && (column[j] != 0 || run[i - j] != 0);
    };
    fold_gathered_keys<D, BC, kSliced>(sm, sKey, Qh, Kh, Vh, p.d, p.dv, c0, p.scale, p.mod, h, query_of, ln, fill_tile,
                                       allowed, t);
    fold_isolated_diagonals<D, BC>(sm, sKey, p, h, i0, rows, c0, ln, t);
    tile_write<D>(t, p.O, p.lse, p.dv, c0, ln.cg, [&](int i) -> int64_t {
        const int r = ln.row0 + i;
        return r < rows ? int64_t(h) * n + i0 + r : -1;
    });
}

/// Launches the vertical-slash kernel for H heads on `stream` (device pointers; ranges for blocks of kFlashBr rows),
/// any head dim (the sliced instantiation above kMaxFlashHeadDim); throws Error when the launch fails.
void launch_vertical_slash_attention(cudaStream_t stream, const VerticalSlashParams& p, int H);

}  // namespace attnscope::cuda
