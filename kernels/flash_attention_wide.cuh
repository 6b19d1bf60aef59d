// attnscope — the flash kernel for head dims above kMaxFlashHeadDim (128): the sliced scheme of
// attention_tile.cuh applied to dense attention. For every key tile the scores are accumulated over feature
// slices of D = 128 (Q and K slices re-staged in shared memory), and the value columns are split over
// blockIdx.z in slices of D, each block recomputing the scores of its slice. Same online softmax, causal tile
// skipping and masking as flash_attention.cuh; lse written by the slice-0 blocks. Included by
// flash_attention_wide.cu and by the CPU emulation tests (tests/emu).
#pragma once
#include "attention_tile.cuh"

namespace attnscope::cuda {

/// One block: query tile blockIdx.x (last first when causal) of head blockIdx.y, output columns
/// [D·blockIdx.z, D·blockIdx.z + D); any d and dv (the dense FlashParams).
template <int D, int BC>
__global__ void __launch_bounds__(kFlashThreads) flash_attention_wide_kernel(FlashParams p) {
    static_assert(D % kFlashRowLanes == 0 && BC % kFlashRowLanes == 0, "tiles must split over 8 lanes");
    constexpr int kStride = D + 1, kPStride = BC + 1, kCols = BC / kFlashRowLanes;
    extern __shared__ float smem[];
    float* sQ = smem;                     // (kBr, D)  feature slice of s·Q
    float* sK = sQ + kFlashBr * kStride;  // (BC, D)   feature slice of the key tile
    float* sV = sK + BC * kStride;        // (BC, D)   value columns [c0, c0 + D) of the tile
    float* sP = sV + BC * kStride;        // (kBr, BC) probabilities, each warp its own 16 rows

    const int tile = p.causal ? int(gridDim.x) - 1 - int(blockIdx.x) : int(blockIdx.x);
    const int h = blockIdx.y, c0 = int(blockIdx.z) * D;
    const int i0 = tile * kFlashBr, rows = min(kFlashBr, p.n - i0);
    const TileLane ln = tile_lane();
    const float* Qh = p.Q + int64_t(h) * p.n * p.d;
    const float* Kh = p.K + int64_t(h) * p.m * p.d;
    const float* Vh = p.V + int64_t(h) * p.m * p.dv;
    const auto query_of = [&](int r) { return r < rows ? i0 + r : -1; };

    TileRows<D> t;
    t.init();
    const int key_end = p.causal ? min(p.m, i0 + rows) : p.m;
    for (int j0 = 0; j0 < key_end; j0 += BC) {
        const int cols = min(BC, key_end - j0);
        const auto key_of = [&](int c) { return c < cols ? j0 + c : -1; };
        __syncthreads();  // every warp is done with the previous tile
        stage_tile<D, BC>(sV, Vh, p.dv, c0, p.dv, 1.0f, key_of);
        float s[kFlashLaneRows][kCols];
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i)
#pragma unroll
            for (int j = 0; j < kCols; ++j) s[i][j] = 0.0f;
        for (int f0 = 0; f0 < p.d; f0 += D) {
            if (f0 > 0) __syncthreads();  // every warp is done reading the previous feature slice
            stage_tile<D, kFlashBr>(sQ, Qh, p.d, f0, p.d, p.scale, query_of);
            stage_tile<D, BC>(sK, Kh, p.d, f0, p.d, 1.0f, key_of);
            __syncthreads();
            tile_scores<D, BC>(sQ, sK, ln, s);
        }
        // Padding columns and, on diagonal tiles, keys after the query.
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i) {
            const int query = i0 + ln.row0 + i;
#pragma unroll
            for (int j = 0; j < kCols; ++j) {
                const int c = ln.cg + j * kFlashRowLanes;
                if (c >= cols || (p.causal && j0 + c > query)) s[i][j] = kMaskedScore;
            }
        }
        float* sPw = sP + ln.row0 * kPStride;
        tile_online_softmax<D, BC>(s, t, sPw, ln.cg);
        __syncwarp();  // the warp's probability slab is complete before any lane reads a whole row of it
        tile_accumulate<D, BC>(sPw, sV, t, ln.cg);
    }
    tile_write<D>(t, p.O, p.lse, p.dv, c0, ln.cg, [&](int i) -> int64_t {
        const int r = ln.row0 + i;
        return r < rows ? int64_t(h) * p.n + i0 + r : -1;
    });
}

/// Launches the wide flash kernel (D = 128, BC = 32, ⌈dv/128⌉ output slices) for H heads on `stream`; throws
/// Error when the launch fails or the grid would be too large.
void launch_flash_attention_wide(cudaStream_t stream, const FlashParams& p, int H);

}  // namespace attnscope::cuda
