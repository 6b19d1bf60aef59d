// attnscope — one query sub-tile against keys gathered tile by tile: the loop the block-sparse kernels
// (block_sparse_attention.cuh by query block, block_sparse_gather.cuh by key block) and the vertical-slash kernel
// (vertical_slash_attention.cuh) share. Each kernel walks its own list of key segments (stored blocks, merged key
// ranges, one key block) and packs them back to back into key tiles of BC columns, so its work follows the keys it
// keeps rather than a grid of whole blocks; its queries may be gathered too (query_of), and a per-cell predicate
// masks the rest. The tile steps are attention_tile.cuh's.
#pragma once
#include "core/backend/cuda/attention_tile.cuh"

namespace attnscope::cuda {

/// Packs key segments [k, end) — segment k holds length(k) consecutive tile columns — from column cb of segment k
/// back to back into one tile of BC columns: the thread whose id is tile column c calls put(c, k, offset inside
/// segment k). Advances k and cb past what it packed and returns the columns filled. Every thread walks the same
/// cursor (a few integer steps per tile), so every thread returns the same count.
template <int BC, class Length, class Put>
__device__ __forceinline__ int pack_key_segments(int& k, int end, int& cb, Length length, Put put) {
    const int tid = threadIdx.x;
    int filled = 0;
    while (k < end && filled < BC) {
        const int extent = length(k), take = min(extent - cb, BC - filled);
        if (tid >= filled && tid < filled + take) put(tid, k, cb + (tid - filled));
        filled += take, cb += take;
        if (cb == extent) ++k, cb = 0;
    }
    return filled;
}

/// Folds into `t` every key tile that `fill_tile()` gathers for a query sub-tile of head h whose row r is query
/// position query_of(r) (−1: padding; its pre-scaled queries already in sm.sQ unless kSliced). All threads call it.
/// fill_tile() runs in every thread after a barrier: it writes this thread's share of the tile's key positions into
/// sKey (and any maps `allowed` reads) and returns the columns filled, the same count in every thread; 0 ends the walk.
/// allowed(r, c) says whether row r of the sub-tile may see column c (only asked for real rows and c < filled); allowed
/// cells get the score modifier with their real positions, the others score −inf and weigh exactly 0.
template <int D, int BC, bool kSliced, class QueryOf, class FillTile, class Allowed>
__device__ __forceinline__ void fold_gathered_keys(const TileSmem& sm, int* sKey, const float* Qh, const float* Kh,
                                                   const float* Vh, int d, int dv, int c0, float scale,
                                                   const ScoreMod& mod, int h, QueryOf query_of, const TileLane& ln,
                                                   FillTile fill_tile, Allowed allowed, TileRows<D>& t) {
    constexpr int kCols = BC / kFlashRowLanes;
    const auto key_of = [&](int c) { return sKey[c]; };
    for (;;) {
        __syncthreads();  // every warp is done with the previous tile's sQ, sK, sV, sP and maps
        const int filled = fill_tile();
        if (filled == 0) return;
        if (ln.tid >= filled && ln.tid < BC) sKey[ln.tid] = -1;  // padding columns stage zeros
        __syncthreads();
        stage_tile<D, BC>(sm.sV, Vh, dv, c0, dv, 1.0f, key_of);

        float s[kFlashLaneRows][kCols];
        // Its last __syncthreads also publishes the tile's key maps.
        tile_score_slices<D, BC, kSliced>(sm.sQ, sm.sK, Qh, Kh, d, scale, query_of, key_of, ln, s);
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i) {
            const int r = ln.row0 + i, query = query_of(r);
#pragma unroll
            for (int j = 0; j < kCols; ++j) {
                const int c = ln.cg + j * kFlashRowLanes;
                if (query >= 0 && c < filled && allowed(r, c)) s[i][j] = apply_score_mod(mod, h, query, sKey[c], s[i][j]);
                else s[i][j] = kMaskedScore;
            }
        }
        tile_fold<D, BC>(s, t, sm, ln);
    }
}

}  // namespace attnscope::cuda
