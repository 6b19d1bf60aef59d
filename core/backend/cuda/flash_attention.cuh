// attnscope — the tiled online-softmax attention kernel (FlashAttention-2 style, fp32 on CUDA cores).
// Included by dense_attention.cu (the backend) and by core/backend/cuda/dev/flash_attention.cu (the tuning harness),
// so both run the very same kernel.
//
// Work split: one thread block per (query tile of kBr = 64 rows, head). The block stages its Q tile once in
// shared memory (pre-scaled by s), then walks the key tiles of BC columns: K and V tiles are loaded into
// shared memory by all threads, each warp computes its own 16 × BC score slab from shared memory into
// registers, updates the running max / sum of its rows with the shared online-softmax functions
// (core/backend/shared/online_softmax.h, the same ones the CPU tiles call), writes the probabilities of its slab
// to a warp-private part of shared memory and accumulates P·V into registers. Only Q, the current K/V tile
// and the probability slab are ever in shared memory, so extra memory is O(n) (O and the lse).
//
// The lane layout and the tile steps are attention_tile.cuh's (shared with the wide, block-sparse and LSH
// kernels); the block body below serves both this kernel and the sliced wide kernel (flash_attention_wide.cuh).
//
// Head dims: the kernel is compiled for D ∈ {32, 64, 128} ≥ max(d, dv); Q, K, V are zero-padded to D in
// shared memory (zero columns add nothing to q·k and produce output columns that are not written).
// Shared-memory rows are padded by one float so the column reads of the score loop hit distinct banks.
#pragma once
#include <cmath>
#include <string>

#include "core/backend/cuda/attention_tile.cuh"

namespace attnscope::cuda {

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
    ScoreMod mod;    // applied to every logit before masking
};

/// The work of one dense block: O columns [c0, c0 + D) and (c0 = 0) the lse of query tile blockIdx.x (last first
/// when causal) of head blockIdx.y. Unsliced, sQ is staged once and d, dv ≤ D; sliced, any d (feature slices).
template <int D, int BC, bool kSliced>
__device__ __forceinline__ void flash_attention_block(const FlashParams& p, int c0) {
    static_assert(D % kFlashRowLanes == 0 && BC % kFlashRowLanes == 0, "tiles must split over 8 lanes");
    constexpr int kCols = BC / kFlashRowLanes;  // score columns per lane
    extern __shared__ float smem[];
    // sQ, sK: the query tile and the key tile (feature slices when sliced); sV: value columns [c0, c0 + D).
    const TileSmem sm = tile_smem<D, BC>(smem);

    // Causal: the last query tiles have the most key tiles; schedule them first.
    const int tile = p.causal ? int(gridDim.x) - 1 - int(blockIdx.x) : int(blockIdx.x);
    const int h = blockIdx.y;
    const int i0 = tile * kFlashBr;
    const int rows = min(kFlashBr, p.n - i0);
    const TileLane ln = tile_lane();

    const float* Qh = p.Q + int64_t(h) * p.n * p.d;
    const float* Kh = p.K + int64_t(h) * p.m * p.d;
    const float* Vh = p.V + int64_t(h) * p.m * p.dv;
    const auto query_of = [&](int r) { return r < rows ? i0 + r : -1; };

    // Stage Q·s, zero beyond the tile's rows and beyond d (consecutive threads read consecutive features).
    if (!kSliced) stage_tile<D, kFlashBr>(sm.sQ, Qh, p.d, 0, p.d, p.scale, query_of);
    TileRows<D> t;
    t.init();

    // Causal: key tiles starting after the tile's last query are entirely masked and never visited.
    const int key_end = p.causal ? min(p.m, i0 + rows) : p.m;
    for (int j0 = 0; j0 < key_end; j0 += BC) {
        const int cols = min(BC, key_end - j0);
        const auto key_of = [&](int c) { return c < cols ? j0 + c : -1; };
        __syncthreads();  // every warp is done with the previous K/V tile (and, first time, sQ is written)
        stage_tile<D, BC>(sm.sV, Vh, p.dv, c0, p.dv, 1.0f, key_of);
        float s[kFlashLaneRows][kCols];
        tile_score_slices<D, BC, kSliced>(sm.sQ, sm.sK, Qh, Kh, p.d, p.scale, query_of, key_of, ln, s);

        // Mask padding columns and, on diagonal tiles, keys after the query; then the online softmax.
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i) {
            const int query = i0 + ln.row0 + i;
#pragma unroll
            for (int j = 0; j < kCols; ++j) {
                const int c = ln.cg + j * kFlashRowLanes;
                if (c >= cols || (p.causal && j0 + c > query)) s[i][j] = kMaskedScore;
                else s[i][j] = apply_score_mod(p.mod, h, query, j0 + c, s[i][j]);
            }
        }
        tile_fold<D, BC>(s, t, sm, ln);  // padded columns have P = 0 and V = 0
        // The next tile's __syncthreads() orders these sP/sV reads before they are overwritten.
    }

    // Normalise and write the lane's rows (rows past n and columns past dv are padding).
    tile_write<D>(t, p.O, p.lse, p.dv, c0, ln.cg, [&](int i) -> int64_t {
        const int r = ln.row0 + i;
        return r < rows ? int64_t(h) * p.n + i0 + r : -1;
    });
}

/// One block computes O and lse for kBr query rows of one head (blockIdx.x = query tile, blockIdx.y = head).
template <int D, int BC>
__global__ void __launch_bounds__(kFlashThreads) flash_attention_kernel(FlashParams p) {
    flash_attention_block<D, BC, false>(p, 0);
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

/// A launch of a flash-family kernel: H heads on `stream`, device pointers in the params.
using FlashLaunch = void (*)(cudaStream_t stream, const FlashParams& p, int H);

/// The host side of a flash-family run: checks device memory (the message names `what`), uploads Q, K, V,
/// calls `launch` on the context's stream and downloads O and, when lse is given, lse (shapes as
/// flash_attention in cuda_primitives.h).
void run_flash_from_host(Context& ctx, const AttentionShape& s, const float* Q, const float* K, const float* V,
                         float* O, float* lse, const std::string& what, FlashLaunch launch);

/// Launches the flash kernel for H heads on `stream` (device pointers), any head dim (above kMaxFlashHeadDim the
/// wide kernel of flash_attention_wide.cuh); throws Error when the launch fails.
void launch_flash_attention(cudaStream_t stream, const FlashParams& p, int H);

}  // namespace attnscope::cuda
