// k-step reachability (core/analysis/reachability): against a brute-force boolean matrix power, and the two
// claims a learner is shown — the strided pattern reaches every j ≤ i in two steps, and BigBird's random
// blocks shorten paths.
#include "tests/unit/sparse_test_util.h"

#include "core/analysis/reachability.h"

namespace attnscope::test {
namespace {

class SparseReachability : public testing::TestWithParam<std::string> {};

TEST(SparseReachabilityHost, MatchesBooleanMatrixPower) {
    for (uint64_t seed = 0; seed < 8; ++seed) {
        const int n = 1 + static_cast<int>(rng::below(seed, 1, 0, 150));
        const double p = 0.5 * rng::uniform(seed, 1, 1) / std::max(1.0, std::sqrt(double(n)));
        const int steps = 1 + static_cast<int>(rng::below(seed, 1, 2, 5));
        const bool causal = seed % 2 == 1;
        std::cout << "[case] random graph seed=" << seed << " n=" << n << " p=" << p << " k=" << steps
                  << " causal=" << causal << "\n";
        Adjacency adj;
        adj.n = n;
        adj.row_ptr.assign(n + 1, 0);
        std::vector<uint8_t> A(static_cast<size_t>(n) * n, 0);
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j)
                if (rng::uniform(seed, 2, uint64_t(i) * n + j) < p) A[size_t(i) * n + j] = 1, adj.cols.push_back(j);
            adj.row_ptr[i + 1] = static_cast<int>(adj.cols.size());
        }
        const Reachability r = compute_reachability(adj, steps, causal);
        // Brute force: R_s = R_{s−1}·A over booleans; fewest hops = first s with R_s[i][j].
        std::vector<uint8_t> R = A, hops(A.size(), 0);
        for (int s = 1; s <= steps; ++s) {
            for (size_t c = 0; c < R.size(); ++c)
                if (R[c] && !hops[c]) hops[c] = static_cast<uint8_t>(s);
            std::vector<uint8_t> next(A.size(), 0);
            for (int i = 0; i < n; ++i)
                for (int k = 0; k < n; ++k)
                    if (R[size_t(i) * n + k])
                        for (int j = 0; j < n; ++j) next[size_t(i) * n + j] |= A[size_t(k) * n + j];
            R = next;
        }
        EXPECT_EQ(r.hops, hops);
        int64_t reached = 0, total = 0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j <= (causal ? i : n - 1); ++j) reached += hops[size_t(i) * n + j] != 0, ++total;
        EXPECT_EQ(r.target_pairs, total);
        EXPECT_NEAR(r.reached_fraction.back(), double(reached) / total, 1e-12);
    }
}

TEST_P(SparseReachability, StridedReachesEveryEarlierTokenInTwoSteps) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    for (int n : {16, 100, 257, 600}) {
        std::cout << "[case] backend=" << GetParam() << " strided union l=⌈√n⌉ n=" << n
                  << ": 2 steps reach all j ≤ i\n";
        const Heads x = random_heads(1, n, 4, 4, 1);
        std::optional<BlockLayout> layout;
        run_recorded(x, "strided", {{"head_pattern", "union"}}, *backend, &layout, false);
        const Reachability r = compute_reachability(layout_adjacency(*layout, -1), 2, true);
        EXPECT_DOUBLE_EQ(r.reached_fraction[1], 1.0);
        EXPECT_LT(r.reached_fraction[0], 1.0);
        EXPECT_EQ(r.max_hops, 2);
        // And the split heads compose the same way: the union of an A head and a B head (read from the reason
        // mask, in positions: the B head's layout is in residue order).
        const RunResult split =
            run_recorded(random_heads(2, n, 4, 4, 1), "strided", {{"head_pattern", "split"}}, *backend, &layout, true);
        ASSERT_FALSE(split.structure.blocks.value().perm.empty());
        EXPECT_DOUBLE_EQ(compute_reachability(mask_adjacency(*split.structure.mask, -1), 2, true).reached_fraction[1],
                         1.0);
    }
}

TEST_P(SparseReachability, BigBirdRandomBlocksShortenPaths) {
    ATTNSCOPE_BACKEND_OR_SKIP(backend, GetParam());
    std::cout << "[case] backend=" << GetParam() << " bigbird n=1024 b=16 g=0: r=3 vs r=0, k=8 steps\n";
    const Heads x = random_heads(1, 1024, 4, 4, 2);
    std::optional<BlockLayout> with_random, window_only;
    run_recorded(x, "bigbird", {{"global_blocks", "0"}, {"random_blocks", "3"}}, *backend, &with_random, false);
    run_recorded(x, "bigbird", {{"global_blocks", "0"}, {"random_blocks", "0"}}, *backend, &window_only, false);
    const Reachability a = compute_reachability(layout_adjacency(*with_random, 0), 8, false);
    const Reachability b = compute_reachability(layout_adjacency(*window_only, 0), 8, false);
    std::cout << "  r=3: " << reachability_summary(a) << "\n  r=0: " << reachability_summary(b) << "\n";
    // A window of 3 blocks moves 16 positions per step: 8 steps reach |i − j| < 144 at most.
    EXPECT_LT(b.reached_fraction.back(), 0.3);
    EXPECT_GT(a.reached_fraction.back(), 0.99);
    EXPECT_GT(a.reached_fraction[2], 3 * b.reached_fraction[2]);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, SparseReachability, testing::ValuesIn(suite_backends()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace attnscope::test
