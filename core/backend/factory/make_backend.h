// attnscope — choosing a backend by name. The only place that knows whether CUDA was compiled in.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/backend/interface/backend.h"

namespace attnscope {

/// True when this build has the CUDA backend and a CUDA device is present.
bool cuda_device_available();
/// Why CUDA is not available (empty when it is), e.g. "built without CUDA" or "no CUDA device found".
std::string cuda_unavailable_reason();
/// Backends usable now, e.g. {"cpu"} or {"cpu", "cuda"}.
std::vector<std::string> available_backends();
/// The backend names make_backend accepts, for option help texts.
inline constexpr const char* kBackendChoices =
    "auto, cpu, cuda, or cpu-portable (the CPU without its hand-written AVX-512 / AVX2 kernels: what a build without a "
    "vector ISA runs)";
/// Makes "cpu", "cpu-portable", "cuda" or "auto" (CUDA when a device exists, else CPU); throws Error for an unknown
/// name or for "cuda" without a device (saying why).
std::unique_ptr<Backend> make_backend(const std::string& which);

}  // namespace attnscope
