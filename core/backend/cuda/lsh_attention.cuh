// attnscope — chunked LSH attention (Reformer) on CUDA: for every round, each chunk of c sorted queries attends
// to the keys of its own chunk and look_back previous chunks of the sorted keys (wrapping), with the causal
// mask, the self-mask and the duplicate discount of core/backend/interface/lsh_rules.h — the functions the CPU primitive
// (core/backend/cpu/cpu_lsh.cpp) calls — and writes O_r and L_r = log Σ exp(score) per position.
// Included by lsh_attention.cu (the backend) and by the CPU emulation tests (tests/emu); lsh_chunk_kernel is
// not a template, so include this header from one .cu of the library only.
//
// Work split: one thread block per (chunk t, head h, round r × output slice). Like the block-sparse kernel
// (same lane layout and tile steps, attention_tile.cuh), the block walks query sub-tiles of kFlashBr sorted
// slots inside the chunk and packs the attended key chunks' slots back to back into key tiles of BC columns.
// Shared memory holds, besides the flash tiles, the position of every query row and key column of the tile
// and, when R > 1, the chunk each of them falls in every round (from lsh_chunk_kernel), so the duplicate count
// of a cell — the rounds whose sets hold the pair — is R integer comparisons in shared memory.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/backend/cuda/attention_tile.cuh"
#include "core/backend/interface/lsh_rules.h"

namespace attnscope::cuda {

/// Threads per block of lsh_chunk_kernel.
constexpr int kLshChunkThreads = 256;

/// chunk[seg·n + perm[idx]] = (idx mod n) / c for idx = seg·n + slot: the chunk of every position in every
/// (round, head) segment (the inverse of the sorted order, coarsened to chunks).
__global__ void lsh_chunk_kernel(const int* perm, int64_t total, int n, int chunk_len, int* chunk) {  // (R, H, n)
    const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= total) return;
    const int64_t segment = idx / n;
    chunk[segment * n + perm[idx]] = int(idx % n) / chunk_len;
}

/// Arguments of one launch (device pointers; shapes as in LshAttentionArgs).
struct LshAttentionParams {
    const float* Q;       // (H, n, d)
    const float* K;       // (H, n, d)
    const float* V;       // (H, n, dv)
    const int* perm_q;    // (R, H, n) query position at each sorted slot
    const int* perm_k;    // (R, H, n) key position at each sorted slot
    const int* chunk_q;   // (R, H, n) chunk of each query position per round; read only when R > 1
    const int* chunk_k;   // (R, H, n) chunk of each key position per round; read only when R > 1
    float* O_rounds;      // (R, H·n, dv)
    float* lse_rounds;    // (R, H·n)
    int H, n, d, dv;
    int rounds, chunk_len, look_back;
    float scale;
    bool causal, self_mask;
};

/// Shared-memory floats (4-byte words) of one block: the flash tiles, the key positions of the tile, the
/// query positions of the sub-tile and, for R > 1, their chunks in every round.
constexpr int lsh_attention_smem_floats(int D, int BC, int rounds) {
    return flash_smem_floats(D, BC) + BC + kFlashBr + (rounds > 1 ? rounds * (kFlashBr + BC) : 0);
}

/// One block: chunk blockIdx.x of head blockIdx.y in round blockIdx.z / slices (output slice blockIdx.z mod
/// slices when kSliced, see attention_tile.cuh).
template <int D, int BC, bool kSliced>
__global__ void __launch_bounds__(kFlashThreads) lsh_attention_kernel(LshAttentionParams p) {
    static_assert(D % kFlashRowLanes == 0 && BC % kFlashRowLanes == 0, "tiles must split over 8 lanes");
    static_assert(BC <= kFlashThreads && kFlashBr <= kFlashThreads, "one thread writes each map entry");
    constexpr int kCols = BC / kFlashRowLanes;
    extern __shared__ float smem[];
    // sQ: the sub-tile's queries (a feature slice when sliced); sK, sV: the gathered keys and values of the tile.
    const TileSmem sm = tile_smem<D, BC>(smem);
    int* sKey = sm.end;                                            // (BC) key position, −1 past the tile
    int* sQpos = sKey + BC;                                        // (kBr) query position, −1 past the chunk
    int* sQchunk = sQpos + kFlashBr;                               // (R, kBr) chunk of the query in round r2
    int* sKchunk = sQchunk + p.rounds * kFlashBr;                  // (R, BC) chunk of the key in round r2

    const int slices = attention_output_slices(kSliced, p.dv);
    const int t = blockIdx.x, h = blockIdx.y, r = int(blockIdx.z) / slices;
    const int c0 = kSliced ? (int(blockIdx.z) % slices) * D : 0;
    const int n = p.n, c = p.chunk_len, R = p.rounds;
    const int nc = lsh_num_chunks(n, c), attended = lsh_chunks_attended(p.look_back, nc);
    const int64_t base = (int64_t(r) * p.H + h) * n;
    const int* pq = p.perm_q + base;
    const int* pk = p.perm_k + base;
    const int q_begin = t * c, q_rows = min(c, n - q_begin);
    const TileLane ln = tile_lane();
    const int tid = ln.tid;

    const float* Qh = p.Q + int64_t(h) * n * p.d;
    const float* Kh = p.K + int64_t(h) * n * p.d;
    const float* Vh = p.V + int64_t(h) * n * p.dv;
    const auto key_of = [&](int col) { return sKey[col]; };
    const auto query_of = [&](int row) { return sQpos[row]; };

    for (int r0 = 0; r0 < q_rows; r0 += kFlashBr) {
        const int rows = min(kFlashBr, q_rows - r0);
        __syncthreads();  // the previous sub-tile is done with sQ and the query maps
        if (tid < kFlashBr) {
            const int pos = tid < rows ? pq[q_begin + r0 + tid] : -1;
            sQpos[tid] = pos;
            if (R > 1)
                for (int r2 = 0; r2 < R; ++r2)
                    sQchunk[r2 * kFlashBr + tid] = pos >= 0 ? p.chunk_q[(int64_t(r2) * p.H + h) * n + pos] : 0;
        }
        __syncthreads();
        if (!kSliced) stage_tile<D, kFlashBr>(sm.sQ, Qh, p.d, 0, p.d, p.scale, query_of);
        TileRows<D> tr;
        tr.init();

        // Cursor over the attended chunks: the b-th (lsh_key_chunk, the CPU's order), next slot cb inside it.
        int b = 0, cb = 0;
        while (b < attended) {
            __syncthreads();  // every warp is done with the previous tile's sQ, sK, sV, sP and key maps
            int filled = 0;
            while (b < attended && filled < BC) {
                const int kc = lsh_key_chunk(t, b, nc);
                const int extent = min(c, n - kc * c);
                const int take = min(extent - cb, BC - filled);
                if (tid >= filled && tid < filled + take) sKey[tid] = pk[kc * c + cb + (tid - filled)];
                filled += take, cb += take;
                if (cb == extent) ++b, cb = 0;
            }
            if (tid >= filled && tid < BC) sKey[tid] = -1;
            __syncthreads();
            if (R > 1)
                for (int e = tid; e < R * BC; e += kFlashThreads) {
                    const int r2 = e / BC, key = sKey[e % BC];
                    sKchunk[e] = key >= 0 ? p.chunk_k[(int64_t(r2) * p.H + h) * n + key] : 0;
                }
            stage_tile<D, BC>(sm.sV, Vh, p.dv, c0, p.dv, 1.0f, key_of);

            float s[kFlashLaneRows][kCols];
            // Its last __syncthreads also publishes the tile's key maps (and sKchunk).
            tile_score_slices<D, BC, kSliced>(sm.sQ, sm.sK, Qh, Kh, p.d, p.scale, query_of, key_of, ln, s);

            // Per-cell rules of lsh.h: padding and (causal) future keys are not allowed; the self pair scores
            // kLshSelfScore under the self-mask; pairs met in several rounds lose log(count).
#pragma unroll
            for (int i = 0; i < kFlashLaneRows; ++i) {
                const int row = ln.row0 + i, qpos = sQpos[row];
#pragma unroll
                for (int j = 0; j < kCols; ++j) {
                    const int col = ln.cg + j * kFlashRowLanes, key = sKey[col];
                    if (qpos < 0 || key < 0 || (p.causal && key > qpos)) {
                        s[i][j] = kMaskedScore;
                        continue;
                    }
                    float discount = 0.0f;
                    if (R > 1) {
                        int count = 0;
                        for (int r2 = 0; r2 < R; ++r2)
                            count += lsh_chunk_attends(sQchunk[r2 * kFlashBr + row], sKchunk[r2 * BC + col],
                                                       p.look_back, nc) ? 1 : 0;
                        discount = lsh_duplicate_discount(count);
                    }
                    s[i][j] = lsh_cell_score(s[i][j], p.self_mask && key == qpos, discount);
                }
            }
            tile_fold<D, BC>(s, tr, sm, ln);
        }

        // Rows go back to their positions: row h·n + position of round r.
        tile_write<D>(tr, p.O_rounds + int64_t(r) * p.H * n * p.dv, p.lse_rounds + int64_t(r) * p.H * n, p.dv, c0,
                      ln.cg, [&](int i) -> int64_t {
                          const int qpos = sQpos[ln.row0 + i];
                          return qpos >= 0 ? int64_t(h) * n + qpos : -1;
                      });
    }
}

/// Launches the LSH attention kernel on `stream` (device pointers; chunk maps filled when R > 1); throws
/// Error when the grid would be too large or the launch fails.
void launch_lsh_attention(cudaStream_t stream, const LshAttentionParams& p);

/// Launches lsh_combine_kernel on `stream` over device pointers: O (rows, dv) = the rounds' O_r combined by their
/// L_r, lse (rows) when not nullptr. Defined in lsh.cu, beside the kernel.
void launch_lsh_combine(cudaStream_t stream, const float* O_rounds, const float* lse_rounds, int R, int64_t rows, int dv,
                        float* O, float* lse);

}  // namespace attnscope::cuda
