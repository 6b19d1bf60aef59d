// attnscope — small device-side helpers shared by the kernels: warp-level reductions over lane groups.
// Every helper expects all 32 lanes of the warp to call it (full mask), so kernels never return early
// before a reduction.
#pragma once
#include <cuda_runtime.h>

namespace attnscope::cuda {

/// Lanes per warp.
constexpr int kWarpSize = 32;

/// Max over the `group` consecutive lanes that share lane / group (group a power of two ≤ 32).
template <int group>
__device__ __forceinline__ float group_max(float v) {
    static_assert(group >= 1 && group <= kWarpSize && (group & (group - 1)) == 0, "group must be a power of two");
#pragma unroll
    for (int offset = group / 2; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

/// Sum over the `group` consecutive lanes that share lane / group; every lane of the group gets the same value.
template <int group>
__device__ __forceinline__ float group_sum(float v) {
    static_assert(group >= 1 && group <= kWarpSize && (group & (group - 1)) == 0, "group must be a power of two");
#pragma unroll
    for (int offset = group / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

}  // namespace attnscope::cuda
