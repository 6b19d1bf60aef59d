// attnscope — the tensor-core variant of the flash kernel (precision = tf32): the same tiling and online softmax
// as flash_attention.cuh (64-row query tile per block of 4 warps, K/V tiles in shared memory, causal tiles
// skipped, core/backend/shared/online_softmax.h bookkeeping), with both products on tensor cores through WMMA
// (m16n16k8, TF32 inputs, fp32 accumulation): S = (s·Q)·Kᵀ and O += P·V. Inputs are rounded to TF32 (10-bit
// mantissa, round to nearest) when staged in shared memory; scores, the softmax statistics and O stay fp32,
// so the expected error is that of TF32 inputs (≈ 2⁻¹¹ relative per operand), not of a low-precision softmax.
// Included by flash_attention_tc.cu and by the CPU emulation tests (tests/emu/include/mma.h emulates WMMA,
// including the TF32 rounding, so the tolerance claim is checked on the host).
//
// Per warp: its 16 query rows of s·Q stay in registers as D/8 matrix_a fragments; the same 16 rows of shared
// memory then hold the warp's O accumulator (WMMA accumulator fragments cannot be rescaled per row, so O lives
// in shared memory between tiles: each lane rescales the elements it owns, then the warp loads, multiplies and
// stores it). The softmax step reads the scores back with the flash kernel's lane layout (lane = 8·rg + cg owns
// rows 4·rg .. 4·rg + 3 and every 8th column) and writes TF32 probabilities for the P·V product.
#pragma once
#include <mma.h>

#include <cstdint>

#include "core/backend/cuda/flash_attention.cuh"

namespace attnscope::cuda {

/// Row stride (floats) of the Q/O, K and V tiles for head-dim bucket D: a multiple of 4 (WMMA's ldm rule for
/// 32-bit elements) whose 16- and 8-row steps keep fragment pointers 32-byte aligned.
__host__ __device__ constexpr int tf32_stride(int D) { return D + 4; }

/// Shared-memory floats of one block (+ 8 so the base can be aligned to 32 bytes).
constexpr int flash_tf32_smem_floats(int D, int BC) {
    return kFlashBr * tf32_stride(D) + 2 * BC * tf32_stride(D) + kFlashBr * (BC + 4) + 8;
}

/// One block computes O and lse for kFlashBr query rows of one head on tensor cores (blockIdx.x = query tile,
/// blockIdx.y = head); D ≥ max(d, dv), both multiples of 16.
template <int D, int BC>
__global__ void __launch_bounds__(kFlashThreads) flash_attention_tf32_kernel(FlashParams p) {
    namespace wmma = nvcuda::wmma;
    static_assert(D % 16 == 0 && BC % 16 == 0, "WMMA tiles are 16 × 16 × 8");
    constexpr int kLd = tf32_stride(D), kPLd = BC + 4;
    constexpr int kCols = BC / kFlashRowLanes, kOut = D / kFlashRowLanes;
    using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
    using FragBCol = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major>;
    using FragBRow = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
    using FragC = wmma::fragment<wmma::accumulator, 16, 16, 8, float>;
    extern __shared__ float smem[];
    // WMMA pointers must be 32-byte aligned: align the base once, every offset below is a multiple of 8 floats.
    float* base = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(smem) + 31) & ~uintptr_t(31));
    float* sQO = base;                   // (kBr, D)  TF32 s·Q; afterwards each warp's 16 rows hold its O accumulator
    float* sK = sQO + kFlashBr * kLd;    // (BC, D)   TF32 key tile
    float* sV = sK + BC * kLd;           // (BC, D)   TF32 value tile (columns ≥ dv are 0)
    float* sS = sV + BC * kLd;           // (kBr, BC) scores, then TF32 probabilities; each warp its own 16 rows

    const int tile = p.causal ? int(gridDim.x) - 1 - int(blockIdx.x) : int(blockIdx.x);
    const int h = blockIdx.y;
    const int i0 = tile * kFlashBr;
    const int rows = min(kFlashBr, p.n - i0);
    const int tid = threadIdx.x, warp = tid / kWarpSize, lane = tid % kWarpSize;
    const int rg = lane / kFlashRowLanes, cg = lane % kFlashRowLanes;
    const int wrow = rg * kFlashLaneRows;                  // first row of the lane inside its warp's 16
    const int row0 = warp * kFlashWarpRows + wrow;         // first row of the lane inside the tile
    float* sOw = sQO + warp * kFlashWarpRows * kLd;         // the warp's 16 rows (Q, then O)
    float* sSw = sS + warp * kFlashWarpRows * kPLd;

    const float* Qh = p.Q + int64_t(h) * p.n * p.d;
    const float* Kh = p.K + int64_t(h) * p.m * p.d;
    const float* Vh = p.V + int64_t(h) * p.m * p.dv;

    for (int e = tid; e < kFlashBr * D; e += kFlashThreads) {
        const int r = e / D, k = e % D;
        sQO[r * kLd + k] = (r < rows && k < p.d) ? wmma::__float_to_tf32(p.scale * Qh[int64_t(i0 + r) * p.d + k]) : 0.0f;
    }
    __syncthreads();
    FragA qa[D / 8];
#pragma unroll
    for (int kk = 0; kk < D / 8; ++kk) wmma::load_matrix_sync(qa[kk], sOw + kk * 8, kLd);
    __syncwarp();  // every lane has its Q fragments before the rows become the O accumulator
    for (int e = lane; e < kFlashWarpRows * kLd; e += kWarpSize) sOw[e] = 0.0f;

    OnlineSoftmaxRow state[kFlashLaneRows];
#pragma unroll
    for (int i = 0; i < kFlashLaneRows; ++i) state[i] = online_softmax_init();

    const int key_end = p.causal ? min(p.m, i0 + rows) : p.m;
    for (int j0 = 0; j0 < key_end; j0 += BC) {
        const int cols = min(BC, key_end - j0);
        __syncthreads();  // every warp is done with the previous K/V tile
        for (int e = tid; e < BC * D; e += kFlashThreads) {
            const int c = e / D, k = e % D;
            const bool in = c < cols;
            sK[c * kLd + k] = (in && k < p.d) ? wmma::__float_to_tf32(Kh[int64_t(j0 + c) * p.d + k]) : 0.0f;
            sV[c * kLd + k] = (in && k < p.dv) ? wmma::__float_to_tf32(Vh[int64_t(j0 + c) * p.dv + k]) : 0.0f;
        }
        __syncthreads();

        // S (16 × BC per warp) = (s·Q)·Kᵀ: Kᵀ is the key tile read column-major. The outer loops stay rolled
        // (the Q fragments already take D/2 registers per lane).
#pragma unroll 1
        for (int nb = 0; nb < BC / 16; ++nb) {
            FragC acc;
            wmma::fill_fragment(acc, 0.0f);
#pragma unroll
            for (int kk = 0; kk < D / 8; ++kk) {
                FragBCol kb;
                wmma::load_matrix_sync(kb, sK + nb * 16 * kLd + kk * 8, kLd);
                wmma::mma_sync(acc, qa[kk], kb, acc);
            }
            wmma::store_matrix_sync(sSw + nb * 16, acc, kPLd, wmma::mem_row_major);
        }
        __syncwarp();  // the warp's scores are in shared memory before the lanes read their rows

        // Online softmax per row (fp32), TF32 probabilities back into the slab, the lane's O elements rescaled.
#pragma unroll
        for (int i = 0; i < kFlashLaneRows; ++i) {
            const int query = i0 + row0 + i;
            float* srow = sSw + (wrow + i) * kPLd;
            float s[kCols];
            float block_max = -INFINITY;
#pragma unroll
            for (int j = 0; j < kCols; ++j) {
                const int c = cg + j * kFlashRowLanes;
                s[j] = (c >= cols || (p.causal && j0 + c > query)) ? kMaskedScore
                                                                    : apply_score_mod(p.mod, h, query, j0 + c, srow[c]);
                block_max = fmaxf(block_max, s[j]);
            }
            block_max = group_max<kFlashRowLanes>(block_max);
            const float new_max = online_softmax_new_max(state[i], block_max);
            const float rescale = online_softmax_rescale(state[i].m, new_max);
            const float shift = new_max == -INFINITY ? 0.0f : new_max;  // exp(−inf − 0) = 0, not NaN
            float block_sum = 0.0f;
#pragma unroll
            for (int j = 0; j < kCols; ++j) {
                const float prob = expf(s[j] - shift);  // exactly 0 for masked cells
                block_sum += prob;
                srow[cg + j * kFlashRowLanes] = wmma::__float_to_tf32(prob);
            }
            block_sum = group_sum<kFlashRowLanes>(block_sum);
            online_softmax_update(state[i], new_max, block_sum);
            float* orow = sOw + (wrow + i) * kLd;
#pragma unroll
            for (int o = 0; o < kOut; ++o) orow[cg + o * kFlashRowLanes] *= rescale;
        }
        __syncwarp();  // probabilities and rescaled O are in shared memory before the fragments load them

        // O (16 × D per warp) += P·V.
#pragma unroll 1
        for (int ob = 0; ob < D / 16; ++ob) {
            FragC o;
            wmma::load_matrix_sync(o, sOw + ob * 16, kLd, wmma::mem_row_major);
#pragma unroll
            for (int kk = 0; kk < BC / 8; ++kk) {
                FragA pa;
                FragBRow vb;
                wmma::load_matrix_sync(pa, sSw + kk * 8, kPLd);
                wmma::load_matrix_sync(vb, sV + kk * 8 * kLd + ob * 16, kLd);
                wmma::mma_sync(o, pa, vb, o);
            }
            wmma::store_matrix_sync(sOw + ob * 16, o, kLd, wmma::mem_row_major);
        }
        __syncwarp();  // O is stored before the lanes rescale it (next tile) or read it (below)
    }

#pragma unroll
    for (int i = 0; i < kFlashLaneRows; ++i) {
        const int r = row0 + i;
        if (r >= rows) continue;
        const int64_t out_row = int64_t(h) * p.n + i0 + r;
        const float inv = online_softmax_inv_sum(state[i]);
        const float* orow = sOw + (wrow + i) * kLd;
#pragma unroll
        for (int o = 0; o < kOut; ++o) {
            const int col = cg + o * kFlashRowLanes;
            if (col < p.dv) p.O[out_row * p.dv + col] = orow[col] * inv;
        }
        if (p.lse && cg == 0) p.lse[out_row] = online_softmax_lse(state[i]);
    }
}

/// Launches the tensor-core flash kernel for H heads on `stream` (device pointers); head dims up to
/// kMaxFlashHeadDim (the caller routes larger ones to the fp32 path). Throws Error when the launch fails.
void launch_flash_attention_tf32(cudaStream_t stream, const FlashParams& p, int H);

}  // namespace attnscope::cuda
