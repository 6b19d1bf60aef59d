// attnscope — device memory checked before launch: a run on a device backend (CUDA) whose estimate would not
// fit in the device's free memory is refused with a sentence that says how much was needed and free and
// offers the CPU, instead of failing half-way. Each CUDA primitive checks its own buffers again before it
// allocates (kernels/common.cuh: require_device_memory), so a variant without an estimate is still guarded.
#pragma once
#include <cstdint>
#include <string>

#include "../backend/backend.h"
#include "../variants/variant.h"

namespace attnscope {

/// "" when `need_bytes` fit in the free device memory of `backend` (or it has no device, or free memory is
/// unknown), else "<what> needs an estimated X MiB of device memory but only Y MiB are free: ...".
std::string device_memory_shortfall(int64_t need_bytes, Backend& backend, const std::string& what);

/// Device bytes a run of `variant` would hold: its estimate_peak_bytes plus the inputs, or -1 when the variant
/// keeps the conservative default estimate (then only the primitives' own checks apply).
int64_t device_estimate_bytes(const Variant& variant, int heads, int n, int d, int dv, const Params& resolved);

/// Throws DeviceMemoryError with device_memory_shortfall's sentence when the run would not fit.
void require_device_fit(const Variant& variant, const Heads& heads, const Params& resolved, Backend& backend);

}  // namespace attnscope
