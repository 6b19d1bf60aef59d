#include "core/backend/factory/make_backend.h"

#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cpu/cpu_primitives.h"

#ifdef ATTNSCOPE_HAVE_CUDA
#include "core/backend/cuda/cuda_backend.h"
#endif

namespace attnscope {

bool cuda_device_available() { return cuda_unavailable_reason().empty(); }

std::string cuda_unavailable_reason() {
#ifdef ATTNSCOPE_HAVE_CUDA
    return cuda_probe_device();
#else
    return "this build has no CUDA backend (configure with -DATTNSCOPE_CUDA=ON where nvcc exists)";
#endif
}

std::vector<std::string> available_backends() {
    std::vector<std::string> out{"cpu"};
    if (cuda_device_available()) out.push_back("cuda");
    return out;
}

std::unique_ptr<Backend> make_backend(const std::string& which) {
    if (which == "cpu") return std::make_unique<CpuBackend>();
    if (which == "cpu-portable") return std::make_unique<CpuBackend>(CpuKernels::Portable);
    if (which == "cuda" || which == "auto") {
        const std::string why = cuda_unavailable_reason();
        if (why.empty()) {
#ifdef ATTNSCOPE_HAVE_CUDA
            return make_cuda_backend();
#endif
        }
        if (which == "auto") return std::make_unique<CpuBackend>();
        throw Error("the CUDA backend is not available: " + why + "; use --backend cpu");
    }
    throw Error("unknown backend '" + which + "': choose " + kBackendChoices);
}

}  // namespace attnscope
