// The vector layer the CPU kernels are written in (core/backend/cpu/simd/vec.h), op by op against scalar definitions,
// in the ISA this build compiles for: AVX-512 in a -march=native build on an AVX-512 CPU, AVX2 in CI's x86-64-v3
// sanitizer build. Without a vector ISA there is nothing to test (a visible skip).
#include "core/backend/cpu/simd/vec.h"  // first: it includes <immintrin.h> (see there)

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace attnscope {
namespace {

#if ATTNSCOPE_SIMD
using simd::kLanes;
using simd::Vec;

/// A vector's lanes as an array.
std::vector<float> lanes_of(Vec v) {
    std::vector<float> out(kLanes);
    simd::store(out.data(), v);
    return out;
}

/// A vector whose lane l is f(l).
template <class F>
Vec vec_of(F&& f) {
    std::vector<float> in(kLanes);
    for (int l = 0; l < kLanes; ++l) in[size_t(l)] = f(l);
    return simd::load(in.data());
}

/// The lanes a mask selects, as 0/1 (through select, the only way kernels read a mask lane by lane).
std::vector<int> mask_lanes(simd::Mask m) {
    const std::vector<float> v = lanes_of(simd::select(m, simd::set1(1.0f), simd::zero()));
    return std::vector<int>(v.begin(), v.end());
}

TEST(SimdVec, LaneCountIsTheIsasAndTheBuildsDescriptionNamesIt) {
    EXPECT_EQ(kLanes, kSimdLanes);
    EXPECT_EQ(kLanes, ATTNSCOPE_SIMD_AVX512 ? 16 : 8);
    EXPECT_STREQ(kCpuIsaName, ATTNSCOPE_SIMD_AVX512 ? "AVX-512" : "AVX2");
}

TEST(SimdVec, Exp2MatchesTheLibraryWithinItsPolynomialsErrorAndIsExactlyZeroForMinusInfinity) {
    // t over the range the softmax feeds it (≤ 0) and beyond, fractions included.
    double worst = 0;
    for (float t0 = -126.0f; t0 < 30.0f; t0 += 0.37f) {
        const std::vector<float> got = lanes_of(simd::exp2(vec_of([&](int l) { return t0 + 0.01f * float(l); })));
        for (int l = 0; l < kLanes; ++l) {
            const double t = double(t0 + 0.01f * float(l)), want = std::exp2(t);
            worst = std::max(worst, std::abs(double(got[size_t(l)]) - want) / want);
        }
    }
    EXPECT_LT(worst, 4e-7) << "relative error of exp2 against std::exp2";
    for (float x : lanes_of(simd::exp2(simd::set1(-INFINITY)))) EXPECT_EQ(x, 0.0f) << "exp2(−inf): a masked cell";
    for (float x : lanes_of(simd::exp2(simd::set1(-1000.0f)))) EXPECT_EQ(x, 0.0f) << "exp2(−1000) underflows to 0";
    for (float x : lanes_of(simd::exp2(simd::set1(0.0f)))) EXPECT_EQ(x, 1.0f) << "exp2(0)";
    for (float x : lanes_of(simd::exp2(simd::set1(200.0f)))) EXPECT_EQ(x, INFINITY) << "exp2(200) overflows to +inf";
    for (float x : lanes_of(simd::exp2(simd::set1(std::numeric_limits<float>::quiet_NaN()))))
        EXPECT_TRUE(std::isnan(x)) << "a NaN score stays NaN";
}

TEST(SimdVec, ArithmeticIsLaneWiseAndFusedOpsRoundOnce) {
    const Vec a = vec_of([](int l) { return 1.5f + float(l); }), b = vec_of([](int l) { return 0.25f * float(l) - 2.0f; });
    const Vec c = vec_of([](int l) { return float(l * l); });
    const auto add = lanes_of(simd::add(a, b)), sub = lanes_of(simd::sub(a, b)), mul = lanes_of(simd::mul(a, b));
    const auto mx = lanes_of(simd::max(a, b)), fma = lanes_of(simd::fmadd(a, b, c)), fms = lanes_of(simd::fmsub(a, b, c));
    const auto fnm = lanes_of(simd::fnmadd(a, b, c));
    for (int l = 0; l < kLanes; ++l) {
        const float x = 1.5f + float(l), y = 0.25f * float(l) - 2.0f, z = float(l * l);
        const size_t i = size_t(l);
        EXPECT_EQ(add[i], x + y);
        EXPECT_EQ(sub[i], x - y);
        EXPECT_EQ(mul[i], x * y);
        EXPECT_EQ(mx[i], std::max(x, y));
        EXPECT_EQ(fma[i], std::fma(x, y, z));
        EXPECT_EQ(fms[i], std::fma(x, y, -z));
        EXPECT_EQ(fnm[i], std::fma(-x, y, z));
    }
    EXPECT_EQ(simd::reduce_add(a), [&] { float s = 0; for (int l = 0; l < kLanes; ++l) s += 1.5f + float(l); return s; }());
    EXPECT_EQ(simd::reduce_max(b), 0.25f * float(kLanes - 1) - 2.0f);
    EXPECT_EQ(simd::reduce_max(vec_of([](int l) { return l == 3 ? 7.0f : -INFINITY; })), 7.0f);
}

TEST(SimdVec, MasksSelectTheLanesTheirNamesSay) {
    for (int count : {-3, 0, 1, kLanes / 2, kLanes - 1, kLanes, kLanes + 5}) {
        const std::vector<int> first = mask_lanes(simd::first_lanes(count));
        for (int l = 0; l < kLanes; ++l) EXPECT_EQ(first[size_t(l)], l < count ? 1 : 0) << "first_lanes(" << count << ")";
    }
    const std::vector<int> between = mask_lanes(simd::lanes_between(2, kLanes - 1));
    for (int l = 0; l < kLanes; ++l) EXPECT_EQ(between[size_t(l)], l >= 2 && l < kLanes - 1 ? 1 : 0);
    // lanes_below(key, first): lane l is query first + l, set when that query precedes the key (a future key).
    const std::vector<int> below = mask_lanes(simd::lanes_below(103, 100));
    for (int l = 0; l < kLanes; ++l) EXPECT_EQ(below[size_t(l)], 100 + l < 103 ? 1 : 0);
    const Vec v = vec_of([](int l) { return l % 3 == 0 ? -INFINITY : float(l); });
    const std::vector<int> eq = mask_lanes(simd::equal(v, simd::set1(-INFINITY)));
    for (int l = 0; l < kLanes; ++l) EXPECT_EQ(eq[size_t(l)], l % 3 == 0 ? 1 : 0);
    EXPECT_FALSE(simd::any(simd::first_lanes(0)));
    EXPECT_TRUE(simd::any(simd::lanes_between(kLanes - 1, kLanes)));
    const std::vector<int> both = mask_lanes(simd::mask_and(simd::first_lanes(5), simd::lanes_between(3, kLanes)));
    for (int l = 0; l < kLanes; ++l) EXPECT_EQ(both[size_t(l)], l >= 3 && l < 5 ? 1 : 0);
}

TEST(SimdVec, PartialLoadsAndStoresTouchOnlyTheirLanes) {
    std::vector<float> src(size_t(2 * kLanes)), dst(size_t(2 * kLanes), -7.0f);
    for (int i = 0; i < 2 * kLanes; ++i) src[size_t(i)] = float(i + 1);
    for (int count = 0; count <= kLanes; ++count) {
        const std::vector<float> got = lanes_of(simd::load_first(src.data(), count));
        for (int l = 0; l < kLanes; ++l) EXPECT_EQ(got[size_t(l)], l < count ? float(l + 1) : 0.0f);
        std::fill(dst.begin(), dst.end(), -7.0f);
        simd::store_first(dst.data(), simd::set1(3.0f), count);
        for (int i = 0; i < 2 * kLanes; ++i) EXPECT_EQ(dst[size_t(i)], i < count ? 3.0f : -7.0f) << "count " << count;
    }
}

TEST(SimdVec, TransposeAndTransposeSumFollowTheMatrix) {
    Vec rows[kLanes], sums_in[kLanes];
    for (int r = 0; r < kLanes; ++r) {
        rows[r] = vec_of([&](int c) { return float(100 * r + c); });
        sums_in[r] = vec_of([&](int c) { return float(r) + 0.5f * float(c); });
    }
    simd::transpose(rows);
    for (int c = 0; c < kLanes; ++c) {
        const std::vector<float> column = lanes_of(rows[c]);
        for (int r = 0; r < kLanes; ++r) EXPECT_EQ(column[size_t(r)], float(100 * r + c)) << "row " << r << ", column " << c;
    }
    const std::vector<float> sums = lanes_of(simd::transpose_sum(sums_in));
    for (int r = 0; r < kLanes; ++r) {
        float want = 0;
        for (int c = 0; c < kLanes; ++c) want += float(r) + 0.5f * float(c);
        EXPECT_EQ(sums[size_t(r)], want) << "lane " << r << " sums vector " << r;
    }
}

TEST(SimdVec, IntegerLanesAndGatherReadOnlyWhatTheMaskAllows) {
    std::vector<int> idx(static_cast<size_t>(kLanes));
    for (int l = 0; l < kLanes; ++l) idx[size_t(l)] = 3 * l;
    const simd::IVec loaded = simd::iload_first(idx.data(), kLanes - 2);
    std::vector<int> back(size_t(kLanes), -1);
    simd::istore(back.data(), simd::imax(simd::isub(loaded, simd::iset1(4)), simd::iset1(0)));
    for (int l = 0; l < kLanes; ++l) EXPECT_EQ(back[size_t(l)], l < kLanes - 2 ? std::max(3 * l - 4, 0) : 0);
    const std::vector<float> as_float = lanes_of(simd::to_float(loaded));
    for (int l = 0; l < kLanes; ++l) EXPECT_EQ(as_float[size_t(l)], l < kLanes - 2 ? float(3 * l) : 0.0f);
    const std::vector<int> ge = mask_lanes(simd::igreater_equal(loaded, simd::iset1(6)));
    for (int l = 0; l < kLanes; ++l) EXPECT_EQ(ge[size_t(l)], l < kLanes - 2 && 3 * l >= 6 ? 1 : 0);
    // Gather: the masked-off lanes point far outside the table, so reading them would be caught by ASan.
    std::vector<float> table(size_t(3 * kLanes));
    for (size_t i = 0; i < table.size(); ++i) table[i] = 0.5f * float(i);
    std::vector<int> far(idx);
    far[size_t(kLanes - 1)] = 1 << 28;
    const std::vector<float> g =
        lanes_of(simd::gather(simd::first_lanes(kLanes - 1), table.data(), simd::iload_first(far.data(), kLanes)));
    for (int l = 0; l < kLanes; ++l) EXPECT_EQ(g[size_t(l)], l < kLanes - 1 ? 0.5f * float(3 * l) : 0.0f);
}
#else
TEST(SimdVec, NoVectorIsaInThisBuild) {
    GTEST_SKIP() << "built without AVX2 or AVX-512 (" << kCpuIsaName << "): the kernels run their Eigen paths";
}
#endif

}  // namespace
}  // namespace attnscope
