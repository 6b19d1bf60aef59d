// attnscope — what the llm.c-style kernel workbenches in core/backend/cuda/dev/ share: seeded inputs, element-wise
// validation of a device buffer against a CPU reference, and timing with CUDA events. Each workbench
// launches its kernels itself and must not call the library entry (cuda_primitives.h) of its own family:
// those headers define non-template kernels that the library's object of that family defines too.
#pragma once
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/backend/cuda/common.cuh"
#include "core/backend/shared/random.h"

namespace attnscope::dev {

/// Command-line argument k as an integer, or `fallback` when there are fewer arguments.
inline int int_arg(int argc, char** argv, int k, int fallback) { return argc > k ? std::atoi(argv[k]) : fallback; }

/// `count` standard normal floats from stream `seed` (core/backend/shared/random.h, as the CPU tests use).
inline std::vector<float> normal_floats(size_t count, uint64_t seed, float scale = 1.0f) {
    std::vector<float> out(count);
    for (size_t i = 0; i < count; ++i) out[i] = scale * float(rng::normal(seed, 0, i));
    return out;
}

/// A device copy of host data.
template <class T>
cuda::DeviceBuffer<T> to_device(const std::vector<T>& host, const char* what) {
    cuda::DeviceBuffer<T> buffer(host.size(), what);
    if (!host.empty())
        ATTNSCOPE_CUDA_CHECK(cudaMemcpy(buffer.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    return buffer;
}

/// Fills a device buffer with NaN (0xff bytes), so cells a kernel leaves unwritten fail validation.
template <class T>
void poison(cuda::DeviceBuffer<T>& buffer) {
    ATTNSCOPE_CUDA_CHECK(cudaMemset(buffer.get(), 0xff, buffer.bytes()));
}

/// |gpu − cpu| ≤ atol + rtol·|cpu| per element (equal infinities pass, NaN fails); prints the first mismatches.
inline bool validate(const char* name, const float* device, const std::vector<float>& ref, float atol, float rtol) {
    std::vector<float> out(ref.size());
    ATTNSCOPE_CUDA_CHECK(cudaMemcpy(out.data(), device, ref.size() * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const bool same_inf = std::isinf(ref[i]) && out[i] == ref[i];
        if (!same_inf && !(std::fabs(out[i] - ref[i]) <= atol + rtol * std::fabs(ref[i]))) {
            if (bad < 5) std::printf("  %s mismatch at %zu: cpu %.8g gpu %.8g\n", name, i, ref[i], out[i]);
            ++bad;
        }
    }
    std::printf("%s: %s (%zu of %zu elements outside atol %.1e + rtol %.1e)\n", name, bad ? "FAIL" : "OK", bad,
                ref.size(), double(atol), double(rtol));
    return bad == 0;
}

/// Mean milliseconds of `launch()` over `repeats` runs after one warm-up, by CUDA events on the default stream.
template <class Launch>
float time_ms(int repeats, Launch launch) {
    cudaEvent_t start, stop;
    ATTNSCOPE_CUDA_CHECK(cudaEventCreate(&start));
    ATTNSCOPE_CUDA_CHECK(cudaEventCreate(&stop));
    launch();
    ATTNSCOPE_CUDA_CHECK(cudaEventRecord(start));
    for (int r = 0; r < repeats; ++r) launch();
    ATTNSCOPE_CUDA_CHECK(cudaEventRecord(stop));
    ATTNSCOPE_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    ATTNSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    ATTNSCOPE_CUDA_CHECK(cudaEventDestroy(start));
    ATTNSCOPE_CUDA_CHECK(cudaEventDestroy(stop));
    return ms / float(repeats);
}

}  // namespace attnscope::dev
