// attnscope — the flash kernel for head dims above kMaxFlashHeadDim (128): the sliced scheme of
// attention_tile.cuh applied to dense attention. For every key tile the scores are accumulated over feature
// slices of D = 128 (Q and K slices re-staged in shared memory), and the value columns are split over
// blockIdx.z in slices of D, each block recomputing the scores of its slice. The block body is
// flash_attention.cuh's (flash_attention_block, sliced); lse written by the slice-0 blocks. Included by
// flash_attention_wide.cu and by the CPU emulation tests (tests/emu).
#pragma once
#include "core/backend/cuda/flash_attention.cuh"

namespace attnscope::cuda {

/// One block: query tile blockIdx.x (last first when causal) of head blockIdx.y, output columns
/// [D·blockIdx.z, D·blockIdx.z + D); any d and dv (the dense FlashParams).
template <int D, int BC>
__global__ void __launch_bounds__(kFlashThreads) flash_attention_wide_kernel(FlashParams p) {
    flash_attention_block<D, BC, true>(p, int(blockIdx.z) * D);
}

/// Launches the wide flash kernel (D = 128, BC = 32, ⌈dv/128⌉ output slices) for H heads on `stream`; throws
/// Error when the launch fails or the grid would be too large.
void launch_flash_attention_wide(cudaStream_t stream, const FlashParams& p, int H);

}  // namespace attnscope::cuda
