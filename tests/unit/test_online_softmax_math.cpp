// The host/device online-softmax bookkeeping (core/backend/shared/online_softmax.h) on the host: folding scores
// one at a time and merging partial rows (as the CUDA row-softmax lanes do) give the two-pass log-sum-exp;
// empty rows stay empty without NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <vector>

#include "core/backend/shared/online_softmax.h"
#include "core/backend/shared/random.h"

namespace attnscope::test {
namespace {

double two_pass_lse(const std::vector<float>& s, size_t begin, size_t end) {
    double mx = -INFINITY;
    for (size_t j = begin; j < end; ++j) mx = std::max(mx, double(s[j]));
    double sum = 0;
    for (size_t j = begin; j < end; ++j) sum += std::exp(double(s[j]) - mx);
    return mx + std::log(sum);
}

OnlineSoftmaxRow fold(const std::vector<float>& s, size_t begin, size_t end) {
    OnlineSoftmaxRow row = online_softmax_init();
    for (size_t j = begin; j < end; ++j) {
        const float new_max = online_softmax_new_max(row, s[j]);
        online_softmax_update(row, new_max, std::exp(s[j] - new_max));
    }
    return row;
}

TEST(OnlineSoftmaxMath, FoldAndMergeMatchTwoPassLogSumExp) {
    for (float magnitude : {1.0f, 30.0f, 1e4f}) {
        std::cout << "[case] online softmax, 257 scores of magnitude " << magnitude << ", splits 0..257, tol 1e-5 rel\n";
        std::vector<float> s(257);
        for (size_t j = 0; j < s.size(); ++j) s[j] = magnitude * float(rng::normal(5, 1, j));
        const double ref = two_pass_lse(s, 0, s.size());
        const double tol = 1e-5 * std::max(1.0, std::abs(ref));
        EXPECT_NEAR(online_softmax_lse(fold(s, 0, s.size())), ref, tol);
        for (size_t split : {size_t(0), size_t(1), size_t(64), size_t(200), s.size()}) {
            const OnlineSoftmaxRow merged = online_softmax_merge(fold(s, 0, split), fold(s, split, s.size()));
            EXPECT_NEAR(online_softmax_lse(merged), ref, tol) << "split " << split;
            // Merging is symmetric up to rounding (a compiler may contract either product into an FMA).
            const OnlineSoftmaxRow swapped = online_softmax_merge(fold(s, split, s.size()), fold(s, 0, split));
            EXPECT_EQ(merged.m, swapped.m);
            EXPECT_NEAR(merged.l, swapped.l, 1e-6 * merged.l);
        }
    }
}

TEST(OnlineSoftmaxMath, EmptyRowsStayEmptyWithoutNaN) {
    std::cout << "[case] online softmax: empty rows, merge with empty, masked scores\n";
    const OnlineSoftmaxRow empty = online_softmax_init();
    EXPECT_EQ(online_softmax_lse(empty), -INFINITY);
    EXPECT_EQ(online_softmax_inv_sum(empty), 0.0f);
    const OnlineSoftmaxRow both = online_softmax_merge(empty, empty);
    EXPECT_EQ(both.m, -INFINITY);
    EXPECT_EQ(both.l, 0.0f);
    const OnlineSoftmaxRow one{2.0f, 1.0f};
    const OnlineSoftmaxRow kept = online_softmax_merge(empty, one);
    EXPECT_EQ(kept.m, 2.0f);
    EXPECT_EQ(kept.l, 1.0f);
    EXPECT_EQ(online_softmax_rescale(-INFINITY, 3.0f), 0.0f);
    EXPECT_FLOAT_EQ(online_softmax_lse(kept), 2.0f);
}

}  // namespace
}  // namespace attnscope::test
