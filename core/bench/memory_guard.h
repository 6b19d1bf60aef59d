// attnscope — memory checked before a run starts. On the host: a run whose estimate (the variant's own, plus the
// n×n matrices the views ask for) exceeds the host limit (core/host_memory.h) is refused with the estimate and the
// limit. On a device backend (CUDA): a run whose estimate would not fit in the device's free memory is refused with a sentence that says how much was needed and free and
// offers the CPU, instead of failing half-way. Each CUDA primitive checks its own buffers again before it
// allocates (core/backend/cuda/common.cuh: require_device_memory), so a variant without an estimate is still guarded.
#pragma once
#include <cstdint>
#include <string>

#include "core/backend/interface/backend.h"
#include "core/variants/variant.h"

namespace attnscope {

/// "" when `need_bytes` fit in the free device memory of `backend` (or it has no device, or free memory is
/// unknown), else "<what> needs an estimated X MiB of device memory but only Y MiB are free: ...".
std::string device_memory_shortfall(int64_t need_bytes, Backend& backend, const std::string& what);

/// Device bytes a run of `variant` would hold: its estimate_peak_bytes plus the inputs, or -1 when the variant
/// keeps the conservative default estimate (then only the primitives' own checks apply).
int64_t device_estimate_bytes(const Variant& variant, int heads, int n, int d, int dv, const Params& resolved);

/// Throws DeviceMemoryError with device_memory_shortfall's sentence when the run would not fit.
void require_device_fit(const Variant& variant, const Heads& heads, const Params& resolved, Backend& backend);
/// Host bytes a run of `variant` would hold beyond its inputs: its estimate_peak_bytes, plus P̃ and the reason
/// mask per head when `explain_matrices` (n ≤ max_matrix_n).
int64_t host_estimate_bytes(const Variant& variant, const Heads& heads, const Params& resolved, bool explain_matrices);
/// Throws Error naming the estimate and the host limit when a run would not fit (device backends: the device
/// check instead, require_device_fit).
void require_fit(const Variant& variant, const Heads& heads, const Params& resolved, const RunOptions& options,
                 Backend& backend);

}  // namespace attnscope
