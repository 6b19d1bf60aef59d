// The host reduction pyramid (core/figure/reduction_pyramid.h) against its definition: every texel of level k is
// the reduction of exactly the level-0 cells it covers, found here by walking the footprint rule level by level.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/figure/reduction_pyramid.h"
#include "core/error.h"
#include "core/reason.h"

namespace attnscope {
namespace {

/// Level-0 index range [begin, end) under texel t of level k along a side of n cells: each level's texel t covers
/// texels 2t and 2t+1 below it, and the last texel also the odd remainder.
std::pair<int, int> footprint(int t, int k, int n) {
    int begin = t, end = t + 1;
    for (int level = k; level > 0; --level) {
        const int below = std::max(1, n >> (level - 1)), here = std::max(1, n >> level);
        begin = 2 * begin;
        end = end == here ? below : 2 * end;
    }
    return {begin, end};
}

/// The first texel whose value differs from its footprint's fold, as "level k (x, y)"; "" when all agree.
template <class T, class Fold>
std::string first_texel_off(const std::vector<std::vector<T>>& levels, const std::vector<T>& cells, int rows, int cols,
                            T start, const Fold& fold) {
    if (int(levels.size()) != pyramid_level_count(rows, cols) - 1) return "level count " + std::to_string(levels.size());
    for (int k = 1; k <= int(levels.size()); ++k) {
        const int w = std::max(1, cols >> k), h = std::max(1, rows >> k);
        if (levels[size_t(k - 1)].size() != size_t(w) * size_t(h)) return "size of level " + std::to_string(k);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const auto [r0, r1] = footprint(y, k, rows);
                const auto [c0, c1] = footprint(x, k, cols);
                T want = start;
                for (int r = r0; r < r1; ++r)
                    for (int c = c0; c < c1; ++c) want = fold(want, cells[size_t(r) * size_t(cols) + size_t(c)]);
                if (levels[size_t(k - 1)][size_t(y) * size_t(w) + size_t(x)] != want)
                    return "level " + std::to_string(k) + " (" + std::to_string(x) + ", " + std::to_string(y) + ")";
            }
    }
    return "";
}

std::vector<float> random_values(int n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = u(rng);
    return v;
}

TEST(ReductionPyramid, LevelCountsFollowGlMipChain) {
    EXPECT_EQ(pyramid_level_count(1, 1), 1);
    EXPECT_EQ(pyramid_level_count(127, 127), 7);
    EXPECT_EQ(pyramid_level_count(128, 3), 8);
    EXPECT_EQ(pyramid_level_count(301, 157), 9);
}

TEST(ReductionPyramid, EveryTexelReducesExactlyTheCellsUnderIt) {
    // Odd sides leave remainders at several levels; a 1-wide side stays 1 wide.
    for (const auto& [rows, cols] : std::vector<std::pair<int, int>>{{301, 157}, {127, 127}, {64, 9}, {1, 33}, {5, 1}}) {
        const std::vector<float> cells = random_values(rows * cols, uint32_t(rows * 1000 + cols));
        for (const PoolMode mode : {PoolMode::Max, PoolMode::SignedMaxAbs}) {
            const auto fold = [mode](float a, float v) { return pool_fold(mode, a, v); };
            EXPECT_EQ(first_texel_off(value_pyramid(cells.data(), rows, cols, mode), cells, rows, cols, pool_start(mode), fold), "")
                << rows << "×" << cols << (mode == PoolMode::Max ? " max" : " signed max-abs");
        }
    }
}

TEST(ReductionPyramid, MaskKeepsTheMostSalientReasonUnderEachTexel) {
    const int rows = 97, cols = 203;
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> reason(0, static_cast<int>(Reason::Count) - 1);
    std::vector<uint8_t> cells(size_t(rows) * cols);
    for (uint8_t& c : cells) c = uint8_t(reason(rng));
    const auto fold = [](uint8_t a, uint8_t r) { return most_salient(a, r); };
    EXPECT_EQ(first_texel_off(mask_pyramid(cells.data(), rows, cols), cells, rows, cols, uint8_t(0), fold), "");
}

TEST(ReductionPyramid, OneCellFeatureReachesTheTopLevel) {
    // The reason pyramids exist: a single large cell in the last, remainder column stays the maximum at every level.
    const int rows = 129, cols = 129;
    std::vector<float> cells(size_t(rows) * cols, 0.01f);
    cells[size_t(77) * cols + 128] = 0.9f;
    const auto levels = value_pyramid(cells.data(), rows, cols, PoolMode::Max);
    for (const auto& level : levels) EXPECT_FLOAT_EQ(*std::max_element(level.begin(), level.end()), 0.9f);
    EXPECT_FLOAT_EQ(levels.back().front(), 0.9f);
}

TEST(ReductionPyramid, CheckCatchesADroppedRemainder) {
    // The definition check can fail: a pyramid whose last column forgot the odd remainder is reported.
    const int rows = 16, cols = 17;
    std::vector<float> cells(size_t(rows) * cols, 0.0f);
    cells[size_t(3) * cols + 16] = 1.0f;  // only the remainder column holds it
    auto levels = value_pyramid(cells.data(), rows, cols, PoolMode::Max);
    levels[0][size_t(1) * 8 + 7] = 0.0f;  // as if level 1's last column read columns 14–15 only
    const auto fold = [](float a, float v) { return pool_fold(PoolMode::Max, a, v); };
    EXPECT_EQ(first_texel_off(levels, cells, rows, cols, pool_start(PoolMode::Max), fold), "level 1 (7, 1)");
}

TEST(ReductionPyramid, RefusesMeansAndEmptyMatrices) {
    const float one = 1;
    EXPECT_THROW(value_pyramid(&one, 1, 1, PoolMode::Mean), Error);
    EXPECT_THROW(value_pyramid(&one, 0, 1, PoolMode::Max), Error);
}

}  // namespace
}  // namespace attnscope
