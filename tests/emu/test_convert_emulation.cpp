// The 16-bit conversion kernels of core/backend/cuda/narrow.cuh (CUTLASS's bf16 and fp16 attention rounds Q, K, V and
// widens O with them) through the emulation shim: every element converted, in each format the template flag names,
// nothing written past the output, ragged element counts included. The rounding itself is checked exhaustively
// against its definition in tests/unit/test_half_rounding.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <vector>

#include "core/backend/cuda/narrow.cuh"
#include "core/backend/shared/random.h"

namespace attnscope::test {
namespace {

constexpr uint16_t kSentinel = 0xBEEF;
constexpr int kFence = 64;

/// Inputs with what rounding can get wrong: ties, subnormals, overflow to infinity, zeros of both signs, NaN.
std::vector<float> inputs(int64_t count) {
    std::vector<float> x(static_cast<size_t>(count));
    for (int64_t k = 0; k < count; ++k) x[size_t(k)] = float(3.0 * rng::normal(5, 0, uint64_t(k)));
    const float specials[] = {1.00390625f, 1.01171875f, 65519.0f, 65520.0f, 1e-6f, 6e-8f, -0.0f, 0.0f, 3e38f,
                              std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
    for (size_t k = 0; k < std::size(specials) && k < x.size(); ++k) x[k * 7 % x.size()] = specials[k];
    return x;
}

/// Narrows x with narrow_kernel<kBf16> and widens the result with widen_kernel<kBf16>, fenced.
template <bool kBf16>
void check_round_trip(int64_t count) {
    std::cout << "[case] emulated narrow_kernel/widen_kernel " << (kBf16 ? "bf16" : "fp16") << " count=" << count
              << " exact\n";
    const std::vector<float> x = inputs(count);
    std::vector<uint16_t> narrow(static_cast<size_t>(count + kFence), kSentinel);
    std::vector<float> wide(static_cast<size_t>(count + kFence), -7.0f);
    const dim3 grid(unsigned((count + cuda::kConvertThreads - 1) / cuda::kConvertThreads)), block(cuda::kConvertThreads);
    cuda_emu::launch(grid, block, 0, [&] { cuda::narrow_kernel<kBf16>(x.data(), narrow.data(), count); });
    cuda_emu::launch(grid, block, 0, [&] { cuda::widen_kernel<kBf16>(narrow.data(), wide.data(), count); });
    for (int64_t k = 0; k < count; ++k) {
        const uint16_t expected = kBf16 ? float_to_bf16(x[size_t(k)]) : float_to_f16(x[size_t(k)]);
        ASSERT_EQ(narrow[size_t(k)], expected) << "element " << k << " of " << count << " (x = " << x[size_t(k)] << ")";
        const float back = kBf16 ? bf16_to_float(expected) : f16_to_float(expected);
        if (std::isnan(back)) ASSERT_TRUE(std::isnan(wide[size_t(k)])) << "element " << k;
        else ASSERT_EQ(wide[size_t(k)], back) << "element " << k;
    }
    for (int k = 0; k < kFence; ++k) {
        ASSERT_EQ(narrow[size_t(count + k)], kSentinel) << "narrow_kernel wrote past the end";
        ASSERT_EQ(wide[size_t(count + k)], -7.0f) << "widen_kernel wrote past the end";
    }
}

TEST(ConvertKernelsEmulated, NarrowAndWidenEveryElementInTheFormatTheyName) {
    for (int64_t count : {int64_t(1), int64_t(255), int64_t(256), int64_t(1000)}) {
        check_round_trip<true>(count);
        check_round_trip<false>(count);
    }
}

}  // namespace
}  // namespace attnscope::test
