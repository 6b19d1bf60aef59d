// attnscope tests — the shared per-backend suite (ggml test-backend-ops style): every case is
// instantiated for every backend; a backend that is not available here is a visible GTEST_SKIP.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/backend/factory/make_backend.h"
#include "core/tensor.h"

namespace attnscope::test {

/// Every backend the suite runs on (CUDA cases skip where no device exists).
inline std::vector<std::string> suite_backends() { return {"cpu", "cuda"}; }

/// suite_backends() with "cpu-portable" after "cpu": for the suites of the primitives whose CPU code has a
/// hand-written vector kernel (flash, block-sparse, vslash), so the portable path a build without a vector ISA runs is
/// tested here too.
inline std::vector<std::string> kernel_suite_backends() {
    std::vector<std::string> out = suite_backends();
    out.insert(out.begin() + 1, "cpu-portable");
    return out;
}

/// A backend name as a test-name part (gtest allows letters, digits and '_').
inline std::string backend_test_name(std::string name) {
    for (char& c : name)
        if (c == '-') c = '_';
    return name;
}

/// Makes the named backend, or records why it cannot run here (empty pointer).
inline std::unique_ptr<Backend> make_backend_for_test(const std::string& name, std::string& skip_reason) {
    if (name == "cuda" && !cuda_device_available()) {
        skip_reason = "CUDA backend: " + cuda_unavailable_reason();
        return nullptr;
    }
    return make_backend(name);
}

/// Relative Frobenius error ‖a − b‖ / ‖b‖ over all heads (absolute when ‖b‖ = 0).
inline double rel_err(const Tensor3& a, const Tensor3& b) {
    double num = 0, den = 0;
    for (int64_t k = 0; k < b.size(); ++k) {
        const double diff = double(a.data()[k]) - double(b.data()[k]);
        num += diff * diff;
        den += double(b.data()[k]) * double(b.data()[k]);
    }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

}  // namespace attnscope::test

/// Declares `backend` for the current test's backend parameter, or skips the test with the reason.
#define ATTNSCOPE_BACKEND_OR_SKIP(backend, name)                                  \
    std::string attnscope_skip_reason_;                                           \
    auto backend = ::attnscope::test::make_backend_for_test(name, attnscope_skip_reason_); \
    if (!backend) GTEST_SKIP() << attnscope_skip_reason_
