// float → bfloat16 / binary16 rounding (core/backend/shared/half.h), checked over every 16-bit value against the definition:
// a value the format holds converts to itself, a value between two neighbours goes to the nearer one, and a tie to
// the one with an even last bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>

#include "core/backend/shared/half.h"

namespace attnscope::test {
namespace {

/// Checks `narrow` (float → bits) against `widen` (bits → float) over every positive finite pattern below `inf_bits`
/// and its negative twin: exact values map to themselves; the midpoint to the next finite pattern and one float ulp
/// either side of it round by the definition. Returns the number of failures (each printed once, at most 5).
template <class Narrow, class Widen>
int check_rounding(Narrow narrow, Widen widen, uint16_t inf_bits) {
    int failures = 0;
    auto expect = [&](float x, uint16_t want, const char* what) {
        for (const float v : {x, -x}) {
            const uint16_t got = narrow(v), w = static_cast<uint16_t>(want | (std::signbit(v) ? 0x8000u : 0u));
            if (got != w && failures++ < 5)
                std::cout << what << ": " << v << " gave 0x" << std::hex << got << ", expected 0x" << w << std::dec << "\n";
        }
    };
    for (uint32_t b = 0; b < inf_bits; ++b) {
        const float lo = widen(static_cast<uint16_t>(b)), hi = widen(static_cast<uint16_t>(b + 1));
        expect(lo, static_cast<uint16_t>(b), "exact");
        if (std::isinf(hi)) break;  // the largest finite value: its overflow is checked by the tests below
        const float mid = lo + 0.5f * (hi - lo);  // exact in float: the 16-bit formats carry far fewer mantissa bits
        expect(mid, static_cast<uint16_t>(b % 2 == 0 ? b : b + 1), "tie to even");
        expect(std::nextafter(mid, hi), static_cast<uint16_t>(b + 1), "above the midpoint");
        expect(std::nextafter(mid, 0.0f), static_cast<uint16_t>(b), "below the midpoint");
    }
    return failures;
}

TEST(HalfRounding, Bf16RoundsToNearestEven) {
    std::cout << "[case] float → bf16: every finite bf16, its midpoints and their neighbours\n";
    EXPECT_EQ(check_rounding(float_to_bf16, bf16_to_float, 0x7F80u), 0);
    EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::infinity()), 0x7F80u);
    EXPECT_EQ(float_to_bf16(-std::numeric_limits<float>::infinity()), 0xFF80u);
    EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(HalfRounding, F16RoundsToNearestEvenWithSubnormalsAndOverflow) {
    std::cout << "[case] float → f16: every finite half (subnormals included), its midpoints and their neighbours\n";
    EXPECT_EQ(check_rounding(float_to_f16, f16_to_float, 0x7C00u), 0);
    EXPECT_EQ(float_to_f16(65519.0f), 0x7BFFu) << "below the midpoint to 2¹⁶: the largest half, 65504";
    EXPECT_EQ(float_to_f16(65520.0f), 0x7C00u) << "the midpoint to 2¹⁶ ties to even: inf";
    EXPECT_EQ(float_to_f16(1e9f), 0x7C00u);
    EXPECT_EQ(float_to_f16(-1e9f), 0xFC00u);
    EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -25)), 0x0000u) << "half the smallest subnormal ties to even: 0";
    EXPECT_EQ(float_to_f16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001u);
    EXPECT_TRUE(std::isnan(f16_to_float(float_to_f16(std::numeric_limits<float>::quiet_NaN()))));
}

}  // namespace
}  // namespace attnscope::test
